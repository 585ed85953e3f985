"""Migration 0003 (trigram name indexes): upgrade on a store with data, downgrade, upgrade again; the fallback
when the index cannot be made (SQLite refusing the FTS5 table, PostgreSQL refusing CREATE EXTENSION)."""

from __future__ import annotations

import json
import logging
import sqlite3
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest
import sqlalchemy as sa
from alembic import command

from databases import downgrade
from headwater.graph import search as search_module
from headwater.store import IncomingEvent, Store
from headwater.store.engine import create_store_engine
from headwater.store.migrate import alembic_config, current_revision, head_revision, upgrade
from headwater.store.schema import datasets

P = "https://example.com/producer"
NAMES = [
    "warehouse/orders",
    "warehouse/Orders_Archive",
    "per%cent",
    "under_score",
    "back\\slash",
    "Ñame",
    "ñame",
    "数据集",
    "ab",
]
QUERIES = ["orders", "ORD", "cent", "%", "_sc", "\\", "ñam", "数据", "ab", "a", "house/o", "job_x"]
WARNING = "name search index not created"


def events() -> list[IncomingEvent]:
    evs: list[dict[str, Any]] = []
    for i, name in enumerate(NAMES):
        evs.append(
            {
                "eventTime": f"2026-03-01T00:{i:02d}:00Z",
                "producer": P,
                "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/DatasetEvent",
                "dataset": {"namespace": "file", "name": name, "facets": {}},
            }
        )
        evs.append(
            {
                "eventTime": f"2026-03-01T00:{i:02d}:00Z",
                "producer": P,
                "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/JobEvent",
                "job": {"namespace": "ns", "name": f"job_x_{name}"},
                "inputs": [],
                "outputs": [],
            }
        )
    return [IncomingEvent(e, json.dumps(e)) for e in evs]


def answers(engine: sa.Engine) -> list[list[str]]:
    with engine.connect() as conn:
        return [[r["id"] for r in search_module.search(conn, q, limit=50)["results"]] for q in QUERIES]


def index_objects(engine: sa.Engine) -> set[str]:
    with engine.connect() as conn:
        if conn.dialect.name == "sqlite":
            return set(
                conn.scalars(
                    sa.text(  # the FTS5 tables (not their shadow tables) and the triggers
                        "SELECT name FROM sqlite_master WHERE name LIKE '%name_trgm%' AND (type = 'trigger' OR name IN "
                        "('datasets_name_trgm', 'jobs_name_trgm'))"
                    )
                )
            )
        return set(conn.scalars(sa.text("SELECT indexname FROM pg_indexes WHERE indexname LIKE '%name_trgm'")))


def expected_objects(dialect: str) -> set[str]:
    if dialect == "sqlite":
        return {f"{t}_name_trgm{s}" for t in ("datasets", "jobs") for s in ("", "_insert", "_delete", "_update")}
    return {"ix_datasets_name_trgm", "ix_jobs_name_trgm"}


def test_upgrade_downgrade_upgrade_on_a_store_with_data(store_url: str) -> None:
    with Store.open(store_url) as store:
        store.append(events())
    engine = create_store_engine(store_url)
    try:
        dialect = engine.dialect.name
        assert current_revision(engine) == head_revision()
        assert index_objects(engine) == expected_objects(dialect)
        indexed = answers(engine)
        assert indexed[0] and indexed[2]  # the data matches
        for _ in range(2):
            downgrade(engine, "0002")
            assert current_revision(engine) == "0002" and index_objects(engine) == set()
            if dialect == "sqlite":  # nor the FTS5 shadow tables
                with engine.connect() as conn:
                    assert conn.scalar(sa.text("SELECT count(*) FROM sqlite_master WHERE name LIKE '%trgm%'")) == 0
            assert answers(engine) == indexed  # the scan: the same answers
            with engine.begin() as conn:  # no trigger is left behind: a plain write works
                conn.execute(
                    sa.insert(datasets).values(
                        id="dataset:file:added_at_0002",
                        namespace="file",
                        name="added_at_0002_orders",
                        kind="file",
                        created_at=1,
                        updated_at=1,
                        deleted=False,
                    )
                )
            upgrade(engine)
            assert current_revision(engine) == head_revision() and index_objects(engine) == expected_objects(dialect)
            now = answers(engine)
            assert now[0][-1] == "dataset:file:added_at_0002"  # the upgrade indexed the rows already there
            indexed = now
            with engine.begin() as conn:
                conn.execute(sa.delete(datasets).where(datasets.c.id == "dataset:file:added_at_0002"))
                if dialect == "sqlite":
                    for fts in search_module.SQLITE_NAME_INDEXES.values():
                        conn.exec_driver_sql(f"INSERT INTO {fts}({fts}, rank) VALUES ('integrity-check', 1)")
                    indexes = search_module._sqlite_name_indexes(conn)
                    assert search_module._candidates(conn, datasets, "orders", indexes) is not None
            indexed = answers(engine)
    finally:
        engine.dispose()


def _deny_fts(action: int, *_: Any) -> int:
    return sqlite3.SQLITE_DENY if action == sqlite3.SQLITE_CREATE_VTABLE else sqlite3.SQLITE_OK


def test_sqlite_without_the_fts5_table_falls_back_to_the_scan(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    url = f"sqlite:///{tmp_path / 'headwater.db'}"
    engine = create_store_engine(url)
    try:
        upgrade(engine, "0002")
        caplog.set_level(logging.WARNING, logger="headwater.store.migrate")
        with engine.begin() as conn:  # this SQLite refuses virtual tables, as a build without FTS5 would
            raw = conn.connection.driver_connection
            assert raw is not None
            raw.set_authorizer(_deny_fts)
            try:
                command.upgrade(alembic_config(conn), "head")
            finally:
                raw.set_authorizer(None)
        assert [r.getMessage() for r in caplog.records if WARNING in r.getMessage()] == [
            f"{WARNING} (not authorized); search scans every dataset and job name instead. "
            "See docs/store.md, 'Search', to add it later."
        ]
        assert current_revision(engine) == head_revision() and index_objects(engine) == set()
    finally:
        engine.dispose()
    with Store.open(url) as store:
        store.append(events())
        assert store.caught_up()  # store.engine does not wait for the projector
        with store.engine.connect() as conn:
            assert search_module._sqlite_name_indexes(conn) == frozenset()
            orders = search_module.search(conn, "orders", types=["dataset"])["results"]
    assert [r["name"] for r in orders] == ["warehouse/orders", "warehouse/Orders_Archive"]
    assert store.caught_up()  # store.engine does not wait for the projector
    scanned = answers(store.engine)
    engine = create_store_engine(url)
    try:  # adding the index later (docs/store.md, "Search"): back to 0002, then upgrade with FTS5
        with engine.begin() as conn:
            conn.exec_driver_sql("UPDATE alembic_version SET version_num = '0002'")
        upgrade(engine)
        assert index_objects(engine) == expected_objects("sqlite")
        assert answers(engine) == scanned
    finally:
        engine.dispose()


@pytest.mark.postgres
def test_postgresql_without_create_extension_falls_back_to_the_scan(
    pg_server_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    import psycopg

    suffix = uuid.uuid4().hex[:12]
    role, database, password = f"hw_noext_{suffix}", f"hw_noext_{suffix}", uuid.uuid4().hex
    server = urlsplit(pg_server_url)
    with psycopg.connect(pg_server_url, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE \"{role}\" LOGIN PASSWORD '{password}'")
        conn.execute(f'CREATE DATABASE "{database}"')  # owned by the admin: the role may not CREATE in it
    try:
        with psycopg.connect(urlunsplit(server._replace(path=f"/{database}")), autocommit=True) as conn:
            conn.execute(f'GRANT USAGE, CREATE ON SCHEMA public TO "{role}"')
        netloc = f"{role}:{password}@{server.hostname}:{server.port or 5432}"
        url = urlunsplit(server._replace(netloc=netloc, path=f"/{database}"))
        caplog.set_level(logging.WARNING, logger="headwater.store.migrate")
        with Store.open(url) as store:
            warnings = [r.getMessage() for r in caplog.records if WARNING in r.getMessage()]
            assert len(warnings) == 1 and "permission denied to create extension" in warnings[0]
            store.append(events())
            assert current_revision(store.engine) == head_revision() and index_objects(store.engine) == set()
            assert store.caught_up()  # store.engine does not wait for the projector
            with store.engine.connect() as conn:
                orders = search_module.search(conn, "orders", types=["dataset"])["results"]
        assert [r["name"] for r in orders] == ["warehouse/orders", "warehouse/Orders_Archive"]
    finally:
        with psycopg.connect(pg_server_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
            conn.execute(f'DROP ROLE IF EXISTS "{role}"')
