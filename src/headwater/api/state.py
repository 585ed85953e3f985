"""What the handlers share, held on ``app.state`` (explicit, per app; no module-level globals)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from fastapi import Request

from headwater.settings import Settings
from headwater.spec import EventValidator

if TYPE_CHECKING:
    from headwater.graph import GraphReader
    from headwater.store import Store


@dataclass(frozen=True)
class AppState:
    settings: Settings
    store: "Store"
    validator: EventValidator

    @property
    def graph(self) -> "GraphReader":
        return self.store.graph


def app_state(request: Request) -> AppState:
    state = request.app.state.headwater
    assert isinstance(state, AppState)
    return state
