"""``headwater harvest mysql`` against the shared MariaDB with its general log table switched on for the test
(restored afterwards), and against a private MariaDB with performance_schema on: statements run in a fresh
database, harvested to a real Headwater and read back; the checkpoint sends each statement once; a wrong DSN is a
clear error."""

from __future__ import annotations

from datetime import UTC, datetime
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


def test_performance_schema_harvest_has_real_times_and_sends_each_statement_once(
    private_mariadb: str, served: str, tmp_path: Path
) -> None:
    import pymysql

    db = "shop_ps"
    parts = urlsplit(private_mariadb)
    with pymysql.connect(host=parts.hostname, port=parts.port, user="root", password="", autocommit=True) as conn:
        with conn.cursor() as cur:
            cur.execute(f"DROP DATABASE IF EXISTS `{db}`")
            cur.execute(f"CREATE DATABASE `{db}`")
    url = f"{private_mariadb}{db}" if private_mariadb.endswith("/") else f"{private_mariadb}/{db}"
    _run(
        url,
        [
            *STATEMENTS,
            "SELECT SLEEP(0.3)",
            "INSERT INTO revenue SELECT country, SUM(amount) FROM paid GROUP BY country",
        ],
    )
    ns, _ = database_namespace(url)
    state = tmp_path / "ps.json"
    args = [
        "--dsn",
        url,
        "--source",
        "performance_schema",
        "--only-database",
        db,
        "--url",
        served,
        "--state",
        str(state),
    ]
    first = _harvest(*args)
    assert first.exit_code == 0, first.stderr
    assert "with lineage" in first.stderr, first.stderr

    up = graph(served, "lineage", nodeId=f"dataset:{ns}:{db}.revenue", direction="upstream", depth=6)
    assert {f"{db}.paid", f"{db}.orders", f"{db}.customers"} <= {n["name"] for n in up["nodes"]}
    (job,) = [n for n in up["nodes"] if n["type"] == "JOB" and n["name"].startswith(f"insert_into.{db}.revenue")]
    runs = graph(served, "runs", nodeId=job["id"])["runs"]
    assert len(runs) == 2  # the INSERT ran twice: two executions, two runs
    for run in runs:
        facet = run["facets"]["headwater_harvest"]
        assert facet["database"] == db and facet["thread"] > 0 and facet["eventId"] > 0, facet
        assert run["state"] == "COMPLETE" and run["startedAt"] <= run["endedAt"], run
    # performance_schema's timers (picoseconds since the server started) became the statements' real times
    for run in runs:
        ended = datetime.fromisoformat(run["endedAt"].replace("Z", "+00:00"))
        assert abs((datetime.now(UTC) - ended).total_seconds()) < 600, run["endedAt"]

    again = _harvest(*args)
    assert again.exit_code == 0 and "0 events sent" in again.stderr, again.stderr
    _run(url, [STATEMENTS[6]])
    more = _harvest(*args)
    assert "1 with lineage" in more.stderr, more.stderr
    assert len(graph(served, "runs", nodeId=job["id"])["runs"]) == 3


def test_performance_schema_with_a_consumer_off_is_a_clear_error(private_mariadb: str, tmp_path: Path) -> None:
    """MariaDB's default leaves events_statements_current off, and then events_statements_history_long stays empty:
    an explicit --source performance_schema names the consumer instead of reading nothing."""
    import pymysql

    parts = urlsplit(private_mariadb)
    with pymysql.connect(host=parts.hostname, port=parts.port, user="root", password="", autocommit=True) as conn:
        with conn.cursor() as cur:
            cur.execute(
                "UPDATE performance_schema.setup_consumers SET ENABLED = 'NO' WHERE NAME = 'events_statements_current'"
            )
            try:
                result = _harvest(
                    "--dsn",
                    f"{private_mariadb}/mysql",
                    "--source",
                    "performance_schema",
                    "--state",
                    str(tmp_path / "s.json"),
                )
            finally:
                cur.execute(
                    "UPDATE performance_schema.setup_consumers SET ENABLED = 'YES' WHERE NAME = 'events_statements_current'"
                )
    assert result.exit_code == 2, result.output
    assert "events_statements_current off" in result.stderr and "docs/sql.md" in result.stderr, result.stderr


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
