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
    engine = sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1)
                              .replace("mysql://", "mysql+pymysql://", 1))
    with engine.begin() as conn:
        conn.execute(sa.text("CREATE TABLE customers (id INTEGER PRIMARY KEY, name VARCHAR(40) NOT NULL)"))
        conn.execute(sa.text("CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER, amount NUMERIC(10,2))"))
        conn.execute(sa.text("CREATE VIEW big_orders AS SELECT o.id, c.name FROM orders o "
                             "JOIN customers c ON c.id = o.customer_id WHERE o.amount > 100"))
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
