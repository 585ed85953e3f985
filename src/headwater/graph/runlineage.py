"""Upstream run lineage (Marquez's ``/api/v1/runlineage/upstream``): a run, the runs that produced what
it read, and theirs, to a depth.

The producer of an input is the newest run that wrote that dataset (an ``output`` observation) at or
before the reading run started, other than the run itself: the version the run could have read.
"""

from __future__ import annotations

import sqlalchemy as sa

from headwater.graph.answers import Run, UpstreamInput, UpstreamStep
from headwater.graph.details import run
from headwater.model.times import parse_time, to_micros
from headwater.store.schema import events, observations


def _producer(conn: sa.Connection, dataset_id: str, before: int, reader: str) -> str | None:
    found = conn.scalar(
        sa.select(events.c.run_id)
        .select_from(observations.join(events, events.c.seq == observations.c.event_seq))
        .where(
            observations.c.node == dataset_id,
            observations.c.role == "output",
            observations.c.time <= before,
            events.c.run_id.is_not(None),
            events.c.run_id != reader,
        )
        .order_by(observations.c.time.desc(), observations.c.event_seq.desc())
        .limit(1)
    )
    return None if found is None else str(found)


def upstream_runs(conn: sa.Connection, run_id: str, depth: int) -> list[UpstreamStep]:
    """``[{run: Run, inputs: [{dataset, producedByRunId}]}]``: the run first, then upstream, breadth first
    (each run once); ``depth`` hops of producers at most. Raises NodeNotFound for an unknown run."""
    steps: list[UpstreamStep] = []
    frontier = [run(conn, run_id)]
    seen = {run_id}
    for level in range(depth + 1):
        following: list[Run] = []
        for current in frontier:
            started = current.get("startedAt")
            when = to_micros(parse_time(started)) if isinstance(started, str) else 0
            inputs: list[UpstreamInput] = []
            for dataset_id in current.get("inputs") or []:
                producer = _producer(conn, dataset_id, when, current["runId"])
                inputs.append({"dataset": dataset_id, "producedByRunId": producer})
                if producer is not None and producer not in seen and level < depth:
                    seen.add(producer)
                    following.append(run(conn, producer))
            steps.append({"run": current, "inputs": inputs})
        frontier = following
        if not frontier:
            break
    return steps
