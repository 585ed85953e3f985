"""What the handlers share, held on ``app.state`` (explicit, per app; no module-level globals)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import sqlalchemy as sa
from fastapi import Request

from headwater.graph import GraphReader
from headwater.ingest.limits import Limits
from headwater.settings import Settings
from headwater.spec import EventValidator
from headwater.store.schema import datasets

if TYPE_CHECKING:
    from headwater.store import Store


class AfterBarrier:
    """The API's graph source: the route's ``read_barrier`` dependency (:mod:`headwater.api.freshness`)
    already waited for the projector, so connections open at once."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def read_connection(self) -> sa.Connection:
        return self._store.read_connection(wait=False)


@dataclass(frozen=True)
class AppState:
    settings: Settings
    store: Store
    validator: EventValidator
    graph: GraphReader = field(init=False)  # the graph questions; routes run api.freshness.read_barrier first
    limits: Limits = field(init=False)  # what an event may hold (the ingest limit settings)

    def __post_init__(self) -> None:
        object.__setattr__(self, "graph", GraphReader(AfterBarrier(self.store)))
        object.__setattr__(self, "limits", Limits.from_settings(self.settings))

    def datasets_known(self, ids: list[str]) -> set[str]:
        """Which of these dataset node ids the graph holds (resolves ``datasetField`` ids with ``:`` in the field)."""
        with self.store.read_connection(wait=False) as conn:
            return set(conn.scalars(sa.select(datasets.c.id).where(datasets.c.id.in_(ids))))


def app_state(request: Request) -> AppState:
    state = request.app.state.headwater
    assert isinstance(state, AppState)
    return state
