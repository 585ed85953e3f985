"""A store holding the HR payroll story (SQLite and PostgreSQL), shared by a module's tests."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from urllib.parse import urlsplit, urlunsplit

import pytest

from headwater.graph import GraphReader
from headwater.store import Store
from fixtures.stories.load import incoming, story


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def store(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    """The story in a store, shared by a module's tests (they only read); SQLite and PostgreSQL."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('story') / 'headwater.db'}"
        drop = None
    else:
        import psycopg

        server = request.getfixturevalue("pg_server_url")
        name = f"hw_story_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(server, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        url = urlunsplit(urlsplit(server)._replace(path=f"/{name}"))
        drop = (server, name)
    s = Store.open(url)
    s.append(incoming(story()))
    yield s
    s.close()
    if drop is not None:
        import psycopg

        with psycopg.connect(drop[0], autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{drop[1]}" WITH (FORCE)')


@pytest.fixture
def graph(store: Store) -> GraphReader:
    return store.graph
