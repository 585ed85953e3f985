"""``headwater sql lineage`` end to end: SQL files → events printed, or posted to a real Headwater over HTTP and
read back through its API (the schema of a table Headwater knows resolves a later script's SELECT *)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from headwater.api import create_app
from headwater.cli import cli
from headwater.client import dataset_fields
from headwater.settings import load_settings
from headwater.store import Store
from live_server import ThreadServer
from olschema import event_errors

NS = "postgres://warehouse:5432"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    store = Store.open(f"sqlite:///{tmp_path / 'hw.db'}")
    app = create_app(load_settings({}, environ={}), store)
    with ThreadServer(app) as server:
        yield server.url
    store.close()


def _run(args: list[str], stdin: str | None = None):
    return CliRunner().invoke(cli, ["sql", "lineage", *args], input=stdin, catch_exceptions=False)


def test_prints_one_event_per_writing_statement_and_reports_errors(tmp_path: Path) -> None:
    script = tmp_path / "etl.sql"
    script.write_text(
        "CREATE TABLE rpt.paid AS SELECT id, amount FROM orders WHERE status = 'paid';\n"
        "SELECT * FROM rpt.paid;\n"
        "INSERT INTO (oops;\n"
        "INSERT INTO rpt.total SELECT SUM(amount) AS total FROM rpt.paid;\n"
    )
    result = _run(["--dialect", "postgres", "--namespace", NS, "--default-database", "shop", str(script)])
    assert result.exit_code == 2
    assert "statement 3 (line 3, column 1)" in result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert [e["outputs"][0]["name"] if e["outputs"] else None for e in events] == [
        "shop.rpt.paid",
        None,
        "shop.rpt.total",
    ]
    assert "extractionError" in events[1]["run"]["facets"]
    for e in events:
        assert event_errors(e) == []
    total = events[2]["outputs"][0]["facets"]["columnLineage"]["fields"]["total"]["inputFields"]
    assert [(f["name"], f["field"]) for f in total] == [("shop.rpt.paid", "amount")]


def test_stdin_and_unknown_dialect() -> None:
    result = _run(
        ["--dialect", "mysql", "--namespace", "mysql://db:3306", "--default-database", "crm", "-"],
        stdin="INSERT INTO a (x) SELECT y FROM b",
    )
    assert result.exit_code == 0
    (event,) = [json.loads(line) for line in result.stdout.splitlines()]
    assert event["outputs"][0]["name"] == "crm.a"
    unknown = _run(["--dialect", "klingon", "-"], stdin="INSERT INTO a (x) SELECT y FROM b")
    assert unknown.exit_code == 0
    assert "unknown SQL dialect 'klingon': read as ansi" in unknown.stderr
    (event,) = [json.loads(line) for line in unknown.stdout.splitlines()]
    assert event["outputs"][0]["name"] == "a"
    teradata = _run(["--dialect", "teradata", "-"], stdin="INSERT INTO a (x) SELECT y FROM b SAMPLE 10")
    assert teradata.exit_code == 0, teradata.stderr
    assert teradata.stderr == ""


def test_dynamic_sql_is_named_on_stderr_and_a_constant_exec_is_analysed() -> None:
    script = "EXEC('INSERT INTO dbo.t (a) SELECT b FROM dbo.s');\nEXEC(@sql);\nEXEC dbo.nightly @day = 1;\n"
    result = _run(["--dialect", "tsql", "--namespace", "sqlserver://db:1433", "-"], stdin=script)
    assert result.exit_code == 0, result.stderr  # not analysed is not a failure
    (event,) = [json.loads(line) for line in result.stdout.splitlines()]
    assert event["outputs"][0]["name"].endswith("dbo.t")
    fields = event["outputs"][0]["facets"]["columnLineage"]["fields"]
    assert [(f["name"], f["field"]) for f in fields["a"]["inputFields"]] == [(event["inputs"][0]["name"], "b")]
    lines = result.stderr.splitlines()
    assert lines == [
        "-: statement 2 (line 2, column 1): not analysed: dynamic SQL or a procedure call (EXEC(@sql))",
        "-: statement 3 (line 3, column 1): not analysed: dynamic SQL or a procedure call (EXEC dbo.nightly @day = 1)",
    ]


def test_posts_to_headwater_and_resolves_star_with_its_schemas(served: str, tmp_path: Path) -> None:
    first = tmp_path / "first.sql"
    first.write_text("CREATE TABLE staging.orders AS SELECT id, amount, customer FROM raw_orders;")
    result = _run(
        ["--dialect", "postgres", "--namespace", NS, "--default-database", "shop", "--url", served, str(first)]
    )
    assert result.exit_code == 0, result.stderr
    assert dataset_fields(served, NS, "shop.staging.orders") == [("id", None), ("amount", None), ("customer", None)]
    assert dataset_fields(served, NS, "shop.staging.nothing") is None

    second = tmp_path / "second.sql"
    second.write_text("INSERT INTO mart.orders SELECT * FROM staging.orders;")
    result = _run(
        [
            "--dialect",
            "postgres",
            "--namespace",
            NS,
            "--default-database",
            "shop",
            "--url",
            served,
            "--schema-from",
            served,
            str(second),
        ]
    )
    assert result.exit_code == 0, result.stderr
    answer = httpx.get(f"{served}/api/v1/graph/node", params={"nodeId": f"dataset:{NS}:shop.mart.orders"})
    assert answer.status_code == 200, answer.text
    assert [f["name"] for f in answer.json()["fields"]] == ["id", "amount", "customer"]
