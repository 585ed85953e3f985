"""Which rules of derivation the graph was derived by, and whether it needs a rebuild.

The graph is the pure derivation of the log (store/projector.py); the derivation's rules are the code's. When a
release changes what they make of the same events (a deletion marker removing a facet, a run's state, what a
JobEvent leaves out), a graph derived before is not what a rebuild gives, and new events are derived on top of
it by the new rules. :data:`RULES` is raised with every such change; ``graph_rules`` (one row) holds the rules
the graph was derived by, written by a rebuild (every row derived anew) and by opening a store that has
derived nothing yet. A store whose graph was derived by other rules, or by rules never recorded while it holds
events, says so (``headwater db status``, ``GET /api/v1/status``, a warning when a server starts) until
``headwater db rebuild``: nothing is rebuilt unasked (a rebuild of a big store takes its time and its lock).
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa

from headwater.model.times import now_micros
from headwater.store.schema import events, graph_rules, observations

# 1: the rules before they were recorded. 2: a facet sent as {"_deleted": true} removes the facet; a run's state
# is its last terminal event's once it has one; a JobEvent says only what it sends.
RULES = 2


@dataclass(frozen=True)
class GraphRules:
    """The rules the graph was derived by (None: never recorded), this code's, and whether a rebuild is due."""

    graph: int | None
    current: int
    rebuild_needed: bool


def graph_rules_of(conn: sa.Connection) -> GraphRules:
    graph = conn.scalar(sa.select(graph_rules.c.rules).where(graph_rules.c.id == 1))
    derived_any = graph is None and conn.scalar(sa.select(observations.c.node).limit(1)) is not None
    return GraphRules(graph, RULES, graph != RULES if graph is not None else derived_any)


def record(conn: sa.Connection) -> None:
    """The graph is derived by this code's rules now (in the transaction that derived it all)."""
    conn.execute(graph_rules.delete())
    conn.execute(graph_rules.insert().values(id=1, rules=RULES, set_at=now_micros()))


def settle(conn: sa.Connection) -> None:
    """Record this code's rules for a store that derived nothing yet (nothing in the log, no rules recorded)."""
    if conn.scalar(sa.select(graph_rules.c.id).limit(1)) is not None:
        return
    if (
        conn.scalar(sa.select(events.c.seq).limit(1)) is None
        and conn.scalar(sa.select(observations.c.node).limit(1)) is None
    ):
        record(conn)
