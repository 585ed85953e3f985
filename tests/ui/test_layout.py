"""Nothing covers anything, and text is readable at the opening zoom — measured in real Chromium.

For the demo's graph (fixtures/layout_events.demo_events: the Spark integration's job names, the
demo link's view with TotalCompensation selected) and a 197-node layered graph, at 1600x1000 and
1280x720, the page's real geometry is read (getBoundingClientRect of every node's text, edge paths
sampled with getPointAtLength and mapped to the screen, the stacking order at each sample from
elementsFromPoint) and the test fails when:

- a node name is drawn under 12 px or a column row under 11 px at the opening zoom;
- an edge is painted over a node's text (an edge under an opaque node is fine);
- a floating control (minimap, panels) covers a node's text;
- the focus node is not fully inside the canvas after the view opens, after a node is shown from
  the details pane, and after the impact panel opens;
- the toolbar wraps or overflows, or the impact table cuts its Path column off.
"""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import urlencode

import pytest
from playwright.sync_api import expect

from .fixtures.layout_events import ACT2, DEMO_JOB_NS, DEMO_NS, EMP_COMP, layout_events, wide_root

pytestmark = [pytest.mark.browser]

EVENTS = layout_events
SIZES = [(1600, 1000), (1280, 720)]
CANVAS = '[data-testid="lineage-canvas"]'

DEMO_ROOT = f"dataset:{DEMO_NS}:{EMP_COMP}"
DEMO_COL = f"datasetField:{DEMO_NS}:{EMP_COMP}:TotalCompensation"
DEMO_WRITER = f"job:{DEMO_JOB_NS}:{ACT2}"

# Returns a list of problems (strings); empty when nothing covers anything.
GEOMETRY = r"""
({ focus, fonts }) => {
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

  // 4. the focus node fully inside the canvas
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


def check(page: Any, focus: str | None, fonts: bool = False) -> None:
    """The geometry holds once the view has settled: the final layout (ELK) may replace the first one a moment
    after the viewport stops moving, so a failing look is taken again (the same viewport, up to 10 s)."""
    expect_still(page)
    deadline = time.monotonic() + 10
    while (problems := page.evaluate(GEOMETRY, {"focus": focus, "fonts": fonts})) and time.monotonic() < deadline:
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


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_demo_graph_nothing_covers_anything(browser: Any, server: str, size: tuple[int, int]) -> None:
    url = "/asset?" + urlencode([("node", DEMO_ROOT), ("depth", 4), ("cols", DEMO_ROOT), ("col", DEMO_COL)])
    context, page, errors = open_view(browser, server, size, url)
    try:
        # the demo link: the details pane is open with the column path; the root is the focus
        expect(page.get_by_test_id("details-pane")).to_be_visible()
        check(page, DEMO_ROOT, fonts=True)
        check_toolbar(page)
        # the job that wrote it, shown from the details pane ("Written by" -> show in graph)
        writer = page.get_by_test_id("written-by").locator(f'[data-ref-id="{DEMO_WRITER}"]')
        expect(writer).to_contain_text("write employee_compensation")
        writer.get_by_test_id("show-in-graph").click()
        expect(page.get_by_test_id("details-name")).to_contain_text("write employee_compensation")
        check(page, DEMO_WRITER)
        # the impact panel opens below: the focus stays fully visible in what is left
        page.get_by_test_id("impact-button").click()
        expect(page.get_by_test_id("impact-panel")).to_be_visible()
        check(page, DEMO_WRITER)
        check_toolbar(page)
        # Esc closes the topmost pane first
        page.keyboard.press("Escape")
        expect(page.get_by_test_id("impact-panel")).to_have_count(0)
        expect(page.get_by_test_id("details-pane")).to_be_visible()
        page.keyboard.press("Escape")
        expect(page.get_by_test_id("details-pane")).to_have_count(0)
        check(page, DEMO_ROOT)
    finally:
        finish(context, page, errors, f"layout_demo_{size[0]}x{size[1]}")


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
