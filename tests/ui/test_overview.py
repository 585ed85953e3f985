"""Huge graphs drawn as an overview, in real Chromium: above OVERVIEW_AT nodes the lineage view
draws one <canvas> with level of detail instead of React Flow's DOM nodes — names once they are readable,
boxes and lines when zoomed out, a gesture over the zoomed-out graph moving a cached bitmap that the exact
drawing replaces when it pauses — and a click on a node still opens its details.

Served by bench/ui_paint.py's stub (the built UI and one synthetic layered lineage answer of the asked size),
so the test does not wait for thousands of events to be stored."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from functools import partial
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from headwater.ui import static_dir

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import ui_paint  # noqa: E402 - bench/ is not a package

pytestmark = [pytest.mark.browser]

SIZE = 5000
ROOT = f"{ui_paint.ROOT_PREFIX}{SIZE}"
CANVAS = '[data-testid="overview-canvas"]'


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), partial(ui_paint.Handler, directory=str(static_dir())))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_port}"
    httpd.shutdown()


def pixel(page: Any, x: float, y: float) -> list[int]:
    return list(
        page.evaluate(
            "([x, y]) => { const c = document.querySelector('[data-testid=overview-canvas]');"
            " const d = window.devicePixelRatio || 1;"
            " return Array.from(c.getContext('2d').getImageData(Math.round(x * d), Math.round(y * d), 1, 1).data); }",
            [x, y],
        )
    )


def test_a_huge_graph_is_drawn_as_an_overview(page: Any) -> None:
    page.goto(f"/asset?node={ROOT}")
    canvas = page.locator(CANVAS)
    expect(canvas).to_have_attribute("data-drawn", "true", timeout=60_000)
    lineage = page.get_by_test_id("lineage-canvas")
    expect(lineage).to_have_attribute("data-renderer", "overview")
    expect(lineage).to_have_attribute("data-ready", "true")
    assert canvas.get_attribute("data-node-count") == str(SIZE)
    assert page.locator(".react-flow__node").count() == 0  # no DOM node per graph node
    # opened at the readable zoom, centred on the root: its box (white, ringed) is in the middle
    expect(canvas).to_have_attribute("data-zoom", "1.000")
    box = canvas.bounding_box()
    cx, cy = box["width"] / 2, box["height"] / 2
    assert pixel(page, cx, cy)[:3] == [255, 255, 255]
    # at this zoom the name is drawn: dark text pixels where the node's name line is
    assert any(p[0] < 60 and p[1] < 60 for p in (pixel(page, cx - 136 + dx, cy - 6) for dx in range(0, 90, 3)))
    # a click on it opens its details
    page.mouse.click(box["x"] + cx, box["y"] + cy)
    expect(page.get_by_test_id("details-pane")).to_be_visible()
    expect(page.get_by_test_id("details-pane")).to_contain_text(ROOT.split(":")[-1])


def test_zoomed_out_the_gesture_moves_a_cached_drawing(page: Any) -> None:
    big = f"{ui_paint.ROOT_PREFIX}10000"  # above CACHE_AT (OverviewCanvas.tsx)
    page.goto(f"/asset?node={big}")
    canvas = page.locator(CANVAS)
    expect(canvas).to_have_attribute("data-drawn", "true", timeout=60_000)
    page.get_by_test_id("fit-view").click()
    expect(canvas).not_to_have_attribute("data-zoom", "1.000")
    assert float(canvas.get_attribute("data-zoom")) < 0.2
    assert canvas.get_attribute("data-cached-frames") is None  # a button's move is drawn exactly
    box = canvas.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    for _ in range(4):
        page.mouse.wheel(0, 40)
    # the wheel gesture was drawn from the bitmap, and the exact drawing followed when it paused
    expect(canvas).to_have_attribute("data-frame", "exact")
    assert int(canvas.get_attribute("data-cached-frames") or 0) > 0
    # boxes without text when zoomed out: nothing dark (names) at the centre row, only boxes and lines
    width = box["width"]
    # (text is near black, #0f172a; the kind stripes and the root's ring are teal or violet)
    text = [p for p in (pixel(page, x, box["height"] / 2) for x in range(0, int(width), 7)) if p[0] < 60 and p[1] < 60]
    assert not text
