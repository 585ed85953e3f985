"""What the handlers share, held on ``app.state`` (explicit, per app; no module-level globals)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import sqlalchemy as sa
from fastapi import Request

from headwater.api.parse_pool import ParsePool
from headwater.graph import ANONYMOUS, GraphReader, Viewer
from headwater.graph.adjacency import Adjacency
from headwater.ingest import Door
from headwater.settings import Settings
from headwater.spec import EventValidator

if TYPE_CHECKING:
    from headwater.store import Store

PRINCIPAL = "headwater_principal"
"""Where the auth dependencies keep the request's principal on ``request.state`` (api/auth.py)."""


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
    # the graph questions as an admin sees them; app_state(request).graph: as the request's principal may see them
    graph: GraphReader = field(init=False)  # routes run api.freshness.read_barrier first
    # the one ingest door: the policy (limits, lenient or strict, most events per body) built once from the settings
    door: Door = field(init=False)
    parse_pool: ParsePool = field(init=False)  # where large ingest bodies are parsed (closed with the app)
    # the graph's edges in memory for lineage walks (graph/adjacency.py), built in the background; None: off
    adjacency: Adjacency | None = field(init=False)

    def __post_init__(self) -> None:
        adjacency = Adjacency(self.store.engine) if self.settings.graph_adjacency == "on" else None
        object.__setattr__(self, "adjacency", adjacency)
        object.__setattr__(self, "graph", GraphReader(AfterBarrier(self.store), adjacency=adjacency))
        object.__setattr__(self, "door", Door.from_settings(self.settings, self.validator))
        object.__setattr__(self, "parse_pool", ParsePool(int(self.settings.parse_processes), self.validator))

    def viewing(self, viewer: Viewer | Callable[[], Viewer]) -> AppState:
        """This state with a graph reader that answers as ``viewer`` sees the graph."""
        copy = object.__new__(AppState)
        copy.__dict__.update(self.__dict__)
        object.__setattr__(copy, "graph", self.graph.viewing(viewer))
        return copy

    def datasets_known(self, ids: list[str]) -> set[str]:
        """Which of these dataset node ids the graph holds (resolves ``datasetField`` ids with ``:`` in the field)."""
        return self.graph.datasets_known(ids)  # as the reader sees the graph: a hidden dataset is not held


def app_state(request: Request) -> AppState:
    """The app's state for this request: its ``graph`` sees what the request's principal may see (the
    catalog's visibility policy, graph/visibility.py); an anonymous reader's view when no auth ran."""
    state = request.app.state.headwater
    assert isinstance(state, AppState)
    return state.viewing(lambda: request_viewer(request))


def request_viewer(request: Request) -> Viewer:
    """The viewer of the request's principal, as the auth dependencies (or a protocol's own auth) set it
    when the answer is read; anonymous when none did."""
    viewer = getattr(getattr(request.state, PRINCIPAL, None), "viewer", ANONYMOUS)
    return viewer if isinstance(viewer, Viewer) else ANONYMOUS
