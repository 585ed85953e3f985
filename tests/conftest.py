"""Fixtures shared by the whole suite: real database servers, fresh databases, schema paths.

PostgreSQL and MariaDB are real servers started by ``scripts/start-services``, which exports
``HEADWATER_TEST_PG_URL`` and ``HEADWATER_TEST_MARIADB_URL``. When a URL is missing the tests
that need it are skipped with a reason *locally*; under ``scripts/test`` / CI
(``HEADWATER_REQUIRE_SERVICES=1``) a missing server is an error, never a silent skip.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

import databases
from databases import pg_database

REPO = Path(__file__).resolve().parent.parent
SPEC_DIR = REPO / "tests" / "fixtures" / "openlineage-spec"  # the official spec, carried by the repo


def _require(env: str) -> str:
    url = os.environ.get(env)
    if url:
        return url
    if os.environ.get("HEADWATER_REQUIRE_SERVICES"):
        pytest.fail(f"{env} is not set: run the suite through scripts/test, which starts the servers")
    pytest.skip(f"{env} not set (start the servers with scripts/start-services)")


@pytest.fixture(scope="session")
def pg_server_url() -> str:
    """URL of the PostgreSQL server's maintenance database (``postgresql://...``)."""
    return _require("HEADWATER_TEST_PG_URL")


@pytest.fixture(scope="session")
def mariadb_server_url() -> str:
    """URL of the MariaDB server (``mysql://user:pass@host:port``)."""
    return _require("HEADWATER_TEST_MARIADB_URL")


@pytest.fixture(scope="session", autouse=True)
def _test_databases() -> Iterator[None]:
    """Drop what tests/databases.py left to drop, and its templates, when the session ends."""
    yield
    databases.finish()


@pytest.fixture
def fresh_pg_url(pg_server_url: str) -> Iterator[str]:
    """A new, empty PostgreSQL database for one test; dropped afterwards."""
    with pg_database(pg_server_url) as url:
        yield url


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    """Where a new SQLite store goes: no file there yet."""
    return f"sqlite:///{tmp_path / 'headwater.db'}"


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A new store at the newest schema, no events: the same test runs on SQLite and on PostgreSQL.
    (A copy of a store migrated once per session: tests/databases.py.)"""
    if request.param == "sqlite":
        yield f"sqlite:///{databases.sqlite_store_file(tmp_path)}"
        return
    with pg_database(request.getfixturevalue("pg_server_url"), migrated=True) as url:
        yield url


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def empty_store_url(request: pytest.FixtureRequest) -> str:
    """A URL where no store is yet (no file; an empty PostgreSQL database): for tests of the migrations."""
    if request.param == "sqlite":
        return request.getfixturevalue("sqlite_url")
    return request.getfixturevalue("fresh_pg_url")


@pytest.fixture(scope="session")
def spec_dir() -> Path:
    """The official OpenLineage spec (tests/fixtures/openlineage-spec; tests validate against it)."""
    if not (SPEC_DIR / "OpenLineage.json").exists():
        pytest.fail(f"official OpenLineage spec not found at {SPEC_DIR}")
    return SPEC_DIR
