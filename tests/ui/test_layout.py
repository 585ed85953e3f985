"""The explorer opens with the story readable and keeps the user's place — measured in real Chromium.

For the demo's graph (fixtures/layout_events.demo_events: the Spark integration's job names, join and
group-by keys both as the facet's dataset-level list and folded into every output column, the demo
link's view with TotalCompensation selected; then the demo's own catalog set-up, headwater.demo.projects,
run against the server: employee_compensation published and subscribed, so the catalog draws its
publish job, published node, subscription job and target), a generated 60-node graph and a 197-node layered graph,
at 1600x1000 and 1280x720, the page's real geometry is read (getBoundingClientRect of every node's
text, edge paths sampled with getPointAtLength and mapped to the screen, the stacking order at each
sample from elementsFromPoint) and the test fails when:

- on open, a node of the demo's lineage is not wholly inside the canvas (the catalog's nodes folded to
  a chip on employee_compensation); the chip or the "Catalog nodes" switch does not draw them;
- a node name is drawn under 11 px (a column name under 10 px, a type under 9 px) at the opening zoom;
- a node moves more than 8 px on screen when it is expanded, when a column is selected, when the
  side pane is folded;
- TotalCompensation's column path lists anything but the columns whose values flow into it;
- comparing the demo before and after its re-crawl shows anything but the added Email;
- an edge is painted over a node's text (an edge under an opaque node is fine);
- an edge is not routed around the node boxes (ELK's orthogonal route), or passes through a box;
- a floating control (minimap, panels) covers a node's text, or an edge's card covers the selected node;
- the focus node is not fully inside the canvas after the view opens, after a node is shown from
  the details pane, and after the impact panel opens;
- the toolbar wraps or overflows, or the impact table cuts its Path column off;
- after relayouts in one page (an expand, a column list, a column path, panes opened, resized, folded and
  closed), an edge the canvas holds is not drawn or "Fit view" does not bring every node into view.
"""

from __future__ import annotations

import time
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from playwright.sync_api import expect

from headwater.demo import projects

from .fixtures.layout_events import (
    ACT2,
    ADJUSTMENTS,
    ATTENDANCE,
    BONUSES,
    DEMO_JOB_NS,
    DEMO_NS,
    EMP_ATT,
    EMP_COMP,
    EMPLOYEES,
    SIXTY_NS,
    T_CRAWL2,
    layout_events,
    sixty_name,
    sixty_root,
    wide_root,
)

pytestmark = [pytest.mark.browser]

EVENTS = layout_events
# as `headwater demo` serves (demo/server.py): readers see the demo's catalog projects
SERVER_ENV = {"HEADWATER_PUBLIC_PROJECTS": f"{projects.PRODUCER},{projects.CONSUMER}"}
SIZES = [(1600, 1000), (1280, 720)]
CANVAS = '[data-testid="lineage-canvas"]'

DEMO_ROOT = f"dataset:{DEMO_NS}:{EMP_COMP}"
DEMO_COL = f"datasetField:{DEMO_NS}:{EMP_COMP}:TotalCompensation"
DEMO_WRITER = f"job:{DEMO_JOB_NS}:{ACT2}"
# the catalog's nodes the demo's set-up makes (docs/catalog.md: headwater-catalog://<domain>)
CATALOG_NS = "headwater-catalog://people"
PUBLISHED = f"dataset:{CATALOG_NS}:payroll/{EMP_COMP}"
SUB_TARGET = f"dataset:{CATALOG_NS}:finance/finance-warehouse/{EMP_COMP}"


@pytest.fixture(scope="module")
def server(server: str, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The events' server, with the demo's catalog made on it as `headwater demo` makes it."""
    projects.set_up(server, tmp_path_factory.mktemp("demo-catalog"), DEMO_ROOT)
    return server


# Returns a list of problems (strings); empty when nothing covers anything.
GEOMETRY = r"""
({ focus, fonts, every, routed }) => {
  const problems = [];
  const flowEl = document.querySelector('.canvas-flow');
  const flow = flowEl.getBoundingClientRect();
  const vp = document.querySelector('.react-flow__viewport');
  const zoom = new DOMMatrixReadOnly(getComputedStyle(vp).transform).a;
  const clip = (r) => {
    const x0 = Math.max(r.left, flow.left), y0 = Math.max(r.top, flow.top);
    const x1 = Math.min(r.right, flow.right), y1 = Math.min(r.bottom, flow.bottom);
    return x1 > x0 + 0.5 && y1 > y0 + 0.5 ? { x0, y0, x1, y1 } : null;
  };
  const nodeOf = (el) => el.closest('.react-flow__node');
  const label = (el) => `${nodeOf(el)?.getAttribute('data-id')} "${el.textContent.trim().slice(0, 40)}"`;
  const texts = [];
  for (const el of document.querySelectorAll(
      '.react-flow__node .lnode-name, .react-flow__node .lnode-sub, .react-flow__node .col-name, ' +
      '.react-flow__node .col-type, .react-flow__node .lnode-cols, .react-flow__node .col-pager span')) {
    if (!el.textContent.trim()) continue;
    const r = el.getBoundingClientRect();
    const c = clip(r);
    if (c) texts.push({ el, c });
  }
  if (texts.length === 0) problems.push('no node text on screen');

  // 1. rendered font sizes at the opening zoom
  if (fonts) {
    for (const { el } of texts) {
      const px = parseFloat(getComputedStyle(el).fontSize) * zoom;
      const min = el.matches('.lnode-name') ? 11 : el.matches('.col-name') ? 10 : el.matches('.col-type') ? 9 : 0;
      if (px + 1e-6 < min) problems.push(`font ${px.toFixed(1)} px < ${min} px: ${label(el)}`);
    }
  }

  // 2. no edge painted over a node's text: sample every edge path every 3 px
  const style = document.createElement('style');
  style.textContent = '* { pointer-events: auto !important; }';
  document.head.appendChild(style);
  try {
    let samples = 0;
    for (const path of document.querySelectorAll('.react-flow__edge path.react-flow__edge-path')) {
      const edge = path.closest('.react-flow__edge');
      const len = path.getTotalLength();
      const m = path.getScreenCTM();
      for (let d = 0; d <= len; d += 3) {
        const p = new DOMPoint(path.getPointAtLength(d).x, path.getPointAtLength(d).y).matrixTransform(m);
        if (p.x < flow.left || p.x > flow.right || p.y < flow.top || p.y > flow.bottom) continue;
        samples++;
        for (const t of texts) {
          if (p.x < t.c.x0 || p.x > t.c.x1 || p.y < t.c.y0 || p.y > t.c.y1) continue;
          const stack = document.elementsFromPoint(p.x, p.y);
          const ei = stack.findIndex((e) => edge.contains(e));
          const ti = stack.findIndex((e) => e === t.el || t.el.contains(e) || e.contains(t.el));
          const node = t.el.closest('.lnode');
          const cs = node && getComputedStyle(node);
          const opaque = cs && cs.opacity === '1' && cs.backgroundColor !== 'rgba(0, 0, 0, 0)';
          if (ei !== -1 && (ti === -1 || ei < ti)) problems.push(`edge ${edge.getAttribute('data-id')} over text ${label(t.el)}`);
          else if (!opaque) problems.push(`edge ${edge.getAttribute('data-id')} shows through the translucent node of ${label(t.el)}`);
          break;
        }
      }
    }
    if (samples === 0) problems.push('no edge on screen');
    // 2b. edges go around the boxes: a routed edge (ELK's route, the graphs it lays out) never passes
    // through a node's box, its own ends' nodes included (it leaves and enters by their sides)
    const boxes = [...document.querySelectorAll('.react-flow__node')].map((n) => [n.getAttribute('data-id'), n.getBoundingClientRect()]);
    for (const path of document.querySelectorAll('.react-flow__edge path.react-flow__edge-path')) {
      const edge = path.closest('.react-flow__edge');
      if (edge.querySelector('[data-routed]')?.getAttribute('data-routed') !== 'true') {
        if (routed) problems.push(`edge ${edge.getAttribute('data-id')} not routed`);
        continue;
      }
      const len = path.getTotalLength();
      const m = path.getScreenCTM();
      const inset = 2 * zoom;
      for (let d = 0; d <= len; d += 3) {
        const p = new DOMPoint(path.getPointAtLength(d).x, path.getPointAtLength(d).y).matrixTransform(m);
        const hit = boxes.find(([, r]) => p.x > r.left + inset && p.x < r.right - inset && p.y > r.top + inset && p.y < r.bottom - inset);
        if (hit) {
          problems.push(`edge ${edge.getAttribute('data-id')} crosses the box of ${hit[0]}`);
          break;
        }
      }
    }
  } finally {
    style.remove();
  }

  // 3. no floating control over a node's text
  const controls = [...document.querySelectorAll(
      '.react-flow__panel, .react-flow__controls, .react-flow__minimap, .canvas-minimap, .canvas-rail, .tb-menu-body')]
    .map((el) => [el, el.getBoundingClientRect()]).filter(([, r]) => r.width > 0 && r.height > 0);
  for (const [el, r] of controls) {
    for (const t of texts) {
      if (r.left < t.c.x1 && r.right > t.c.x0 && r.top < t.c.y1 && r.bottom > t.c.y0) {
        problems.push(`${el.className} covers ${label(t.el)}`);
      }
    }
  }

  // 4. the focus node (with `every`: every node) fully inside the canvas
  if (every) {
    for (const n of document.querySelectorAll('.react-flow__node')) {
      const r = n.getBoundingClientRect();
      if (r.left < flow.left - 1 || r.top < flow.top - 1 || r.right > flow.right + 1 || r.bottom > flow.bottom + 1) {
        problems.push(`node ${n.getAttribute('data-id')} not fully inside the canvas`);
      }
    }
  }
  if (focus) {
    const n = document.querySelector(`.react-flow__node[data-id="${CSS.escape(focus)}"]`);
    if (!n) problems.push(`focus node ${focus} not rendered`);
    else {
      const r = n.getBoundingClientRect();
      if (r.left < flow.left - 1 || r.top < flow.top - 1 || r.right > flow.right + 1 || r.bottom > flow.bottom + 1) {
        problems.push(`focus node ${focus} not fully visible: ${JSON.stringify(r)} in ${JSON.stringify(flow)}`);
      }
    }
  }
  return problems;
}
"""


def expect_still(page: Any) -> None:
    """The viewport has stopped moving (a re-centre animates for 200 ms)."""
    page.wait_for_function(
        """() => {
        const t = document.querySelector('.react-flow__viewport')?.style.transform;
        const still = t !== undefined && t === window.__hwLast && performance.now() - (window.__hwSince ?? 0) > 300;
        if (t !== window.__hwLast) { window.__hwLast = t; window.__hwSince = performance.now(); }
        return still;
    }""",
        polling="raf",
    )


def all_drawn(page: Any) -> None:
    """Every edge the canvas holds is drawn (React Flow draws an edge only between measured nodes), and "Fit
    view" brings the whole graph into view: after relayouts in one page, not only on a fresh load."""
    count = int(page.locator(CANVAS).get_attribute("data-edge-count"))
    assert count > 0
    expect(page.locator(".react-flow__edge path.react-flow__edge-path")).to_have_count(count)
    page.get_by_test_id("fit-view").click()
    check(page, None, every=True)


def check(page: Any, focus: str | None, fonts: bool = False, every: bool = False, routed: bool = True) -> None:
    """The geometry holds once the view has settled: the final layout (ELK) may replace the first one a moment
    after the viewport stops moving, so a failing look is taken again (the same viewport, up to 10 s)."""
    expect_still(page)
    deadline = time.monotonic() + 10
    while (
        problems := page.evaluate(GEOMETRY, {"focus": focus, "fonts": fonts, "every": every, "routed": routed})
    ) and time.monotonic() < deadline:
        page.wait_for_timeout(200)
        expect_still(page)
    assert not problems, "\n".join(problems[:30]) + (f"\n... {len(problems)} in all" if len(problems) > 30 else "")


def check_toolbar(page: Any) -> None:
    bar = page.get_by_test_id("lineage-toolbar")
    fits = bar.evaluate("""b => {
        const tops = [...b.children].filter(c => c.getBoundingClientRect().width > 0)
          .map(c => c.getBoundingClientRect()).map(r => r.top + r.height / 2);
        return { overflow: b.scrollWidth - b.clientWidth, spread: Math.max(...tops) - Math.min(...tops), height: b.clientHeight };
    }""")
    assert fits["overflow"] <= 1 and fits["spread"] <= 4 and fits["height"] <= 52, (
        f"the toolbar wraps or overflows: {fits}"
    )


def open_view(browser: Any, server: str, size: tuple[int, int], url: str) -> tuple[Any, Any, list[str]]:
    context = browser.new_context(viewport={"width": size[0], "height": size[1]}, base_url=server)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.set_default_timeout(20_000)
    expect.set_options(timeout=20_000)
    page.goto(url)
    expect(page.locator(CANVAS)).to_have_attribute("data-ready", "true")
    return context, page, errors


def finish(context: Any, page: Any, errors: list[str], name: str) -> None:
    from .conftest import ARTIFACTS

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def field(dataset: str, name: str) -> str:
    return f"datasetField:{DEMO_NS}:{dataset}:{name}"


# what flows into TotalCompensation, written out from the fixture's DIRECT lineage (not the join and
# group-by keys, which only choose the rows)
TOTAL_PATH = {
    field(EMP_COMP, "TotalCompensation"),
    field(EMP_ATT, "Salary"),
    field(EMP_ATT, "OvertimeHours"),
    field(ADJUSTMENTS, "AdjustmentAmount"),
    field(BONUSES, "BonusAmount"),
    field(EMPLOYEES, "Salary"),
    field(ATTENDANCE, "OvertimeHours"),
}
# ... and what selects its rows: job 2's folded join and group-by keys, job 1's dataset-level join keys
TOTAL_INFLUENCES = {
    field(EMP_ATT, "EmployeeID"),
    field(ADJUSTMENTS, "EmployeeID"),
    field(BONUSES, "EmployeeID"),
    field(EMP_ATT, "Name"),
    field(EMP_ATT, "Department"),
    field(EMP_ATT, "Role"),
    field(EMPLOYEES, "EmployeeID"),
    field(ATTENDANCE, "EmployeeID"),
}


def screen_box(page: Any, node_id: str) -> dict[str, float]:
    return page.locator(f'.react-flow__node[data-id="{node_id}"]').evaluate(
        "n => { const r = n.getBoundingClientRect(); return { x: r.left, y: r.top, w: r.width }; }"
    )


def assert_kept(before: dict[str, float], after: dict[str, float], what: str) -> None:
    moved = max(abs(after["x"] - before["x"]), abs(after["y"] - before["y"]))
    assert moved <= 8, f"{what}: the node moved {moved:.1f} px on screen ({before} -> {after})"
    assert abs(after["w"] - before["w"]) <= 1, f"{what}: the zoom changed ({before['w']} -> {after['w']} px wide)"


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_demo_opens_whole_and_readable(browser: Any, server: str, size: tuple[int, int]) -> None:
    # the demo's short link: the column by its bare name
    url = "/asset?" + urlencode([("node", DEMO_ROOT), ("depth", 4), ("col", "TotalCompensation")])
    context, page, errors = open_view(browser, server, size, url)
    try:
        # the demo's 12 nodes less the catalog's 4, folded to a chip on the dataset they hang from
        expect(page.locator(CANVAS)).to_have_attribute("data-node-count", "8")
        chip = page.locator(f'.react-flow__node[data-id="{DEMO_ROOT}"]').get_by_test_id("catalog-chip")
        expect(chip).to_have_text("published · 1 subscription")
        # every node of the lineage inside the canvas, names >= 11 px, no edge over any text
        check(page, DEMO_ROOT, fonts=True, every=True)
        check_toolbar(page)
        expect(page.get_by_test_id("outside-count")).to_have_count(0)
        pane = page.get_by_test_id("details-pane")
        # at 1280 px the pane opens folded so that the graph has the room; it unfolds on a click
        expect(pane).to_have_attribute("data-folded", "true" if size[0] < 1440 else "false")
        if size[0] < 1440:
            page.get_by_test_id("pane-unfold").click()
            check(page, DEMO_ROOT)
        # the column path: what flows into TotalCompensation, nothing reached only through keys
        rows = page.get_by_test_id("path-column")
        expect(rows).to_have_count(len(TOTAL_PATH))
        assert set(rows.evaluate_all("rs => rs.map(r => r.dataset.fieldId)")) == TOTAL_PATH
        hops = rows.evaluate_all("rs => rs.map(r => Number(r.dataset.hop))")
        assert hops[0] == 0 and hops[1:] == sorted(hops[1:], key=abs), f"not in hop order: {hops}"
        # every path column is on the canvas (its dataset shows it even with its column list closed)
        for fid in TOTAL_PATH:
            expect(page.locator(f'.react-flow__node [data-field-id="{fid}"]')).to_have_attribute(
                "data-highlighted", "true"
            )
        # the keys are one toggle away, listed apart
        page.get_by_test_id("path-indirect").check()
        infl = page.get_by_test_id("path-influence")
        expect(infl).to_have_count(len(TOTAL_INFLUENCES))
        assert set(infl.evaluate_all("rs => rs.map(r => r.dataset.fieldId)")) == TOTAL_INFLUENCES
        expect(infl.filter(has_text="grouped by").first).to_be_visible()
        page.get_by_test_id("path-indirect").uncheck()
        # the job that wrote it, shown from the details tab ("Written by" -> show in graph)
        page.get_by_test_id("pane-tab-node").click()
        writer = page.get_by_test_id("written-by").locator(f'[data-ref-id="{DEMO_WRITER}"]')
        expect(writer).to_contain_text("write employee_compensation")
        writer.get_by_test_id("show-in-graph").click()
        expect(page.get_by_test_id("details-name")).to_contain_text("write employee_compensation")
        check(page, DEMO_WRITER)
        # an edge's card, hovered where a column edge passes the job just selected, is not drawn over the job
        hit = page.locator('.react-flow__edge[data-id^="c:"] .ledge-hit').first
        at = hit.evaluate("""p => {
            const job = document.querySelector('.lnode.is-selected').getBoundingClientRect();
            const m = p.getScreenCTM(), len = p.getTotalLength();
            let best = null;
            for (let d = 0; d <= len; d += 2) {
              const q = new DOMPoint(p.getPointAtLength(d).x, p.getPointAtLength(d).y).matrixTransform(m);
              const far = Math.hypot(q.x - (job.left + job.right) / 2, q.y - (job.top + job.bottom) / 2);
              if (!best || far < best.far) best = { x: q.x, y: q.y, far };
            }
            return best; }""")
        page.mouse.move(at["x"], at["y"])
        card = page.get_by_test_id("edge-card")
        expect(card).to_be_visible()
        covered = card.evaluate("""c => { const a = c.getBoundingClientRect();
            const b = document.querySelector('.lnode.is-selected').getBoundingClientRect();
            return Math.max(0, Math.min(a.right, b.right) - Math.max(a.left, b.left))
              * Math.max(0, Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top)); }""")
        assert covered == 0, f"the edge card covers {covered:.0f} px² of the selected job"
        page.mouse.move(5, 5)
        expect(card).to_have_count(0)
        # the impact panel opens below: the focus stays fully visible in what is left
        page.get_by_test_id("impact-button").click()
        panel = page.get_by_test_id("impact-panel")
        expect(panel).to_be_visible()
        check(page, DEMO_WRITER)
        check_toolbar(page)
        # dragged 100 px taller by its top edge: the canvas shrinks, the focus stays in what is left
        h0 = panel.bounding_box()["height"]
        grip = page.get_by_test_id("impact-grip").bounding_box()
        page.mouse.move(grip["x"] + 200, grip["y"] + grip["height"] / 2)
        page.mouse.down()
        page.mouse.move(grip["x"] + 200, grip["y"] + grip["height"] / 2 - 100, steps=5)
        page.mouse.up()
        assert abs(panel.bounding_box()["height"] - (h0 + 100)) <= 2, (h0, panel.bounding_box())
        check(page, DEMO_WRITER)
        # folded to its header line: the graph gets the room back
        page.get_by_test_id("impact-fold").click()
        expect(panel).to_have_attribute("data-folded", "true")
        assert panel.bounding_box()["height"] <= 50
        expect(panel.get_by_test_id("whatif-drop")).to_have_count(0)
        check(page, DEMO_WRITER)
        page.get_by_test_id("impact-fold").click()
        expect(panel.get_by_test_id("whatif-drop")).to_be_visible()
        assert abs(panel.bounding_box()["height"] - (h0 + 100)) <= 2
        # Esc closes the topmost pane first
        page.keyboard.press("Escape")
        expect(page.get_by_test_id("impact-panel")).to_have_count(0)
        expect(pane).to_be_visible()
        page.keyboard.press("Escape")
        expect(pane).to_have_count(0)
        check(page, DEMO_ROOT)
        if size[0] >= 1440:
            # the catalog's four nodes are one click away: the chip draws them, the switch folds them again
            page.get_by_test_id("catalog-chip").click()
            expect(page.locator(CANVAS)).to_have_attribute("data-node-count", "12")
            assert parse_qs(urlsplit(page.url).query)["cat"] == ["1"]
            for node_id in (PUBLISHED, SUB_TARGET):
                expect(page.locator(f'.react-flow__node[data-id="{node_id}"]')).to_have_count(1)
            expect(page.get_by_test_id("catalog-chip")).to_have_count(0)
            page.get_by_test_id("toolbar-menu").click()  # the switches are in the "View" menu
            page.get_by_test_id("toggle-catalog-nodes").uncheck(force=True)
            expect(page.locator(CANVAS)).to_have_attribute("data-node-count", "8")
            assert "cat" not in parse_qs(urlsplit(page.url).query)
        # after all these relayouts in one page (a column path, panes opened, resized, folded and closed)
        all_drawn(page)
    finally:
        finish(context, page, errors, f"layout_demo_{size[0]}x{size[1]}")


def test_demo_keys_drawn_once_per_dataset_pair(browser: Any, server: str) -> None:
    url = "/asset?" + urlencode([("node", DEMO_ROOT), ("depth", 4)])
    context, page, errors = open_view(browser, server, SIZES[0], url)
    try:
        # with the catalog's switch the switches no longer fit one row at 1600 px: they are in the "View" menu
        page.get_by_test_id("toolbar-menu").click()
        page.get_by_test_id("toggle-all-columns").click()
        page.keyboard.press("Escape")
        # 7 dataset/job edges; the DIRECT column edges between rows on screen: 26 (12 of job 1, 14 of
        # job 2) less the 4 of OvertimeHours, the 11th column of employee_attendance, on its list's
        # second page (1 into it, 3 out of it); the join and group-by keys of the 5 input -> output
        # dataset pairs, each once, whether the producer listed them at dataset level (job 1) or
        # folded them into all 10 output columns (job 2)
        expect(page.locator(".react-flow__edge")).to_have_count(7 + 22 + 5)
        expect(page.locator('.react-flow__edge[data-id^="d:"]')).to_have_count(5)
        expect(page.locator('.react-flow__edge[data-id^="c:"]')).to_have_count(22)
        check(page, None)
    finally:
        finish(context, page, errors, "layout_demo_keys")


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_expanding_and_selecting_keep_the_place(browser: Any, server: str, size: tuple[int, int]) -> None:
    url = "/asset?" + urlencode([("node", DEMO_ROOT), ("depth", 1)])
    context, page, errors = open_view(browser, server, size, url)
    emp_att = f"dataset:{DEMO_NS}:{EMP_ATT}"
    try:
        expect(page.locator(CANVAS)).to_have_attribute("data-node-count", "5")
        expect_still(page)
        before = screen_box(page, emp_att)
        page.locator(f'.react-flow__node[data-id="{emp_att}"]').get_by_test_id("expand-upstream").click()
        expect(page.locator(CANVAS)).to_have_attribute("data-node-count", "8")
        expect(page.locator(CANVAS)).to_have_attribute("data-ready", "true")
        expect_still(page)
        page.wait_for_timeout(400)  # the final layout (ELK) lands after the first: the place is kept through both
        expect_still(page)
        assert_kept(before, screen_box(page, emp_att), "expanding employee_attendance upstream")
        node = page.locator(f'.react-flow__node[data-id="{emp_att}"]')
        # opening its column list: the node grows downwards, its head stays where it was
        before = screen_box(page, emp_att)
        node.get_by_test_id("toggle-columns").click()
        expect(node.get_by_test_id("column-row")).to_have_count(10)
        page.wait_for_timeout(400)
        expect_still(page)
        assert_kept(before, screen_box(page, emp_att), "opening the columns of employee_attendance")
        # selecting one of its columns: its path opens on other nodes (and the side pane), the node stays
        node.locator(f'[data-field-id="{field(EMP_ATT, "Salary")}"]').click()
        # Salary <- employees.Salary; -> BaseSalary, OvertimePay, TotalCompensation
        expect(page.locator('.react-flow__node .col-row[data-highlighted="true"]')).to_have_count(5)
        page.wait_for_timeout(400)
        expect_still(page)
        assert_kept(before, screen_box(page, emp_att), "selecting Salary")
        # folding or unfolding the side pane: the node keeps its place
        pane = page.get_by_test_id("details-pane")
        page.get_by_test_id("pane-unfold" if pane.get_attribute("data-folded") == "true" else "pane-fold").click()
        page.wait_for_timeout(300)
        expect_still(page)
        assert_kept(before, screen_box(page, emp_att), "folding or unfolding the side pane")
        check(page, None)  # with the path drawn, in the view the kept place left: no edge over node text
        all_drawn(page)
    finally:
        finish(context, page, errors, f"layout_keep_{size[0]}x{size[1]}")


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_sixty_node_graph_opens_readable(browser: Any, server: str, size: tuple[int, int]) -> None:
    root = sixty_root()
    context, page, errors = open_view(browser, server, size, "/asset?" + urlencode([("node", root), ("depth", 4)]))
    try:
        expect(page.locator(CANVAS)).to_have_attribute("data-node-count", "60")
        # names readable; when the whole graph does not fit at that zoom the view says how much is outside
        # and the minimap shows the rest
        check(page, root, fonts=True)
        outside = page.get_by_test_id("outside-count")
        if outside.count():
            expect(outside).to_contain_text("of 60 nodes outside the view")
            expect(page.locator(".react-flow__minimap")).to_be_visible()
        else:
            check(page, root, every=True)
        check_toolbar(page)
        # opened at depth 1 (20 nodes), an input expanded upstream (its job and the 6 datasets it reads): the
        # node stays where it was on screen, at the same zoom
        page.goto("/asset?" + urlencode([("node", root), ("depth", 1)]))
        expect(page.locator(CANVAS)).to_have_attribute("data-node-count", "20")
        expect(page.locator(CANVAS)).to_have_attribute("data-ready", "true")
        expect_still(page)
        source = f"dataset:{SIXTY_NS}:{sixty_name(1, 0)}"
        before = screen_box(page, source)
        page.locator(f'.react-flow__node[data-id="{source}"]').get_by_test_id("expand-upstream").dispatch_event("click")
        expect(page.locator(CANVAS)).to_have_attribute("data-node-count", "27")
        expect(page.locator(CANVAS)).to_have_attribute("data-ready", "true")
        page.wait_for_timeout(400)  # through both layouts (fast, then ELK)
        expect_still(page)
        assert_kept(before, screen_box(page, source), "expanding a 60-node graph's input upstream")
        check(page, None)
        all_drawn(page)
    finally:
        finish(context, page, errors, f"layout_sixty_{size[0]}x{size[1]}")


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_compare_before_and_after_the_recrawl_shows_one_change(
    browser: Any, server: str, size: tuple[int, int]
) -> None:
    employees = f"dataset:{DEMO_NS}:{EMPLOYEES}"
    iso = lambda t: t.isoformat().replace("+00:00", "Z")  # noqa: E731
    url = "/asset?" + urlencode(
        [
            ("node", employees),
            ("cols", employees),
            ("at", iso(T_CRAWL2 + timedelta(minutes=1))),
            ("cmp", iso(T_CRAWL2 - timedelta(minutes=1))),
        ]
    )
    context, page, errors = open_view(browser, server, size, url)
    try:
        bar = page.get_by_test_id("compare-bar")
        # the crawler spells Spark's integer and decimal(12,2) as bigint and double: not a change
        expect(bar).to_have_attribute("data-changes", "1")
        expect(bar).to_contain_text("+1 column")
        expect(bar).to_contain_text("Email")
        expect(page.get_by_test_id("cmp-cols-retyped")).to_have_count(0)
        expect(page.locator(f'.react-flow__node [data-field-id="{field(EMPLOYEES, "Email")}"]')).to_have_attribute(
            "data-mark", "added"
        )
        expect(page.locator('.react-flow__node .col-row[data-mark="changed"]')).to_have_count(0)
    finally:
        finish(context, page, errors, f"layout_compare_recrawl_{size[0]}x{size[1]}")


def test_compare_picks_its_moments_from_the_version_list(browser: Any, server: str) -> None:
    employees = f"dataset:{DEMO_NS}:{EMPLOYEES}"
    url = "/asset?" + urlencode([("node", employees), ("cols", employees)])
    context, page, errors = open_view(browser, server, SIZES[0], url)
    try:
        picker = page.get_by_test_id("compare-from-version")
        expect(page.get_by_test_id("lineage-toolbar")).to_have_attribute("class", "toolbar")  # one row at 1600 px
        expect(picker).to_be_visible()
        # "to" starts on the version in effect now; "from": the last version before the re-crawl
        expect(page.get_by_test_id("compare-to-version")).to_have_value(
            max(moments := picker.locator("option").evaluate_all("os => os.map(o => o.value)"))
        )
        moments = [v for v in picker.locator("option").evaluate_all("os => os.map(o => o.value)") if v]
        assert len(moments) >= 2
        before = max(v for v in moments if datetime.fromisoformat(v.replace("Z", "+00:00")) < T_CRAWL2)
        picker.select_option(before)
        bar = page.get_by_test_id("compare-bar")
        expect(bar).to_be_visible()
        # the view compares that version's moment with now: no time typed, nothing else chosen
        query = parse_qs(urlsplit(page.url).query)
        assert query["cmp"] == [before] and "at" not in query
        expect(bar).to_contain_text(f"from {before[:10]} {before[11:19]} UTC")
    finally:
        finish(context, page, errors, "layout_compare_versions")


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_200_node_graph_nothing_covers_anything(browser: Any, server: str, size: tuple[int, int]) -> None:
    root = wide_root()
    url = "/asset?" + urlencode([("node", root), ("depth", 4), ("cols", root)])
    context, page, errors = open_view(browser, server, size, url)
    try:
        expect(page.locator(CANVAS)).to_have_attribute("data-node-count", "197")
        check(page, root, fonts=True)
        check_toolbar(page)
        # select the root: the details pane opens beside the canvas, the root stays in view
        page.locator(f'.react-flow__node[data-id="{root}"] .lnode-head').click()
        expect(page.get_by_test_id("details-pane")).to_be_visible()
        check(page, root)
        # the impact table: its Path column wraps inside the panel, not cut off at the right
        page.get_by_test_id("impact-button").click()
        rows = page.get_by_test_id("impact-row")
        expect(rows.first).to_be_visible()
        check(page, root)
        cut = page.locator(".impact-table-wrap").evaluate("""w => {
            const t = w.querySelector('table');
            const cells = [...w.querySelectorAll('td.path')].filter(td => td.scrollWidth > td.clientWidth + 1).length;
            return { tableWider: t.getBoundingClientRect().right - w.getBoundingClientRect().right, cells };
        }""")
        assert cut["tableWider"] <= 1 and cut["cells"] == 0, f"the impact table is cut off: {cut}"
    finally:
        finish(context, page, errors, f"layout_200_{size[0]}x{size[1]}")
