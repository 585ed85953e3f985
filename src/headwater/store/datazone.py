"""The DataZone lineage API's own records (migration 0008): the one module that reads and writes them.

Two tables, not derived from the log (``headwater db rebuild`` leaves them alone):

- ``datazone_events``: which domain each event was posted to with PostLineageEvent, with its
  ``Client-Token``, sender and time (the event itself is in the log's ``events``). A token names one
  request in its domain: :meth:`DataZoneRecords.record_event` keeps the first record of an event and
  raises :class:`TokenConflict` when the token already names another event.
- ``datazone_nodes``: the DataZone node id of every graph node id the API handed out, so that a
  DataZone id resolves back (:meth:`DataZoneRecords.remember_nodes`, :meth:`DataZoneRecords.node_of`).

Reads of the posted events join the log (``seq`` and the raw text come with each row) and page by
``(event_time, event_id)``. Writes go through the store's write connection (on SQLite its transaction
begins IMMEDIATE, so a read turning into a write never fails with "database is locked").
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

import sqlalchemy as sa

from headwater.model.times import now_micros
from headwater.store import codec
from headwater.store.schema import datazone_events, datazone_nodes, events

if TYPE_CHECKING:
    from headwater.store.store import Store

ProcessingStatus = Literal["REQUESTED", "PROCESSING", "SUCCESS", "FAILED"]


class TokenConflict(Exception):
    """A ``Client-Token`` already names another event in the domain."""

    def __init__(self, domain: str, token: str) -> None:
        super().__init__(f"Client-Token {token!r} names another event in domain {domain}")
        self.domain = domain
        self.token = token


@dataclass(frozen=True)
class PostedEvent:
    """An event posted to a domain, with its place in the log."""

    event_id: str  # the log's event id (64 hex digits)
    event_time: int  # microseconds since the epoch
    created_by: str | None  # the SigV4 access key id that signed the post
    created_at: int  # microseconds since the epoch
    seq: int  # the event's position in the log
    raw: str  # the event as it was sent


@dataclass(frozen=True)
class StatusFilter:
    """Only the events of one processing status, given where the graph stands and what failed."""

    status: ProcessingStatus
    graph_seq: int  # every event up to this log position is derived
    failed: frozenset[str]  # the log ids of events the projector could not derive


_COLUMNS = (
    datazone_events.c.event_id,
    datazone_events.c.event_time,
    datazone_events.c.created_by,
    datazone_events.c.created_at,
    events.c.seq,
    *codec.TEXT_COLUMNS,
)
_JOINED = datazone_events.join(events, events.c.id == datazone_events.c.event_id)


class _PostedRow(codec.StoredText, Protocol):
    """A row of ``_COLUMNS``."""

    @property
    def event_id(self) -> str: ...
    @property
    def event_time(self) -> int: ...
    @property
    def created_by(self) -> str | None: ...
    @property
    def created_at(self) -> int: ...
    @property
    def seq(self) -> int: ...


def _posted(conn: sa.Connection, row: _PostedRow) -> PostedEvent:
    """A row of ``_COLUMNS``, its event's text decompressed."""
    return PostedEvent(
        row.event_id, int(row.event_time), row.created_by, int(row.created_at), int(row.seq), codec.text(conn, row)
    )


class DataZoneRecords:
    """The DataZone tables of one store."""

    def __init__(self, store: Store) -> None:
        self._store = store

    # --- posted events -------------------------------------------------------------------------------------

    def token_event(self, domain: str, token: str) -> str | None:
        """The log id of the event this token was first sent with in the domain, if any."""
        with self._store.engine.connect() as conn:
            return _token_event(conn, domain, token)

    def record_event(self, domain: str, log_id: str, token: str | None, created_by: str | None) -> None:
        """Record that the event (already durably in the log) was posted to the domain; the first record of an
        event stays. Raises :class:`TokenConflict` when the token names another event of the domain."""
        with self._store.write_connection() as conn, conn.begin():
            event_time = conn.scalar(sa.select(events.c.event_time).where(events.c.id == log_id))
            known = conn.execute(
                sa.select(datazone_events.c.client_token).where(
                    datazone_events.c.domain_id == domain, datazone_events.c.event_id == log_id
                )
            ).first()
            if known is not None:
                return
            try:
                with conn.begin_nested():
                    conn.execute(
                        datazone_events.insert().values(
                            domain_id=domain,
                            event_id=log_id,
                            event_time=int(event_time or 0),
                            client_token=token,
                            created_by=created_by,
                            created_at=now_micros(),
                        )
                    )
            except sa.exc.IntegrityError:
                if token is not None and _token_event(conn, domain, token) not in (None, log_id):
                    raise TokenConflict(domain, token) from None

    def find_event(self, domain: str, prefix: str) -> PostedEvent | None:
        """The first event posted to the domain (by time of posting) whose log id starts with ``prefix``."""
        low, high = prefix, prefix + "f" * (64 - len(prefix))
        with self._store.engine.connect() as conn:
            row = conn.execute(
                sa.select(*_COLUMNS)
                .select_from(_JOINED)
                .where(
                    datazone_events.c.domain_id == domain,
                    datazone_events.c.event_id >= low,
                    datazone_events.c.event_id <= high,
                )
                .order_by(datazone_events.c.created_at, datazone_events.c.event_id)
                .limit(1)
            ).first()
            if row is None or not row.event_id.startswith(prefix):
                return None
            return _posted(conn, row)

    def list_events(
        self,
        domain: str,
        *,
        after_time: int | None,
        before_time: int | None,
        status: StatusFilter | None,
        descending: bool,
        after: tuple[int, str] | None,
        limit: int,
    ) -> list[PostedEvent]:
        """At most ``limit`` events posted to the domain with an event time strictly between ``after_time`` and
        ``before_time`` (microseconds; None: no bound), ordered by ``(event_time, event_id)``, starting after the
        key ``after`` (the last key of the page before)."""
        query = sa.select(*_COLUMNS).select_from(_JOINED).where(datazone_events.c.domain_id == domain)
        if after_time is not None:
            query = query.where(datazone_events.c.event_time > after_time)
        if before_time is not None:
            query = query.where(datazone_events.c.event_time < before_time)
        if status is not None:
            query = query.where(_status_condition(status))
        key = (datazone_events.c.event_time, datazone_events.c.event_id)
        if after is not None:
            query = query.where(sa.tuple_(*key) < after if descending else sa.tuple_(*key) > after)
        query = query.order_by(*(k.desc() if descending else k.asc() for k in key)).limit(limit)
        with self._store.engine.connect() as conn:
            return [_posted(conn, r) for r in conn.execute(query)]

    # --- node ids ------------------------------------------------------------------------------------------

    def remember_nodes(self, ids: Mapping[str, str]) -> None:
        """Record each DataZone node id (key) with its Headwater node id (value); ids known already stay."""
        if not ids:
            return
        for _ in range(3):  # a concurrent request may record the same ids: look again and insert the rest
            with self._store.write_connection() as conn, conn.begin():
                known = set(conn.scalars(sa.select(datazone_nodes.c.id).where(datazone_nodes.c.id.in_(sorted(ids)))))
                missing = [{"id": i, "node": n} for i, n in sorted(ids.items()) if i not in known]
                if not missing:
                    return
                try:
                    with conn.begin_nested():
                        conn.execute(datazone_nodes.insert(), missing)
                    return
                except sa.exc.IntegrityError:
                    continue

    def node_of(self, dz_id: str) -> str | None:
        """The Headwater node id a DataZone node id was handed out for."""
        with self._store.engine.connect() as conn:
            return conn.scalar(sa.select(datazone_nodes.c.node).where(datazone_nodes.c.id == dz_id))


def _token_event(conn: sa.Connection, domain: str, token: str) -> str | None:
    return conn.scalar(
        sa.select(datazone_events.c.event_id).where(
            datazone_events.c.domain_id == domain, datazone_events.c.client_token == token
        )
    )


def _status_condition(f: StatusFilter) -> sa.ColumnElement[bool]:
    failed: Collection[str] = sorted(f.failed)
    if f.status == "FAILED":
        return datazone_events.c.event_id.in_(failed)
    if f.status == "PROCESSING":
        return sa.and_(events.c.seq > f.graph_seq, datazone_events.c.event_id.not_in(failed))
    if f.status == "SUCCESS":
        return sa.and_(events.c.seq <= f.graph_seq, datazone_events.c.event_id.not_in(failed))
    return sa.false()  # REQUESTED: validated and stored before the answer, never only requested
