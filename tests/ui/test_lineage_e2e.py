"""The lineage explorer in real headless Chromium against a real ``headwater serve``.

Every flow drives the built UI the way a user does (clicks, typing, URL) and checks what is on
screen: which nodes, which highlighted columns, which rows — against the HR payroll events in
fixtures/hr_events.py. Every check on the page is a Playwright ``expect()`` (it retries until the page
agrees or the timeout passes), and a check that something is absent first waits for the state it
depends on (the graph drawn, the row shown), so it cannot pass on a page that is still loading.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote_plus, urlencode

import pytest
from playwright.sync_api import expect

from .fixtures.hr_events import (
    ATTENDANCE,
    BETWEEN,
    BONUS,
    EMP_ATT,
    EMP_COMP,
    EMPLOYEES,
    JOB1,
    JOB2,
    JOB3,
    SALARY_ADJ,
    XSS_COLUMN,
    XSS_NAME,
    col,
    ds,
    job,
)

pytestmark = [pytest.mark.browser]

CANVAS = '[data-testid="lineage-canvas"]'


def asset_url(node: str, **params: Any) -> str:
    query = [("node", node)]
    for key, value in params.items():
        for v in value if isinstance(value, list) else [value]:
            query.append((key, str(v)))
    return "/asset?" + urlencode(query)


def expect_ready(page: Any) -> None:
    expect(page.locator(CANVAS)).to_have_attribute("data-ready", "true")


def open_asset(page: Any, node: str, **params: Any) -> None:
    page.goto(asset_url(node, **params))
    expect_ready(page)


def css_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def fit(page: Any) -> None:
    """Fit the whole graph into view (the view opens at a readable zoom centred on the root, so
    nodes further away are off-screen until then) and wait until it stands still."""
    page.get_by_test_id("fit-view").click()
    expect_viewport_still(page)


# Expand and collapse buttons are clicked with dispatch_event: the view may re-centre on the focus node
# after a fit (a finished ELK refinement re-centres), leaving the button outside the viewport, where a
# pointer click waits in vain; the button's own click handler is what these tests exercise.


def node(page: Any, node_id: str) -> Any:
    return page.locator(f"[data-node-id={css_string(node_id)}]")


def expect_exactly(page: Any, selector: str, attribute: str, values: set[str]) -> None:
    """Wait until the elements matching ``selector`` are exactly one per value of ``attribute``."""
    for value in sorted(values):
        expect(page.locator(f"{selector}[{attribute}={css_string(value)}]")).to_have_count(1)
    expect(page.locator(selector)).to_have_count(len(values))


def expect_graph(page: Any, expected: set[str]) -> None:
    """Wait until exactly these nodes are drawn and laid out."""
    expect_exactly(page, "[data-node-id]", "data-node-id", expected)
    expect_ready(page)


def expect_highlighted(page: Any, columns: set[str]) -> None:
    expect_exactly(page, '[data-highlighted="true"]', "data-field-id", columns)


def _encoded(value: str) -> str:
    """A value as the UI's URLSearchParams writes it (form encoding)."""
    return re.escape(quote_plus(value, safe="*").replace("~", "%7E"))


def url_with(**params: str | list[str]) -> re.Pattern[str]:
    """A URL pattern: the query holds each ``key=value`` (any order, other parameters allowed)."""
    checks = "".join(
        f"(?=.*[?&]{key}={_encoded(v)}(?:&|$))"
        for key, values in params.items()
        for v in (values if isinstance(values, list) else [values])
    )
    return re.compile(f"^{checks}.*$")


def url_param(key: str) -> re.Pattern[str]:
    return re.compile(f"[?&]{key}=")


FULL_GRAPH = {
    ds(EMPLOYEES),
    ds(ATTENDANCE),
    job(JOB1),
    ds(EMP_ATT),
    ds(SALARY_ADJ),
    ds(BONUS),
    job(JOB2),
    ds(EMP_COMP),
    job(JOB3),
    ds(XSS_NAME),
}
BEFORE_T2 = FULL_GRAPH - {ds(BONUS), job(JOB3), ds(XSS_NAME)}  # before T2: no bonus input, no report job


def test_home_and_search_lead_to_the_asset(page: Any) -> None:
    page.goto("/")
    expect(page.get_by_test_id("recent-list").get_by_text("employee_compensation").first).to_be_visible()
    page.get_by_test_id("search-input").fill("compens")
    results = page.get_by_test_id("search-result")
    dataset = results.filter(has_text="employee_compensation").filter(has_text="dataset")
    expect(dataset).to_have_count(1)
    # columns are found too: TotalCompensation
    expect(results.filter(has_text="TotalCompensation").first).to_be_visible()
    dataset.click()
    expect_ready(page)
    expect(page.get_by_test_id("asset-name")).to_have_text(EMP_COMP)
    expect(page).to_have_url(url_with(node=ds(EMP_COMP)))


def test_expand_upstream_twice_then_collapse(page: Any) -> None:
    open_asset(page, ds(XSS_NAME), depth=1)
    start = {ds(XSS_NAME), job(JOB3), ds(EMP_COMP)}
    expect_graph(page, start)

    fit(page)  # the view opens at a readable zoom around the root: the node may be off-screen
    node(page, ds(EMP_COMP)).get_by_test_id("expand-upstream").dispatch_event("click")
    after_one = start | {job(JOB2), ds(EMP_ATT), ds(SALARY_ADJ), ds(BONUS)}
    expect_graph(page, after_one)

    fit(page)  # the view opens at a readable zoom around the root: the node may be off-screen
    node(page, ds(EMP_ATT)).get_by_test_id("expand-upstream").dispatch_event("click")
    expect_graph(page, after_one | {job(JOB1), ds(EMPLOYEES), ds(ATTENDANCE)})
    expect(page).to_have_url(url_with(exp=[f"u:{ds(EMP_COMP)}", f"u:{ds(EMP_ATT)}"]))
    # nothing is further upstream of the sources: no expand control left on them (the node is drawn)
    expect(node(page, ds(EMPLOYEES))).to_be_visible()
    expect(node(page, ds(EMPLOYEES)).get_by_test_id("expand-upstream")).to_have_count(0)

    # collapsing the first expansion also drops the one made on a node it brought
    fit(page)  # the view opens at a readable zoom around the root: the node may be off-screen
    node(page, ds(EMP_COMP)).get_by_test_id("collapse-upstream").dispatch_event("click")
    expect_graph(page, start)
    expect(page).not_to_have_url(url_param("exp"))


def expect_viewport_still(page: Any) -> None:
    """Wait until the canvas's pan/zoom stops moving (fit view animates): the same transform on
    consecutive animation frames."""
    page.wait_for_function(
        """() => {
        const t = document.querySelector('.react-flow__viewport')?.style.transform;
        const still = t !== undefined && t === window.__hwLastTransform;
        window.__hwLastTransform = t;
        return still;
    }""",
        polling="raf",
    )


def test_column_click_highlights_exactly_its_path(page: Any) -> None:
    open_asset(page, ds(EMP_COMP), depth=3)
    expect_graph(page, FULL_GRAPH)
    root = node(page, ds(EMP_COMP))
    # the root's columns are open from the start
    root.locator(f'[data-field-id="{col(EMP_COMP, "TotalCompensation")}"]').click()
    expected = {
        col(EMP_COMP, "TotalCompensation"),
        col(EMP_ATT, "Salary"),
        col(EMPLOYEES, "Salary"),
        col(SALARY_ADJ, "AdjustmentPct"),
        col(BONUS, "BonusAmount"),
        col(XSS_NAME, XSS_COLUMN),
    }
    expect_highlighted(page, expected)
    expect_exactly(page, '[data-testid="path-column"]', "data-field-id", expected)
    # the rest is dimmed: a column off the path and a dataset off the path
    # (a dataset whose list is closed shows only its path columns)
    expect(node(page, ds(EMP_ATT)).locator(f'[data-field-id="{col(EMP_ATT, "TotalHours")}"]')).to_have_count(0)
    expect(node(page, ds(ATTENDANCE))).to_have_attribute("data-emphasis", "dim")
    expect(node(page, job(JOB1))).to_have_attribute("data-emphasis", "highlight")
    expect(page).to_have_url(url_with(col=col(EMP_COMP, "TotalCompensation")))

    # hovering a highlighted column edge tells its transformation
    page.get_by_role("button", name="Fit View").click()
    expect_viewport_still(page)
    edges = page.locator('[data-testid="edge-column"][data-emphasis="highlight"]')
    expect(edges).to_have_count(len(expected) - 1)  # one per column hop of the path (a tree over the 6 columns)
    card = page.get_by_test_id("edge-card")
    cards = []
    for hit in edges.all():
        # hover the first point, from the edge's middle on, where it is on top: no node covers it and no other
        # edge shares it (routed edges from one column share their first segments, into one row their last)
        x, y = hit.evaluate("""p => {
            const m = p.getScreenCTM(), len = p.getTotalLength();
            for (let f = 0.5; f < 1.49; f += 0.01) {
              const d = len * (f < 1 ? f : f - 1);
              const pt = new DOMPoint(p.getPointAtLength(d).x, p.getPointAtLength(d).y).matrixTransform(m);
              if (document.elementFromPoint(pt.x, pt.y) === p) return [pt.x, pt.y];
            }
            return [NaN, NaN];
        }""")
        assert x == x, "a highlighted column edge is hidden under nodes or other edges along its whole length"
        page.mouse.move(x, y)
        expect(card).to_have_count(1)  # every column edge carries transformations: hovering one shows its card
        cards.append(card.inner_text())
    assert any(
        "Salary → TotalCompensation" in c
        and "DIRECT" in c
        and "TRANSFORMATION" in c
        and "Salary * (1 + AdjustmentPct / 100)" in c
        for c in cards
    ), cards


def test_column_path_goes_on_beyond_the_drawn_graph(page: Any) -> None:
    open_asset(page, ds(XSS_NAME), depth=1, col=col(XSS_NAME, XSS_COLUMN))
    expect_graph(page, {ds(XSS_NAME), job(JOB3), ds(EMP_COMP)})
    # the server's column lineage continues the path past employee_compensation
    path = '[data-testid="path-column"]'
    expect_exactly(
        page,
        path,
        "data-field-id",
        {
            col(XSS_NAME, XSS_COLUMN),
            col(EMP_COMP, "TotalCompensation"),
            col(EMP_ATT, "Salary"),
            col(EMPLOYEES, "Salary"),
            col(SALARY_ADJ, "AdjustmentPct"),
            col(BONUS, "BonusAmount"),
        },
    )
    expect_exactly(
        page,
        f'{path}[data-drawn="true"]',
        "data-field-id",
        {col(XSS_NAME, XSS_COLUMN), col(EMP_COMP, "TotalCompensation")},
    )
    # on the canvas only what is drawn is highlighted
    expect_highlighted(page, {col(XSS_NAME, XSS_COLUMN), col(EMP_COMP, "TotalCompensation")})


def test_datasets_only_folds_jobs_into_dataset_edges(page: Any) -> None:
    open_asset(page, ds(EMP_COMP), depth=3)
    expect_graph(page, FULL_GRAPH)
    page.get_by_test_id("toggle-datasets-only").check(force=True)
    expect_graph(page, {n for n in FULL_GRAPH if n.startswith("dataset:")})
    expect(page.locator('[data-testid="job-node"]')).to_have_count(0)
    # 5 inputs into 2 outputs + 1 report: employees, attendance -> att; att, salary, bonus -> comp; comp -> report
    expect(page.locator(".react-flow__edge")).to_have_count(6)
    expect(page).to_have_url(url_with(dso="1"))
    page.get_by_test_id("toggle-datasets-only").uncheck(force=True)
    expect_graph(page, FULL_GRAPH)


def test_earlier_timestamp_shows_the_earlier_graph(page: Any) -> None:
    open_asset(page, ds(EMP_COMP), depth=3)
    expect_graph(page, FULL_GRAPH)
    # times typed in UTC (the switch; the browser's zone is the default, see the next test)
    page.get_by_test_id("toggle-utc").check(force=True)
    expect(page.get_by_test_id("at-input-zone")).to_have_text("UTC")
    page.get_by_test_id("at-input").fill(BETWEEN.strftime("%Y-%m-%dT%H:%M:%S"))
    page.get_by_test_id("at-apply").click()
    expect_graph(page, BEFORE_T2)
    expect(page.get_by_test_id("time-banner")).to_contain_text("Showing the graph as it was")
    expect(page).to_have_url(url_with(at=BETWEEN.strftime("%Y-%m-%dT%H:%M:%S.000Z")))
    # and the schema then had 5 columns, not 7
    fit(page)  # the view opens at a readable zoom around the root: the node may be off-screen
    expect(node(page, ds(EMP_COMP)).get_by_test_id("column-row")).to_have_count(5)

    # History tab: choosing the oldest version shows the graph at that version
    page.get_by_test_id("at-now").click()
    expect_graph(page, FULL_GRAPH)
    page.get_by_test_id("tab-history").click()
    versions = page.get_by_test_id("version-item")
    expect(versions).to_have_count(2)  # employee_compensation changed once, at T2
    # the newer version says what changed and which run made it
    newest = page.get_by_test_id("version").first
    expect(newest.get_by_test_id("diff-added")).to_have_text("+ Bonus, TotalCompensation")
    expect(newest.get_by_test_id("version-run")).to_contain_text("job2_employee_compensation")
    versions.last.click()
    expect_graph(page, BEFORE_T2)


def test_times_are_read_and_shown_in_the_browsers_zone(browser: Any, server: str) -> None:
    context = browser.new_context(viewport={"width": 1600, "height": 950}, base_url=server, timezone_id="Asia/Kolkata")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        open_asset(page, ds(EMP_COMP), depth=3)
        expect_graph(page, FULL_GRAPH)
        # the zone is written next to the input; a wall-clock time is read in it (12:00 UTC = 17:30 in Kolkata)
        expect(page.get_by_test_id("at-input-zone")).to_have_text("UTC+05:30")
        page.get_by_test_id("at-input").fill("2026-11-05 17:30")
        page.get_by_test_id("at-apply").click()
        expect(page).to_have_url(url_with(at="2026-11-05T12:00:00.000Z"))
        expect_graph(page, BEFORE_T2)
        expect(page.get_by_test_id("at-input")).to_have_value("2026-11-05 17:30:00")
        # the header says the page is as of that time (not "updated"), in the same zone
        expect(page.get_by_test_id("asof-label")).to_have_text("as of 2026-11-05 17:30:00 UTC+05:30")
        expect(page.get_by_test_id("time-banner")).to_contain_text("2026-11-05 17:30:00 UTC+05:30")
        # a pasted ISO timestamp with its zone is taken as it is and shown in the browser's zone
        page.get_by_test_id("at-input").fill("")
        page.get_by_test_id("at-input").focus()
        page.evaluate("""() => {
            const dt = new DataTransfer(); dt.setData('text/plain', '2026-11-25T00:00:00Z');
            document.querySelector('[data-testid="at-input"]').dispatchEvent(
                new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
        }""")
        expect(page).to_have_url(url_with(at="2026-11-25T00:00:00.000Z"))
        expect(page.get_by_test_id("at-input")).to_have_value("2026-11-25 05:30:00")
        # the UTC switch shows the same moment in UTC
        page.get_by_test_id("toggle-utc").check(force=True)
        expect(page.get_by_test_id("at-input")).to_have_value("2026-11-25 00:00:00")
        expect(page.get_by_test_id("asof-label")).to_have_text("as of 2026-11-25 00:00:00 UTC")
        # what is not a time is refused, with a message
        page.get_by_test_id("at-input").fill("next tuesday")
        page.get_by_test_id("at-apply").click()
        expect(page.get_by_test_id("time-error")).to_contain_text("Not a time")
        expect(page).to_have_url(url_with(at="2026-11-25T00:00:00.000Z"))
    finally:
        context.close()
    assert not errors, errors


def test_compare_marks_what_was_added(page: Any) -> None:
    open_asset(page, ds(EMP_COMP), depth=3, cmp=BETWEEN.isoformat().replace("+00:00", "Z"))
    expect(page.get_by_test_id("compare-bar")).to_be_visible()
    expect_exactly(page, '[data-node-id][data-mark="added"]', "data-node-id", {ds(BONUS), job(JOB3), ds(XSS_NAME)})
    expect(node(page, ds(EMPLOYEES))).not_to_have_attribute("data-mark", "added")
    fit(page)  # the view opens at a readable zoom around the root: the node may be off-screen
    expect_exactly(
        page,
        '[data-testid="column-row"][data-mark="added"]',
        "data-field-id",
        {col(EMP_COMP, "Bonus"), col(EMP_COMP, "TotalCompensation")},
    )


def test_compare_takes_the_two_moments_in_either_order(page: Any) -> None:
    later = "2026-11-20T00:00:00Z"
    open_asset(page, ds(EMP_COMP), depth=3, at=BETWEEN.isoformat().replace("+00:00", "Z"), cmp=later)
    expect(page.get_by_test_id("compare-bar")).to_be_visible()
    # the later graph is drawn, with what it gained marked
    expect_graph(page, FULL_GRAPH)
    expect_exactly(page, '[data-node-id][data-mark="added"]', "data-node-id", {ds(BONUS), job(JOB3), ds(XSS_NAME)})


def test_impact_analysis_lists_and_exports_everything_downstream(page: Any) -> None:
    open_asset(page, ds(EMP_ATT), depth=3)
    page.get_by_test_id("impact-button").click()
    downstream = {job(JOB2), ds(EMP_COMP), job(JOB3), ds(XSS_NAME)}
    rows = '[data-testid="impact-row"]'
    for item in sorted(downstream):
        expect(page.locator(f"{rows}[data-id={css_string(item)}]")).to_have_count(1)
    # the upstream side is not impacted (checked once the downstream rows are there)
    for item in (ds(EMPLOYEES), job(JOB1)):
        expect(page.locator(f"{rows}[data-id={css_string(item)}]")).to_have_count(0)
    ids = set(page.eval_on_selector_all(rows, "els => els.map(e => e.dataset.id)"))
    # downstream nodes are highlighted on the graph, the upstream ones dimmed
    expect(node(page, ds(EMP_COMP))).to_have_attribute("data-emphasis", "highlight")
    expect(node(page, ds(EMPLOYEES))).to_have_attribute("data-emphasis", "dim")

    with page.expect_download() as download:
        page.get_by_test_id("impact-csv").click()
    text = Path(download.value.path()).read_text(encoding="utf-8")
    table = list(csv.DictReader(io.StringIO(text)))
    assert list(table[0]) == ["depth", "type", "id", "namespace", "name", "field", "path"]
    assert {r["id"] for r in table} == ids and downstream <= ids
    comp = next(r for r in table if r["id"] == ds(EMP_COMP))
    assert comp["depth"] == "2" and comp["type"] == "DATASET"


def test_column_impact(page: Any) -> None:
    open_asset(page, ds(EMP_ATT), depth=3, col=col(EMP_ATT, "Salary"), impact=1)
    downstream = {col(EMP_COMP, "AdjustedSalary"), col(EMP_COMP, "TotalCompensation"), col(XSS_NAME, XSS_COLUMN)}
    expect_exactly(page, '[data-testid="impact-row"][data-id^="datasetField:"]', "data-id", downstream)
    # what if it were dropped: the impact check (POST /api/v1/impact/check) lists each of them, as breaking
    # where the salary's value flows into it
    page.get_by_test_id("whatif-drop").click()
    expect(page.get_by_test_id("whatif-result")).to_have_attribute("data-severity", "breaking")
    expect_exactly(page, '[data-testid="whatif-row"][data-id^="datasetField:"]', "data-id", downstream)
    total = page.locator(f'[data-testid="whatif-row"][data-id={css_string(col(EMP_COMP, "TotalCompensation"))}]')
    expect(total).to_contain_text("breaking")


def test_html_in_names_is_shown_as_text(page: Any) -> None:
    open_asset(page, ds(XSS_NAME), depth=2)
    expect(page.get_by_test_id("asset-name")).to_have_text(XSS_NAME)
    fit(page)  # the view opens at a readable zoom around the root: the node may be off-screen
    row = page.locator('[data-testid="column-row"]').filter(has_text="<b>bold</b>")
    expect(row).to_have_count(1)
    expect(row).to_contain_text(XSS_COLUMN)
    page.get_by_test_id("tab-schema").click()
    expect(page.get_by_test_id("schema-table").get_by_text(XSS_COLUMN)).to_be_visible()
    # nothing from the data became markup or ran (checked once the names are on screen, above)
    expect(page.locator("img[onerror]")).to_have_count(0)
    expect(page.locator("b", has_text="bold")).to_have_count(0)
    expect(page.locator("#root script")).to_have_count(0)  # the app renders no script element of its own
    assert page.evaluate("() => window.__xss") is None


def test_unknown_asset_says_not_found(page: Any) -> None:
    page.goto(asset_url("dataset:file:/no/such/table"))
    box = page.get_by_test_id("asset-not-found")
    expect(box).to_contain_text("not found")
    expect(page.get_by_test_id("lineage-canvas")).to_have_count(0)


def test_job_page_shows_sql_and_runs(page: Any) -> None:
    open_asset(page, job(JOB2))
    page.get_by_test_id("tab-job").click()
    sql = page.get_by_test_id("job-sql")
    expect(sql).to_contain_text("TotalCompensation")
    expect(sql.locator(".tok-keyword").filter(has_text=re.compile(r"^SELECT$")).first).to_be_visible()
    page.goto(asset_url(job(JOB1), tab="runs"))
    runs = page.get_by_test_id("runs-table")
    expect(runs.get_by_test_id("run-state")).to_have_text(["COMPLETE", "FAIL", "COMPLETE"])
    expect(runs).to_contain_text("Path does not exist")


def test_events_tab_pretty_prints_raw_events(page: Any) -> None:
    page.goto(asset_url(ds(EMPLOYEES), tab="events"))
    items = page.get_by_test_id("event-item")
    expect(items).to_have_count(6)  # three runs of job1 read it, START and end event each
    items.first.locator("button").click()
    raw = page.get_by_test_id("event-json")
    expect(raw).to_contain_text(f'"name": "{JOB1}"')
    event = json.loads(raw.inner_text())
    assert event["job"]["name"] == JOB1
    expect(raw).to_contain_text('\n  "')  # indented


def test_link_reopens_the_same_view(page: Any, browser: Any, server: str) -> None:
    open_asset(page, ds(XSS_NAME), depth=1)
    fit(page)  # the view opens at a readable zoom around the root: the node may be off-screen
    node(page, ds(EMP_COMP)).get_by_test_id("expand-upstream").dispatch_event("click")
    expect(node(page, ds(EMP_ATT))).to_be_visible()
    fit(page)  # the view opens at a readable zoom around the root: the node may be off-screen
    node(page, ds(EMP_COMP)).get_by_test_id("toggle-columns").click()
    page.locator(f'[data-field-id="{col(EMP_COMP, "Bonus")}"]').click()
    want_nodes = {ds(XSS_NAME), job(JOB3), ds(EMP_COMP), job(JOB2), ds(EMP_ATT), ds(SALARY_ADJ), ds(BONUS)}
    want_cols = {col(EMP_COMP, "Bonus"), col(BONUS, "BonusAmount")}
    expect_graph(page, want_nodes)
    expect_highlighted(page, want_cols)
    expect(page).to_have_url(url_with(col=col(EMP_COMP, "Bonus")))
    shared = page.url

    other = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
    try:
        other.goto(shared)
        expect_graph(other, want_nodes)
        expect_highlighted(other, want_cols)
    finally:
        other.context.close()


def test_lineage_screenshot_for_the_docs(page: Any) -> None:
    """Renders the README picture (test-artifacts/ui/lineage.png) and checks what it shows."""
    open_asset(
        page,
        ds(EMP_ATT),
        depth=1,
        col=col(EMP_ATT, "Salary"),
        cols=[ds(EMPLOYEES), ds(ATTENDANCE), ds(EMP_ATT), ds(EMP_COMP)],
    )
    expect_highlighted(
        page,
        {
            col(EMPLOYEES, "Salary"),
            col(EMP_ATT, "Salary"),
            col(EMP_COMP, "AdjustedSalary"),
            col(EMP_COMP, "TotalCompensation"),
        },
    )
    expect_viewport_still(page)
    from .conftest import ARTIFACTS

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "lineage.png"))
    assert (ARTIFACTS / "lineage.png").stat().st_size > 10_000
