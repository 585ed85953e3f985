"""The job's code on its events, with real Spark: an unmodified script run by ``headwater run``
sends its source as the ``sourceCode`` job facet of the application and of every action, the line of each
action as the ``headwater_callSite`` run facet, and — only when switched on — the optimized plan as the
``spark.logicalPlan`` run facet; a real ``headwater serve`` accepts the events (official schema) and its job
details and runs answer them."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import httpx
import pytest

from .events_util import app_events, exec_events
from .sink import Sink
from .test_run_cli import BIN, FLUSH, child_env, run, server  # noqa: F401 - server is a fixture

pytestmark = [pytest.mark.spark, pytest.mark.slow]

JOB = textwrap.dedent("""\
    import sys
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master("local[2]").appName("codeJob")
             .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2").getOrCreate())
    out = sys.argv[1]
    df = spark.createDataFrame([(1, "ada"), (2, "bob")], ["id", "name"])


    def save(frame):
        frame.write.mode("overwrite").parquet(out)  # WRITE


    save(df.where("id > 0"))
    print("ROWS", spark.read.parquet(out).count())  # READ
    spark.stop()
""")


def line_of(marker: str) -> int:
    return next(i for i, text in enumerate(JOB.splitlines(), 1) if f"# {marker}" in text)


@pytest.fixture
def job(tmp_path: Path) -> Path:
    path = tmp_path / "code_job.py"
    path.write_text(JOB, encoding="utf-8")
    return path


def test_source_and_call_sites_reach_headwater(job: Path, tmp_path: Path, server: str) -> None:  # noqa: F811
    result = run(
        [str(BIN / "headwater"), "run", "--url", server, "--", "python", str(job), str(tmp_path / "out")],
        child_env(tmp_path),
        tmp_path,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    jobs = httpx.get(f"{server}/api/v1/graph/jobs", params={"namespace": "default", "limit": 100}).json()
    names = {j["name"]: j["id"] for j in jobs["items"] if j["name"].startswith("code_job")}
    assert "code_job" in names and len(names) >= 3, names
    for name, node in names.items():
        details = httpx.get(f"{server}/api/v1/graph/node", params={"nodeId": node}).json()
        code = details["facets"]["sourceCode"]
        assert (code["language"], code["sourceCode"]) == ("python", JOB), name
    write = next(node for name, node in names.items() if "insert_into_hadoop_fs_relation" in name)
    read = next(node for name, node in names.items() if name not in ("code_job",) and node != write)
    for node, marker, function in ((write, "WRITE", "save"), (read, "READ", "<module>")):
        runs = httpx.get(f"{server}/api/v1/graph/runs", params={"nodeId": node}).json()["runs"]
        site = runs[0]["facets"]["headwater_callSite"]
        assert (site["file"], site["line"], site["function"]) == (str(job.resolve()), line_of(marker), function)
        assert "spark.logicalPlan" not in runs[0]["facets"]  # off by default, as in the integration


def test_logical_plan_on_and_source_cut(job: Path, tmp_path: Path, assert_valid_events: Any) -> None:
    conf = {
        **FLUSH,
        "spark.openlineage.facets.spark.logicalPlan.disabled": "false",
        "spark.headwater.sourceCode.maxBytes": "120",
    }
    with Sink() as sink:
        result = run(
            [str(BIN / "headwater"), "run", "--url", sink.url, "--", "python", str(job), str(tmp_path / "out")],
            child_env(tmp_path, HEADWATER_CONF=json.dumps(conf)),
            tmp_path,
        )
        assert result.returncode == 0, result.stderr[-3000:]
        events = sink.events()
    assert_valid_events(events)
    text = app_events(events)[0]["job"]["facets"]["sourceCode"]["sourceCode"]
    kept = JOB.encode()[: JOB.encode().rfind(b"\n", 0, 120) + 1].decode()
    assert text == kept + "# ... cut by Headwater at 120 bytes (spark.headwater.sourceCode.maxBytes)\n"
    ends = [e for e in exec_events(events) if e["eventType"] == "COMPLETE"]
    assert ends and all(e["run"]["facets"]["spark.logicalPlan"]["plan"] for e in ends)
    # the read's count (not the write, whose root is a write command; events arrive in no set order): its
    # optimized plan is a tree of Catalyst's logical operators
    (read,) = [e for e in ends if e["job"]["name"] != "code_job" and "insert_into" not in e["job"]["name"]]
    root = read["run"]["facets"]["spark.logicalPlan"]["plan"][0]
    assert root["class"].startswith("org.apache.spark.sql.catalyst.plans.logical."), root["class"]
    assert not any("spark.logicalPlan" in e["run"]["facets"] for e in exec_events(events) if e["eventType"] == "START")
