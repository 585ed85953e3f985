"""Counts over time (Marquez's ``/api/v1/stats/*``): lineage events by type, and how many jobs, datasets
and sources (dataset namespaces) existed, per hour of the last day or per day of the last week.

Times are event times (``eventTime``; a node's creation is its first event), as every graph read. A
day's buckets are the 24 hours ending with the current one (UTC); a week's the 7 days ending with
today in ``timezone``. Jobs, datasets and sources are cumulative (how many existed by each bucket's
end), lineage events per bucket, as Marquez counts them.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import sqlalchemy as sa

from headwater.graph.answers import StatsBucket
from headwater.model.times import iso, to_micros
from headwater.store.schema import datasets, events, jobs, observations

PERIODS = ("DAY", "WEEK")
KINDS = ("lineage-events", "jobs", "datasets", "sources")
_EVENT_TYPES = ("FAIL", "START", "COMPLETE", "ABORT")


def buckets(period: str, timezone: str | None, now: datetime) -> list[tuple[datetime, datetime]]:
    """The [start, end) intervals of ``period`` ending with the one holding ``now``; ValueError names a bad input."""
    if period == "DAY":
        hour = now.astimezone(UTC).replace(minute=0, second=0, microsecond=0)
        return [(hour - timedelta(hours=23 - i), hour - timedelta(hours=22 - i)) for i in range(24)]
    if period != "WEEK":
        raise ValueError(f"period must be DAY or WEEK, got {period!r}")
    try:
        zone = ZoneInfo(timezone or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"timezone {timezone!r} is not an IANA time zone (e.g. Europe/Paris)") from None
    today = now.astimezone(zone).date()
    days = [today - timedelta(days=6 - i) for i in range(8)]
    starts = [datetime(d.year, d.month, d.day, tzinfo=zone) for d in days]
    return [(starts[i], starts[i + 1]) for i in range(7)]


def _visible(table: sa.Table, hidden: Collection[str]) -> sa.ColumnElement[bool]:
    return sa.true() if not hidden else table.c.id.not_in(sorted(hidden))


def _created_by(conn: sa.Connection, kind: str, end: int, hidden: Collection[str]) -> int:
    if kind == "sources":
        first = (
            sa.select(datasets.c.namespace, sa.func.min(datasets.c.created_at).label("first"))
            .where(_visible(datasets, hidden))
            .group_by(datasets.c.namespace)
            .subquery()
        )
        query = sa.select(sa.func.count()).select_from(first).where(first.c.first < end)
    else:
        table = jobs if kind == "jobs" else datasets
        query = sa.select(sa.func.count()).select_from(table).where(table.c.created_at < end, _visible(table, hidden))
    return int(conn.scalar(query) or 0)


def stats(
    conn: sa.Connection, kind: str, intervals: list[tuple[datetime, datetime]], *, hidden: Collection[str] = ()
) -> list[StatsBucket]:
    """One record per interval: ``{startInterval, endInterval, count}``, or for ``lineage-events``
    ``{startInterval, endInterval, fail, start, complete, abort}``. ``hidden``: dataset and job ids counted as
    if they did not exist, and the events that observed them (graph/visibility.py)."""
    if kind not in KINDS:
        raise ValueError(f"no statistics of {kind!r}; there are {', '.join(KINDS)}")
    out: list[StatsBucket] = []
    for start, end in intervals:
        s, e = to_micros(start), to_micros(end)
        record: StatsBucket = {"startInterval": iso(s), "endInterval": iso(e)}
        if kind == "lineage-events":
            counted = dict.fromkeys(_EVENT_TYPES, 0)
            query = sa.select(events.c.event_type, sa.func.count()).where(
                events.c.event_time >= s, events.c.event_time < e, events.c.event_type.in_(_EVENT_TYPES)
            )
            if hidden:
                seen = sa.select(observations.c.event_seq).where(observations.c.node.in_(sorted(hidden)))
                query = query.where(events.c.seq.not_in(seen))
            rows = conn.execute(query.group_by(events.c.event_type))
            for event_type, count in rows:
                counted[str(event_type)] = int(count)
            record["fail"], record["start"] = counted["FAIL"], counted["START"]
            record["complete"], record["abort"] = counted["COMPLETE"], counted["ABORT"]
        else:
            record["count"] = _created_by(conn, kind, e, hidden)
        out.append(record)
    return out
