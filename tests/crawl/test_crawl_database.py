"""Crawling real databases (PostgreSQL, MariaDB, SQLite): tables, columns, keys, comments, views, drops."""

from __future__ import annotations

import io
import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from headwater.client import PrintClient
from headwater.crawl import crawl
from olschema import event_errors


def _crawl(url: str, state: Path) -> tuple[Any, list[dict[str, Any]]]:
    out = io.StringIO()
    result = crawl(url, PrintClient(out), state_path=state)
    return result, [json.loads(line) for line in out.getvalue().splitlines()]


@pytest.fixture
def mariadb_url(mariadb_server_url: str) -> Iterator[str]:
    name = f"hw_crawl_{uuid.uuid4().hex[:8]}"
    admin = sa.create_engine(mariadb_server_url.replace("mysql://", "mysql+pymysql://", 1))
    with admin.begin() as conn:
        conn.execute(sa.text(f"CREATE DATABASE {name}"))
    try:
        yield f"{mariadb_server_url}/{name}"
    finally:
        with admin.begin() as conn:
            conn.execute(sa.text(f"DROP DATABASE {name}"))
        admin.dispose()


def _setup(url: str, comments: bool) -> None:
    engine = sa.create_engine(
        url.replace("postgresql://", "postgresql+psycopg://", 1).replace("mysql://", "mysql+pymysql://", 1)
    )
    with engine.begin() as conn:
        conn.execute(sa.text("CREATE TABLE customers (id INTEGER PRIMARY KEY, name VARCHAR(40) NOT NULL)"))
        conn.execute(sa.text("CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER, amount NUMERIC(10,2))"))
        conn.execute(
            sa.text(
                "CREATE VIEW big_orders AS SELECT o.id, c.name FROM orders o "
                "JOIN customers c ON c.id = o.customer_id WHERE o.amount > 100"
            )
        )
        if comments:
            conn.execute(sa.text("COMMENT ON TABLE orders IS 'one row per order'"))
            conn.execute(sa.text("COMMENT ON COLUMN orders.amount IS 'in euros'"))
    engine.dispose()


def _check(url: str, tmp_path: Path, spec_dir: Path, *, view_sources: bool) -> list[dict[str, Any]]:
    result, events = _crawl(url, tmp_path / "state.json")
    assert result.ok and sorted(result.summary.added) == ["big_orders", "customers", "orders"]
    for event in events:
        assert event_errors(event, spec_dir) == []
    final = next(e for e in events if e["eventType"] == "COMPLETE" and e["job"]["name"].startswith("crawl:"))
    out = {o["name"]: o for o in final["outputs"]}
    columns = out["default.customers"]["facets"]["headwater_columns"]["columns"]
    assert columns["id"]["primaryKey"] is True  # (SQLite reports a primary key without NOT NULL as nullable)
    assert columns["name"] == {"nullable": False, "primaryKey": False}
    view_runs = [e for e in events if e["job"]["name"].startswith("view:")]
    assert view_runs and "big_orders" in view_runs[-1]["outputs"][0]["name"]
    assert "SELECT" in view_runs[-1]["job"]["facets"]["sql"]["query"].upper()
    sources = sorted(i["name"].rsplit(".", 1)[-1] for i in view_runs[-1]["inputs"])
    assert sources == (["customers", "orders"] if view_sources else [])
    return events


@pytest.mark.postgres
def test_postgres(fresh_pg_url: str, tmp_path: Path, spec_dir: Path) -> None:
    _setup(fresh_pg_url, comments=True)
    events = _check(fresh_pg_url, tmp_path, spec_dir, view_sources=True)
    final = next(e for e in events if e["eventType"] == "COMPLETE")
    orders = next(i for i in final["inputs"] if i["name"].endswith(".public.orders"))
    assert orders["namespace"].startswith("postgres://")
    assert orders["facets"]["documentation"]["description"] == "one row per order"
    amount = next(f for f in orders["facets"]["schema"]["fields"] if f["name"] == "amount")
    assert amount == {"name": "amount", "type": "NUMERIC(10, 2)", "description": "in euros"}
    engine = sa.create_engine(fresh_pg_url.replace("postgresql://", "postgresql+psycopg://", 1))
    with engine.begin() as conn:
        conn.execute(sa.text("DROP VIEW big_orders"))
        conn.execute(sa.text("ALTER TABLE orders ADD COLUMN paid BOOLEAN"))
    engine.dispose()
    again, events = _crawl(fresh_pg_url, tmp_path / "state.json")
    assert again.summary.removed == ["big_orders"] and again.summary.updated == ["orders"]


@pytest.mark.mariadb
def test_mariadb(mariadb_url: str, tmp_path: Path, spec_dir: Path) -> None:
    _setup(mariadb_url, comments=False)
    events = _check(mariadb_url, tmp_path, spec_dir, view_sources=False)  # MariaDB keeps no view dependencies
    final = next(e for e in events if e["eventType"] == "COMPLETE")
    assert {i["namespace"] for i in final["inputs"]} == {"mysql://127.0.0.1:3306"}


def test_sqlite(tmp_path: Path, spec_dir: Path) -> None:
    url = f"sqlite:///{tmp_path / 'app.db'}"
    _setup(url, comments=False)
    _check(url, tmp_path, spec_dir, view_sources=True)


def _view_with_engine(url: str, tmp_path: Path, spec_dir: Path) -> dict[str, Any]:
    from headwater.model.naming import sqlalchemy_table_dataset
    from headwater.sql import view_lineage

    out = io.StringIO()
    result = crawl(url, PrintClient(out), state_path=tmp_path / "engine-state.json", view_lineage=view_lineage)
    events = [json.loads(line) for line in out.getvalue().splitlines()]
    assert result.ok and all(event_errors(e, spec_dir) == [] for e in events)
    view = [e for e in events if e["job"]["name"].startswith("view:")][-1]
    orders, customers = (sqlalchemy_table_dataset(url, None, t) for t in ("orders", "customers"))
    assert sorted((i["namespace"], i["name"]) for i in view["inputs"]) == sorted([orders, customers])
    fields = view["outputs"][0]["facets"]["columnLineage"]["fields"]
    deps = {
        col: {(f["name"], f["field"], t["type"], t["subtype"]) for f in v["inputFields"] for t in f["transformations"]}
        for col, v in fields.items()
    }
    assert (orders[1], "id", "DIRECT", "IDENTITY") in deps["id"]
    assert (customers[1], "name", "DIRECT", "IDENTITY") in deps["name"]
    for col in ("id", "name"):  # the join keys and the filter decide which rows: INDIRECT, on every column
        assert {
            (orders[1], "customer_id", "INDIRECT", "JOIN"),
            (customers[1], "id", "INDIRECT", "JOIN"),
            (orders[1], "amount", "INDIRECT", "FILTER"),
        } <= deps[col], col
    return view


@pytest.mark.postgres
def test_postgres_view_lineage_through_the_sql_engine(fresh_pg_url: str, tmp_path: Path, spec_dir: Path) -> None:
    _setup(fresh_pg_url, comments=False)
    _view_with_engine(fresh_pg_url, tmp_path, spec_dir)


@pytest.mark.mariadb
def test_mariadb_view_lineage_through_the_sql_engine(mariadb_url: str, tmp_path: Path, spec_dir: Path) -> None:
    _setup(mariadb_url, comments=False)  # MariaDB keeps no view dependencies: the engine reads the definition
    _view_with_engine(mariadb_url, tmp_path, spec_dir)


def test_sqlite_view_lineage_through_the_sql_engine(tmp_path: Path, spec_dir: Path) -> None:
    url = f"sqlite:///{tmp_path / 'views.db'}"
    _setup(url, comments=False)
    _view_with_engine(url, tmp_path, spec_dir)
