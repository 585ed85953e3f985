"""Spark Connect: ``headwater connect-server`` (a real Connect server, tracked) and real Python Connect clients with
nothing of Headwater on their side — two client sessions at once with different jobs (DataFrame API, SQL, writes to
files and a catalog table) — give each session its own run and the same lineage as the classic run of the same
script under ``headwater run``. One server for the module; the clients and the classic run are child processes.

The Connect server needs Spark 4 (``spark.plugins`` + the ``spark-connect`` jar PySpark 4 ships, and job tags on
SQL executions): on PySpark 3.5 the module is skipped, saying so."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .events_util import app_events, exec_events
from .sink import Sink

pyspark = pytest.importorskip("pyspark")
if int(pyspark.__version__.split(".")[0]) < 4:
    pytest.skip(
        f"the Spark Connect server tests need PySpark 4 (this is PySpark {pyspark.__version__})",
        allow_module_level=True,
    )
pytest.importorskip("grpc", reason="the Spark Connect client needs pyspark[connect] (grpcio)")

pytestmark = [pytest.mark.spark, pytest.mark.slow]

BIN = Path(sys.executable).parent
# `headwater` as this test imports it (a worktree's sources, or the installed package)
HEADWATER = [sys.executable, "-m", "headwater"]
# a CTAS's inner insert is folded into it when the CTAS ends within this grace; a busy CI machine can be slow
GRACE = "15"
SOURCES = str(Path(__import__("headwater").__file__).resolve().parents[1])

# the same script, run as a Connect client (mode "connect") or as a classic PySpark job under `headwater run`
CLIENT = textwrap.dedent("""
    import sys
    from pyspark.sql import SparkSession, functions as F

    mode, target, app, out, table, warehouse = sys.argv[1:7]
    builder = SparkSession.builder.appName(app)
    if mode == "connect":
        if warehouse:  # remote("local[2]"): the server PySpark starts in this process takes the static conf
            builder = builder.config("spark.sql.warehouse.dir", warehouse).config("spark.ui.enabled", "false")
        spark = builder.remote(target).getOrCreate()
    else:
        spark = (builder.master("local[2]").config("spark.ui.enabled", "false")
                 .config("spark.sql.shuffle.partitions", "2").config("spark.sql.warehouse.dir", warehouse)
                 .getOrCreate())
    people = spark.createDataFrame([(1, "ada", 10.0), (2, "bob", 20.0)], ["id", "name", "pay"])
    people.withColumn("pay2", F.col("pay") * 2).write.mode("overwrite").parquet(out + "/people")
    spark.read.parquet(out + "/people").createOrReplaceTempView("people")
    spark.sql(f"CREATE TABLE {table} USING parquet AS SELECT id, upper(name) AS name, pay2 FROM people")
    print("ROWS", spark.table(table).count())
    spark.stop()
""")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def clean_env(tmp: Path, **extra: str) -> dict[str, str]:
    """A child's environment without any Headwater, OpenLineage or Spark settings of the test process."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("OPENLINEAGE", "HEADWATER_", "SPARK_", "PYSPARK_")) and k != "PYTHONPATH"
    }
    env.update({"PATH": f"{BIN}{os.pathsep}{env.get('PATH', '')}", "HOME": str(tmp), **extra})
    return env


def wait_for_port(port: int, proc: subprocess.Popen[bytes], timeout: float = 240.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"the Connect server exited with {proc.returncode}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.5)
    raise AssertionError("the Connect server did not open its port")


class Server:
    def __init__(self, sink: Sink, port: int, warehouse: Path, proc: subprocess.Popen[bytes]) -> None:
        self.sink, self.port, self.warehouse, self.proc = sink, port, warehouse, proc


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    tmp = tmp_path_factory.mktemp("connect")
    warehouse = tmp / "warehouse"
    port = free_port()
    with Sink() as sink:
        command = [
            *HEADWATER,
            "connect-server",
            "--port",
            str(port),
            "--url",
            sink.url,
            "--spool-dir",
            str(tmp / "spool"),
            "--master",
            "local[2]",
            *("--conf", "spark.ui.enabled=false"),
            *("--conf", "spark.sql.shuffle.partitions=2"),
            *("--conf", f"spark.sql.warehouse.dir={warehouse}"),
            *("--conf", "spark.headwater.flushTimeoutSeconds=60"),
            *("--conf", f"spark.headwater.nesting.graceSeconds={GRACE}"),
        ]
        log = (tmp / "server.log").open("wb")
        env = clean_env(tmp, PYTHONPATH=SOURCES)
        proc = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            wait_for_port(port, proc)
            yield Server(sink, port, warehouse, proc)
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(120)
            except subprocess.TimeoutExpired:
                proc.kill()
            log.close()


def run_clients(tmp: Path, runs: list[list[str]], env: dict[str, str]) -> None:
    """Run the client script once per argument list at the same time (``SCRIPT`` stands for its path)."""
    script = tmp / "client.py"
    script.write_text(CLIENT, encoding="utf-8")
    procs = [
        subprocess.Popen(
            [str(script) if a == "SCRIPT" else a for a in argv],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        for argv in runs
    ]
    for proc in procs:
        out, _ = proc.communicate(timeout=300)
        assert proc.returncode == 0, out.decode(errors="replace")[-3000:]
        assert b"ROWS 2" in out


def lineage(events: list[dict[str, Any]], replace: dict[str, str]) -> set[Any]:
    """What the graph learns from the SQL jobs' terminal events: job, inputs, outputs and column lineage, with the
    run's own folders replaced by placeholders."""

    def norm(text: str) -> str:
        for old, new in replace.items():
            text = text.replace(old, new)
        return text

    def columns(output: dict[str, Any]) -> tuple[Any, ...]:
        fields = output.get("facets", {}).get("columnLineage", {}).get("fields", {})
        return tuple(
            sorted(
                (col, norm(f["namespace"]), norm(f["name"]), f["field"], t["type"], t["subtype"])
                for col, spec in fields.items()
                for f in spec["inputFields"]
                for t in f["transformations"]
            )
        )

    out = set()
    for e in exec_events(events):
        if e["eventType"] not in ("COMPLETE", "FAIL"):
            continue
        out.add(
            (
                e["job"]["name"],
                e["eventType"],
                tuple(sorted((norm(i["namespace"]), norm(i["name"])) for i in e.get("inputs", []))),
                tuple(sorted((norm(o["namespace"]), norm(o["name"]), columns(o)) for o in e.get("outputs", []))),
            )
        )
    return out


def test_two_concurrent_client_sessions_are_separate_runs_with_classic_lineage(
    server: Server, tmp_path: Path, assert_valid_events: Any
) -> None:
    target = f"sc://127.0.0.1:{server.port}"
    # the same folder names everywhere: the job names end with the output's last two path segments
    alpha, beta, classic = tmp_path / "alpha" / "out", tmp_path / "beta" / "out", tmp_path / "classic" / "out"
    classic_events, classic_wh = tmp_path / "classic.ndjson", tmp_path / "classic" / "wh"
    local, local_wh, local_events = tmp_path / "local" / "out", tmp_path / "local" / "wh", tmp_path / "local.ndjson"
    python = sys.executable

    def headwater_run(events: Path) -> list[str]:
        grace = f"spark.headwater.nesting.graceSeconds={GRACE}"
        return ["env", f"PYTHONPATH={SOURCES}", *HEADWATER, "run", "--conf", grace, "--transport", "file", "--file",
                str(events), "--", python, "SCRIPT"]  # fmt: skip

    run_clients(
        tmp_path,
        [
            [python, "SCRIPT", "connect", target, "alpha", str(alpha), "alpha_people", ""],
            [python, "SCRIPT", "connect", target, "beta", str(beta), "beta_people", ""],
            # the same script as a classic PySpark job, tracked by `headwater run`
            [*headwater_run(classic_events), "classic", "", "alpha", str(classic), "alpha_people", str(classic_wh)],
            # and as a Connect client of the local server PySpark starts in its own process, tracked too
            [*headwater_run(local_events), "connect", "local[2]", "alpha", str(local), "alpha_people", str(local_wh)],
        ],
        clean_env(tmp_path),
    )
    # the server's events arrive as the sessions' executions end; wait for both sessions' CTAS
    sink = server.sink

    # the server's events arrive as the sessions' executions end; a client's stop() closes its session, whose run
    # then completes
    def session_ends(ev: list[dict[str, Any]]) -> int:
        return sum(1 for e in app_events(ev) if "spark_connect" in e["run"]["facets"] and e["eventType"] == "COMPLETE")

    sink.wait_for(lambda ev: session_ends(ev) >= 2, 120)
    events = sink.events()
    assert_valid_events(events)

    session_events = [e for e in app_events(events) if "spark_connect" in e["run"]["facets"]]
    sessions = {e["job"]["name"]: e for e in session_events if e["eventType"] == "START"}
    assert set(sessions) == {"alpha", "beta"}
    assert sorted((e["job"]["name"], e["eventType"]) for e in session_events) == [
        ("alpha", "COMPLETE"),
        ("alpha", "START"),
        ("beta", "COMPLETE"),
        ("beta", "START"),
    ]
    server_app = [e for e in app_events(events) if "spark_connect" not in e["run"]["facets"]]
    assert {e["job"]["name"] for e in server_app} == {"spark_connect_server"}
    server_run = server_app[0]["run"]["runId"]
    ids = set()
    for name, start in sessions.items():
        facet = start["run"]["facets"]["spark_connect"]
        ids.add(facet["sessionId"])
        assert facet["clientType"].startswith("_SPARK_CONNECT_PYTHON"), facet
        assert start["run"]["facets"]["parent"]["run"]["runId"] == server_run
        session_run = start["run"]["runId"]
        mine = [e for e in exec_events(events) if e["run"]["facets"]["parent"]["run"]["runId"] == session_run]
        assert mine, f"no executions parented to session {name}"
        for e in mine:  # a session's executions carry its name, its session id, and only its own folders
            assert e["job"]["name"].startswith(f"{name}."), e["job"]["name"]
            assert e["run"]["facets"]["spark_connect"]["sessionId"] == facet["sessionId"]
            other = beta if name == "alpha" else alpha
            assert str(other) not in str(e.get("inputs")) + str(e.get("outputs"))
    assert len(ids) == 2
    assert not [e for e in exec_events(events) if "spark_connect" not in e["run"]["facets"]]

    alpha_connect = [e for e in events if e["job"]["name"].startswith("alpha.")]
    classic_run = [json.loads(line) for line in classic_events.read_text(encoding="utf-8").splitlines() if line]
    connect_lineage = lineage(alpha_connect, {str(alpha): "<out>", str(server.warehouse): "<wh>"})
    classic_lineage = lineage(classic_run, {str(classic): "<out>", str(classic_wh): "<wh>"})
    assert connect_lineage == classic_lineage
    # remote("local[2]") under `headwater run`: the local server is tracked, the client session is a run of its own
    local_run = [json.loads(line) for line in local_events.read_text(encoding="utf-8").splitlines() if line]
    assert lineage(local_run, {str(local): "<out>", str(local_wh): "<wh>"}) == classic_lineage
    local_sessions = [e for e in app_events(local_run) if "spark_connect" in e["run"]["facets"]]
    assert {e["eventType"] for e in local_sessions} == {"START", "COMPLETE"}
    assert {e["job"]["name"] for e in local_sessions} == {"alpha.connect_session"}  # the server's app is alpha too
    outputs = {o[:2] for *_, outs in connect_lineage for o in outs}
    assert {("file", "<out>/people"), ("file", "<wh>/alpha_people")} <= outputs, connect_lineage
