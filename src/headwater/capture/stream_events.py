"""Spark's streaming query events, heard for one tracked application: a PySpark ``StreamingQueryListener``
(:func:`headwater.capture.streaming.make_listener`) calls :meth:`StreamEvents.started` / ``progress`` /
``terminated`` on Spark's streaming listener thread; each copies plain values (and, once per query run, takes the
plan's snapshot over py4j) and hands the building of events to the emitter's worker, where
:class:`headwater.capture.streaming.Streams` keeps the queries' runs. Nothing here raises into the query."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from headwater.capture.delivery import OnceLogger
from headwater.capture.events import Failure
from headwater.capture.jvmtypes import JavaObject, PySparkObject
from headwater.capture.plain import Outgoing
from headwater.capture.streaming import QueryProgress, QueryStarted, Streams, make_listener, spark_time, stream_plan

if TYPE_CHECKING:
    from headwater.capture.lineage import PlanSnapshot, QueryLineage

log = logging.getLogger("headwater.capture")
N = TypeVar("N", int, float)


@dataclass
class StreamEvents:
    """``submit(build)``: hand a worker item to the emitter; ``plain_if``: events in the form the transport takes;
    ``enabled``: whether capture still listens (events arriving while ``stop`` drains the bus are taken)."""

    spark: PySparkObject
    streams: Streams
    snapshot: Callable[[JavaObject, int | None], PlanSnapshot | None]
    analyze: Callable[[PlanSnapshot], QueryLineage | None]
    submit: Callable[[Callable[[], Sequence[Outgoing]]], object]
    plain_if: Callable[[Sequence[Outgoing]], list[Outgoing]]
    errors: OnceLogger
    enabled: Callable[[], bool]
    _listener: PySparkObject = field(default=None, init=False)
    _lineage_read: set[str] = field(default_factory=set, init=False)  # query runs whose plan was read

    def start(self) -> None:
        try:
            self._listener = make_listener(self)
            self.spark.streams.addListener(self._listener)
        except Exception as exc:  # noqa: BLE001 - streaming queries are then not reported; nothing else changes
            self._listener = None
            log.debug("headwater: streaming query listener not registered: %s", exc)

    def stop(self) -> None:
        if self._listener is not None:
            try:
                self.spark.streams.removeListener(self._listener)
            except Exception:  # noqa: BLE001 - the JVM may already be gone
                pass

    def callback(self, handle: Callable[[], None]) -> None:
        """Spark's streaming listener thread: run ``handle`` (copy values, hand over); never raise. Events still
        arriving while ``stop`` drains the listener bus are taken (the listener is switched off after that)."""
        if not self.enabled():
            return
        try:
            handle()
        except Exception as exc:  # noqa: BLE001 - capture never fails the job
            self.errors.capture_failed("streaming", "a streaming query event", "the query", exc)

    def _query(self, query_id: str) -> JavaObject:
        """The running query's ``StreamExecution`` (py4j), or None."""
        query = self.spark.streams.get(query_id)
        return query._jsq.streamingQuery() if query is not None else None

    def started(self, event: PySparkObject) -> None:
        query_id = str(event.id)
        session = None
        try:
            execution = self._query(query_id)
            session = str(execution.sparkSessionForStream().sessionUUID()) if execution is not None else None
        except Exception as exc:  # noqa: BLE001 - foreachBatch writes are then reported as jobs of their own
            log.debug("headwater: the streaming query's session is not known: %s", exc)
        info = QueryStarted(query_id, str(event.runId), event.name or None, spark_time(event.timestamp), session)
        self.submit(lambda: self.streams.started(info))

    def progress(self, progress: PySparkObject) -> None:
        query_id, run = str(progress.id), str(progress.runId)
        sink = getattr(getattr(progress, "sink", None), "description", None)
        snap = None
        if run not in self._lineage_read:
            self._lineage_read.add(run)
            execution = self._query(query_id)
            if execution is not None:
                snap = self.snapshot(stream_plan(execution, self.spark.sparkContext._jvm), None)

        def events() -> list[Outgoing]:
            lineage = self.analyze(snap) if snap is not None else None
            info = QueryProgress(
                query_id,
                int(progress.batchId),
                _number(progress.numInputRows, int),
                _number(progress.inputRowsPerSecond, float),
                _number(progress.processedRowsPerSecond, float),
                spark_time(progress.timestamp),
                lineage,
                sink,
            )
            return self.plain_if(self.streams.progress(info))

        self.submit(events)

    def terminated(self, event: PySparkObject) -> None:
        message = getattr(event, "exception", None)
        failure = Failure(message=str(message).splitlines()[0], stack_trace=str(message)) if message else None
        ended = time.time()
        query_id = str(event.id)
        self.submit(lambda: self.plain_if(self.streams.terminated(query_id, failure, ended)))


def _number(value: PySparkObject, kind: Callable[[PySparkObject], N]) -> N | None:
    try:
        return None if value is None else kind(value)
    except (TypeError, ValueError):
        return None
