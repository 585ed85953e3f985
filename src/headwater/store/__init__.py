"""The store: the append-only OpenLineage event log and the versioned lineage graph derived from it.

``Store.open(url)`` opens SQLite (``sqlite:///path``) or PostgreSQL (``postgresql://...``),
migrating the schema to the newest version. See ``docs/store.md``.
"""

from __future__ import annotations

from headwater.store.engine import InvalidStoreUrl
from headwater.store.eventlog import InvalidCursor
from headwater.store.retention import PruneResult
from headwater.store.store import HistoryPruned, ProjectorPlace, Store, projector_place
from headwater.store.types import AppendResult, GraphPosition, IncomingEvent, ProjectionStatus, StoredEvent

__all__ = [
    "AppendResult",
    "GraphPosition",
    "HistoryPruned",
    "IncomingEvent",
    "InvalidCursor",
    "InvalidStoreUrl",
    "ProjectionStatus",
    "ProjectorPlace",
    "PruneResult",
    "Store",
    "StoredEvent",
    "projector_place",
]
