"""Value types of the store's Python interface."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeAlias

import sqlalchemy as sa

if TYPE_CHECKING:
    from headwater.ingest import ParsedEvent
    from headwater.ingest.decode import Decoded

# Rows and statements of queries built by hand: SQLAlchemy cannot know their column types (a select of
# chosen columns, a join, a label), so their tuple type stays open; the column names are the contract.
Row: TypeAlias = "sa.Row[*tuple[Any, ...]]"
"""A result row of a hand-built query (attributes named as the selected columns)."""
Select: TypeAlias = "sa.Select[*tuple[Any, ...]]"
"""A hand-built SELECT statement."""
Column: TypeAlias = sa.ColumnElement[Any]
"""A column or SQL expression of any SQL type."""


@dataclass(frozen=True)
class IncomingEvent:
    """An event already validated by ingest; ``raw`` is the JSON text kept verbatim.

    ``warnings``: what a leniently accepted event did not satisfy (``{"path", "message"}`` each), kept
    beside it in ``event_warnings``."""

    payload: Mapping[str, Any]
    raw: str
    warnings: Sequence[Mapping[str, str]] = ()
    # the ingest door's: ``payload`` is the value of ``raw`` (the projector may take it instead of parsing
    # ``raw`` again) and, from the fast path, its decoded parts (the id is computed from them)
    parsed: bool = False
    decoded: Decoded | None = None

    @classmethod
    def accepted(cls, event: ParsedEvent) -> IncomingEvent:
        """An event as the ingest door accepted it, its warnings kept (every door appends through here)."""
        return cls(event.payload, event.raw, event.stored_warnings(), True, event.decoded)


@dataclass(frozen=True)
class GraphPosition:
    """How far the derived graph is behind the event log, after a read waited for it.

    ``log``: the newest event ``seq`` in the log when the read began; ``graph``: the newest event
    ``seq`` the graph reflects when the wait ended. A read answers from the graph as of ``graph``.
    """

    log: int
    graph: int

    @property
    def behind(self) -> int:
        """Events in the log the graph does not reflect yet (0 when caught up)."""
        return max(self.log - self.graph, 0)

    @property
    def caught_up(self) -> bool:
        return self.behind == 0


@dataclass(frozen=True)
class ProjectionStatus:
    """The projector's health: where the graph stands and the events it could not derive.

    ``failed_events`` holds the oldest of them (``{"seq", "id", "error"}``), ``failed`` how many
    there are in all; ``running`` is False when the projector thread has stopped.
    """

    position: GraphPosition
    failed: int
    failed_events: list[dict[str, Any]]
    running: bool


@dataclass(frozen=True)
class AppendResult:
    id: str
    duplicate: bool


@dataclass(frozen=True)
class StoredEvent:
    id: str
    raw: str
    received_at: datetime
    event_time: datetime
    kind: str  # RUN | DATASET | JOB
    event_type: str | None
    job: str | None  # job node id
    run_id: str | None
    warnings: list[dict[str, str]] = field(default_factory=list)  # validation warnings (lenient mode)
