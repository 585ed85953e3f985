"""`headwater demo` end to end: the real server, real Spark jobs under `headwater run`, the graph read over HTTP.

Two demo runs (module-scoped; Spark is slow, so each run serves many tests): the CSV pipeline with
``--warehouse`` (the landing folder crawled before the jobs and again after a column was added, job 2
publishing to a fresh database on the real PostgreSQL server and the SQL summary there), and the JDBC
(Glue-style) variant without ``--warehouse``. Each is a child process exactly as a user starts it; the
tests read what it made through the server it started (`/api/v1/graph/*`) and the database, then stop
it with Ctrl-C (or SIGTERM).
"""

from __future__ import annotations

import json
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import httpx
import pyspark
import pytest

from databases import pg_database as pg_database_of

from .demo_process import DemoProcess, start_demo

pytestmark = [pytest.mark.spark, pytest.mark.slow, pytest.mark.postgres]

NS = "hr_payroll"
# the OpenLineage Spark integration's naming (JobNameBuilder): <app>.<snake_case of the executed root's node>.<output
# suffix>: the last two path segments of a file write; the table option of a JDBC save
JOB1_NAME = f"job:{NS}:hr_employee_attendance.adaptive_spark_plan.warehouse_employee_attendance"
JOB2_NAME = f"job:{NS}:hr_employee_compensation.adaptive_spark_plan.warehouse_employee_compensation"
PUBLISH_NAME = f"job:{NS}:hr_employee_compensation.execute_save_into_data_source_command.hr_employee_compensation"
APP1 = f"job:{NS}:hr_employee_attendance"
APP2 = f"job:{NS}:hr_employee_compensation"
CRAWLER = "job:headwater:hr-landing"
TABLES = ("attendance", "bonus_payments", "employees", "salary_adjustments")


def file_id(path: Path) -> str:
    return f"dataset:file:{path.resolve()}"


def field_id(dataset_id: str, field: str) -> str:
    return "datasetField:" + dataset_id.removeprefix("dataset:") + ":" + field


class Pipeline:
    """The node ids of one demo run."""

    def __init__(self, data_dir: Path) -> None:
        landing, wh = data_dir / "landing", data_dir / "warehouse"
        # one folder per CSV file: the crawler's storage location of each table and what the jobs read
        self.employees = file_id(landing / "employees")
        self.attendance = file_id(landing / "attendance")
        self.adjustments = file_id(landing / "salary_adjustments")
        self.bonuses = file_id(landing / "bonus_payments")
        self.employee_attendance = file_id(wh / "employee_attendance")
        self.compensation = file_id(wh / "employee_compensation")
        self.landing = {
            "employees": self.employees,
            "attendance": self.attendance,
            "salary_adjustments": self.adjustments,
            "bonus_payments": self.bonuses,
        }


def catalog_id(table: str) -> str:
    return f"dataset:headwater:hr.{table}"


class Warehouse:
    """The node ids of the --warehouse run's PostgreSQL tables (named like Spark's JDBC URL: the same host)."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.url = url
        ns = f"postgres://{parts.hostname}:{parts.port or 5432}"
        db = parts.path.lstrip("/")
        self.table = f"dataset:{ns}:{db}.hr.employee_compensation"
        self.summary = f"dataset:{ns}:{db}.hr.compensation_by_department"
        self.job_namespace = ns


def producers(demo: DemoProcess, dataset: str) -> list[str]:
    jobs: list[str] = get(demo, "/api/v1/graph/node", nodeId=dataset)["producers"]
    return jobs


def pipeline_jobs(demo: DemoProcess, p: Pipeline) -> tuple[str, str]:
    """The jobs that wrote employee_attendance and employee_compensation: the names the OpenLineage Spark
    naming gives them (JOB1_NAME, JOB2_NAME), checked against the server's producers of each output."""
    assert producers(demo, p.employee_attendance) == [JOB1_NAME]
    assert producers(demo, p.compensation) == [JOB2_NAME]
    return JOB1_NAME, JOB2_NAME


def get(demo: DemoProcess, path: str, **params: Any) -> Any:
    answer = httpx.get(demo.url + path, params=params, timeout=30.0)
    assert answer.status_code == 200, f"GET {path} {params} → {answer.status_code}: {answer.text[:500]}"
    return answer.json()


def edge_set(answer: dict[str, Any]) -> set[tuple[str, str, str]]:
    return {(e["source"], e["target"], e["type"]) for e in answer["edges"]}


def column_edges(edges: list[dict[str, Any]]) -> set[tuple[str, str, str, str]]:
    """(source, target, type, subtype) for every transformation of every column edge."""
    return {(e["source"], e["target"], t["type"], t["subtype"]) for e in edges for t in e["transformations"]}


@pytest.fixture(scope="module")
def warehouse_url(pg_server_url: str) -> Iterator[str]:
    """A fresh database on the real PostgreSQL server: the --warehouse of the main run."""
    with pg_database_of(pg_server_url, prefix="hw_demo_dwh") as url:
        yield url


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory, warehouse_url: str) -> Iterator[DemoProcess]:
    run = start_demo(tmp_path_factory.mktemp("demo") / "hw", "--rows", "40", "--warehouse", warehouse_url)
    try:
        run.wait_until_serving()
        yield run
    finally:
        run.interrupt()


# ---------------------------------------------------------------------------- the CSV pipeline


def test_demo_shows_its_steps_and_the_lineage_page(demo: DemoProcess) -> None:
    out = demo.output
    steps = (
        "✔ Checking Java",
        "✔ Starting the Headwater server",
        "✔ Checking the warehouse PostgreSQL",
        "✔ Generating the HR sample data (40 employees)",
        "✔ Crawling the landing folder",
        "✔ Running job 1",
        "✔ Running job 2",
        "✔ Checking the captured lineage",
        "✔ Setting up the catalog: a domain, a producer and a consumer project",
        "✔ Summarising by department in PostgreSQL: hr.compensation_by_department",
        "✔ Adding the column Email to employees.csv and crawling again",
    )
    at = [out.index(step) for step in steps]
    assert at == sorted(at), out
    assert "catalog hr: added: attendance, bonus_payments, employees, salary_adjustments" in out
    assert "catalog hr: updated: employees; 3 unchanged" in out
    # the catalog by default: its sign-in tokens printed, each one signs its user in
    tokens = json.loads((demo.data_dir / "catalog-tokens.json").read_text())
    assert sorted(tokens) == ["finance-analyst", "payroll-owner"]
    assert f"{demo.url}/catalog — Sign in with a token:" in out
    for user, token in tokens.items():
        assert f"{user} (" in out and token in out
        me = httpx.get(f"{demo.url}/api/v1/catalog/me", headers={"Authorization": f"Bearer {token}"}, timeout=30.0)
        assert me.json()["user"] == user, me.text
    # published and subscribed: the published node is downstream of employee_compensation, and a reader
    # who is not signed in sees it all (the rest of these tests read the pipeline signed out too)
    comp = Pipeline(demo.data_dir).compensation
    down = get(demo, "/api/v1/graph/lineage", nodeId=comp, direction="downstream", depth=4)
    assert not [n for n in down["nodes"] if n["type"] == "RESTRICTED"], down["nodes"]
    assert len([n for n in down["nodes"] if n["type"] == "JOB"]) >= 2, down["nodes"]  # publish and subscribe
    page = demo.page_url()
    assert page == f"{demo.url}/asset?node={quote(comp, safe='')}&depth=4&col=TotalCompensation"
    answer = httpx.get(page, timeout=30.0)
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/html")


def test_dataset_and_job_graph_is_exactly_the_pipeline(demo: DemoProcess) -> None:
    p = Pipeline(demo.data_dir)
    job1, job2 = pipeline_jobs(demo, p)
    lineage = get(demo, "/api/v1/graph/lineage", nodeId=p.compensation, direction="upstream", depth=10)
    assert lineage["truncated"] is False
    assert {n["id"] for n in lineage["nodes"]} == {
        p.employees,
        p.attendance,
        p.adjustments,
        p.bonuses,
        job1,
        p.employee_attendance,
        job2,
        p.compensation,
    }
    assert edge_set(lineage) == {
        (p.employees, job1, "INPUT"),
        (p.attendance, job1, "INPUT"),
        (job1, p.employee_attendance, "OUTPUT"),
        (p.employee_attendance, job2, "INPUT"),
        (p.adjustments, job2, "INPUT"),
        (p.bonuses, job2, "INPUT"),
        (job2, p.compensation, "OUTPUT"),
    }
    levels = {n["id"]: n["level"] for n in lineage["nodes"]}
    assert levels[p.compensation] == 0 and levels[job2] == -1 and levels[p.employee_attendance] == -2
    assert levels[job1] == -3 and levels[p.employees] == -4 and levels[p.adjustments] == -2
    kinds = {n["id"]: n.get("kind") for n in lineage["nodes"] if n["type"] == "DATASET"}
    assert set(kinds.values()) == {"file"}
    fields = {n["id"]: [f["name"] for f in n["fields"]] for n in lineage["nodes"] if n["type"] == "DATASET"}
    assert fields[p.compensation] == [
        "EmployeeID",
        "Name",
        "Department",
        "Role",
        "BaseSalary",
        "OvertimeHours",
        "OvertimePay",
        "TotalAdjustments",
        "TotalBonuses",
        "TotalCompensation",
    ]
    assert fields[p.employee_attendance] == [
        "EmployeeID",
        "Name",
        "Department",
        "Role",
        "Salary",
        "Location",
        "Date",
        "Shift",
        "Absent",
        "HoursWorked",
        "OvertimeHours",
    ]

    folded = get(
        demo, "/api/v1/graph/lineage", nodeId=p.compensation, direction="upstream", depth=10, datasetsOnly="true"
    )
    assert {(e["source"], e["target"], e["type"], tuple(e["via"])) for e in folded["edges"]} == {
        (p.employees, p.employee_attendance, "DERIVED", (job1,)),
        (p.attendance, p.employee_attendance, "DERIVED", (job1,)),
        (p.employee_attendance, p.compensation, "DERIVED", (job2,)),
        (p.adjustments, p.compensation, "DERIVED", (job2,)),
        (p.bonuses, p.compensation, "DERIVED", (job2,)),
    }


# Column lineage of the two jobs, one hop, as OpenLineage's columnLineage facet states it:
# {output column: {(input dataset attribute, input column): {(type, subtype), ...}}}.
# Indirect dependencies apply to every output column (datasetLineageEnabled is off, so OpenLineage
# folds them into each field). The optimizer's inferred `isnotnull(EmployeeID)` filters on the inner
# join's two sides and on the right side of job 2's left joins are INDIRECT FILTER.
JOB1_INDIRECT = {
    ("attendance", "EmployeeID"): {("INDIRECT", "FILTER"), ("INDIRECT", "JOIN")},
    ("employees", "EmployeeID"): {("INDIRECT", "FILTER"), ("INDIRECT", "JOIN")},
}
JOB1_DIRECT = {
    "EmployeeID": {("attendance", "EmployeeID"): {("DIRECT", "IDENTITY")}},
    **{
        c: {("employees", c): {("DIRECT", "IDENTITY")}}
        for c in ("Name", "Department", "Role", "Salary", "Location", "Shift")
    },
    **{c: {("attendance", c): {("DIRECT", "IDENTITY")}} for c in ("Date", "Absent", "OvertimeHours")},
    "HoursWorked": {
        ("attendance", "ShiftStart"): {("DIRECT", "TRANSFORMATION")},
        ("attendance", "ShiftEnd"): {("DIRECT", "TRANSFORMATION")},
        ("attendance", "OvertimeHours"): {("DIRECT", "TRANSFORMATION")},
        ("attendance", "Absent"): {("INDIRECT", "CONDITIONAL")},
    },  # CASE WHEN Absent
}
JOB2_INDIRECT = {
    ("employee_attendance", "EmployeeID"): {("INDIRECT", "GROUP_BY"), ("INDIRECT", "JOIN")},
    **{("employee_attendance", c): {("INDIRECT", "GROUP_BY")} for c in ("Name", "Department", "Role", "Salary")},
    ("adjustments", "EmployeeID"): {("INDIRECT", "FILTER"), ("INDIRECT", "GROUP_BY"), ("INDIRECT", "JOIN")},
    ("bonuses", "EmployeeID"): {("INDIRECT", "FILTER"), ("INDIRECT", "GROUP_BY"), ("INDIRECT", "JOIN")},
}
_ADJ = {
    ("adjustments", "AdjustmentAmount"): {("DIRECT", "AGGREGATION"), ("INDIRECT", "CONDITIONAL")}
}  # coalesce(sum(..), 0)
_BON = {("bonuses", "BonusAmount"): {("DIRECT", "AGGREGATION"), ("INDIRECT", "CONDITIONAL")}}
_OT = {("employee_attendance", "OvertimeHours"): {("DIRECT", "AGGREGATION")}}
_SAL = {("employee_attendance", "Salary"): {("DIRECT", "TRANSFORMATION")}}
JOB2_DIRECT = {
    **{c: {("employee_attendance", c): {("DIRECT", "IDENTITY")}} for c in ("EmployeeID", "Name", "Department", "Role")},
    "BaseSalary": {("employee_attendance", "Salary"): {("DIRECT", "IDENTITY")}},
    "OvertimeHours": _OT,
    "OvertimePay": {**_OT, **_SAL},
    "TotalAdjustments": _ADJ,
    "TotalBonuses": _BON,
    "TotalCompensation": {**_ADJ, **_BON, **_OT, **_SAL},
}


def expected_column_edges(
    p: Pipeline, output: str, job: str, direct: dict[str, Any], indirect: dict[tuple[str, str], set[tuple[str, str]]]
) -> set[tuple[str, str, str, str, str]]:
    out: set[tuple[str, str, str, str, str]] = set()
    for column, sources in direct.items():
        merged: dict[tuple[str, str], set[tuple[str, str]]] = {k: set(v) for k, v in indirect.items()}
        for key, kinds in sources.items():
            merged.setdefault(key, set()).update(kinds)
        for (dataset, field), kinds in merged.items():
            for kind, subtype in kinds:
                out.add((field_id(getattr(p, dataset), field), field_id(output, column), job, kind, subtype))
    return out


def test_column_lineage_of_both_jobs_is_exact(demo: DemoProcess) -> None:
    p = Pipeline(demo.data_dir)
    job1, job2 = pipeline_jobs(demo, p)
    for output, job, direct, indirect in (
        (p.employee_attendance, job1, JOB1_DIRECT, JOB1_INDIRECT),
        (p.compensation, job2, JOB2_DIRECT, JOB2_INDIRECT),
    ):
        answer = get(demo, "/api/v1/graph/column-lineage", nodeId=output, direction="upstream", depth=1)
        got = {
            (e["source"], e["target"], e["job"], t["type"], t["subtype"])
            for e in answer["edges"]
            if e["target"].startswith(field_id(output, ""))
            for t in e["transformations"]
        }
        assert got == expected_column_edges(p, output, job, direct, indirect)
        assert all(not t["masking"] for e in answer["edges"] for t in e["transformations"])


def test_total_compensation_comes_from_salary_adjustments_bonuses_and_overtime(demo: DemoProcess) -> None:
    """Follow only DIRECT edges upstream from TotalCompensation: exactly the four source columns remain."""
    p = Pipeline(demo.data_dir)
    answer = get(
        demo,
        "/api/v1/graph/column-lineage",
        nodeId=field_id(p.compensation, "TotalCompensation"),
        direction="upstream",
        depth=10,
    )
    assert answer["truncated"] is False
    direct: dict[str, set[str]] = {}
    for e in answer["edges"]:
        if any(t["type"] == "DIRECT" for t in e["transformations"]):
            direct.setdefault(e["target"], set()).add(e["source"])
    frontier, seen = [field_id(p.compensation, "TotalCompensation")], set()
    while frontier:
        node = frontier.pop()
        for source in direct.get(node, ()):
            if source not in seen:
                seen.add(source)
                frontier.append(source)
    sources = {s for s in seen if s not in direct}  # the columns nothing feeds: the raw CSV columns
    assert sources == {
        field_id(p.employees, "Salary"),
        field_id(p.attendance, "OvertimeHours"),
        field_id(p.adjustments, "AdjustmentAmount"),
        field_id(p.bonuses, "BonusAmount"),
    }
    assert seen - sources == {
        field_id(p.employee_attendance, "Salary"),
        field_id(p.employee_attendance, "OvertimeHours"),
    }
    levels = {n["id"]: n["level"] for n in answer["nodes"]}
    assert levels[field_id(p.employees, "Salary")] == -2 and levels[field_id(p.adjustments, "AdjustmentAmount")] == -1


def test_each_job_ran_once_and_completed(demo: DemoProcess) -> None:
    p = Pipeline(demo.data_dir)
    job1, job2 = pipeline_jobs(demo, p)
    for job, app, inputs, outputs in (
        (job1, APP1, {p.employees, p.attendance}, {p.employee_attendance}),
        (job2, APP2, {p.employee_attendance, p.adjustments, p.bonuses}, {p.compensation}),
    ):
        runs = get(demo, "/api/v1/graph/runs", nodeId=job)
        assert runs["total"] == 1, runs
        run = runs["runs"][0]
        assert run["job"] == job
        assert run["state"] == "COMPLETE"
        assert run["errorMessage"] is None
        assert set(run["inputs"]) == inputs and set(run["outputs"]) == outputs
        assert run["parentJob"] == app
        app_runs = get(demo, "/api/v1/graph/runs", nodeId=app)
        assert [(r["state"], r["runId"]) for r in app_runs["runs"]] == [("COMPLETE", run["parentRunId"])]
        node = get(demo, "/api/v1/graph/node", nodeId=job)
        assert node["jobType"] == {"integration": "SPARK", "processingType": "BATCH", "jobType": "SQL_JOB"}
        assert node["latestRun"]["state"] == "COMPLETE"


def test_job_names_follow_the_openlineage_spark_convention(demo: DemoProcess) -> None:
    p = Pipeline(demo.data_dir)
    assert producers(demo, p.employee_attendance) == [JOB1_NAME]
    assert producers(demo, p.compensation) == [JOB2_NAME]
    apps = {j["name"] for j in get(demo, "/api/v1/graph/jobs", namespace=NS)["items"]}
    assert {APP1.split(":", 2)[2], APP2.split(":", 2)[2]} <= apps


# ---------------------------------------------------------------------------- the crawled landing folder


def printed_link(demo: DemoProcess, title_start: str) -> str:
    lines = demo.output.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith(title_start))
    return lines[at + 1].strip()


def test_landing_folders_are_crawled_tables_whose_lineage_goes_on_into_the_jobs(demo: DemoProcess) -> None:
    """Each CSV folder is one node: the crawler's storage location of hr.<table> and a Spark job's input."""
    p = Pipeline(demo.data_dir)
    job1, job2 = pipeline_jobs(demo, p)
    readers = {"employees": job1, "attendance": job1, "salary_adjustments": job2, "bonus_payments": job2}
    for table, location in p.landing.items():
        assert producers(demo, catalog_id(table)) == [CRAWLER]
        node = get(demo, "/api/v1/graph/node", nodeId=catalog_id(table))
        assert [(i["namespace"], i["name"], i["type"]) for i in node["facets"]["symlinks"]["identifiers"]] == [
            ("file", location.removeprefix("dataset:file:"), "LOCATION")
        ]
        # crawled table -> its storage location (upstream: the crawler's one job reads every landing folder)
        # -> the Spark job reading it (downstream)
        up = get(demo, "/api/v1/graph/lineage", nodeId=catalog_id(table), direction="upstream", depth=2)
        assert edge_set(up) == {
            *((loc, CRAWLER, "INPUT") for loc in p.landing.values()),
            (CRAWLER, catalog_id(table), "OUTPUT"),
        }
        down = get(demo, "/api/v1/graph/lineage", nodeId=location, direction="downstream", depth=1)
        assert edge_set(down) == {(location, CRAWLER, "INPUT"), (location, readers[table], "INPUT")}
        # the crawler's columns flow into the catalog table one to one
        cols = get(demo, "/api/v1/graph/column-lineage", nodeId=catalog_id(table), direction="upstream", depth=1)
        assert {(e["source"], e["target"]) for e in cols["edges"]} >= {
            (field_id(location, "EmployeeID"), field_id(catalog_id(table), "EmployeeID"))
        }
    runs = get(demo, "/api/v1/graph/runs", nodeId=CRAWLER)["runs"]
    assert [r["state"] for r in runs] == ["COMPLETE", "COMPLETE"]
    assert all(set(r["inputs"]) == set(p.landing.values()) for r in runs)
    assert all(set(r["outputs"]) == {catalog_id(t) for t in TABLES} for r in runs)


def test_the_recrawl_shows_the_added_column_in_the_history(demo: DemoProcess) -> None:
    runs = get(demo, "/api/v1/graph/runs", nodeId=CRAWLER)["runs"]  # newest first
    recrawl, first = runs[0]["runId"], runs[1]["runId"]
    versions = get(demo, "/api/v1/graph/history", nodeId=catalog_id("employees"))["versions"]
    assert len(versions) == 2
    newest, oldest = versions
    assert newest["schemaChanges"] == {
        "added": [{"field": "Email", "type": "string", "nullable": False}],
        "removed": [],
        "typeChanged": [],
        "nullabilityChanged": [],
    }
    assert (newest["madeBy"]["runId"], newest["madeBy"]["job"], newest["madeBy"]["state"]) == (
        recrawl,
        CRAWLER,
        "COMPLETE",
    )
    assert [f["name"] for f in newest["fields"]][-2:] == ["Location", "Email"]
    assert oldest["schemaChanges"] is None and oldest["madeBy"]["runId"] == first
    for table in ("attendance", "salary_adjustments", "bonus_payments"):  # unchanged: one version each
        assert len(get(demo, "/api/v1/graph/history", nodeId=catalog_id(table))["versions"]) == 1
    link = printed_link(demo, "The History of the crawled table hr.employees")
    assert link == f"{demo.url}/asset?node={quote(catalog_id('employees'), safe='')}&tab=history"
    answer = httpx.get(link, timeout=30.0)
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/html")


# ---------------------------------------------------------------------------- --warehouse: PostgreSQL and SQL


def test_warehouse_graph_is_one_connected_graph_from_the_csv_folders(demo: DemoProcess, warehouse_url: str) -> None:
    p, w = Pipeline(demo.data_dir), Warehouse(warehouse_url)
    job1, job2 = pipeline_jobs(demo, p)
    assert producers(demo, w.table) == [PUBLISH_NAME]
    [sql_job] = producers(demo, w.summary)
    assert sql_job.startswith(f"job:{w.job_namespace}:create_table_as.")
    up = get(demo, "/api/v1/graph/lineage", nodeId=w.summary, direction="upstream", depth=12)
    assert up["truncated"] is False
    assert edge_set(up) == {
        (p.employees, job1, "INPUT"),
        (p.attendance, job1, "INPUT"),
        (job1, p.employee_attendance, "OUTPUT"),
        (p.employee_attendance, job2, "INPUT"),
        (p.adjustments, job2, "INPUT"),
        (p.bonuses, job2, "INPUT"),
        (job2, p.compensation, "OUTPUT"),
        (p.compensation, PUBLISH_NAME, "INPUT"),
        (PUBLISH_NAME, w.table, "OUTPUT"),
        (w.table, sql_job, "INPUT"),
        (sql_job, w.summary, "OUTPUT"),
    }
    # with the crawler's edges, every node is in one connected graph
    edges = edge_set(up) | {
        e
        for t in TABLES
        for e in edge_set(get(demo, "/api/v1/graph/lineage", nodeId=catalog_id(t), direction="upstream", depth=2))
    }
    nodes = {n for e in edges for n in e[:2]}
    component, frontier = {w.summary}, [w.summary]
    while frontier:
        node = frontier.pop()
        for a, b, _ in edges:
            for x, y in ((a, b), (b, a)):
                if x == node and y not in component:
                    component.add(y)
                    frontier.append(y)
    assert component == nodes and {catalog_id(t) for t in TABLES} <= nodes
    # the statement the demo ran, its run and the table it made in PostgreSQL
    [run] = get(demo, "/api/v1/graph/runs", nodeId=sql_job)["runs"]
    assert run["state"] == "COMPLETE" and run["inputs"] == [w.table] and run["outputs"] == [w.summary]
    assert (
        "CREATE TABLE hr.compensation_by_department AS"
        in get(demo, "/api/v1/graph/node", nodeId=sql_job)["facets"]["sql"]["query"]
    )
    import psycopg

    with psycopg.connect(warehouse_url) as conn:
        departments = conn.execute('SELECT count(DISTINCT "Department") FROM hr.employee_compensation').fetchone()
        summary = conn.execute('SELECT count(*), sum("Employees") FROM hr.compensation_by_department').fetchone()
    assert departments is not None and summary is not None
    assert summary == (departments[0], 40)
    link = printed_link(demo, "The lineage of the warehouse summary hr.compensation_by_department")
    assert link.startswith(f"{demo.url}/asset?node={quote(w.summary, safe='')}&depth=8&")


SUMMARY_DIRECT = {
    "Department": ("Department", "IDENTITY"),
    "TotalBaseSalary": ("BaseSalary", "AGGREGATION"),
    "TotalBonuses": ("TotalBonuses", "AGGREGATION"),
    "TotalCompensation": ("TotalCompensation", "AGGREGATION"),
    "AverageCompensation": ("TotalCompensation", "AGGREGATION"),
}


def test_warehouse_column_lineage_runs_back_to_the_csv_columns(demo: DemoProcess, warehouse_url: str) -> None:
    p, w = Pipeline(demo.data_dir), Warehouse(warehouse_url)
    [sql_job] = producers(demo, w.summary)
    # the SQL statement, one hop: each column from its source column; the grouping by Department decides the
    # rows of the whole summary, so it is one dataset-level edge (the facet's dataset list), not one per column
    one = get(demo, "/api/v1/graph/column-lineage", nodeId=w.summary, direction="upstream", depth=1)
    expected = {(field_id(w.table, "Department"), w.summary, sql_job, "INDIRECT", "GROUP_BY")}
    # count(*) AS "Employees" counts the rows of the whole table: the table's field * in the dataset list
    expected.add((field_id(w.table, "*"), w.summary, sql_job, "DIRECT", "AGGREGATION"))
    expected |= {
        (field_id(w.table, src), field_id(w.summary, c), sql_job, "DIRECT", kind)
        for c, (src, kind) in SUMMARY_DIRECT.items()
    }
    assert {
        (e["source"], e["target"], e["job"], t["type"], t["subtype"])
        for e in one["edges"]
        for t in e["transformations"]
    } == expected
    # the JDBC publish: every column of the PostgreSQL table from the Parquet table, one to one
    pub = get(demo, "/api/v1/graph/column-lineage", nodeId=w.table, direction="upstream", depth=1)
    fields = [f["name"] for f in get(demo, "/api/v1/graph/node", nodeId=w.table)["fields"]]
    assert fields == [
        "EmployeeID",
        "Name",
        "Department",
        "Role",
        "BaseSalary",
        "OvertimeHours",
        "OvertimePay",
        "TotalAdjustments",
        "TotalBonuses",
        "TotalCompensation",
    ]
    assert {
        (e["source"], e["target"]) for e in pub["edges"] if any(t["type"] == "DIRECT" for t in e["transformations"])
    } == {(field_id(p.compensation, f), field_id(w.table, f)) for f in fields}
    # all the way: the summary's TotalCompensation comes from four CSV columns, through both Spark jobs
    start = field_id(w.summary, "TotalCompensation")
    up = get(demo, "/api/v1/graph/column-lineage", nodeId=start, direction="upstream", depth=12)
    assert up["truncated"] is False
    direct: dict[str, set[str]] = {}
    for e in up["edges"]:
        if any(t["type"] == "DIRECT" for t in e["transformations"]):
            direct.setdefault(e["target"], set()).add(e["source"])
    frontier, seen = [start], set()
    while frontier:
        for source in direct.get(frontier.pop(), ()):
            if source not in seen:
                seen.add(source)
                frontier.append(source)
    sources = {s for s in seen if s not in direct}
    assert sources == {
        field_id(p.employees, "Salary"),
        field_id(p.attendance, "OvertimeHours"),
        field_id(p.adjustments, "AdjustmentAmount"),
        field_id(p.bonuses, "BonusAmount"),
    }
    assert {
        field_id(w.table, "TotalCompensation"),
        field_id(p.compensation, "TotalCompensation"),
        field_id(p.employee_attendance, "Salary"),
    } <= seen
    # Department too: summary <- PostgreSQL <- Parquet <- employee_attendance <- the employees CSV folder
    dept = get(
        demo, "/api/v1/graph/column-lineage", nodeId=field_id(w.summary, "Department"), direction="upstream", depth=12
    )
    assert (
        field_id(p.employees, "Department"),
        field_id(p.employee_attendance, "Department"),
        "DIRECT",
        "IDENTITY",
    ) in column_edges(dept["edges"])


def test_ctrl_c_stops_the_demo_and_its_server(demo: DemoProcess) -> None:
    assert demo.interrupt() == 0, demo.output
    assert "Headwater stopped." in demo.output
    with pytest.raises(httpx.ConnectError):
        httpx.get(demo.url + "/openapi.json", timeout=5.0)


# ---------------------------------------------------------------------------- the JDBC (Glue-style) variant


@pytest.fixture(scope="module")
def pg_database(pg_server_url: str) -> Iterator[str]:
    """A fresh database on the real PostgreSQL server for the JDBC run; dropped afterwards."""
    with pg_database_of(pg_server_url, prefix="hw_demo") as url:
        yield url


@pytest.fixture(scope="module")
def jdbc_demo(tmp_path_factory: pytest.TempPathFactory, pg_database: str) -> Iterator[DemoProcess]:
    run = start_demo(tmp_path_factory.mktemp("demo-jdbc") / "hw", "--rows", "30", "--jdbc", pg_database)
    try:
        run.wait_until_serving()
        yield run
    finally:
        run.interrupt()


GLUE_APP = f"job:{NS}:hr_glue_employee_attendance"
# the outermost command of saveAsTable: CreateDataSourceTableAsSelectCommand (Spark 3.5), SaveAsV1TableCommand (Spark 4);
# the demo's jobs run on this interpreter's PySpark
GLUE_ACTION = (
    "execute_create_data_source_table_as_select_command"
    if pyspark.__version__.startswith("3.")
    else "execute_save_as_v1_table_command"
)
# the suffix by the integration's JobNameSuffixProvider: database_table for a CTAS (Spark 3.5), none for
# SaveAsV1TableCommand (Spark 4)
GLUE_JOB = (
    f"{GLUE_APP}.{GLUE_ACTION}.default_employee_attendance"
    if pyspark.__version__.startswith("3.")
    else f"{GLUE_APP}.{GLUE_ACTION}"
)


def jdbc_pipeline(demo: DemoProcess, pg_url: str) -> tuple[Pipeline, list[str], str]:
    """The node ids of the JDBC run (employees.csv replaced by the PostgreSQL table), the job that
    wrote employee_attendance and the one that wrote employee_compensation (checked against the server)."""
    p = Pipeline(demo.data_dir)
    parts = urlsplit(pg_url)
    p.employees = f"dataset:postgres://{parts.hostname}:{parts.port or 5432}:{parts.path.lstrip('/')}.hr.employees"
    assert producers(demo, p.employee_attendance) == [GLUE_JOB]
    assert producers(demo, p.compensation) == [JOB2_NAME]
    return p, [GLUE_JOB], JOB2_NAME


@pytest.mark.postgres
def test_jdbc_variant_graph(jdbc_demo: DemoProcess, pg_database: str) -> None:
    p, glue, job2 = jdbc_pipeline(jdbc_demo, pg_database)
    assert "✔ Loading the employees into PostgreSQL" in jdbc_demo.output
    assert "✔ Running job 1 (JDBC)" in jdbc_demo.output
    folded = get(
        jdbc_demo, "/api/v1/graph/lineage", nodeId=p.compensation, direction="upstream", depth=10, datasetsOnly="true"
    )
    assert {(e["source"], e["target"], e["type"]) for e in folded["edges"]} == {
        (p.employees, p.employee_attendance, "DERIVED"),
        (p.attendance, p.employee_attendance, "DERIVED"),
        (p.employee_attendance, p.compensation, "DERIVED"),
        (p.adjustments, p.compensation, "DERIVED"),
        (p.bonuses, p.compensation, "DERIVED"),
    }
    assert all(set(e["via"]) == set(glue) for e in folded["edges"] if e["target"] == p.employee_attendance)
    lineage = get(jdbc_demo, "/api/v1/graph/lineage", nodeId=p.compensation, direction="upstream", depth=10)
    assert edge_set(lineage) == {
        *((p.employees, g, "INPUT") for g in glue),
        *((p.attendance, g, "INPUT") for g in glue),
        *((g, p.employee_attendance, "OUTPUT") for g in glue),
        (p.employee_attendance, job2, "INPUT"),
        (p.adjustments, job2, "INPUT"),
        (p.bonuses, job2, "INPUT"),
        (job2, p.compensation, "OUTPUT"),
    }
    nodes = {n["id"]: n for n in lineage["nodes"]}
    assert nodes[p.employees]["kind"] == "jdbc"
    assert [f["name"] for f in nodes[p.employees]["fields"]] == [
        "EmployeeID",
        "Name",
        "Department",
        "Role",
        "HireDate",
        "Salary",
        "PerformanceRating",
        "Shift",
        "Location",
    ]
    # saveAsTable: the table's dataset is its warehouse folder, the table name a symlink
    table = get(jdbc_demo, "/api/v1/graph/node", nodeId=p.employee_attendance)
    identifiers = table["facets"]["symlinks"]["identifiers"]
    assert [(i["name"], i["namespace"], i["type"]) for i in identifiers] == [
        ("default.employee_attendance", f"file:{(jdbc_demo.data_dir / 'warehouse').resolve()}", "TABLE")
    ]


@pytest.mark.postgres
def test_jdbc_variant_saveastable_is_one_job(jdbc_demo: DemoProcess, pg_database: str) -> None:
    """One user action, one job: the inner executions of saveAsTable are part of the outermost command."""
    p = Pipeline(jdbc_demo.data_dir)
    assert producers(jdbc_demo, p.employee_attendance) == [GLUE_JOB], "saveAsTable should give one job"


@pytest.mark.postgres
def test_jdbc_variant_column_lineage(jdbc_demo: DemoProcess, pg_database: str) -> None:
    p, glue, _ = jdbc_pipeline(jdbc_demo, pg_database)
    answer = get(jdbc_demo, "/api/v1/graph/column-lineage", nodeId=p.employee_attendance, direction="upstream", depth=1)
    expected_direct = {
        (src, dst, k, st)
        for src, dst, _job, k, st in expected_column_edges(p, p.employee_attendance, "", JOB1_DIRECT, {})
        if k == "DIRECT"
    }
    for job in glue:
        got = column_edges([e for e in answer["edges"] if e["job"] == job])
        assert {edge for edge in got if edge[2] == "DIRECT"} == expected_direct
        for column in JOB1_DIRECT:
            target = field_id(p.employee_attendance, column)
            assert (field_id(p.employees, "EmployeeID"), target, "INDIRECT", "JOIN") in got
            assert (field_id(p.attendance, "EmployeeID"), target, "INDIRECT", "JOIN") in got
    # through job 2, TotalCompensation's salary comes from the PostgreSQL table
    up = get(
        jdbc_demo,
        "/api/v1/graph/column-lineage",
        nodeId=field_id(p.compensation, "TotalCompensation"),
        direction="upstream",
        depth=10,
    )
    assert (
        field_id(p.employees, "Salary"),
        field_id(p.employee_attendance, "Salary"),
        "DIRECT",
        "IDENTITY",
    ) in column_edges(up["edges"])


@pytest.mark.postgres
def test_jdbc_variant_runs_completed_and_sigterm_stops_it(jdbc_demo: DemoProcess, pg_database: str) -> None:
    p, glue, job2 = jdbc_pipeline(jdbc_demo, pg_database)
    for job in glue:
        runs = get(jdbc_demo, "/api/v1/graph/runs", nodeId=job)["runs"]
        assert [(r["state"], r["parentJob"]) for r in runs] == [("COMPLETE", GLUE_APP)]
        assert set(runs[0]["inputs"]) == {p.employees, p.attendance} and runs[0]["outputs"] == [p.employee_attendance]
    assert [r["state"] for r in get(jdbc_demo, "/api/v1/graph/runs", nodeId=GLUE_APP)["runs"]] == ["COMPLETE"]
    assert [r["state"] for r in get(jdbc_demo, "/api/v1/graph/runs", nodeId=job2)["runs"]] == ["COMPLETE"]
    # `kill` (SIGTERM) stops the demo like Ctrl-C does: its server goes too, nothing is left running
    assert jdbc_demo.interrupt(signum=signal.SIGTERM) == 0, jdbc_demo.output
    assert "Headwater stopped." in jdbc_demo.output
    with pytest.raises(httpx.ConnectError):
        httpx.get(jdbc_demo.url + "/openapi.json", timeout=5.0)
