"""``headwater run`` and ``headwater agent install``: unmodified PySpark scripts run in a child process with
lineage captured — against a real ``headwater serve``, the file and console transports, spark-submit, and the
.pth hook."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from .events_util import app_events, assert_parented, assert_start_then_end, exec_events
from .sink import Sink

pytestmark = [pytest.mark.spark, pytest.mark.slow]

BIN = Path(sys.executable).parent


def writes(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Execution events of the job's write (the job also reads its output back: a read-only run)."""
    return [e for e in exec_events(events) if e.get("outputs")]


def reads(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in exec_events(events) if not e.get("outputs")]


FLUSH = {"spark.headwater.flushTimeoutSeconds": "60"}
JOB = textwrap.dedent("""
    import sys
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master("local[2]").appName("cliJob")
             .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2").getOrCreate())
    out = sys.argv[1]
    df = spark.createDataFrame([(1, "ada"), (2, "bob")], ["id", "name"])
    df.write.mode("overwrite").parquet(out)
    print("ROWS", spark.read.parquet(out).count())
    if len(sys.argv) > 2 and sys.argv[2] == "fail":
        raise RuntimeError("the job failed on purpose")
    spark.stop()
""")


@pytest.fixture(scope="module")
def job(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("job") / "job.py"
    path.write_text(JOB, encoding="utf-8")
    return path


def child_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("OPENLINEAGE", "HEADWATER_", "SPARK_", "PYSPARK_")) and k != "PYTHONPATH"
    }
    env.update(
        {
            "PATH": f"{BIN}{os.pathsep}{env.get('PATH', '')}",
            "HOME": str(tmp_path),
            "HEADWATER_DATA_DIR": str(tmp_path / "hw"),
            # generous flush at exit: a busy CI machine must not turn "sent" into "spooled"
            "HEADWATER_CONF": json.dumps(FLUSH),
            **extra,
        }
    )
    return env


def run(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, env=env, cwd=cwd, capture_output=True, text=True, timeout=300)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real `headwater serve` on a temporary SQLite store."""
    data = tmp_path_factory.mktemp("serve")
    port = free_port()
    env = child_env(data)
    proc = subprocess.Popen(
        [str(BIN / "headwater"), "serve", "--port", str(port), "--db", f"sqlite:///{data / 'hw.db'}"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            if httpx.get(url + "/api/v1/events?limit=1", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(0.1)
    else:
        proc.kill()
        pytest.fail(f"headwater serve did not start: {proc.communicate()[0]}")
    yield url
    proc.terminate()
    proc.wait(timeout=20)


def stored_events(url: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    cursor = None
    while True:
        params: dict[str, Any] = {"limit": 100}
        if cursor:
            params["cursor"] = cursor
        page = httpx.get(url + "/api/v1/events", params=params, timeout=10).json()
        items.extend(page["events"])
        cursor = page.get("nextCursor")
        if not cursor:
            break
    # the listing is newest first (eventTime, then log position); reversed and then ordered by receivedAt it is the
    # order of arrival, also for the events of one batch POST (one receivedAt for all of them)
    return [item["event"] for item in sorted(reversed(items), key=lambda i: i["receivedAt"])]


def test_headwater_run_python_against_headwater_serve(
    job: Path, tmp_path: Path, server: str, assert_valid_events: Any
) -> None:
    out = tmp_path / "people"
    result = run(
        [str(BIN / "headwater"), "run", "--url", server, "--", "python", str(job), str(out)],
        child_env(tmp_path),
        tmp_path,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "ROWS 2" in result.stdout
    events = [e for e in stored_events(server) if e["job"]["name"].startswith("cli_job")]
    assert_valid_events(events)
    assert_start_then_end(events)
    apps = app_events(events)
    assert [e["eventType"] for e in apps] == ["START", "COMPLETE"]
    assert apps[0]["job"]["facets"]["sourceCodeLocation"]["url"] == job.resolve().as_uri()
    execs = writes(events)
    assert len(execs) == 2 and [o["name"] for o in execs[-1]["outputs"]] == [str(out)]
    # the read back (count over the Parquet files) is reported with its input
    assert [[i["name"] for i in e["inputs"]] for e in reads(events)] == [[str(out)], [str(out)]]
    assert_parented(events)


def test_headwater_run_spark_submit(job: Path, tmp_path: Path, assert_valid_events: Any) -> None:
    with Sink() as sink:
        result = run(
            [
                str(BIN / "headwater"),
                "run",
                "--url",
                sink.url,
                "--",
                "spark-submit",
                "--master",
                "local[2]",
                "--conf",
                "spark.openlineage.namespace=submitted",
                str(job),
                str(tmp_path / "out"),
            ],
            child_env(tmp_path),
            tmp_path,
        )
        assert result.returncode == 0, result.stderr[-3000:]
        events = sink.events()
    assert_valid_events(events)
    assert_start_then_end(events)
    assert {e["job"]["namespace"] for e in events} == {"submitted"}  # spark-submit --conf is honoured
    assert len(app_events(events)) == 2 and len(writes(events)) == 2 and len(reads(events)) == 2
    assert_parented(events)


def test_console_transport_prints_and_a_failing_script_fails_the_application_run(
    job: Path, tmp_path: Path, assert_valid_events: Any
) -> None:
    result = run(
        [
            str(BIN / "headwater"),
            "run",
            "--transport",
            "console",
            "--",
            "python",
            str(job),
            str(tmp_path / "out"),
            "fail",
        ],
        child_env(tmp_path),
        tmp_path,
    )
    assert result.returncode == 1  # the script's own exit status is kept
    assert "the job failed on purpose" in result.stderr
    events = [json.loads(line) for line in result.stderr.splitlines() if line.startswith('{"eventTime"')]
    assert_valid_events(events)
    apps = app_events(events)
    assert [e["eventType"] for e in apps] == ["START", "FAIL"]
    error = apps[1]["run"]["facets"]["errorMessage"]
    assert error["programmingLanguage"] == "PYTHON"
    assert "RuntimeError: the job failed on purpose" in error["message"]
    assert "Traceback" in error["stackTrace"]
    assert [e["eventType"] for e in writes(events)] == ["START", "COMPLETE"]  # the write itself succeeded


def test_agent_install_pth_turns_capture_on_with_headwater_auto(
    job: Path, tmp_path: Path, assert_valid_events: Any
) -> None:
    site = tmp_path / "site"
    installed = run(
        [str(BIN / "headwater"), "agent", "install", "--site-dir", str(site)], child_env(tmp_path), tmp_path
    )
    assert installed.returncode == 0, installed.stderr
    assert (site / "headwater-agent.pth").exists()
    target = tmp_path / "auto.ndjson"
    # a plain `python job.py`, with the .pth processed as site-packages does (site.addsitedir)
    launcher = (
        f"import site, runpy, sys; site.addsitedir({str(site)!r}); sys.argv = sys.argv[1:]; "
        "runpy.run_path(sys.argv[0], run_name='__main__')"
    )
    conf = json.dumps(
        {**FLUSH, "spark.openlineage.transport.type": "file", "spark.openlineage.transport.location": str(target)}
    )
    probe = (
        f"import site; site.addsitedir({str(site)!r}); import pyspark.sql.session as s; "
        "print('PATCHED', getattr(s.SparkSession.Builder.getOrCreate, '_headwater_patched', False))"
    )
    off = run([sys.executable, "-c", probe], child_env(tmp_path), tmp_path)
    assert off.returncode == 0 and "PATCHED False" in off.stdout, off.stderr  # installed, not opted in: inert
    on = run(
        [sys.executable, "-c", launcher, str(job), str(tmp_path / "out1")],
        child_env(tmp_path, HEADWATER_AUTO="1", HEADWATER_CONF=conf),
        tmp_path,
    )
    assert on.returncode == 0, on.stderr[-3000:]
    # the file transport: one JSON document per line (NDJSON)
    events = [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]
    assert_valid_events(events)
    assert len(app_events(events)) == 2 and len(writes(events)) == 2 and len(reads(events)) == 2
    assert_start_then_end(events)
    assert_parented(events)
    removed = run(
        [str(BIN / "headwater"), "agent", "uninstall", "--site-dir", str(site)], child_env(tmp_path), tmp_path
    )
    assert removed.returncode == 0 and not (site / "headwater-agent.pth").exists()
