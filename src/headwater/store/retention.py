"""Retention: ``headwater db prune --before T`` removes raw events and run history older than ``T``.

What goes: every event of the log whose event time is before ``T``, except the events of runs still
active at or after ``T`` (a run is pruned as a whole: its last event is before ``T``); the pruned
runs' rows (``runs``), their run observations, and the validation warnings and failure records of the
pruned events.

What stays: the graph's current state and every version still valid after ``T``, unchanged. The
graph is derived from the observation index (what each event said about each job and dataset), so
that index is the compacted snapshot the pruned events leave behind: their job and dataset
observations stay (the raw payload and the run goes), and each pruned run leaves its *job sample*
(the run's inputs, outputs, job facets and column lineage, role ``jobrun`` on the job node, filed
under the run's newest event): a job's versions are derived from its runs' samples. ``rebuild``
starts from that snapshot and replays the log that remains, which gives the same graph as the one
pruned, and events arriving later (late ones from before ``T`` too) are derived against it exactly
as against the whole history: the graph equals the unpruned graph without the pruned runs
(tests/store/test_retention.py). One exception: an event of a run already pruned starts that run
anew from what arrives (its job sample is then the new run's).

Every sample is kept, not only those that begin a version: a late event between two equal samples
splits a version, and the later sample then begins one again.

``store_horizon`` records ``T`` (the largest pruned so far): as-of reads before it answer
"history pruned" (``410 history_pruned``) instead of a graph without its runs.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from headwater.model.jsontext import loads_text
from headwater.model.nodeid import run_node_id
from headwater.store.parts import observation_rows, read_column, read_observations
from headwater.store.projector import JOB_RUN_ROLE
from headwater.store.schema import event_warnings, events, observations, runs, store_horizon
from headwater.store.watermark import projected_seq

HORIZON = "pruned_before"
PRUNED_SEQ = "pruned_seq"  # the log position at the last prune
_RUNS_PER_STEP = 500


@dataclass(frozen=True)
class PruneResult:
    """What one prune removed: events from the log, runs, and the job samples it kept in their place."""

    before: int  # microseconds: the new horizon
    events: int
    runs: int
    job_samples: int


def pruned_before(conn: sa.Connection) -> int | None:
    """The event time (microseconds) before which history was pruned; None when it never was."""
    return _setting(conn, HORIZON)


def _setting(conn: sa.Connection, name: str) -> int | None:
    value = conn.scalar(sa.select(store_horizon.c.value).where(store_horizon.c.name == name))
    return None if value is None else int(value)


def _record(conn: sa.Connection, name: str, value: int, now: int) -> None:
    update = store_horizon.update().where(store_horizon.c.name == name).values(value=value, updated_at=now)
    if conn.execute(update).rowcount == 0:
        conn.execute(store_horizon.insert().values(name=name, value=value, updated_at=now))


def _keep_samples(conn: sa.Connection, before: int) -> int:
    """Write the ``jobrun`` observation (the job sample) of every run about to be pruned; returns how many."""
    back_after = _setting(conn, PRUNED_SEQ)  # runs seen after the last prune may have been pruned once already
    kept = 0
    after = ""
    while True:
        batch = list(
            conn.execute(
                sa.select(runs)
                .where(runs.c.updated_at < before, runs.c.run_id > after)
                .order_by(runs.c.run_id)
                .limit(_RUNS_PER_STEP)
            )
        )
        if not batch:
            return kept
        after = batch[-1].run_id
        rows: list[dict[str, Any]] = []
        stale: list[tuple[str, int]] = []
        by_node = {run_node_id(r.run_id): r for r in batch}
        newest: dict[str, tuple[int, str]] = {}  # run node -> (seq, id) of its newest event: the sample's key
        for o in conn.execute(
            sa.select(observations.c.node, observations.c.event_seq, observations.c.event_id).where(
                observations.c.node.in_(list(by_node)), observations.c.role == "run"
            )
        ):
            if o.node not in newest or newest[o.node][0] < o.event_seq:
                newest[o.node] = (int(o.event_seq), o.event_id)
        runs_of_job: dict[str, set[str]] = defaultdict(set)
        for node, r in by_node.items():
            if back_after is not None and node in newest and newest[node][0] > back_after:
                runs_of_job[r.job].add(r.run_id)
        samples = conn.execute(  # a run pruned before, back through a late event and pruned again: one sample
            sa.select(observations.c.node, observations.c.event_seq, observations.c.data).where(
                observations.c.node.in_(list(runs_of_job)), observations.c.role == JOB_RUN_ROLE
            )
        ).all()
        for o, d in zip(samples, read_observations(conn, [o.data for o in samples]), strict=True):
            if d["runId"] in runs_of_job[o.node]:
                stale.append((o.node, int(o.event_seq)))
        for node, r in by_node.items():
            if node not in newest:
                continue  # no run observation: nothing derived it (cannot happen for a projected run)
            seq, eid = newest[node]
            data = {
                "runId": r.run_id,
                "inputs": loads_text(r.inputs),
                "outputs": loads_text(r.outputs),
                "jobFacets": read_column(conn, r.job_facets),
                "columnLineage": read_column(conn, r.column_lineage),
                "parentJob": r.parent_job,
            }
            rows.append(
                {
                    "node": r.job,
                    "event_seq": seq,
                    "role": JOB_RUN_ROLE,
                    "time": r.started_at,
                    "event_id": eid,
                    "data": data,
                }
            )
        for node, seq in stale:
            conn.execute(
                observations.delete().where(
                    observations.c.node == node, observations.c.event_seq == seq, observations.c.role == JOB_RUN_ROLE
                )
            )
        if rows:
            conn.execute(observations.insert(), observation_rows(conn, rows))
        kept += len(rows)


def prune(conn: sa.Connection, before: int, now: int) -> PruneResult:
    """Remove raw events and runs older than ``before`` (microseconds); the caller holds the writers' lock
    and the graph is caught up with the log (every event projected)."""
    old_runs = runs.c.updated_at < before
    kept = _keep_samples(conn, before)
    active = sa.exists().where(runs.c.run_id == events.c.run_id, runs.c.updated_at >= before)
    gone = sa.and_(events.c.event_time < before, ~active)
    conn.execute(
        observations.delete().where(
            observations.c.role.in_(("run", "error")), observations.c.event_seq.in_(sa.select(events.c.seq).where(gone))
        )
    )
    conn.execute(event_warnings.delete().where(event_warnings.c.event_id.in_(sa.select(events.c.id).where(gone))))
    removed_events = conn.execute(events.delete().where(gone)).rowcount
    removed_runs = conn.execute(runs.delete().where(old_runs)).rowcount
    horizon = max(before, pruned_before(conn) or before)
    _record(conn, HORIZON, horizon, now)
    _record(conn, PRUNED_SEQ, projected_seq(conn), now)
    return PruneResult(before=horizon, events=int(removed_events), runs=int(removed_runs), job_samples=kept)
