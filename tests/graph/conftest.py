"""A store holding the HR payroll story (SQLite and PostgreSQL), shared by a module's tests."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack

import pytest

from databases import pg_database
from fixtures.stories.load import incoming, story
from headwater.graph import GraphReader
from headwater.store import Store


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def new_store_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Callable[[], str]]:
    """A maker of empty store URLs for a module's shared stores: each call a new SQLite file, or a new
    PostgreSQL database (all dropped after the module). A fixture built on it runs its module on both."""
    with ExitStack() as cleanup:

        def make() -> str:
            if request.param == "sqlite":
                return f"sqlite:///{tmp_path_factory.mktemp('graph') / 'headwater.db'}"
            return cleanup.enter_context(
                pg_database(request.getfixturevalue("pg_server_url"), "hw_graph", migrated=True)
            )

        yield make


@pytest.fixture(scope="module")
def store(new_store_url: Callable[[], str]) -> Iterator[Store]:
    """The story in a store, shared by a module's tests (they only read); SQLite and PostgreSQL."""
    s = Store.open(new_store_url())
    s.append(incoming(story()))
    yield s
    s.close()


@pytest.fixture
def graph(store: Store) -> GraphReader:
    return GraphReader(store)
