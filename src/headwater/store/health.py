"""What an operator watches, read from the database at once (no wait for the projector).

- :func:`projection_lag`: how many events the graph is behind the log, and for how long the oldest event
  not yet derived has waited (its arrival, ``received_at``, to now). Both come from the database, so every
  server on one PostgreSQL store answers the same.
- :func:`clock_skew`: how far producers' clocks are off, seen on the newest events: each event's
  ``eventTime`` against the moment it arrived. An event hours ahead of its arrival comes from a producer
  whose clock (or whose ``eventTime``) is wrong; the graph still files it at its event time (lineage time
  is event time), so an operator needs to see it here.
- :func:`pool_state`: the connection pool of this process (SQLAlchemy's queue pool).

Each query reads the log by its primary key (``seq``): cheap on a log of any length.
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa

from headwater.model.times import now_micros
from headwater.store.schema import events, observations

SKEW_SAMPLE = 1_000  # newest events the clock-skew figures are taken over
SKEWED = 300_000_000  # microseconds (5 min) an event time may be off its arrival before it counts as skewed


@dataclass(frozen=True)
class ProjectionLag:
    """``log``/``graph``: newest event seq in the log / in the graph; ``seconds``: how long the oldest event
    not yet derived has waited since it arrived (0 when the graph is caught up)."""

    log: int
    graph: int
    seconds: float

    @property
    def events(self) -> int:
        return max(self.log - self.graph, 0)


@dataclass(frozen=True)
class ClockSkew:
    """Event time minus arrival, over the newest ``sample`` events: the most ahead (positive seconds: event
    times in the future of their arrival) and most behind (positive seconds: in the past), and how many of
    them are off by more than five minutes either way."""

    sample: int
    ahead_seconds: float
    behind_seconds: float
    skewed_ahead: int
    skewed_behind: int


@dataclass(frozen=True)
class PoolState:
    """This process's database connections: the pool's size, connections checked out now, idle in the pool,
    and beyond the pool's size (overflow)."""

    size: int
    checked_out: int
    idle: int
    overflow: int


def projection_lag(conn: sa.Connection, now: int | None = None) -> ProjectionLag:
    head, done = conn.execute(
        sa.select(
            sa.select(sa.func.max(events.c.seq)).scalar_subquery(),
            sa.select(sa.func.max(observations.c.event_seq)).scalar_subquery(),
        )
    ).one()
    head, done = int(head or 0), int(done or 0)
    if head <= done:
        return ProjectionLag(head, done, 0.0)
    oldest = conn.scalar(sa.select(events.c.received_at).where(events.c.seq > done).order_by(events.c.seq).limit(1))
    waited = ((now if now is not None else now_micros()) - int(oldest)) / 1e6 if oldest is not None else 0.0
    return ProjectionLag(head, done, max(waited, 0.0))


def clock_skew(conn: sa.Connection, sample: int = SKEW_SAMPLE) -> ClockSkew:
    newest = (
        sa.select((events.c.event_time - events.c.received_at).label("skew"))
        .order_by(events.c.seq.desc())
        .limit(sample)
        .subquery()
    )
    count, high, low, ahead, behind = conn.execute(
        sa.select(
            sa.func.count(),
            sa.func.max(newest.c.skew),
            sa.func.min(newest.c.skew),
            sa.func.sum(sa.case((newest.c.skew > SKEWED, 1), else_=0)),
            sa.func.sum(sa.case((newest.c.skew < -SKEWED, 1), else_=0)),
        )
    ).one()
    return ClockSkew(
        sample=int(count or 0),
        ahead_seconds=max(int(high or 0), 0) / 1e6,
        behind_seconds=max(-int(low or 0), 0) / 1e6,
        skewed_ahead=int(ahead or 0),
        skewed_behind=int(behind or 0),
    )


def pool_state(engine: sa.Engine) -> PoolState:
    pool = engine.pool
    if not isinstance(pool, sa.pool.QueuePool):  # an in-memory SQLite store: one static connection
        return PoolState(size=1, checked_out=0, idle=1, overflow=0)
    return PoolState(
        size=pool.size(), checked_out=pool.checkedout(), idle=pool.checkedin(), overflow=max(pool.overflow(), 0)
    )
