"""The RDD jobs of one tracked application (``saveAsTextFile``, ``collect`` over files, ``SparkContext.runJob``).

The RDD wrappers (:mod:`headwater.capture.rdd`) call the tracker on the job's thread; :meth:`RddJobs.submit` only
takes the RDD's JVM handle and hands over. On the emitter's worker thread the RDD graph is read over py4j (its input
files, its name, its Spark jobs' totals) and analysed by the pure
:func:`headwater.capture.lineage.rdd_job.rdd_job_lineage` into START + COMPLETE/FAIL of an ``RDD_JOB``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from openlineage.client.uuid import generate_new_uuid

from headwater.capture.config import AgentConfig
from headwater.capture.events import PRODUCER, RDD_JOB, Execution, Failure
from headwater.capture.jvmtypes import JavaObject, PySparkObject
from headwater.capture.naming import application_job_name
from headwater.capture.plain import Outgoing

if TYPE_CHECKING:
    from headwater.capture.lineage.rdd_job import RddJobLineage

log = logging.getLogger("headwater.capture")

Build = Callable[[], Sequence[Outgoing]]


@dataclass(frozen=True)
class RddCall:
    """One finished RDD save or action, as its wrapper saw it on the job's thread."""

    path: str | None  # where a save wrote; None for an action
    started: float
    ended: float
    failure: Failure | None
    action: bool = False
    python_map: bool = False  # Spark ran a Python map over the RDD first (runJob)
    jobs: tuple[int, int] | None = None  # the Spark jobs it ran (first, last)


@dataclass
class RddJobs:
    """``submit`` on the job's thread; the rest on the worker. ``item`` wraps a worker item (debug stats),
    ``events`` makes the events of executions (plain for the transport when it takes them)."""

    sc: PySparkObject
    config: AgentConfig
    app_name: str
    stopped: Callable[[], bool]
    hand_over: Callable[[Build], object]
    item: Callable[[Build], Build]
    events: Callable[[list[Execution]], list[Outgoing]]

    def submit(self, rdd: PySparkObject, call: RddCall) -> None:
        """On the job's thread: the RDD's JVM handle, handed to the worker (:meth:`_events_of`)."""
        if self.stopped() or self.config.rdd_events_disabled:
            return
        jrdd = rdd._jrdd
        self.hand_over(self.item(lambda: self._events_of(jrdd, call)))

    def _events_of(self, jrdd: JavaObject, call: RddCall) -> list[Outgoing]:
        """Worker thread: the RDD's input files and name over py4j, then the pure analysis
        (:func:`headwater.capture.lineage.rdd_job.rdd_job_lineage`) → START + COMPLETE/FAIL of an RDD_JOB."""
        from headwater.capture.lineage.handlers.reads import rdd_input_paths
        from headwater.capture.lineage.rdd_job import RddJobRead, RddReporting, rdd_job_lineage, wants_statistics
        from headwater.capture.rdd import name_rdd

        root = jrdd.rdd()
        config = self.config
        read = RddJobRead(
            app_job=application_job_name(self.app_name, config.job_name_style),
            rdd_name=name_rdd(root),
            input_paths=rdd_input_paths(root),
            output_path=call.path,
            action=call.action,
            python_map=call.python_map,
        )
        reporting = RddReporting(
            namespace_resolvers=config.namespace_resolvers,
            emit_read_only=config.emit_read_only,
            emit_without_output=config.emit_without_output,
            disabled_facets=config.disabled_facets,
        )
        lineage = rdd_job_lineage(read, reporting)
        if lineage is None:
            return []
        if call.jobs is not None and wants_statistics(lineage):
            self._statistics(call.jobs, lineage)
        execution = Execution(
            run_id=str(generate_new_uuid()),
            job_name=lineage.job_name,
            started=call.started,
            ended=call.ended,
            inputs=list(lineage.inputs),
            outputs=list(lineage.outputs),
            failure=call.failure,
            job_type=RDD_JOB,
        )
        return self.events([execution])

    def _statistics(self, jobs: tuple[int, int], lineage: RddJobLineage) -> None:
        """``inputStatistics`` / ``outputStatistics`` of an RDD job from its Spark jobs' stage metrics (py4j)."""
        from headwater.capture.lineage.rdd_job import JobTotals, with_statistics
        from headwater.capture.rdd import job_statistics

        try:
            totals = job_statistics(self.sc, jobs)
        except Exception as exc:  # noqa: BLE001 - statistics are left out
            log.debug("headwater: RDD job statistics not read: %s", exc)
            return
        read = JobTotals(totals["inputRecords"], totals["inputBytes"], totals["outputRecords"], totals["outputBytes"])
        with_statistics(lineage, read, self.config.disabled_facets, PRODUCER)
