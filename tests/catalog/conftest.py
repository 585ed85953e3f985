"""Catalog test fixtures: the story's world, built once per module and backend (SQLite, PostgreSQL)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from catalog_world import World, build_world

from databases import pg_database


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def world(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    tmp = tmp_path_factory.mktemp("catalog")
    if request.param == "sqlite":
        w = build_world(f"sqlite:///{tmp / 'headwater.db'}", tmp)
        try:
            yield w
        finally:
            w.http.close()
            w.store.close()
        return
    with pg_database(request.getfixturevalue("pg_server_url"), migrated=True) as url:
        w = build_world(url, tmp)
        try:
            yield w
        finally:
            w.http.close()
            w.store.close()
