"""What the user sees next is one click away, in real Chromium on the demo-shaped
graph of fixtures/layout_events.py: the application job links its action jobs and back, every
reference in the details is a link, History says what changed and which run made the version,
impact filters, Esc and accessible names."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import pytest
from playwright.sync_api import expect

from .fixtures.layout_events import (
    ACT1,
    ACT2,
    APP2,
    CRAWLER,
    CRAWLER_NS,
    DEMO_JOB_NS,
    DEMO_NS,
    EMP_ATT,
    EMP_COMP,
    EMPLOYEES,
    layout_events,
)

pytestmark = [pytest.mark.browser]

EVENTS = layout_events
CANVAS = '[data-testid="lineage-canvas"]'


def url(node: str, **params: Any) -> str:
    return "/asset?" + urlencode([("node", node), *params.items()])


def test_application_job_links_its_actions_and_back(page: Any) -> None:
    page.goto(url(f"job:{DEMO_JOB_NS}:{APP2}", tab="job"))
    actions = page.get_by_test_id("job-children")  # the job details' children, from the API
    expect(actions).to_contain_text("write employee_compensation")
    actions.get_by_role("link", name="write employee_compensation").click()
    expect(page.get_by_test_id("asset-name")).to_have_text(ACT2)  # the real name stays the page's title
    page.get_by_test_id("tab-job").click()
    expect(page.get_by_test_id("job-parent")).to_contain_text(APP2)  # the parent facet names the application
    expect(page.get_by_test_id("job-inputs")).to_contain_text("employee_attendance")
    expect(page.get_by_test_id("job-outputs")).to_contain_text("employee_compensation")


def test_details_references_are_links_and_show_in_graph(page: Any) -> None:
    root = f"dataset:{DEMO_NS}:{EMP_ATT}"
    page.goto(url(root, depth="2"))
    expect(page.locator(CANVAS)).to_have_attribute("data-ready", "true")
    page.locator(f'.react-flow__node[data-id="{root}"] .lnode-head').click()
    pane = page.get_by_test_id("details-pane")
    expect(pane.get_by_test_id("written-by")).to_contain_text("write employee_attendance")
    expect(pane.get_by_test_id("read-by")).to_contain_text("write employee_compensation")
    # shown in the graph: selected, the pane now tells about the job
    pane.get_by_test_id("read-by").get_by_role("button", name=f"Show {ACT2} in the graph").click()
    expect(pane.get_by_test_id("details-name")).to_have_text("write employee_compensation")
    expect(page.locator(f'[data-testid="job-node"][data-node-id="job:{DEMO_JOB_NS}:{ACT2}"]')).to_have_class(
        __import__("re").compile("is-selected")
    )
    # runs of the job: the datasets of a run are links
    pane.get_by_test_id("pane-tab-runs").click()
    pane.get_by_test_id("run-row").first.click()
    expect(pane.get_by_test_id("run-refs")).to_contain_text("employee_attendance")
    expect(pane.get_by_test_id("run-refs")).to_contain_text("employee_compensation")
    # Esc closes the pane; every button on the page has an accessible name
    page.keyboard.press("Escape")
    expect(pane).to_have_count(0)
    unnamed = page.evaluate("""() => [...document.querySelectorAll('button')].filter(b => {
        const name = (b.getAttribute('aria-label') || b.textContent || b.title || '').trim();
        return !name;
    }).map(b => b.outerHTML.slice(0, 120))""")
    assert not unnamed, unnamed


def test_direct_and_indirect_column_edges(page: Any) -> None:
    root = f"dataset:{DEMO_NS}:{EMP_COMP}"
    page.goto(url(root, depth="2"))
    expect(page.locator(CANVAS)).to_have_attribute("data-ready", "true")
    expect(page.get_by_test_id("edge-legend")).to_be_visible()
    # column edges join the rows on screen: every column list open
    page.get_by_test_id("toggle-all-columns").click()
    indirect = page.locator('[data-testid="edge-column"][data-dependency="indirect"]')
    direct = page.locator('[data-testid="edge-column"][data-dependency="direct"]')
    expect(indirect.first).to_be_attached()
    expect(direct.first).to_be_attached()
    # the final layout has landed (ELK's routes): the edges are not redrawn while their style is read
    expect(page.locator(CANVAS)).to_have_attribute("data-ready", "true")
    expect(page.locator('[data-testid="edge-column"][data-routed="false"]')).to_have_count(0)
    dashed = page.locator(".react-flow__edge-path.dep-indirect").first.evaluate(
        "p => getComputedStyle(p).strokeDasharray"
    )
    solid = page.locator(".react-flow__edge-path.dep-direct").first.evaluate("p => getComputedStyle(p).strokeDasharray")
    assert dashed not in ("none", "") and solid in ("none", ""), (dashed, solid)
    page.get_by_test_id("toggle-direct-only").check(force=True)
    expect(indirect).to_have_count(0)
    expect(direct.first).to_be_attached()


def test_impact_filters(page: Any) -> None:
    root = f"dataset:{DEMO_NS}:{EMPLOYEES}"
    page.goto(url(root, depth="3", impact="1"))
    rows = page.get_by_test_id("impact-row")
    expect(rows.first).to_be_visible()
    total = rows.count()
    page.get_by_test_id("impact-type").select_option("JOB")
    expect(rows).to_have_count(3)  # the two action jobs and the crawler that registers employees.csv
    expect(page.get_by_test_id("impact-shown")).to_have_text(f"3 of {total} rows")
    page.get_by_test_id("impact-type").select_option("")
    page.get_by_test_id("impact-depth").select_option("1")
    expect(rows).to_have_count(2)
    assert set(rows.evaluate_all("rs => rs.map(r => r.dataset.id)")) == {
        f"job:{DEMO_JOB_NS}:{ACT1}",
        f"job:{CRAWLER_NS}:{CRAWLER}",
    }
    # Esc closes the impact panel
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("impact-panel")).to_have_count(0)


def test_job_lists_and_a_lone_application_job_lead_to_its_actions(page: Any) -> None:
    # the home page's recent list and the namespace's job list share their rows (the wide graph's
    # jobs are newer here, so the demo's jobs are read from their namespace)
    page.goto(f"/namespaces/{DEMO_JOB_NS}")
    row = page.get_by_test_id("asset-row").filter(has_text="write employee_compensation")
    expect(row).to_contain_text(f"action of {APP2}")
    app = page.get_by_test_id("asset-row").filter(has_text=APP2).filter(has_not_text="write")
    app.click()
    # the application has no datasets of its own: the lineage tab says where its lineage is
    expect(page.locator(CANVAS)).to_have_attribute("data-node-count", "1")
    banner = page.get_by_test_id("lone-job-banner")
    banner.get_by_role("link", name="write employee_compensation").click()
    expect(page.get_by_test_id("asset-name")).to_have_text(ACT2)
    # one label per job: the page's title says what the graph's node says
    expect(page.get_by_test_id("asset-label")).to_have_text("write employee_compensation")
    expect(page.locator(CANVAS)).to_have_attribute("data-ready", "true")
    expect(page.locator(f'[data-testid="dataset-node"][data-node-id="dataset:{DEMO_NS}:{EMP_COMP}"]')).to_be_visible()


def test_expand_button_counts_what_impact_found_beyond_the_graph(page: Any) -> None:
    root = f"dataset:{DEMO_NS}:{EMPLOYEES}"
    page.goto(url(root, depth="1", impact="1"))
    expect(page.get_by_test_id("impact-row").first).to_be_visible()
    att = page.locator(f'[data-testid="dataset-node"][data-node-id="dataset:{DEMO_NS}:{EMP_ATT}"]')
    # employee_attendance leads on to the compensation job and its table, neither drawn at depth 1
    expect(att.get_by_test_id("hidden-count")).to_have_text("+2")
    expect(att.get_by_test_id("expand-downstream")).to_have_attribute(
        "aria-label", __import__("re").compile("2 more not drawn")
    )
    page.get_by_test_id("fit-view").click()
    att.get_by_test_id("expand-downstream").dispatch_event("click")
    expect(page.locator(f'[data-node-id="job:{DEMO_JOB_NS}:{ACT2}"]').first).to_be_visible()
    expect(page.get_by_test_id("hidden-count")).to_have_count(0)
