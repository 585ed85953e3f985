"""``headwater harvest mysql`` against the shared MariaDB with its general log table switched on for the test
(restored afterwards): statements run in a fresh database, harvested to a real Headwater and read back; the
checkpoint sends each statement once; a wrong DSN is a clear error."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import pymysql
import pytest
from click.testing import CliRunner

from headwater.cli import cli
from headwater.model.naming import database_namespace

from .conftest import graph

pytestmark = pytest.mark.mariadb

STATEMENTS = [
    "CREATE TABLE orders (id INT PRIMARY KEY, customer_id INT, amount DECIMAL(10,2), status VARCHAR(10))",
    "CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(50), country VARCHAR(2))",
    "INSERT INTO orders VALUES (1, 1, 10.50, 'paid'), (2, 2, 20.00, 'open')",
    "INSERT INTO customers VALUES (1, 'Ada', 'UK'), (2, 'Linus', 'FI')",
    "CREATE TABLE paid AS SELECT o.id, o.amount, c.country FROM orders o JOIN customers c ON c.id = o.customer_id "
    "WHERE o.status = 'paid'",
    "CREATE TABLE revenue (country VARCHAR(2), total DECIMAL(12,2))",
    "INSERT INTO revenue SELECT country, SUM(amount) FROM paid GROUP BY country",
    "SELECT * FROM revenue",
]


def _run(url: str, statements: list[str]) -> None:
    parts = urlsplit(url)
    conn = pymysql.connect(
        host=parts.hostname,
        port=parts.port or 3306,
        user=parts.username,
        password=parts.password or "",
        database=parts.path.strip("/"),
        autocommit=True,
    )
    try:
        with conn.cursor() as cur:
            for s in statements:
                cur.execute(s)
    finally:
        conn.close()


def _harvest(*args: str):
    return CliRunner().invoke(cli, ["harvest", "mysql", "-q", *args], catch_exceptions=False)


def test_general_log_harvest_reaches_the_graph_once(general_log: str, served: str, tmp_path: Path) -> None:
    _run(general_log, STATEMENTS)
    ns, db = database_namespace(general_log)
    state = tmp_path / "mysql.json"
    args = [
        "--dsn",
        general_log,
        "--source",
        "general_log",
        "--only-database",
        db,
        "--url",
        served,
        "--state",
        str(state),
    ]
    first = _harvest(*args)
    assert first.exit_code == 0, first.stderr
    assert "no lineage: reads only" in first.stderr

    up = graph(served, "lineage", nodeId=f"dataset:{ns}:{db}.revenue", direction="upstream", depth=6)
    names = {n["name"] for n in up["nodes"]}
    assert {f"{db}.paid", f"{db}.orders", f"{db}.customers"} <= names
    assert [f["name"] for f in graph(served, "node", nodeId=f"dataset:{ns}:{db}.paid")["fields"]] == [
        "id",
        "amount",
        "country",
    ]
    (job,) = [n for n in up["nodes"] if n["type"] == "JOB" and n["name"].startswith(f"insert_into.{db}.revenue")]
    (run,) = graph(server := served, "runs", nodeId=job["id"])["runs"]
    assert run["state"] == "COMPLETE" and run["facets"]["headwater_harvest"]["database"] == db

    again = _harvest(*args)
    assert "0 events sent" in again.stderr, again.stderr
    _run(general_log, [STATEMENTS[6]])
    more = _harvest(*args)
    assert "1 with lineage, 1 events sent (0 already known)" in more.stderr, more.stderr
    assert len(graph(server, "runs", nodeId=job["id"])["runs"]) == 2

    state.unlink()  # a lost checkpoint: read again from the start of the log, stored once
    lost = _harvest(*args)
    assert "already known" in lost.stderr and "(0 already known)" not in lost.stderr, lost.stderr
    assert len(graph(server, "runs", nodeId=job["id"])["runs"]) == 2


def test_wrong_dsn_is_a_clear_error(mariadb_server_url: str, tmp_path: Path) -> None:
    parts = urlsplit(mariadb_server_url)
    result = _harvest(
        "--dsn",
        f"mysql://{parts.username}:wrong-password@{parts.hostname}:{parts.port}/x",
        "--state",
        str(tmp_path / "s.json"),
    )
    assert result.exit_code == 2
    assert "cannot connect to MariaDB/MySQL" in result.stderr and "check host, port" in result.stderr
