"""API test fixtures: real stores (SQLite and PostgreSQL), the app driven in-process through
httpx's ASGI transport, and a module-wide store loaded once with the story in api_events.py."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import anyio
import httpx
import pytest
from api_events import Story
from api_helpers import Loaded, client_for, make_settings, module_db_url
from fastapi import FastAPI

from headwater.api import create_app
from headwater.store import Store


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    """A fresh real store (the same test runs on SQLite and PostgreSQL)."""
    opened = Store.open(store_url)
    yield opened
    opened.close()


@pytest.fixture
def app(store: Store) -> FastAPI:
    return create_app(make_settings(), store)


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    async with client_for(app) as c:
        yield c


# --- one loaded store per module and backend (read-only tests) ----------------------------------


async def _send_story(app: FastAPI, story: Story) -> list[str]:
    ids = []
    async with client_for(app) as c:
        for event in story.events:
            answer = await c.post("/api/v1/lineage", json=event)
            assert answer.status_code == 201, answer.text
            ids.append(answer.json()["id"])
    return ids


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def loaded(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Loaded]:
    pg = request.getfixturevalue("pg_server_url") if request.param == "postgresql" else None
    url, drop = module_db_url(request.param, tmp_path_factory.mktemp("story"), pg)
    opened = Store.open(url)
    try:
        app = create_app(make_settings(), opened)
        story = Story()
        ids = anyio.run(_send_story, app, story)
        yield Loaded(app, story, ids)
    finally:
        opened.close()
        if drop is not None:
            drop()
