"""``headwater db rebuild``: drop every derived row and the observation index, then replay the whole log.

An event that cannot be observed or whose observations cannot be stored is recorded as failed
(:mod:`headwater.store.projection_failures`, listed by ``GET /api/v1/status``) and the rebuild goes on;
a failure while deriving the nodes still fails the rebuild as a whole. The nodes are derived by the
projector's full path (:func:`headwater.store.projector.derive_nodes`), so a rebuild gives the graph
that events applied one by one give.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa

from headwater.store import fields, rules
from headwater.store.eventlog import NewEvent, insert_observations
from headwater.store.projection_failures import mark_failed
from headwater.store.projector import ProjectionMemo, derive_nodes, node_group, observe_row
from headwater.store.schema import DERIVED_TABLES, events, observations
from headwater.store.watermark import LogEvent, pending_events


def _observed(conn: sa.Connection, rows: Sequence[LogEvent], memo: ProjectionMemo) -> list[NewEvent]:
    """Observe ``rows`` and insert their observations; an event that cannot be observed or stored is
    recorded as failed (as the background projector does) instead of failing the whole rebuild."""
    new: list[NewEvent] = []
    for r in rows:
        try:
            new.append(observe_row(r, memo))
        except Exception as exc:  # noqa: BLE001 - recorded; GET /api/v1/status lists it
            mark_failed(conn, r, f"{type(exc).__name__}: {exc}")
    try:
        with conn.begin_nested():
            insert_observations(conn, new)
        return new
    except Exception:  # noqa: BLE001 - find the event whose observations cannot be stored
        stored: list[NewEvent] = []
        for n in new:
            try:
                with conn.begin_nested():
                    insert_observations(conn, [n])
                stored.append(n)
            except Exception as exc:  # noqa: BLE001 - recorded; GET /api/v1/status lists it
                mark_failed(conn, n, f"{type(exc).__name__}: {exc}")
        return stored


def rebuild_all(conn: sa.Connection, batch_size: int = 1000) -> int:
    """Drop every derived row and the observation index, then replay the whole event log; answers how many
    events were replayed.

    After ``headwater db prune`` the log no longer holds the pruned events: their observations that the
    graph still derives from (what they said about jobs and datasets, the pruned runs' job samples) are
    the snapshot a rebuild starts from, so they stay, and their nodes are derived again with the rest."""
    for table in DERIVED_TABLES:
        conn.execute(table.delete())
    fields.clear(conn)  # refilled with the fields the derived column edges name
    conn.execute(observations.delete().where(observations.c.event_seq.in_(sa.select(events.c.seq))))
    count = 0
    last_seq = 0
    memo = ProjectionMemo()
    nodes: dict[str, set[str]] = {"run": set(), "job": set(), "dataset": set()}
    kept = sa.select(observations.c.node, observations.c.role).where(observations.c.role != "error").distinct()
    for node, role in conn.execute(kept):
        nodes[node_group(role)].add(node)
    while rows := pending_events(conn, last_seq, batch_size):
        for n in _observed(conn, rows, memo):
            for o in n.observations:
                nodes[node_group(o.role)].add(o.node)
        count += len(rows)
        last_seq = rows[-1].seq
    derive_nodes(conn, nodes["run"], nodes["job"], nodes["dataset"], memo.json)
    rules.record(conn)  # every derived row is this code's now
    return count
