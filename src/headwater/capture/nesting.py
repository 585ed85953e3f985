"""Fold the executions Spark starts inside a running command into that command: one user action, one job.

One write can be several Spark SQL executions. On Spark 4, ``df.write.saveAsTable`` runs
``SaveAsV1TableCommand``, which runs ``CreateDataSourceTableAsSelectCommand``, which runs
``InsertIntoHadoopFsRelationCommand`` — three executions, each reported to the listener when it ends,
innermost first (Spark 3.5: the last two). Reported one by one they would be three jobs writing the
same table.

The rule, which needs no clock and no extra call into the JVM: Spark numbers an execution when it
*starts* and the listener hears of it when it *ends*. An execution reported *after* one with a larger
id started before it and ended after it — it contained it. If the two also write the same dataset,
the inner one is part of the outer one: it is absorbed (its output statistics kept where the outer
has none, inputs only it saw added, the earlier start time kept) and only the outermost is reported. Writes to other datasets,
and executions of other threads that merely overlap in time, are left alone.

The outer report follows the inner within milliseconds (the outer command only updates the catalog
after its inner write), so each write is held for a short grace period
(``spark.headwater.nesting.graceSeconds``, default 2 s) before it is released on its own; ``flush`` and
``stop`` release everything held. Holding costs the job nothing: it happens on the agent's worker
thread. Executions without an id (Spark before 3.4) pass straight through.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import attr
from openlineage.client.event_v2 import OutputDataset

from headwater.capture.events import Execution

STATISTICS = "outputStatistics"
COLUMN_LINEAGE = "columnLineage"


@dataclass
class _Held:
    execution: Execution
    keys: frozenset[tuple[str, str]]
    since: float


def output_keys(execution: Execution) -> frozenset[tuple[str, str]]:
    return frozenset((o.namespace, o.name) for o in execution.outputs)


def absorb(outer: Execution, inner: Execution) -> Execution:
    """``outer`` with what only ``inner`` knew: the earlier start, output statistics of shared outputs, and the
    inner write's column lineage — the write Spark ran holds the optimized query (inferred filters included),
    which is the lineage the OpenLineage integration reports for it; the outer command's query is not optimized."""
    by_key = {(o.namespace, o.name): o for o in inner.outputs}
    outputs: list[OutputDataset] = []
    for out in outer.outputs:
        twin = by_key.get((out.namespace, out.name))
        if twin is not None:
            facets = dict(out.outputFacets or {})
            found = (twin.outputFacets or {}).get(STATISTICS)
            if found is not None and STATISTICS not in facets:
                facets[STATISTICS] = found
                out = attr.evolve(out, outputFacets=facets)
            lineage = (twin.facets or {}).get(COLUMN_LINEAGE)
            if lineage is not None:
                out = attr.evolve(out, facets={**(out.facets or {}), COLUMN_LINEAGE: lineage})
        outputs.append(out)
    known = {(i.namespace, i.name) for i in outer.inputs}
    inputs = [*outer.inputs, *(i for i in inner.inputs if (i.namespace, i.name) not in known)]
    return replace(outer, started=min(outer.started, inner.started), inputs=inputs, outputs=outputs)


class NestedWrites:
    """Holds finished writes for ``grace`` seconds so their outer command can absorb them.

    Not thread-safe by design: the agent calls it only from its single worker thread.
    """

    def __init__(self, grace: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.grace = grace
        self._clock = clock
        self._held: list[_Held] = []
        self.absorbed = 0

    @property
    def holding(self) -> int:
        return len(self._held)

    def add(self, execution: Execution) -> list[Execution]:
        """Take one finished execution; return the executions that are now ready to report."""
        keys = output_keys(execution)
        if execution.execution_id is None or not keys or self.grace <= 0:
            return [*self.due(), execution]
        kept: list[_Held] = []
        for held in self._held:
            inner_id = held.execution.execution_id
            if inner_id is not None and inner_id > execution.execution_id and held.keys & keys:
                execution = absorb(execution, held.execution)
                self.absorbed += 1
            else:
                kept.append(held)
        self._held = kept
        ready = self.due()
        self._held.append(_Held(execution, keys, self._clock()))
        return ready

    def due(self) -> list[Execution]:
        """The held executions whose grace period is over (oldest first)."""
        now = self._clock()
        ready = [h.execution for h in self._held if now - h.since >= self.grace]
        self._held = [h for h in self._held if now - h.since < self.grace]
        return ready

    def drain(self) -> list[Execution]:
        """Everything held, now (flush, stop)."""
        ready = [h.execution for h in self._held]
        self._held = []
        return ready
