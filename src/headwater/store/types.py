"""Value types of the store's Python interface."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class IncomingEvent:
    """An event already validated by ingest; ``raw`` is the JSON text kept verbatim."""

    payload: Mapping[str, Any]
    raw: str


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
