"""``headwater sql lineage`` end to end: SQL files → events printed, or posted to a real Headwater over HTTP and
read back through its API (the schema of a table Headwater knows resolves a later script's SELECT *)."""

from __future__ import annotations

import json
import os
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


# what a one-statement call must not import: the server, its store and HTTP stack, data frames
_HEAVY = ("sqlalchemy", "pyarrow", "httpx", "fastapi", "starlette", "uvicorn", "pydantic", "numpy", "pandas")
_HEAVY_OWN = ("headwater.api", "headwater.store", "headwater.graph", "headwater.client", "headwater.harvest")


def test_a_one_statement_call_imports_only_the_sql_engine(tmp_path: Path) -> None:
    """``headwater sql lineage`` is called per statement from hooks and CI: it imports the SQL engine and click,
    not the server's parts (what it loaded is read from the process itself, after it answered)."""
    import subprocess
    import sys

    import headwater

    script = tmp_path / "one.sql"
    script.write_text("INSERT INTO rpt.t (x) SELECT a + 1 FROM s WHERE b > 0")
    code = (
        "import atexit, json, sys\n"
        "atexit.register(lambda: sys.stderr.write('MODULES ' + json.dumps(sorted(sys.modules)) + '\\n'))\n"
        "from headwater.cli import main\n"
        "main()\n"
    )
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(Path(headwater.__file__).parents[1]), os.environ.get("PYTHONPATH", "")]),
    }
    done = subprocess.run(
        [sys.executable, "-c", code, "sql", "lineage", "--dialect", "postgres", str(script)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    (event,) = [json.loads(line) for line in done.stdout.splitlines()]
    fields = event["outputs"][0]["facets"]["columnLineage"]["fields"]
    assert [(f["name"], f["field"]) for f in fields["x"]["inputFields"]] == [("public.s", "a")]
    modules = json.loads(done.stderr.split("MODULES ", 1)[1])
    assert "headwater.sql.extract" in modules and "sqlglot" in modules  # the list is the answering process's
    heavy = [m for m in modules if m.split(".")[0] in _HEAVY or m.startswith(_HEAVY_OWN)]
    assert heavy == []


def test_a_script_of_ten_thousand_statements_in_one_call(tmp_path: Path) -> None:
    """One invocation reads a 10,000-statement script: an event per statement in order, the lineage of the
    statements that read tables, and the position of a bad statement near its end."""
    statements = []
    for i in range(10_000):
        if i == 9_998:
            statements.append("INSERT INTO (oops")
        elif i % 1000 == 0:
            statements.append(f"INSERT INTO rpt.r{i} (x) SELECT a + b FROM s WHERE c > {i}")
        else:
            statements.append(f"INSERT INTO t{i % 7} VALUES ({i})")
    script = tmp_path / "big.sql"
    script.write_text(";\n".join(statements) + ";\n")
    result = _run(["--dialect", "postgres", "--namespace", NS, "--default-database", "shop", str(script)])
    assert result.exit_code == 2
    assert "statement 9999 (line 9999, column 1)" in result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(events) == 10_000
    assert [e["job"]["facets"]["sql"]["query"] for e in events] == statements
    assert [e["outputs"][0]["name"] for e in events[:3]] == ["shop.rpt.r0", "shop.public.t1", "shop.public.t2"]
    for i in range(0, 10_000, 1000):
        (out,) = events[i]["outputs"]
        assert out["name"] == f"shop.rpt.r{i}"
        lineage = out["facets"]["columnLineage"]
        assert [
            (f["name"], f["field"], f["transformations"][0]["subtype"]) for f in lineage["fields"]["x"]["inputFields"]
        ] == [
            ("shop.public.s", "a", "TRANSFORMATION"),
            ("shop.public.s", "b", "TRANSFORMATION"),
        ]
        assert [(f["field"], f["transformations"][0]["subtype"]) for f in lineage["dataset"]] == [("c", "FILTER")]
