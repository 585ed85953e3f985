"""A real Headwater server (uvicorn in a thread) over a fresh SQLite or PostgreSQL store, and the fixtures."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from spline_helpers import READ, WRITE, Served

from headwater.api import create_app
from headwater.settings import load_settings
from headwater.store import Store
from live_server import ThreadServer


def _serve(store_url: str, settings: dict[str, Any]) -> Iterator[Served]:
    store = Store.open(store_url)
    app = create_app(load_settings(settings, environ={}), store)
    with ThreadServer(app) as server, httpx.Client(base_url=server.url, timeout=30) as http:
        yield Served(server.url, store, http)
    store.close()


@pytest.fixture
def served(store_url: str) -> Iterator[Served]:
    """No tokens configured: anyone may write and read."""
    yield from _serve(store_url, {})


@pytest.fixture
def guarded(sqlite_url: str) -> Iterator[Served]:
    """Write and read tokens configured."""
    yield from _serve(sqlite_url, {"write_tokens": WRITE, "read_tokens": READ})
