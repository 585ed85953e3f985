"""Job hierarchy in the explorer, in real Chromium: an Airflow DAG whose three tasks write one
report reads as one DAG node when jobs are grouped, opens to its tasks and groups again, the level is kept
in the URL; a Spark application draws its actions' lineage as its own; the job details list parent and
children from the API; the capture's integration-style job names get readable labels."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any
from urllib.parse import parse_qs, urlencode, urlparse

import httpx
import pytest
from playwright.sync_api import expect

from .fixtures.layout_events import (
    ACT2,
    APP2,
    DEMO_JOB_NS,
    DEMO_NS,
    EMP_ATT,
    EMP_COMP,
    SCHEMAS,
    T0,
    _ds,
    _run,
    demo_events,
)

pytestmark = [pytest.mark.browser]

CANVAS = '[data-testid="lineage-canvas"]'
AIRFLOW = "airflow"
DAG = "payroll_dag"
TASKS = [f"{DAG}.load_{x}" for x in ("a", "b", "c")]
PG = "postgres://db.hr.local:5432"
REPORT = "hr.public.compensation_report"
COLS = [("EmployeeID", "integer"), ("Total", "decimal(12,2)")]
READ_ONLY = f"{APP2}.adaptive_spark_plan"  # a read: no output suffix


def events() -> list[dict[str, Any]]:
    evs = demo_events()
    start = T0 + timedelta(hours=1)
    evs += _run("dag", AIRFLOW, DAG, start, [], [])
    for i, task in enumerate(TASKS):
        src = f"hr.public.source_{'abc'[i]}"
        evs += _run(
            f"dag-{task}",
            AIRFLOW,
            task,
            start + timedelta(seconds=1 + i),
            [_ds(PG, src, COLS)],
            [_ds(PG, REPORT, COLS)],
            (DAG, "dag"),
        )
    # a read-only action of the compensation application, named as the integration names it
    evs += _run(
        "demo-read",
        DEMO_JOB_NS,
        READ_ONLY,
        T0 + timedelta(minutes=2),
        [_ds(DEMO_NS, EMP_COMP, SCHEMAS[EMP_COMP])],
        [],
        (APP2, "demo-app2"),
    )
    return evs


EVENTS = events


def url(node: str, **params: Any) -> str:
    return "/asset?" + urlencode([("node", node), *params.items()])


def drawn(page: Any) -> set[str]:
    expect(page.locator(CANVAS)).to_have_attribute("data-ready", "true")
    ids = page.locator(".react-flow__node").evaluate_all("ns => ns.map(n => n.getAttribute('data-id'))")
    return set(ids)


def job(ns: str, name: str) -> str:
    return f"job:{ns}:{name}"


def query(page: Any) -> dict[str, list[str]]:
    return parse_qs(urlparse(page.url).query)


def test_a_grouped_dag_is_one_node_that_opens_to_its_tasks(page: Any, server: str) -> None:
    root = f"dataset:{PG}:{REPORT}"
    dag = job(AIRFLOW, DAG)
    tasks = {job(AIRFLOW, t) for t in TASKS}
    page.goto(url(root))
    assert tasks <= drawn(page) and dag not in drawn(page)  # every job by default
    page.get_by_test_id("toggle-group-jobs").check(force=True)
    expect(page.locator(f'[data-testid="job-node"][data-node-id="{dag}"]')).to_be_visible()
    assert query(page)["group"] == ["1"]
    seen = drawn(page)
    assert dag in seen and not (tasks & seen)
    # the same nodes as the server's own collapse of the same request
    answer = httpx.get(
        f"{server}/api/v1/graph/lineage",
        params={"nodeId": root, "direction": "both", "depth": 4, "collapseJobs": "true"},
    ).json()
    assert seen == {n["id"] for n in answer["nodes"]}
    node = page.locator(f'[data-testid="job-node"][data-node-id="{dag}"]')
    expect(node).to_have_attribute("data-children", "3")
    node.get_by_test_id("open-children").dispatch_event("click")
    for t in tasks:
        expect(page.locator(f'[data-testid="job-node"][data-node-id="{t}"]')).to_be_visible()
    expect(page.locator(f'[data-node-id="{dag}"]')).to_have_count(0)
    assert query(page)["open"] == [dag]
    # remembered in the URL: a reload shows the same level
    page.reload()
    assert tasks <= drawn(page) and dag not in drawn(page)
    task = page.locator(f'[data-testid="job-node"][data-node-id="{job(AIRFLOW, TASKS[0])}"]')
    expect(task.get_by_test_id("close-parent")).to_have_attribute("data-parent", dag)
    task.get_by_test_id("close-parent").dispatch_event("click")
    expect(page.locator(f'[data-testid="job-node"][data-node-id="{dag}"]')).to_be_visible()
    assert "open" not in query(page) and not (tasks & drawn(page))


def test_spark_application_draws_its_actions_lineage(page: Any) -> None:
    app = job(DEMO_JOB_NS, APP2)
    page.goto(url(app))
    expect(page.locator(CANVAS)).to_have_attribute("data-node-count", "1")
    banner = page.get_by_test_id("lone-job-banner")
    expect(banner.get_by_test_id("lone-job-children")).to_contain_text("write employee_compensation")
    expect(banner.get_by_test_id("lone-job-children")).to_contain_text("read query")
    banner.get_by_test_id("lone-job-group").click()
    comp = f"dataset:{DEMO_NS}:{EMP_COMP}"
    att = f"dataset:{DEMO_NS}:{EMP_ATT}"
    expect(page.locator(f'[data-testid="dataset-node"][data-node-id="{comp}"]')).to_be_visible()
    seen = drawn(page)
    assert {app, comp, att} <= seen and job(DEMO_JOB_NS, ACT2) not in seen
    edges = page.locator(".react-flow__edge").evaluate_all("es => es.map(e => e.getAttribute('data-id'))")
    assert f"f:{att}->{app}" in edges and f"f:{app}->{comp}" in edges, edges


def test_job_details_list_parent_and_children(page: Any) -> None:
    page.goto(url(job(AIRFLOW, DAG), tab="job"))
    children = page.get_by_test_id("job-children")
    for t in TASKS:
        expect(children.get_by_role("link", name=t)).to_be_visible()
    children.get_by_role("link", name=TASKS[1]).click()
    expect(page.get_by_test_id("asset-name")).to_have_text(TASKS[1])
    page.get_by_test_id("tab-job").click()
    expect(page.get_by_test_id("job-parent")).to_contain_text(DAG)
    expect(page.get_by_test_id("job-children")).to_have_count(0)
    # a Spark application's children are its actions
    page.goto(url(job(DEMO_JOB_NS, APP2), tab="job"))
    expect(page.locator("dt", has_text="Actions")).to_be_visible()
    expect(page.get_by_test_id("job-children")).to_contain_text("write employee_compensation")


def test_integration_style_names_read_as_actions(page: Any) -> None:
    root = f"dataset:{DEMO_NS}:{EMP_COMP}"
    page.goto(url(root, depth="1"))
    reader = page.locator(f'[data-testid="job-node"][data-node-id="{job(DEMO_JOB_NS, READ_ONLY)}"]')
    expect(reader.get_by_test_id("node-name")).to_have_text("read query")
    expect(reader.get_by_test_id("node-name")).to_have_attribute("title", READ_ONLY)
    expect(reader.locator(".lnode-sub")).to_contain_text(APP2)
    # the pane of an opened child job names its parent; the parent's node draws it again
    page.get_by_test_id("toggle-group-jobs").check(force=True)
    parent = page.locator(f'[data-testid="job-node"][data-node-id="{job(DEMO_JOB_NS, APP2)}"]')
    expect(parent.get_by_test_id("open-children")).to_have_text(re.compile(r"2 jobs"))


def test_impact_highlights_the_parent_that_stands_for_a_child(page: Any) -> None:
    source = f"dataset:{PG}:hr.public.source_a"
    page.goto(url(source, group="1", impact="1"))
    expect(page.get_by_test_id("impact-row").first).to_be_visible()
    dag = page.locator(f'[data-testid="job-node"][data-node-id="{job(AIRFLOW, DAG)}"]')
    expect(dag).to_have_attribute("data-emphasis", "highlight")  # the impact answer names its task load_a


def test_expansions_are_grouped_too(page: Any) -> None:
    comp = f"dataset:{DEMO_NS}:{EMP_COMP}"
    att = f"dataset:{DEMO_NS}:{EMP_ATT}"
    app1 = job(DEMO_JOB_NS, "hr_employee_attendance")
    page.goto(url(comp, depth="1", group="1"))
    node = page.locator(f'[data-testid="dataset-node"][data-node-id="{att}"]')
    expect(node).to_be_visible()
    assert app1 not in drawn(page)
    node.get_by_test_id("expand-upstream").dispatch_event("click")
    # the attendance application stands for its action in the expansion as well
    expect(page.locator(f'[data-testid="job-node"][data-node-id="{app1}"]')).to_be_visible()
    assert job(
        DEMO_JOB_NS, "hr_employee_attendance.execute_insert_into_hadoop_fs_relation_command.employee_attendance"
    ) not in drawn(page)
    node.get_by_test_id("collapse-upstream").dispatch_event("click")
    expect(page.locator(f'[data-node-id="{app1}"]')).to_have_count(0)
