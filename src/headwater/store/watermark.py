"""How far the graph is derived from the log (the projection's watermark), and what comes next.

Every event makes at least one observation (its run, its JobEvent or its dataset; an event that could
not be derived, an ``error`` observation) and the observations are written in the same transaction as
the derived rows, so the newest observed event is the watermark: no bookkeeping table of its own.
Readers that need to know whether the graph has seen an event (the read barrier, the visibility
policy's cache, the graph export) ask here, not the projector.
"""

from __future__ import annotations

from typing import Protocol

import sqlalchemy as sa

from headwater.store import codec
from headwater.store.schema import events, observations

_WATERMARK = sa.select(sa.func.max(observations.c.event_seq))


class LogPlace(Protocol):
    """An event's place in the log: its position and its id."""

    @property
    def seq(self) -> int: ...

    @property
    def id(self) -> str: ...


LogEvent = codec.LogRow  # an event of the log as the projector reads it: its text decompressed


def projected_seq(conn: sa.Connection) -> int:
    """How far the graph is derived: every event up to this ``seq`` is projected."""
    return int(conn.scalar(_WATERMARK) or 0)


def log_events(conn: sa.Connection, where: sa.ColumnElement[bool], limit: int | None = None) -> list[LogEvent]:
    """The log's events that match ``where``, oldest first (at most ``limit``)."""
    query = sa.select(events.c.seq, events.c.id, *codec.TEXT_COLUMNS).where(where).order_by(events.c.seq)
    if limit is not None:
        query = query.limit(limit)
    return codec.log_rows(conn, conn.execute(query).all())


def pending_events(conn: sa.Connection, after: int, limit: int) -> list[LogEvent]:
    """The next ``limit`` events of the log after ``seq`` ``after``, oldest first."""
    return log_events(conn, events.c.seq > after, limit)
