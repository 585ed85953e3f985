"""The pipeline of pipeline.py in a store (SQLite and PostgreSQL), shared by a module's tests (they only read)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from pipeline import pipeline_events

from databases import pg_database
from headwater.client import StoreClient
from headwater.store import Store


@pytest.fixture(scope="module")
def events() -> list[dict[str, Any]]:
    return pipeline_events()


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def store(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, events: list[dict[str, Any]]
) -> Iterator[Store]:
    with ExitStack() as cleanup:
        if request.param == "sqlite":
            url = f"sqlite:///{tmp_path_factory.mktemp('impact') / 'headwater.db'}"
        else:
            url = cleanup.enter_context(
                pg_database(request.getfixturevalue("pg_server_url"), "hw_impact", migrated=True)
            )
        s = Store.open(url)
        StoreClient(s).send(events)
        yield s
        s.close()
