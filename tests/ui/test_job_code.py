"""Code and SQL on every job, in real Chromium: the job pane shows the script the agent sent
(``sourceCode``) highlighted with line numbers and the line that ran the latest run's action marked
(``headwater_callSite``), and SQL highlighted; a job's History says what each version reads and writes and what
changed (it said "0 columns" before)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from urllib.parse import urlencode

import pytest
from playwright.sync_api import expect

from .fixtures.hr_events import (
    BONUS,
    JOB2,
    NS_JOB,
    PRODUCER,
    T1,
    _facet,
    ds,
    hr_events,
)
from .fixtures.layout_events import _ds, _run

pytestmark = [pytest.mark.browser]

SCRIPT = """from pyspark.sql import SparkSession

spark = SparkSession.builder.appName("code").getOrCreate()
df = spark.read.csv("/data/in.csv", header=True)


def save(frame):
    frame.write.mode("overwrite").parquet("/data/out")  # <b>the write</b>


save(df)
# a line longer than the side pane is wide: the full-width overlay shows it whole, not cut at ~45 characters
RENAMES = {"EmployeeID": "employee_id", "Department": "department", "Salary": "salary", "Role": "role"}
"""
CODE_JOB = "code.execute_insert_into_hadoop_fs_relation_command.data_out"


def events() -> list[dict[str, Any]]:
    evs = hr_events()
    run = _run(
        "code-job",
        NS_JOB,
        CODE_JOB,
        T1 + timedelta(hours=1),
        [_ds("file", "/data/in.csv", [("a", "string")])],
        [_ds("file", "/data/out", [("a", "string")])],
    )
    for e in run:
        e["job"]["facets"]["sourceCode"] = _facet("1-0-1/SourceCodeJobFacet.json", language="python", sourceCode=SCRIPT)
        e["run"]["facets"]["headwater_callSite"] = {
            "_producer": PRODUCER,
            "_schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunFacet",
            "file": "/jobs/code.py",
            "line": 8,
            "function": "save",
        }
        # a streaming job (a Structured Streaming query): the pane says so with a badge
        e["job"]["facets"]["jobType"] = _facet(
            "2-0-4/JobTypeJobFacet.json", processingType="STREAMING", integration="SPARK", jobType="SQL_JOB"
        )
        e["job"]["facets"]["sourceCodeLocation"] = _facet(
            "1-1-0/SourceCodeLocationJobFacet.json", type="file", url="file:///jobs/code.py"
        )
    return evs + run


EVENTS = events


def url(node: str, **params: Any) -> str:
    return "/asset?" + urlencode([("node", node), *params.items()])


def test_source_code_with_the_line_that_ran_the_action(page: Any) -> None:
    page.goto(url(f"job:{NS_JOB}:{CODE_JOB}", tab="job"))
    code = page.get_by_test_id("job-code")
    expect(code).to_be_visible()
    marked = code.get_by_test_id("code-marked-line")
    expect(marked).to_have_attribute("data-line", "8")
    expect(marked).to_contain_text('frame.write.mode("overwrite").parquet("/data/out")')
    expect(page.get_by_test_id("job-call-site")).to_contain_text("line 8 of code.py in save()")
    # highlighted by Prism (keywords and strings as tokens), the HTML in a comment kept as text
    assert code.locator(".tok-keyword").count() > 0 and code.locator(".tok-string").count() > 0
    assert code.locator("b").count() == 0
    expect(code.locator(".code-line")).to_have_count(SCRIPT.count("\n"))
    # the marked line is scrolled into the block's view
    box, line = code.bounding_box(), marked.bounding_box()
    assert box and line and box["y"] <= line["y"] and line["y"] + line["height"] <= box["y"] + box["height"]
    # the streaming badge beside the job's type
    expect(page.get_by_test_id("job-streaming-badge")).to_have_text("streaming")
    expect(page.get_by_test_id("job-info")).to_contain_text("SPARK · STREAMING · SQL_JOB")
    # full width: the overlay shows the longest line whole; Esc closes it
    clipped = "p => p.scrollWidth - p.clientWidth"
    page.get_by_test_id("job-code-wide").click()
    full = page.get_by_test_id("job-code-full")
    expect(full).to_be_visible()
    assert full.evaluate(clipped) <= 0, "the overlay cuts the code's longest line"
    expect(full.locator(".code-line")).to_have_count(SCRIPT.count("\n"))
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("job-code-overlay")).to_have_count(0)


def test_sql_is_highlighted_in_the_details_pane(page: Any) -> None:
    page.goto(url(ds(BONUS), depth="1"))
    expect(page.locator('[data-testid="lineage-canvas"]')).to_have_attribute("data-ready", "true")
    page.locator(f'.react-flow__node[data-id="job:{NS_JOB}:{JOB2}"] .lnode-head').click()
    sql = page.get_by_test_id("details-pane").get_by_test_id("job-sql")
    expect(sql).to_contain_text("COALESCE")
    assert sql.locator(".tok-keyword").count() > 3


def test_job_history_says_what_each_version_reads_and_writes(page: Any) -> None:
    page.goto(url(f"job:{NS_JOB}:{JOB2}", tab="history"))
    versions = page.get_by_test_id("version")
    expect(versions).to_have_count(2)
    expect(page.get_by_test_id("version-list")).not_to_contain_text("columns")
    expect(versions.nth(0).get_by_test_id("version-io")).to_have_text("reads 3 · writes 1")
    expect(versions.nth(1).get_by_test_id("version-io")).to_have_text("reads 2 · writes 1")
    added = versions.nth(0).get_by_test_id("diff-reads-added")
    expect(added).to_contain_text("bonus_payments.csv")
    added.get_by_role("link", name="bonus_payments.csv").click()
    expect(page.get_by_test_id("asset-name")).to_have_text(BONUS)
