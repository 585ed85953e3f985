"""``headwater harvest postgres`` against a real PostgreSQL (a private instance with pg_stat_statements preloaded
and every statement in a csvlog): statements run, harvested, read back from a real Headwater over HTTP; the
checkpoint (nothing twice, new calls only); real start/end times and a failed statement from the csvlog; a lost
checkpoint stores nothing twice; clear errors for a wrong DSN and a missing extension."""

from __future__ import annotations

import json
from pathlib import Path

import psycopg
import pytest
from click.testing import CliRunner

from headwater.cli import cli
from headwater.model.naming import database_namespace

from .conftest import PrivatePostgres, graph

SETUP = """
CREATE TABLE orders (id int PRIMARY KEY, customer_id int, amount numeric, status text);
CREATE TABLE customers (id int PRIMARY KEY, name text, country text);
INSERT INTO orders VALUES (1, 1, 10.5, 'paid'), (2, 2, 20, 'open');
INSERT INTO customers VALUES (1, 'Ada', 'UK'), (2, 'Linus', 'FI');
"""
ETL = [
    "CREATE TABLE paid_orders AS SELECT o.id, o.amount, c.country FROM orders o JOIN customers c "
    "ON c.id = o.customer_id WHERE o.status = 'paid'",
    "CREATE TABLE revenue (country text, total numeric)",
    "INSERT INTO revenue SELECT country, SUM(amount) FROM paid_orders GROUP BY country",
    "SELECT * FROM revenue",
]


def _run(url: str, statements: list[str]) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        for s in statements:
            conn.execute(s)


def _harvest(*args: str):
    return CliRunner().invoke(cli, ["harvest", "postgres", "-q", *args], catch_exceptions=False)


def test_pg_stat_statements_harvest_reaches_the_graph_once(pg_db: str, served: str, tmp_path: Path) -> None:
    _run(pg_db, [SETUP, *ETL])
    ns, db = database_namespace(pg_db)
    state = tmp_path / "pg.json"
    first = _harvest("--dsn", pg_db, "--url", served, "--state", str(state))
    assert first.exit_code == 0, first.stderr
    assert "skipped" in first.stderr and "no lineage: reads only" in first.stderr

    up = graph(served, "lineage", nodeId=f"dataset:{ns}:{db}.public.revenue", direction="upstream", depth=6)
    names = {n["name"] for n in up["nodes"]}
    assert {f"{db}.public.paid_orders", f"{db}.public.orders", f"{db}.public.customers"} <= names
    # SELECT * / column lineage resolved against the live database's information_schema
    revenue = graph(served, "node", nodeId=f"dataset:{ns}:{db}.public.revenue")
    assert [f["name"] for f in revenue["fields"]] == ["country", "total"]
    (insert_job,) = [
        n for n in up["nodes"] if n["type"] == "JOB" and n["name"].startswith(f"insert_into.{db}.public.revenue")
    ]
    (run,) = graph(served, "runs", nodeId=insert_job["id"])["runs"]
    assert run["state"] == "COMPLETE" and run["facets"]["headwater_harvest"]["calls"] == 1

    nothing_new = _harvest("--dsn", pg_db, "--url", served, "--state", str(state))
    assert "0 with lineage, 0 events sent" in nothing_new.stderr, nothing_new.stderr

    _run(pg_db, [ETL[2], ETL[2]])  # the same statement twice more: one more run of the same job, 2 calls
    more = _harvest("--dsn", pg_db, "--url", served, "--state", str(state))
    assert "1 with lineage, 1 events sent" in more.stderr, more.stderr
    runs = graph(served, "runs", nodeId=insert_job["id"])["runs"]
    assert sorted(r["facets"]["headwater_harvest"]["calls"] for r in runs) == [1, 2]


def test_csvlog_harvest_has_real_times_failures_and_survives_a_lost_checkpoint(
    private_pg: PrivatePostgres, pg_db: str, served: str, tmp_path: Path
) -> None:
    _run(pg_db, [SETUP, *ETL])
    with psycopg.connect(pg_db, autocommit=True) as conn, pytest.raises(psycopg.errors.UndefinedColumn):
        conn.execute("INSERT INTO revenue SELECT nation, 1 FROM customers")
    _run(pg_db, ["SELECT pg_sleep(0.05)"])
    with psycopg.connect(private_pg.url(), autocommit=True) as conn:
        conn.execute("SELECT pg_rotate_logfile()")  # the statements above are in a closed file, later ones too
    ns, db = database_namespace(pg_db)
    logs = private_pg.csvlogs()
    assert logs
    args = [
        "--dsn",
        pg_db,
        "--state",
        str(tmp_path / "csv.json"),
        "--url",
        served,
        "--csvlog",
        str(private_pg.log_dir),
    ]  # the folder: every *.csv in it
    first = _harvest(*args)
    assert first.exit_code == 0, first.stderr

    jobs = graph(served, "jobs", namespace=ns)
    mine = {j["name"]: j for j in jobs["items"] if f".{db}." in j["name"]}
    ctas = next(j for name, j in mine.items() if name.startswith(f"create_table_as.{db}.public.paid_orders"))
    (run,) = graph(served, "runs", nodeId=ctas["id"])["runs"]
    assert run["state"] == "COMPLETE"
    assert run["startedAt"] < run["endedAt"]  # the start is the end minus the logged duration
    failed = [j for name, j in mine.items() if name.startswith(f"insert_into.{db}.public.revenue")]
    states = sorted(r["state"] for j in failed for r in graph(served, "runs", nodeId=j["id"])["runs"])
    assert states == ["COMPLETE", "FAIL"]
    fail_run = next(r for j in failed for r in graph(served, "runs", nodeId=j["id"])["runs"] if r["state"] == "FAIL")
    assert 'column "nation" does not exist' in fail_run["facets"]["headwater_harvest"]["error"]

    again = _harvest(*args)
    assert "0 events sent" in again.stderr, again.stderr
    (tmp_path / "csv.json").unlink()  # a lost checkpoint: everything is read again and stored once
    lost = _harvest(*args)
    summary = lost.stderr.splitlines()[0]
    sent, known = summary.split(" events sent (")[0].rsplit(" ", 1)[1], summary.split("(")[1].split(" ")[0]
    assert sent == known and int(sent.replace(",", "")) > 0, lost.stderr


def test_printed_events_without_a_server(pg_db: str, tmp_path: Path) -> None:
    _run(pg_db, [SETUP, ETL[0]])
    result = _harvest("--dsn", pg_db, "--state", str(tmp_path / "s.json"))
    assert result.exit_code == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    (ctas,) = [e for e in events if "paid_orders" in e["job"]["name"]]
    assert ctas["job"]["facets"]["sql"]["query"].startswith("CREATE TABLE paid_orders AS SELECT")
    fields = ctas["outputs"][0]["facets"]["columnLineage"]["fields"]
    direct = {
        (f["name"], f["field"])
        for f in fields["country"]["inputFields"]
        if any(t["type"] == "DIRECT" for t in f["transformations"])
    }
    assert direct == {(f"{database_namespace(pg_db)[1]}.public.customers", "country")}


def test_clear_errors(private_pg: PrivatePostgres, tmp_path: Path) -> None:
    wrong = _harvest(
        "--dsn", f"postgresql://postgres@127.0.0.1:{private_pg.port}/no_such_db", "--state", str(tmp_path / "a.json")
    )
    assert wrong.exit_code == 2
    assert "cannot connect to PostgreSQL" in wrong.stderr and "no_such_db" in wrong.stderr
    # the maintenance database has no CREATE EXTENSION pg_stat_statements
    missing = _harvest("--dsn", private_pg.url(), "--state", str(tmp_path / "b.json"))
    assert missing.exit_code == 2
    assert "CREATE EXTENSION pg_stat_statements" in missing.stderr


def test_texts_hidden_without_pg_read_all_stats_are_skipped_with_the_grant_to_make(
    private_pg: PrivatePostgres, pg_db: str, tmp_path: Path
) -> None:
    db = database_namespace(pg_db)[1]
    with psycopg.connect(pg_db, autocommit=True) as conn:
        conn.execute("DROP ROLE IF EXISTS harvester")
        conn.execute("CREATE ROLE harvester LOGIN")
    _run(pg_db, [SETUP, ETL[0]])  # run by postgres: its texts are hidden from harvester
    limited = f"postgresql://harvester@127.0.0.1:{private_pg.port}/{db}"
    hidden = _harvest("--dsn", limited, "--state", str(tmp_path / "h.json"))
    assert hidden.exit_code == 0, hidden.stderr
    assert "statement text hidden: GRANT pg_read_all_stats TO the harvesting user" in hidden.stderr
    assert not [line for line in hidden.stdout.splitlines() if "paid_orders" in line]
    with psycopg.connect(pg_db, autocommit=True) as conn:
        conn.execute("GRANT pg_read_all_stats TO harvester")
    granted = _harvest("--dsn", limited, "--state", str(tmp_path / "g.json"))
    assert [line for line in granted.stdout.splitlines() if "paid_orders" in line]
    with psycopg.connect(pg_db, autocommit=True) as conn:
        conn.execute("DROP OWNED BY harvester")
        conn.execute("DROP ROLE harvester")


def test_follow_harvests_new_statements_until_terminated(
    private_pg: PrivatePostgres, pg_db: str, served: str, tmp_path: Path
) -> None:
    import os
    import signal
    import subprocess
    import sys

    import httpx

    from .conftest import wait_until

    ns, db = database_namespace(pg_db)
    _run(pg_db, [SETUP])
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "headwater",
            "harvest",
            "postgres",
            "--dsn",
            pg_db,
            "--csvlog",
            str(private_pg.log_dir),
            "--follow",
            "--interval",
            "0.2",
            "--url",
            served,
            "--state",
            str(tmp_path / "f.json"),
            "-q",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ},
    )
    try:

        def jobs() -> set[str]:
            answer = httpx.get(f"{served}/api/v1/graph/jobs", params={"namespace": ns, "limit": 1000})
            return {j["name"] for j in answer.json().get("items", [])} if answer.status_code == 200 else set()

        _run(pg_db, [ETL[0]])
        assert wait_until(lambda: any(n.startswith(f"create_table_as.{db}.public.paid_orders") for n in jobs()), 30)
        _run(pg_db, ETL[1:3])
        assert wait_until(lambda: any(n.startswith(f"insert_into.{db}.public.revenue") for n in jobs()), 30)
    finally:
        proc.send_signal(signal.SIGTERM)
        _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert "events sent" in err
