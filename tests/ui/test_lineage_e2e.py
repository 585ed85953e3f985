"""The lineage explorer in real headless Chromium against a real ``headwater serve``.

Every flow drives the built UI the way a user does (clicks, typing, URL) and checks what is on
screen: which nodes, which highlighted columns, which rows — against the HR payroll events in
fixtures/hr_events.py.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

from .fixtures.hr_events import (
    ATTENDANCE, BETWEEN, BONUS, EMP_ATT, EMP_COMP, EMPLOYEES, JOB1, JOB2, JOB3, SALARY_ADJ, XSS_COLUMN,
    XSS_NAME, col, ds, job,
)

pytestmark = [pytest.mark.browser]

CANVAS = '[data-testid="lineage-canvas"]'


def asset_url(node: str, **params: Any) -> str:
    query = [("node", node)]
    for key, value in params.items():
        for v in value if isinstance(value, list) else [value]:
            query.append((key, str(v)))
    return "/asset?" + urlencode(query)


def open_asset(page: Any, node: str, **params: Any) -> None:
    page.goto(asset_url(node, **params))
    page.wait_for_selector(f'{CANVAS}[data-ready="true"]')


def graph_nodes(page: Any) -> set[str]:
    return set(page.eval_on_selector_all("[data-node-id]", "els => els.map(e => e.dataset.nodeId)"))


def wait_graph(page: Any, expected: set[str]) -> None:
    """Wait until exactly these nodes are drawn (and laid out), then check it."""
    page.wait_for_function(
        """([want]) => {
            const c = document.querySelector('[data-testid="lineage-canvas"]');
            const got = [...document.querySelectorAll('[data-node-id]')].map(e => e.dataset.nodeId).sort();
            return c && c.dataset.ready === 'true' && JSON.stringify(got) === JSON.stringify(want);
        }""",
        arg=[sorted(expected)],
    )
    assert graph_nodes(page) == expected


def css_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def node(page: Any, node_id: str) -> Any:
    return page.locator(f"[data-node-id={css_string(node_id)}]")


def highlighted_columns(page: Any) -> set[str]:
    return set(page.eval_on_selector_all('[data-highlighted="true"]', "els => els.map(e => e.dataset.fieldId)"))


def url_params(page: Any) -> dict[str, list[str]]:
    return parse_qs(urlsplit(page.url).query)


FULL_GRAPH = {ds(EMPLOYEES), ds(ATTENDANCE), job(JOB1), ds(EMP_ATT), ds(SALARY_ADJ), ds(BONUS), job(JOB2),
              ds(EMP_COMP), job(JOB3), ds(XSS_NAME)}


def test_home_and_search_lead_to_the_asset(page: Any) -> None:
    page.goto("/")
    recent = page.get_by_test_id("recent-list")
    recent.get_by_text("employee_compensation").first.wait_for()
    page.get_by_test_id("search-input").fill("compens")
    results = page.get_by_test_id("search-result")
    results.first.wait_for()
    texts = results.all_inner_texts()
    assert any("employee_compensation" in t for t in texts), texts
    # columns are found too: TotalCompensation
    assert any("TotalCompensation" in t for t in texts), texts
    results.filter(has_text="employee_compensation").filter(has_text="dataset").first.click()
    page.wait_for_selector(f'{CANVAS}[data-ready="true"]')
    assert page.get_by_test_id("asset-name").inner_text() == EMP_COMP
    assert url_params(page)["node"] == [ds(EMP_COMP)]


def test_expand_upstream_twice_then_collapse(page: Any) -> None:
    open_asset(page, ds(XSS_NAME), depth=1)
    start = {ds(XSS_NAME), job(JOB3), ds(EMP_COMP)}
    wait_graph(page, start)

    node(page, ds(EMP_COMP)).get_by_test_id("expand-upstream").click()
    after_one = start | {job(JOB2), ds(EMP_ATT), ds(SALARY_ADJ), ds(BONUS)}
    wait_graph(page, after_one)

    node(page, ds(EMP_ATT)).get_by_test_id("expand-upstream").click()
    wait_graph(page, after_one | {job(JOB1), ds(EMPLOYEES), ds(ATTENDANCE)})
    assert url_params(page)["exp"] == [f"u:{ds(EMP_COMP)}", f"u:{ds(EMP_ATT)}"]
    # nothing is further upstream of the sources: no expand control left on them
    assert node(page, ds(EMPLOYEES)).get_by_test_id("expand-upstream").count() == 0

    # collapsing the first expansion also drops the one made on a node it brought
    node(page, ds(EMP_COMP)).get_by_test_id("collapse-upstream").click()
    wait_graph(page, start)
    assert "exp" not in url_params(page)


def test_column_click_highlights_exactly_its_path(page: Any) -> None:
    open_asset(page, ds(EMP_COMP), depth=3)
    wait_graph(page, FULL_GRAPH)
    root = node(page, ds(EMP_COMP))
    root.get_by_test_id("toggle-columns").click()
    root.locator(f'[data-field-id="{col(EMP_COMP, "TotalCompensation")}"]').click()
    expected = {
        col(EMP_COMP, "TotalCompensation"),
        col(EMP_ATT, "Salary"), col(EMPLOYEES, "Salary"),
        col(SALARY_ADJ, "AdjustmentPct"), col(BONUS, "BonusAmount"),
        col(XSS_NAME, XSS_COLUMN),
    }
    page.wait_for_function("n => document.querySelectorAll('[data-highlighted=\"true\"]').length === n",
                           arg=len(expected))
    assert highlighted_columns(page) == expected
    pane = set(page.eval_on_selector_all('[data-testid="path-column"]', "els => els.map(e => e.dataset.fieldId)"))
    assert pane == expected
    # the rest is dimmed: a column off the path and a dataset off the path
    assert node(page, ds(EMP_ATT)).locator(f'[data-field-id="{col(EMP_ATT, "TotalHours")}"]').get_attribute(
        "data-highlighted") == "false"
    assert node(page, ds(ATTENDANCE)).get_attribute("data-emphasis") == "dim"
    assert node(page, job(JOB1)).get_attribute("data-emphasis") == "highlight"
    assert url_params(page)["col"] == [col(EMP_COMP, "TotalCompensation")]

    # hovering a highlighted column edge tells its transformation
    page.get_by_role("button", name="Fit View").click()
    page.wait_for_timeout(400)
    cards = []
    for hit in page.locator('[data-testid="edge-column"][data-emphasis="highlight"]').all():
        x, y = hit.evaluate("p => { const pt = p.getPointAtLength(p.getTotalLength() / 2); const m = p.getScreenCTM();"
                            " return [pt.x * m.a + m.e, pt.y * m.d + m.f]; }")
        page.mouse.move(x, y)
        card = page.get_by_test_id("edge-card")
        if card.count():
            cards.append(card.inner_text())
    assert any("Salary → TotalCompensation" in c and "DIRECT" in c and "TRANSFORMATION" in c
               and "Salary * (1 + AdjustmentPct / 100)" in c for c in cards), cards


def test_column_path_goes_on_beyond_the_drawn_graph(page: Any) -> None:
    open_asset(page, ds(XSS_NAME), depth=1, col=col(XSS_NAME, XSS_COLUMN))
    wait_graph(page, {ds(XSS_NAME), job(JOB3), ds(EMP_COMP)})
    # the server's column lineage continues the path past employee_compensation
    page.wait_for_function("() => document.querySelectorAll('[data-testid=\"path-column\"]').length === 6")
    listed = {e: d for e, d in page.eval_on_selector_all(
        '[data-testid="path-column"]', "els => els.map(e => [e.dataset.fieldId, e.dataset.drawn])")}
    assert set(listed) == {col(XSS_NAME, XSS_COLUMN), col(EMP_COMP, "TotalCompensation"), col(EMP_ATT, "Salary"),
                           col(EMPLOYEES, "Salary"), col(SALARY_ADJ, "AdjustmentPct"), col(BONUS, "BonusAmount")}
    assert {c for c, drawn in listed.items() if drawn == "true"} == {col(XSS_NAME, XSS_COLUMN),
                                                                    col(EMP_COMP, "TotalCompensation")}
    # on the canvas only what is drawn is highlighted
    assert highlighted_columns(page) == {col(XSS_NAME, XSS_COLUMN), col(EMP_COMP, "TotalCompensation")}


def test_datasets_only_folds_jobs_into_dataset_edges(page: Any) -> None:
    open_asset(page, ds(EMP_COMP), depth=3)
    wait_graph(page, FULL_GRAPH)
    page.get_by_test_id("toggle-datasets-only").check(force=True)
    datasets = {n for n in FULL_GRAPH if n.startswith("dataset:")}
    wait_graph(page, datasets)
    assert page.locator('[data-testid="job-node"]').count() == 0
    # 5 inputs into 2 outputs + 1 report: employees, attendance -> att; att, salary, bonus -> comp; comp -> report
    page.wait_for_function("() => document.querySelectorAll('.react-flow__edge').length === 6")
    assert url_params(page)["dso"] == ["1"]
    page.get_by_test_id("toggle-datasets-only").uncheck(force=True)
    wait_graph(page, FULL_GRAPH)


def test_earlier_timestamp_shows_the_earlier_graph(page: Any) -> None:
    open_asset(page, ds(EMP_COMP), depth=3)
    wait_graph(page, FULL_GRAPH)
    page.get_by_test_id("at-input").fill(BETWEEN.strftime("%Y-%m-%dT%H:%M:%S"))
    page.get_by_test_id("at-apply").click()
    # before T2 there was no bonus input and no report job
    wait_graph(page, FULL_GRAPH - {ds(BONUS), job(JOB3), ds(XSS_NAME)})
    assert "Showing the graph as it was" in page.get_by_test_id("time-banner").inner_text()
    assert url_params(page)["at"] == [BETWEEN.strftime("%Y-%m-%dT%H:%M:%S.000Z")]
    # and the schema then had 5 columns, not 7
    node(page, ds(EMP_COMP)).get_by_test_id("toggle-columns").click()
    rows = node(page, ds(EMP_COMP)).get_by_test_id("column-row")
    rows.first.wait_for()  # the rows render after the click (count() does not wait: a race on a busy CI)
    assert rows.count() == 5

    # History tab: choosing the oldest version shows the graph at that version
    page.get_by_test_id("at-now").click()
    wait_graph(page, FULL_GRAPH)
    page.get_by_test_id("tab-history").click()
    versions = page.get_by_test_id("version-item")
    versions.first.wait_for()
    assert versions.count() >= 2
    versions.last.click()
    page.wait_for_selector(f'{CANVAS}[data-ready="true"]')
    wait_graph(page, FULL_GRAPH - {ds(BONUS), job(JOB3), ds(XSS_NAME)})


def test_compare_marks_what_was_added(page: Any) -> None:
    open_asset(page, ds(EMP_COMP), depth=3, cmp=BETWEEN.isoformat().replace("+00:00", "Z"))
    bar = page.get_by_test_id("compare-bar")
    bar.wait_for()
    page.wait_for_function("() => document.querySelector('[data-node-id][data-mark=\"added\"]') !== null")
    added = set(page.eval_on_selector_all('[data-mark="added"][data-node-id]', "els => els.map(e => e.dataset.nodeId)"))
    assert {ds(BONUS), job(JOB3), ds(XSS_NAME)} <= added
    assert ds(EMPLOYEES) not in added
    node(page, ds(EMP_COMP)).get_by_test_id("toggle-columns").click()
    marked = set(page.eval_on_selector_all('[data-testid="column-row"][data-mark="added"]',
                                           "els => els.map(e => e.dataset.fieldId)"))
    assert marked == {col(EMP_COMP, "Bonus"), col(EMP_COMP, "TotalCompensation")}


def test_compare_takes_the_two_moments_in_either_order(page: Any) -> None:
    later = "2026-11-20T00:00:00Z"
    open_asset(page, ds(EMP_COMP), depth=3, at=BETWEEN.isoformat().replace("+00:00", "Z"), cmp=later)
    page.get_by_test_id("compare-bar").wait_for()
    page.wait_for_function("() => document.querySelector('[data-node-id][data-mark=\"added\"]') !== null")
    # the later graph is drawn, with what it gained marked
    wait_graph(page, FULL_GRAPH)
    added = set(page.eval_on_selector_all('[data-mark="added"][data-node-id]', "els => els.map(e => e.dataset.nodeId)"))
    assert {ds(BONUS), job(JOB3), ds(XSS_NAME)} <= added


def test_impact_analysis_lists_and_exports_everything_downstream(page: Any) -> None:
    open_asset(page, ds(EMP_ATT), depth=3)
    page.get_by_test_id("impact-button").click()
    rows = page.get_by_test_id("impact-row")
    rows.first.wait_for()
    ids = set(page.eval_on_selector_all('[data-testid="impact-row"]', "els => els.map(e => e.dataset.id)"))
    assert {job(JOB2), ds(EMP_COMP), job(JOB3), ds(XSS_NAME)} <= ids
    assert ds(EMPLOYEES) not in ids and job(JOB1) not in ids
    # downstream nodes are highlighted on the graph, the upstream ones dimmed
    assert node(page, ds(EMP_COMP)).get_attribute("data-emphasis") == "highlight"
    assert node(page, ds(EMPLOYEES)).get_attribute("data-emphasis") == "dim"

    with page.expect_download() as download:
        page.get_by_test_id("impact-csv").click()
    text = open(download.value.path(), encoding="utf-8").read()
    table = list(csv.DictReader(io.StringIO(text)))
    assert list(table[0]) == ["depth", "type", "id", "namespace", "name", "field", "path"]
    assert {r["id"] for r in table} == ids
    comp = next(r for r in table if r["id"] == ds(EMP_COMP))
    assert comp["depth"] == "2" and comp["type"] == "DATASET"


def test_column_impact(page: Any) -> None:
    open_asset(page, ds(EMP_ATT), depth=3, col=col(EMP_ATT, "Salary"), impact=1)
    page.get_by_test_id("impact-row").first.wait_for()
    ids = set(page.eval_on_selector_all('[data-testid="impact-row"]', "els => els.map(e => e.dataset.id)"))
    fields = {i for i in ids if i.startswith("datasetField:")}
    assert fields == {col(EMP_COMP, "AdjustedSalary"), col(EMP_COMP, "TotalCompensation"), col(XSS_NAME, XSS_COLUMN)}


def test_html_in_names_is_shown_as_text(page: Any) -> None:
    open_asset(page, ds(XSS_NAME), depth=2)
    assert page.get_by_test_id("asset-name").inner_text() == XSS_NAME
    node(page, ds(XSS_NAME)).get_by_test_id("toggle-columns").click()
    row = page.locator('[data-testid="column-row"]').filter(has_text="<b>bold</b>")
    row.first.wait_for()  # rendered after the click; count() does not wait
    assert row.count() == 1
    assert XSS_COLUMN in row.inner_text()
    page.get_by_test_id("tab-schema").click()
    page.get_by_test_id("schema-table").get_by_text(XSS_COLUMN).wait_for()
    # nothing from the data became markup or ran
    assert page.evaluate("() => window.__xss") is None
    assert page.locator("img[onerror]").count() == 0
    assert page.locator("b", has_text="bold").count() == 0
    scripts = page.eval_on_selector_all("script", "els => els.map(e => e.textContent)")
    assert not any("__xss" in s for s in scripts)


def test_unknown_asset_says_not_found(page: Any) -> None:
    page.goto(asset_url("dataset:file:/no/such/table"))
    box = page.get_by_test_id("asset-not-found")
    box.wait_for()
    assert "not found" in box.inner_text()
    assert page.get_by_test_id("lineage-canvas").count() == 0


def test_job_page_shows_sql_and_runs(page: Any) -> None:
    open_asset(page, job(JOB2))
    page.get_by_test_id("tab-job").click()
    sql = page.get_by_test_id("job-sql")
    sql.wait_for()
    assert "TotalCompensation" in sql.inner_text()
    assert "SELECT" in sql.locator(".tok-keyword").all_inner_texts()
    page.goto(asset_url(job(JOB1), tab="runs"))
    page.get_by_test_id("run-row").first.wait_for()
    states = page.get_by_test_id("runs-table").get_by_test_id("run-state").all_inner_texts()
    assert states == ["COMPLETE", "FAIL", "COMPLETE"]
    assert "Path does not exist" in page.get_by_test_id("runs-table").inner_text()


def test_events_tab_pretty_prints_raw_events(page: Any) -> None:
    page.goto(asset_url(ds(EMPLOYEES), tab="events"))
    items = page.get_by_test_id("event-item")
    items.first.wait_for()
    assert items.count() == 6  # three runs of job1 read it, START and end event each
    items.first.locator("button").click()
    raw = page.get_by_test_id("event-json").inner_text()
    event = json.loads(raw)
    assert event["job"]["name"] == JOB1
    assert "\n  " in raw  # indented


def test_link_reopens_the_same_view(page: Any, browser: Any, server: str) -> None:
    open_asset(page, ds(XSS_NAME), depth=1)
    node(page, ds(EMP_COMP)).get_by_test_id("expand-upstream").click()
    page.wait_for_selector(f'[data-node-id="{ds(EMP_ATT)}"]')
    page.locator(f'[data-node-id="{ds(EMP_COMP)}"] [data-testid="toggle-columns"]').click()
    page.locator(f'[data-field-id="{col(EMP_COMP, "Bonus")}"]').click()
    page.wait_for_function("() => document.querySelectorAll('[data-highlighted=\"true\"]').length === 2")
    shared = page.url
    want_nodes, want_cols = graph_nodes(page), highlighted_columns(page)

    other = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
    try:
        other.goto(shared)
        other.wait_for_selector(f'{CANVAS}[data-ready="true"]')
        other.wait_for_function("n => document.querySelectorAll('[data-highlighted=\"true\"]').length === n",
                                arg=len(want_cols))
        assert graph_nodes(other) == want_nodes
        assert highlighted_columns(other) == want_cols == {col(EMP_COMP, "Bonus"), col(BONUS, "BonusAmount")}
    finally:
        other.context.close()


def test_lineage_screenshot_for_the_docs(page: Any) -> None:
    """Renders the README picture (test-artifacts/ui/lineage.png) and checks what it shows."""
    open_asset(page, ds(EMP_ATT), depth=1, col=col(EMP_ATT, "Salary"),
               cols=[ds(EMPLOYEES), ds(ATTENDANCE), ds(EMP_ATT), ds(EMP_COMP)])
    expected = {col(EMPLOYEES, "Salary"), col(EMP_ATT, "Salary"), col(EMP_COMP, "AdjustedSalary"),
                col(EMP_COMP, "TotalCompensation")}
    page.wait_for_function("n => document.querySelectorAll('[data-highlighted=\"true\"]').length === n",
                           arg=len(expected))
    assert highlighted_columns(page) == expected
    page.wait_for_timeout(500)
    from .conftest import ARTIFACTS

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "lineage.png"))
    assert (ARTIFACTS / "lineage.png").stat().st_size > 10_000
