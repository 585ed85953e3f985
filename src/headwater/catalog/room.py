"""What every part of the catalog stands on: :class:`Room` (the store's connections, the graph, the ingest door)
and the few rules they share.

- Reads go through the store's read connections (on SQLite no ``BEGIN IMMEDIATE``: a catalog read never waits
  for a writer); a change takes a write connection, whose transaction on SQLite begins ``IMMEDIATE`` so a read
  that turns into a write waits for the other writers instead of failing with "database is locked".
- Events go through the server's ingest door (its policy, as ``POST /api/v1/lineage/batch``), then
  ``Store.append``: the catalog never writes a graph table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, TypeVar

import sqlalchemy as sa

from headwater.catalog.access import Principal
from headwater.catalog.errors import EventRefused, NotFound
from headwater.graph.visibility import sees_project
from headwater.ingest import IngestError
from headwater.store.types import IncomingEvent

if TYPE_CHECKING:
    from headwater.graph import GraphReader
    from headwater.ingest import Door
    from headwater.store import Store

T = TypeVar("T")
Payload = Mapping[str, object]


class Room:
    """One part of the catalog over one store. ``graph`` reads the whole graph (an admin reader): the catalog
    decides itself what of it a principal's answer may hold."""

    def __init__(self, store: Store, graph: GraphReader, door: Door) -> None:
        self._store = store
        self._graph = graph
        self._door = door

    def _write(self) -> sa.Connection:
        return self._store.write_connection()

    def _read(self) -> sa.Connection:
        # no wait for the projector: the catalog's own tables are not derived from the log
        return self._store.read_connection(wait=False)

    def _read_graph(self) -> sa.Connection:
        """A read connection once the graph holds every event appended so far."""
        return self._store.read_connection()

    def _append(self, lineage_events: Sequence[Payload]) -> list[str]:
        """Append through the ingest door; the events' ids. A refusal raises :class:`EventRefused`."""
        try:
            parsed = self._door.accept_events(lineage_events)
        except IngestError as exc:
            raise EventRefused(exc) from None
        results = self._store.append([IncomingEvent.accepted(p) for p in parsed])
        return [r.id for r in results]


def member_view(who: Principal, project: str) -> bool:
    """Whether ``who`` sees ``project``'s inventory, subscriptions, data-source runs and audit."""
    return sees_project(who.viewer, project)


def found(value: T | None, message: str) -> T:
    """``value``, or :class:`NotFound` with ``message`` when it is None."""
    if value is None:
        raise NotFound(message)
    return value
