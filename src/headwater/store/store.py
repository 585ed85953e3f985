"""The :class:`Store`: event log + derived graph behind one small interface."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

import sqlalchemy as sa

from headwater.graph.nodeid import NodeRef
from headwater.store import eventlog, migrate
from headwater.store.engine import create_store_engine
from headwater.store.projector import project_new_events, rebuild_all
from headwater.store.timeutil import now_micros, to_micros
from headwater.store.types import AppendResult, IncomingEvent, StoredEvent

if TYPE_CHECKING:
    from headwater.graph import GraphReader

# Any constant: PostgreSQL advisory lock key serializing writers across processes.
_PG_WRITE_LOCK = 0x4857_5354


class Store:
    """The append-only event log and the lineage graph derived from it.

    Thread-safe: appends are serialized (one writer at a time); reads run concurrently.
    """

    def __init__(self, engine: sa.Engine) -> None:
        self._engine = engine
        self._write_lock = threading.Lock()
        self._graph: GraphReader | None = None

    @classmethod
    def open(cls, url: str) -> Store:
        """Open (and create when missing) the store at ``url`` and migrate it to the newest schema."""
        engine = create_store_engine(url)
        migrate.upgrade(engine)
        return cls(engine)

    @property
    def engine(self) -> sa.Engine:
        return self._engine

    @property
    def dialect(self) -> str:
        return self._engine.dialect.name

    def close(self) -> None:
        self._engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def _write(self) -> sa.Connection:
        return self._engine.connect().execution_options(hw_write=True)

    def _lock_writers(self, conn: sa.Connection) -> None:
        if self.dialect == "postgresql":
            conn.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": _PG_WRITE_LOCK})

    def append(self, events: Sequence[IncomingEvent]) -> list[AppendResult]:
        """Store events (all or nothing), derive the graph, commit durably; duplicates change nothing."""
        if not events:
            return []
        with self._write_lock, self._write() as conn, conn.begin():
            self._lock_writers(conn)
            ids, new = eventlog.insert_events(conn, events, now_micros())
            project_new_events(conn, new)
        fresh = {n.id for n in new}
        results: list[AppendResult] = []
        for eid in ids:
            results.append(AppendResult(eid, duplicate=eid not in fresh))
            fresh.discard(eid)  # the same event twice in one batch: the second is a duplicate
        return results

    def get_event(self, event_id: str) -> StoredEvent | None:
        with self._engine.connect() as conn:
            return eventlog.get_event(conn, event_id)

    def list_events(
        self, *, since: datetime | None = None, until: datetime | None = None, node: NodeRef | None = None,
        limit: int = 100, cursor: str | None = None,
    ) -> tuple[list[StoredEvent], str | None]:
        """Events newest first (by event time); ``node`` limits to the events that touched it."""
        if limit < 1:
            raise ValueError(f"limit must be at least 1, got {limit}")
        with self._engine.connect() as conn:
            return eventlog.list_events(
                conn, since=None if since is None else to_micros(since), until=None if until is None else to_micros(until),
                node=node, limit=limit, cursor=cursor,
            )

    def rebuild(self) -> int:
        """Re-derive the whole graph from the event log; returns the number of events replayed."""
        with self._write_lock, self._write() as conn, conn.begin():
            self._lock_writers(conn)
            return rebuild_all(conn)

    @property
    def graph(self) -> GraphReader:
        if self._graph is None:
            from headwater.graph import GraphReader

            self._graph = GraphReader(self._engine)
        return self._graph
