"""Airflow end to end: the real ``apache-airflow`` with ``apache-airflow-providers-openlineage`` runs a DAG
(SQL tasks on the real PostgreSQL server, a Python task with declared inlets and outlets) through
``airflow dags test --use-executor`` (each task its own process with its own task log, as in a deployment), twice:

1. the provider's HTTP transport posting to a real ``headwater serve``;
2. the console transport writing the events into the task logs, then ``headwater harvest logs`` shipping them
   (the task logs and the ``dags test`` output, which holds what a scheduler's log would: the DAG run's events).

Each route stores exactly the events Airflow says it emitted (none lost, none twice); the two graphs are the same
(jobs, datasets, columns, edges, column lineage, runs); the graph shows the DAG, its tasks, the tables and their
columns; the DAG is the parent of its tasks and ``collapseJobs`` draws it as one node standing for them.

Airflow lives in its own virtualenv (``HEADWATER_AIRFLOW_VENV``, made by ``scripts/test`` from
``tests/airflow/constraints.txt``); the test runs only when that variable is set, and fails when it names no
Airflow. Airflow gets its own AIRFLOW_HOME and SQLite metadata database in a temporary folder and talks only to
loopback: its execution API server, PostgreSQL and Headwater.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from databases import pg_database

# two DAG runs of 10 to 25 s each, the metadata DB migration and the API server: 40 to 100 s; 20 minutes at most
pytestmark = [pytest.mark.airflow, pytest.mark.postgres, pytest.mark.slow, pytest.mark.timeout(1200)]

HERE = Path(__file__).resolve().parent
NS = "shop_airflow"  # AIRFLOW__OPENLINEAGE__NAMESPACE
DAG = f"job:{NS}:shop_sales"
TASKS = [f"job:{NS}:shop_sales.{t}" for t in ("create_tables", "load_orders", "region_sales", "publish_report")]
REPORT = "dataset:mysql://reports:3306:reports.region_summary"  # the Python task's declared outlet
EMITTED = re.compile(r"Successfully emitted OpenLineage `(\w+)` event of id `([0-9a-f-]+)`")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_http(url: str, proc: subprocess.Popen[bytes], log: Path, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while True:
        assert proc.poll() is None, f"{proc.args} exited: {log.read_text(errors='replace')[-4000:]}"
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        assert time.monotonic() < deadline, f"{url} did not answer: {log.read_text(errors='replace')[-4000:]}"
        time.sleep(0.2)


def _stop(proc: subprocess.Popen[bytes], group: bool = False) -> None:
    """End a process this test started; with ``group``, every process of the session it leads (Airflow forks
    executor workers and OpenLineage emitters that can outlive the command)."""
    if group:
        for sig, wait in ((signal.SIGTERM, 30.0), (signal.SIGKILL, 10.0)):
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                break
            deadline = time.monotonic() + wait
            while time.monotonic() < deadline and _group_alive(proc.pid):
                proc.poll()
                time.sleep(0.1)
        proc.poll()
        return
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _group_alive(pgid: int) -> bool:
    """Whether a process of group ``pgid`` still runs (zombies left to an init that does not reap them aside)."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            return True
    return False


@contextmanager
def headwater_serve(tmp: Path) -> Iterator[str]:
    """A real ``headwater serve`` on a fresh SQLite store; its URL."""
    tmp.mkdir(parents=True, exist_ok=True)
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEADWATER_")}
    env["HEADWATER_DATA_DIR"] = str(tmp / "data")
    log = tmp / "serve.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "headwater", "serve", "--port", str(port), "--db", f"sqlite:///{tmp / 'hw.db'}"],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=env,
        )
    try:
        _wait_http(f"http://127.0.0.1:{port}/api/v1/status", proc, log)
        yield f"http://127.0.0.1:{port}"
    finally:
        _stop(proc)


@dataclass
class Airflow:
    venv: Path
    env: dict[str, str]
    home: Path
    pg_url: str

    def run(self, *args: str, env: dict[str, str] | None = None, timeout: float = 300) -> str:
        """``airflow ARGS`` to its end (output into a file, not a pipe: processes Airflow forks may hold a pipe
        open after it exits), then every process it left behind ended; its exit status checked, its output."""
        out = self.home / f"airflow-{time.monotonic_ns()}.out"
        with out.open("wb") as sink:
            proc = subprocess.Popen(
                [str(self.venv / "bin" / "airflow"), *args],
                env={**self.env, **(env or {})},
                cwd=self.home,
                stdout=sink,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        try:
            proc.wait(timeout)
            ended = True
        except subprocess.TimeoutExpired:
            ended = False
            try:  # PYTHONFAULTHANDLER: each process of the group writes every thread's stack into the output
                os.killpg(proc.pid, signal.SIGABRT)
                time.sleep(3)
            except ProcessLookupError:
                pass
        finally:
            _stop(proc, group=True)
        text = out.read_text(errors="replace")
        assert ended, f"airflow {' '.join(args)} did not end in {timeout:.0f} s: {text[-20000:]}"
        assert proc.returncode == 0, f"airflow {' '.join(args)} exited {proc.returncode}: {text[-6000:]}"
        return text

    def dags_test(self, logical_date: str, transport: dict[str, Any], out: Path) -> str:
        """``airflow dags test --use-executor shop_sales`` with this OpenLineage transport; its output (kept in
        ``out``, which is also where a scheduler's log would hold the DAG run's events)."""
        text = self.run(
            "dags",
            "test",
            "--use-executor",
            "shop_sales",
            logical_date,
            env={"AIRFLOW__OPENLINEAGE__TRANSPORT": json.dumps(transport)},
        )
        out.write_text(text)
        assert "state=success" in text, text[-6000:]
        return text

    def reset_tables(self) -> None:
        import psycopg

        with psycopg.connect(self.pg_url, autocommit=True) as conn:
            conn.execute("DROP TABLE IF EXISTS region_sales, orders, customers")


@pytest.fixture(scope="module")
def airflow(pg_server_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Airflow]:
    """Airflow from HEADWATER_AIRFLOW_VENV: AIRFLOW_HOME in a temporary folder, its SQLite metadata database
    migrated, the DAG in its DAGs folder, a fresh PostgreSQL database as the connection ``shop_pg``, and the
    execution API server the LocalExecutor's task processes talk to."""
    venv = os.environ.get("HEADWATER_AIRFLOW_VENV")
    if not venv:
        pytest.skip("HEADWATER_AIRFLOW_VENV is not set: scripts/test runs this test in its own step")
    airflow_bin = Path(venv) / "bin" / "airflow"
    assert airflow_bin.exists(), f"HEADWATER_AIRFLOW_VENV={venv} holds no bin/airflow"
    home = tmp_path_factory.mktemp("airflow_home")
    (home / "dags").mkdir()
    shutil.copy(HERE / "dags" / "shop_sales.py", home / "dags" / "shop_sales.py")
    api_port = _free_port()
    with pg_database(pg_server_url, prefix="hw_airflow") as pg_url:
        parts = urlsplit(pg_url)
        db = parts.path.lstrip("/")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("AIRFLOW", "HEADWATER_", "OPENLINEAGE"))}
        env.update(
            {
                "AIRFLOW_HOME": str(home),
                "AIRFLOW__CORE__DAGS_FOLDER": str(home / "dags"),
                "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
                "AIRFLOW__CORE__EXECUTOR": "LocalExecutor",
                "AIRFLOW__CORE__EXECUTION_API_SERVER_URL": f"http://127.0.0.1:{api_port}/execution/",
                "AIRFLOW__CORE__UNIT_TEST_MODE": "False",
                "AIRFLOW__CORE__PARALLELISM": "2",  # LocalExecutor workers (default 32 forked processes); tasks run one by one
                "PYTHONFAULTHANDLER": "1",
                "AIRFLOW__OPENLINEAGE__NAMESPACE": NS,
                # emit task events from a thread of the task runner, not a fork of it: the provider's docs say a
                # fork can inherit the supervisor connection and strand the task 'running' (one run of this test
                # hung in `dags test` that way, before this setting); docs/producers.md recommends it
                "AIRFLOW__OPENLINEAGE__EXECUTE_IN_THREAD": "True",
                "AIRFLOW_CONN_SHOP_PG": pg_url,
                "SHOP_PG": f"postgres://{parts.hostname}:{parts.port or 5432}/{db}",
                "PYTHONWARNINGS": "ignore",
            }
        )
        af = Airflow(Path(venv), env, home, pg_url)
        af.run("db", "migrate")
        log = home / "api-server.log"
        with log.open("wb") as out:
            api = subprocess.Popen(
                [str(airflow_bin), "api-server", "--host", "127.0.0.1", "--port", str(api_port)],
                env=env,
                cwd=home,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        try:
            _wait_http(f"http://127.0.0.1:{api_port}/api/v2/monitor/health", api, log)
            yield af
        finally:
            _stop(api, group=True)


# --- reading what a Headwater server holds ---------------------------------------------------------------------


def _get(url: str, path: str, **params: Any) -> Any:
    answer = httpx.get(f"{url}{path}", params=params, timeout=60)
    assert answer.status_code == 200, f"{path} {params}: {answer.status_code} {answer.text[:2000]}"
    return answer.json()


def stored_events(url: str) -> list[dict[str, Any]]:
    """Every raw event the server holds (the events API, all pages)."""
    events: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:
        page = _get(url, "/api/v1/events", limit=100, **({"cursor": cursor} if cursor else {}))
        events += page["events"]
        cursor = page.get("nextCursor")
        if not cursor:
            return events


def graph_picture(url: str) -> dict[str, Any]:
    """What the graph shows, without times and run ids: the jobs with their type, parent, children, inputs,
    outputs and number of runs; the datasets with their columns; the edges and column edges of the lineage
    around the Python task's output."""
    jobs = _get(url, "/api/v1/graph/jobs", namespace=NS, limit=100)["items"]
    picture: dict[str, Any] = {"jobs": {}, "datasets": {}}
    for job in jobs:
        node = _get(url, "/api/v1/graph/node", nodeId=job["id"])
        runs = _get(url, "/api/v1/graph/runs", nodeId=job["id"])
        picture["jobs"][job["id"]] = {
            "jobType": (node["jobType"] or {}).get("jobType"),
            "parent": node["parent"],
            "children": node["children"],
            "inputs": sorted(node["inputs"]),
            "outputs": sorted(node["outputs"]),
            "runs": runs["total"],
            "states": sorted(r["state"] for r in runs["runs"]),
        }
    for ns in _get(url, "/api/v1/graph/namespaces")["namespaces"]:
        if ns["name"] == NS:
            continue
        for ds in _get(url, "/api/v1/graph/datasets", namespace=ns["name"], limit=100)["items"]:
            picture["datasets"][ds["id"]] = sorted((f["name"], f["type"]) for f in ds["fields"])
    lineage = _get(url, "/api/v1/graph/lineage", nodeId=REPORT, direction="upstream", depth=10, columns="true")
    picture["edges"] = sorted((e["source"], e["target"], e["type"]) for e in lineage["edges"])
    picture["columnEdges"] = sorted(
        (c["source"], c["target"], c["job"], tuple(sorted(t["subtype"] or "" for t in c["transformations"])))
        for c in lineage["columnEdges"]
    )
    return picture


def emitted(output: str) -> list[tuple[str, str]]:
    """(eventType, runId) of every event Airflow's OpenLineage adapter says it emitted."""
    return sorted(EMITTED.findall(output))


def as_stored(events: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return sorted((e["eventType"], e["runId"]) for e in events)


# --- the test ----------------------------------------------------------------------------------------------------


def test_airflow_dag_over_http_and_through_task_logs(airflow: Airflow, tmp_path: Path) -> None:
    pg = airflow.env["SHOP_PG"].removeprefix("postgres://")
    host, db = pg.split("/")
    customers, orders, sales = (
        f"dataset:postgres://{host}:{db}.public.{t}" for t in ("customers", "orders", "region_sales")
    )

    # 1. the provider's HTTP transport straight to headwater serve
    with headwater_serve(tmp_path / "http") as http_url:
        out = airflow.dags_test(
            "2026-11-23", {"type": "http", "url": http_url, "endpoint": "api/v1/lineage"}, tmp_path / "http.out"
        )
        sent = emitted(out)
        assert "Failed to emit" not in out and "Failed to send" not in out, out[-4000:]
        # a DAG run under `dags test` starts RUNNING (no scheduler queues it): the DAG's COMPLETE, no START
        assert len(sent) == 1 + 2 * len(TASKS), sent
        assert as_stored(stored_events(http_url)) == sent  # every event once, none lost
        over_http = graph_picture(http_url)

        collapsed = _get(
            http_url, "/api/v1/graph/lineage", nodeId=REPORT, direction="upstream", depth=10, collapseJobs="true"
        )
        nodes = {n["id"]: n for n in collapsed["nodes"]}
        assert DAG in nodes and sorted(nodes[DAG]["children"]) == sorted(TASKS)
        assert not set(TASKS) & set(nodes), "the tasks are drawn inside their DAG, not beside it"
        assert {customers, orders, sales, REPORT} <= set(nodes)
        lifted = {(e["source"], e["target"]) for e in collapsed["edges"]}
        assert {(DAG, sales), (sales, DAG), (DAG, REPORT), (DAG, orders), (DAG, customers)} <= lifted, lifted
        expanded = _get(http_url, "/api/v1/graph/lineage", nodeId=REPORT, direction="upstream", depth=10)
        assert set(TASKS) <= {n["id"] for n in expanded["nodes"]}

    # 2. the console transport into the task logs, shipped by headwater harvest logs
    airflow.reset_tables()
    logs_before = set(airflow.home.glob("logs/dag_id=shop_sales/**/*.log"))
    console_out = tmp_path / "dags-test.out"
    out = airflow.dags_test("2026-11-24", {"type": "console"}, console_out)
    written = emitted(out)
    assert len(written) == 1 + 2 * len(TASKS), written
    task_logs = sorted(set(airflow.home.glob("logs/dag_id=shop_sales/**/*.log")) - logs_before)
    assert len(task_logs) == len(TASKS), task_logs
    in_task_logs = sum(p.read_text().count('"eventTime') for p in task_logs)
    assert in_task_logs == 2 * len(TASKS), "each task's START and COMPLETE are in its own log"

    with headwater_serve(tmp_path / "logs") as logs_url:
        state = tmp_path / "harvest-state.json"
        harvest = [sys.executable, "-m", "headwater", "harvest", "logs", "--url", logs_url, "--state", str(state)]
        paths = [str(p) for p in task_logs] + [str(console_out)]
        first = subprocess.run([*harvest, *paths], capture_output=True, text=True, timeout=300)
        assert first.returncode == 0, first.stderr
        # the dags test output repeats the task logs' lines (the executor forwards them): found twice, stored once
        assert re.search(r"\b0 rejected, 0 unreadable", first.stderr), first.stderr
        shipped = stored_events(logs_url)
        assert as_stored(shipped) == written
        again = subprocess.run([*harvest, *paths], capture_output=True, text=True, timeout=300)
        assert again.returncode == 0 and re.search(r"\b0 events found", again.stderr), again.stderr
        assert len(stored_events(logs_url)) == len(shipped)
        through_logs = graph_picture(logs_url)

    # 3. one graph, whichever way the events came
    assert through_logs == over_http

    jobs = over_http["jobs"]
    assert set(jobs) == {DAG, *TASKS}
    assert jobs[DAG]["jobType"] == "DAG" and jobs[DAG]["parent"] is None
    assert sorted(jobs[DAG]["children"]) == sorted(TASKS)
    for task in TASKS:
        assert jobs[task]["jobType"] == "TASK" and jobs[task]["parent"] == DAG and jobs[task]["children"] == []
        assert jobs[task]["runs"] == 1 and jobs[task]["states"] == ["COMPLETE"]
    assert jobs[DAG]["runs"] == 1
    assert jobs[f"{DAG}.create_tables"]["outputs"] == sorted([customers, orders])
    assert jobs[f"{DAG}.load_orders"]["outputs"] == sorted([customers, orders])
    assert jobs[f"{DAG}.region_sales"]["inputs"] == sorted([customers, orders])
    assert jobs[f"{DAG}.region_sales"]["outputs"] == [sales]
    assert jobs[f"{DAG}.publish_report"]["inputs"] == [sales]  # the declared Asset inlet is the SQL table's node
    assert jobs[f"{DAG}.publish_report"]["outputs"] == [REPORT]

    datasets = over_http["datasets"]
    assert datasets[customers] == [("customer_id", "int4"), ("name", "text"), ("region", "text")]
    assert datasets[orders] == [
        ("amount", "numeric"),
        ("customer_id", "int4"),
        ("order_id", "int4"),
        ("ordered_at", "date"),
    ]
    assert datasets[sales] == [("order_count", "int8"), ("region", "text"), ("total_amount", "numeric")]
    assert datasets[REPORT] == [("region", "text"), ("total_amount", "decimal")]

    def field(dataset: str, column: str) -> str:
        return f"datasetField:{dataset.removeprefix('dataset:')}:{column}"

    column_edges = {(s, t) for s, t, _job, _kinds in over_http["columnEdges"]}
    assert {
        (field(orders, "amount"), field(sales, "total_amount")),
        (field(orders, "order_id"), field(sales, "order_count")),
        (field(customers, "region"), field(sales, "region")),
    } <= column_edges, over_http["columnEdges"]
