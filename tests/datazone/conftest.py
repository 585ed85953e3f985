"""Real Headwater servers for the DataZone lineage API tests: uvicorn in a thread over a fresh SQLite or
PostgreSQL store, with SigV4 keys, without them, or with bearer tokens only."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from datazone_helpers import KEY_ID, SECRET, Served

from headwater.api import create_app
from headwater.settings import load_settings
from headwater.store import Store
from live_server import ThreadServer


def _serve(store_url: str, settings: dict[str, Any]) -> Iterator[Served]:
    store = Store.open(store_url)
    app = create_app(load_settings(settings, environ={}), store, bind_host="127.0.0.1")
    with ThreadServer(app) as server, httpx.Client(base_url=server.url, timeout=30) as http:
        yield Served(server.url, store, http)
    store.close()


@pytest.fixture
def served(store_url: str) -> Iterator[Served]:
    """SigV4 keys configured (datazone_access_keys)."""
    yield from _serve(store_url, {"datazone_access_keys": f"{KEY_ID}:{SECRET},AKIASECONDKEY:other-secret"})


@pytest.fixture
def open_served(sqlite_url: str) -> Iterator[Served]:
    """No keys and no tokens: requests are not authenticated."""
    yield from _serve(sqlite_url, {})


@pytest.fixture
def token_served(sqlite_url: str) -> Iterator[Served]:
    """Bearer tokens configured, no DataZone keys."""
    yield from _serve(sqlite_url, {"write_tokens": "w-token", "read_tokens": "r-token"})
