"""`headwater demo` end to end: the real server, real Spark jobs under `headwater run`, the graph read over HTTP.

One demo run per variant (module-scoped): the plain CSV pipeline, and the JDBC (Glue-style) variant
against a fresh database on the real PostgreSQL server. Each is a child process exactly as a user
starts it; the tests read what it captured through the server it started (`/api/v1/graph/*`),
then stop it with Ctrl-C.
"""

from __future__ import annotations

import signal
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

import httpx
import pyspark
import pytest

from .demo_process import DemoProcess, start_demo

pytestmark = [pytest.mark.spark, pytest.mark.slow]

NS = "hr_payroll"
# the OpenLineage Spark integration's naming: <app>.<snake_case of the executed write command>.<output>
JOB1_NAME = f"job:{NS}:hr_employee_attendance.execute_insert_into_hadoop_fs_relation_command.employee_attendance"
JOB2_NAME = f"job:{NS}:hr_employee_compensation.execute_insert_into_hadoop_fs_relation_command.employee_compensation"
APP1 = f"job:{NS}:hr_employee_attendance"
APP2 = f"job:{NS}:hr_employee_compensation"


def file_id(path: Path) -> str:
    return f"dataset:file:{path.resolve()}"


def field_id(dataset_id: str, field: str) -> str:
    return "datasetField:" + dataset_id.removeprefix("dataset:") + ":" + field


class Pipeline:
    """The node ids of one demo run."""

    def __init__(self, data_dir: Path) -> None:
        data, wh = data_dir / "data", data_dir / "warehouse"
        self.employees = file_id(data / "employees.csv")
        self.attendance = file_id(data / "attendance.csv")
        self.adjustments = file_id(data / "salary_adjustments.csv")
        self.bonuses = file_id(data / "bonus_payments.csv")
        self.employee_attendance = file_id(wh / "employee_attendance")
        self.compensation = file_id(wh / "employee_compensation")


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
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DemoProcess]:
    run = start_demo(tmp_path_factory.mktemp("demo") / "hw", "--rows", "40")
    try:
        run.wait_until_serving()
        yield run
    finally:
        run.interrupt()


# ---------------------------------------------------------------------------- the CSV pipeline


def test_demo_shows_its_steps_and_the_lineage_page(demo: DemoProcess) -> None:
    out = demo.output
    for step in ("✔ Checking Java", "✔ Starting the Headwater server", "✔ Generating the HR sample data (40 employees)",
                 "✔ Running job 1", "✔ Running job 2", "✔ Checking the captured lineage"):
        assert step in out
    comp = Pipeline(demo.data_dir).compensation
    page = demo.page_url()
    column = quote(field_id(comp, "TotalCompensation"), safe="")
    assert page == f"{demo.url}/asset?node={quote(comp, safe='')}&depth=4&cols={quote(comp, safe='')}&col={column}"
    answer = httpx.get(page, timeout=30.0)
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/html")


def test_dataset_and_job_graph_is_exactly_the_pipeline(demo: DemoProcess) -> None:
    p = Pipeline(demo.data_dir)
    job1, job2 = pipeline_jobs(demo, p)
    lineage = get(demo, "/api/v1/graph/lineage", nodeId=p.compensation, direction="upstream", depth=10)
    assert lineage["truncated"] is False
    assert {n["id"] for n in lineage["nodes"]} == {
        p.employees, p.attendance, p.adjustments, p.bonuses, job1, p.employee_attendance, job2, p.compensation}
    assert edge_set(lineage) == {
        (p.employees, job1, "INPUT"), (p.attendance, job1, "INPUT"), (job1, p.employee_attendance, "OUTPUT"),
        (p.employee_attendance, job2, "INPUT"), (p.adjustments, job2, "INPUT"), (p.bonuses, job2, "INPUT"),
        (job2, p.compensation, "OUTPUT"),
    }
    levels = {n["id"]: n["level"] for n in lineage["nodes"]}
    assert levels[p.compensation] == 0 and levels[job2] == -1 and levels[p.employee_attendance] == -2
    assert levels[job1] == -3 and levels[p.employees] == -4 and levels[p.adjustments] == -2
    kinds = {n["id"]: n.get("kind") for n in lineage["nodes"] if n["type"] == "DATASET"}
    assert set(kinds.values()) == {"file"}
    fields = {n["id"]: [f["name"] for f in n["fields"]] for n in lineage["nodes"] if n["type"] == "DATASET"}
    assert fields[p.compensation] == ["EmployeeID", "Name", "Department", "Role", "BaseSalary", "OvertimeHours",
                                      "OvertimePay", "TotalAdjustments", "TotalBonuses", "TotalCompensation"]
    assert fields[p.employee_attendance] == ["EmployeeID", "Name", "Department", "Role", "Salary", "Location",
                                             "Date", "Shift", "Absent", "HoursWorked", "OvertimeHours"]

    folded = get(demo, "/api/v1/graph/lineage", nodeId=p.compensation, direction="upstream", depth=10,
                 datasetsOnly="true")
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
JOB1_INDIRECT = {("attendance", "EmployeeID"): {("INDIRECT", "FILTER"), ("INDIRECT", "JOIN")},
                 ("employees", "EmployeeID"): {("INDIRECT", "FILTER"), ("INDIRECT", "JOIN")}}
JOB1_DIRECT = {
    "EmployeeID": {("attendance", "EmployeeID"): {("DIRECT", "IDENTITY")}},
    **{c: {("employees", c): {("DIRECT", "IDENTITY")}} for c in ("Name", "Department", "Role", "Salary", "Location", "Shift")},
    **{c: {("attendance", c): {("DIRECT", "IDENTITY")}} for c in ("Date", "Absent", "OvertimeHours")},
    "HoursWorked": {("attendance", "ShiftStart"): {("DIRECT", "TRANSFORMATION")},
                    ("attendance", "ShiftEnd"): {("DIRECT", "TRANSFORMATION")},
                    ("attendance", "OvertimeHours"): {("DIRECT", "TRANSFORMATION")},
                    ("attendance", "Absent"): {("INDIRECT", "CONDITIONAL")}},  # CASE WHEN Absent
}
JOB2_INDIRECT = {("employee_attendance", "EmployeeID"): {("INDIRECT", "GROUP_BY"), ("INDIRECT", "JOIN")},
                 **{("employee_attendance", c): {("INDIRECT", "GROUP_BY")} for c in ("Name", "Department", "Role", "Salary")},
                 ("adjustments", "EmployeeID"): {("INDIRECT", "FILTER"), ("INDIRECT", "GROUP_BY"), ("INDIRECT", "JOIN")},
                 ("bonuses", "EmployeeID"): {("INDIRECT", "FILTER"), ("INDIRECT", "GROUP_BY"), ("INDIRECT", "JOIN")}}
_ADJ = {("adjustments", "AdjustmentAmount"): {("DIRECT", "AGGREGATION"), ("INDIRECT", "CONDITIONAL")}}  # coalesce(sum(..), 0)
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


def expected_column_edges(p: Pipeline, output: str, job: str, direct: dict[str, Any],
                          indirect: dict[tuple[str, str], set[tuple[str, str]]]) -> set[tuple[str, str, str, str, str]]:
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
    for output, job, direct, indirect in ((p.employee_attendance, job1, JOB1_DIRECT, JOB1_INDIRECT),
                                          (p.compensation, job2, JOB2_DIRECT, JOB2_INDIRECT)):
        answer = get(demo, "/api/v1/graph/column-lineage", nodeId=output, direction="upstream", depth=1)
        got = {(e["source"], e["target"], e["job"], t["type"], t["subtype"])
               for e in answer["edges"] if e["target"].startswith(field_id(output, ""))
               for t in e["transformations"]}
        assert got == expected_column_edges(p, output, job, direct, indirect)
        assert all(not t["masking"] for e in answer["edges"] for t in e["transformations"])


def test_total_compensation_comes_from_salary_adjustments_bonuses_and_overtime(demo: DemoProcess) -> None:
    """Follow only DIRECT edges upstream from TotalCompensation: exactly the four source columns remain."""
    p = Pipeline(demo.data_dir)
    answer = get(demo, "/api/v1/graph/column-lineage", nodeId=field_id(p.compensation, "TotalCompensation"),
                 direction="upstream", depth=10)
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
    assert sources == {field_id(p.employees, "Salary"), field_id(p.attendance, "OvertimeHours"),
                       field_id(p.adjustments, "AdjustmentAmount"), field_id(p.bonuses, "BonusAmount")}
    assert seen - sources == {field_id(p.employee_attendance, "Salary"), field_id(p.employee_attendance, "OvertimeHours")}
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


def test_ctrl_c_stops_the_demo_and_its_server(demo: DemoProcess) -> None:
    assert demo.interrupt() == 0, demo.output
    assert "Headwater stopped." in demo.output
    with pytest.raises(httpx.ConnectError):
        httpx.get(demo.url + "/openapi.json", timeout=5.0)


# ---------------------------------------------------------------------------- the JDBC (Glue-style) variant


@pytest.fixture(scope="module")
def pg_database(pg_server_url: str) -> Iterator[str]:
    """A fresh database on the real PostgreSQL server for the module; dropped afterwards."""
    import psycopg

    name = f"hw_demo_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(pg_server_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    yield urlunsplit(urlsplit(pg_server_url)._replace(path=f"/{name}"))
    with psycopg.connect(pg_server_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


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
GLUE_ACTION = ("execute_create_data_source_table_as_select_command" if pyspark.__version__.startswith("3.")
               else "execute_save_as_v1_table_command")
GLUE_JOB = f"{GLUE_APP}.{GLUE_ACTION}.employee_attendance"


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
    folded = get(jdbc_demo, "/api/v1/graph/lineage", nodeId=p.compensation, direction="upstream", depth=10,
                 datasetsOnly="true")
    assert {(e["source"], e["target"], e["type"]) for e in folded["edges"]} == {
        (p.employees, p.employee_attendance, "DERIVED"), (p.attendance, p.employee_attendance, "DERIVED"),
        (p.employee_attendance, p.compensation, "DERIVED"), (p.adjustments, p.compensation, "DERIVED"),
        (p.bonuses, p.compensation, "DERIVED"),
    }
    assert all(set(e["via"]) == set(glue) for e in folded["edges"] if e["target"] == p.employee_attendance)
    lineage = get(jdbc_demo, "/api/v1/graph/lineage", nodeId=p.compensation, direction="upstream", depth=10)
    assert edge_set(lineage) == {
        *((p.employees, g, "INPUT") for g in glue), *((p.attendance, g, "INPUT") for g in glue),
        *((g, p.employee_attendance, "OUTPUT") for g in glue),
        (p.employee_attendance, job2, "INPUT"), (p.adjustments, job2, "INPUT"), (p.bonuses, job2, "INPUT"),
        (job2, p.compensation, "OUTPUT"),
    }
    nodes = {n["id"]: n for n in lineage["nodes"]}
    assert nodes[p.employees]["kind"] == "jdbc"
    assert [f["name"] for f in nodes[p.employees]["fields"]] == [
        "EmployeeID", "Name", "Department", "Role", "HireDate", "Salary", "PerformanceRating", "Shift", "Location"]
    # saveAsTable: the table's dataset is its warehouse folder, the table name a symlink
    table = get(jdbc_demo, "/api/v1/graph/node", nodeId=p.employee_attendance)
    identifiers = table["facets"]["symlinks"]["identifiers"]
    assert [(i["name"], i["namespace"], i["type"]) for i in identifiers] == [
        ("default.employee_attendance", f"file:{(jdbc_demo.data_dir / 'warehouse').resolve()}", "TABLE")]


@pytest.mark.postgres
def test_jdbc_variant_saveastable_is_one_job(jdbc_demo: DemoProcess, pg_database: str) -> None:
    """One user action, one job: the inner executions of saveAsTable are part of the outermost command."""
    p = Pipeline(jdbc_demo.data_dir)
    assert producers(jdbc_demo, p.employee_attendance) == [GLUE_JOB], "saveAsTable should give one job"


@pytest.mark.postgres
def test_jdbc_variant_column_lineage(jdbc_demo: DemoProcess, pg_database: str) -> None:
    p, glue, _ = jdbc_pipeline(jdbc_demo, pg_database)
    answer = get(jdbc_demo, "/api/v1/graph/column-lineage", nodeId=p.employee_attendance, direction="upstream", depth=1)
    expected_direct = {(src, dst, k, st) for src, dst, _job, k, st in
                       expected_column_edges(p, p.employee_attendance, "", JOB1_DIRECT, {}) if k == "DIRECT"}
    for job in glue:
        got = column_edges([e for e in answer["edges"] if e["job"] == job])
        assert {edge for edge in got if edge[2] == "DIRECT"} == expected_direct
        for column in JOB1_DIRECT:
            target = field_id(p.employee_attendance, column)
            assert (field_id(p.employees, "EmployeeID"), target, "INDIRECT", "JOIN") in got
            assert (field_id(p.attendance, "EmployeeID"), target, "INDIRECT", "JOIN") in got
    # through job 2, TotalCompensation's salary comes from the PostgreSQL table
    up = get(jdbc_demo, "/api/v1/graph/column-lineage", nodeId=field_id(p.compensation, "TotalCompensation"),
             direction="upstream", depth=10)
    assert (field_id(p.employees, "Salary"), field_id(p.employee_attendance, "Salary"), "DIRECT", "IDENTITY") \
        in column_edges(up["edges"])


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
