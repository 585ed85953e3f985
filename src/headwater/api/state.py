"""What the handlers share, held on ``app.state`` (explicit, per app; no module-level globals)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from fastapi import Request

from headwater.graph import GraphReader
from headwater.settings import Settings
from headwater.spec import EventValidator

if TYPE_CHECKING:
    from headwater.store import Store


@dataclass(frozen=True)
class AppState:
    settings: Settings
    store: "Store"
    validator: EventValidator
    graph: GraphReader = field(init=False)  # the graph questions, read through the store's barrier

    def __post_init__(self) -> None:
        object.__setattr__(self, "graph", GraphReader(self.store))


def app_state(request: Request) -> AppState:
    state = request.app.state.headwater
    assert isinstance(state, AppState)
    return state
