"""What a data engineer meets first, in real Chromium at a laptop's sizes (1440×900, 1024×700), on the
demo-shaped graph of fixtures/layout_events.py plus a pipeline with long S3 names: the demo's column link
opens on the column's nearest inputs (not half an empty canvas), a long name is readable whole in the
page's title, a search that finds nothing says so and what to try."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta
from typing import Any
from urllib.parse import urlencode

import pytest
from playwright.sync_api import expect

from .fixtures.layout_events import (
    ACT2,
    ADJUSTMENTS,
    BONUSES,
    DEMO_JOB_NS,
    DEMO_NS,
    EMP_ATT,
    EMP_COMP,
    T0,
    _ds,
    _run,
    demo_events,
)

pytestmark = [pytest.mark.browser]

CANVAS = '[data-testid="lineage-canvas"]'
LONG_NS = "s3://acme-analytics-prod-data-lake-eu-west-1"
LONG_IN = "warehouse/finance/quarterly_reporting/customer_lifetime_value_by_acquisition_channel_and_region_2026_q3"
LONG_OUT = "warehouse/finance/quarterly_reporting/customer_lifetime_value_rollup_by_marketing_attribution_final_v2"
LONG_JOB = "finance_etl.compute_customer_lifetime_value_rollup_by_marketing_attribution_model"


def long_events() -> list[dict[str, Any]]:
    cols = [("customer_identifier_hash", "string"), ("acquisition_channel_name", "string"), ("ltv_usd", "double")]
    lineage = {c: [{"namespace": LONG_NS, "name": LONG_IN, "field": c, "transformations": []}] for c, _ in cols}
    return _run(
        "finance-ltv", "finance_etl", LONG_JOB, T0 + timedelta(days=2),
        [_ds(LONG_NS, LONG_IN, cols)], [_ds(LONG_NS, LONG_OUT, cols, lineage)],
    )  # fmt: skip


def audit_events() -> list[dict[str, Any]]:
    return demo_events() + long_events()


EVENTS = audit_events


@pytest.fixture
def open_at(browser: Any, server: str) -> Iterator[Any]:
    """``open_at((w, h), url)``: a fresh page of that size at ``url``; JavaScript errors fail the test."""
    contexts: list[tuple[Any, list[str]]] = []

    def go(size: tuple[int, int], url: str) -> Any:
        context = browser.new_context(viewport={"width": size[0], "height": size[1]}, base_url=server)
        errors: list[str] = []
        page = context.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.set_default_timeout(20_000)
        expect.set_options(timeout=20_000)
        contexts.append((context, errors))
        page.goto(url)
        return page

    yield go
    for context, errors in contexts:
        context.close()
        assert not errors, f"JavaScript errors on the page: {errors}"


def asset(node: str, **params: Any) -> str:
    return "/asset?" + urlencode([("node", node), *params.items()])


def settled_view(page: Any) -> None:
    """The final layout is drawn and the viewport has stopped moving (a re-centre animates for 200 ms)."""
    expect(page.locator(CANVAS)).to_have_attribute("data-ready", "true")
    last = None
    for _ in range(40):
        now = page.locator(".react-flow__viewport").evaluate("v => getComputedStyle(v).transform")
        if now == last:
            return
        last = now
        page.wait_for_timeout(150)


def outside_canvas(page: Any, ids: list[str]) -> list[str]:
    """Which of the nodes ``ids`` are not wholly inside the graph's canvas."""
    return page.evaluate(
        """ids => { const c = document.querySelector('.canvas-flow').getBoundingClientRect();
        return ids.filter(id => { const n = document.querySelector(`.react-flow__node[data-id="${id}"]`);
          if (!n) return true; const r = n.getBoundingClientRect();
          return r.left < c.left || r.top < c.top || r.right > c.right || r.bottom > c.bottom; }); }""",
        ids,
    )


def test_the_demo_column_link_opens_on_its_nearest_inputs_at_1440(open_at: Any) -> None:
    # a MacBook's 1440×900 with the details pane open: the whole path does not fit at a readable zoom, so
    # the view opens on the focus and its neighbours — all of them, not the focus centred on half an empty
    # canvas (the focus is the pipeline's last dataset: nothing is downstream of it)
    root = f"dataset:{DEMO_NS}:{EMP_COMP}"
    page = open_at((1440, 900), asset(root, col="TotalCompensation"))
    expect(page.get_by_test_id("details-pane")).to_have_attribute("data-folded", "false")
    settled_view(page)
    near = [root, f"job:{DEMO_JOB_NS}:{ACT2}", *(f"dataset:{DEMO_NS}:{d}" for d in (EMP_ATT, ADJUSTMENTS, BONUSES))]
    assert outside_canvas(page, near) == []
    # at a readable zoom: names at least 11 px on screen
    zoom = page.locator(".react-flow__viewport").evaluate("v => new DOMMatrixReadOnly(getComputedStyle(v).transform).a")
    assert zoom * 13 >= 11 - 1e-6, zoom


@pytest.mark.parametrize("size", [(1440, 900), (1024, 700)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_long_name_is_whole_in_the_page_title(open_at: Any, size: tuple[int, int]) -> None:
    # the part that tells two datasets of one folder apart is the end of the name: never cut off
    page = open_at(size, asset(f"dataset:{LONG_NS}:{LONG_OUT}", tab="schema"))
    title = page.get_by_test_id("asset-name")
    expect(title).to_have_text(LONG_OUT)
    assert title.evaluate("h => h.scrollWidth <= h.clientWidth + 1"), "the title is clipped"
    end = title.evaluate("""h => { const r = document.createRange(); r.selectNodeContents(h.lastChild);
        const b = r.getBoundingClientRect();
        const box = h.getBoundingClientRect(); return b.right <= box.right + 1 && b.width > 0; }""")
    assert end, "the end of the name is not on screen"
    # nothing of the header runs off the window
    assert page.evaluate("document.documentElement.scrollWidth") <= size[0]
    # a job's title too
    page.goto(asset(f"job:finance_etl:{LONG_JOB}", tab="job"))
    job_title = page.get_by_test_id("asset-name")
    expect(job_title).to_have_text(LONG_JOB)
    assert job_title.evaluate("h => h.scrollWidth <= h.clientWidth + 1"), "the job's title is clipped"


def test_a_search_that_finds_nothing_says_so(open_at: Any) -> None:
    page = open_at((1024, 700), "/search?q=" + "payrol_nothing_like_this")
    empty = page.get_by_test_id("search-empty")
    expect(empty).to_contain_text("Nothing matches “payrol_nothing_like_this”")
    # what to try: a shorter part of the name, and a way to browse instead
    expect(empty).to_contain_text("part of a name")
    expect(empty.get_by_role("link", name="browse the namespaces")).to_have_attribute("href", "/namespaces")
    # no empty table
    expect(page.locator("table")).to_have_count(0)
    # a search that finds things shows them, its times on one line
    page.goto("/search?q=employee_compensation")
    rows = page.locator("tbody tr")
    expect(rows.first).to_be_visible()
    assert page.get_by_test_id("search-empty").count() == 0
    heights = rows.evaluate_all("rs => rs.map(r => r.getBoundingClientRect().height)")
    assert max(heights) < 60, f"result rows wrap over several lines: {heights}"


def test_a_link_with_a_time_that_is_not_one_says_so_once(open_at: Any) -> None:
    # a hand-edited link: one message that names the value and what a time looks like, and the way to now —
    # not the same server error twice over an empty graph under a title made of the raw node id
    root = f"dataset:{DEMO_NS}:{EMP_COMP}"
    page = open_at((1024, 700), asset(root, at="yesterday"))
    bad = page.get_by_test_id("asset-bad-time")
    expect(bad).to_contain_text("“yesterday” is not a time")
    expect(bad).to_contain_text("2026-11-22T17:30:00Z")
    expect(page.locator(".error")).to_have_count(0)
    expect(page.locator(CANVAS)).to_have_count(0)
    bad.get_by_role("link", name="See it as it is now").click()
    expect(page.get_by_test_id("asset-name")).to_have_text(EMP_COMP)
    expect(page.locator(CANVAS)).to_have_attribute("data-ready", "true")
    assert "at=" not in page.url


def test_an_asset_that_did_not_exist_yet_at_the_time_offers_now(open_at: Any) -> None:
    # a link as of a moment before the dataset was first written (History, a colleague's older link)
    root = f"dataset:{DEMO_NS}:{EMP_COMP}"
    page = open_at((1440, 900), asset(root, at="2026-01-01T00:00:00Z"))
    missing = page.get_by_test_id("asset-not-found")
    expect(missing).to_contain_text("2026-01-01")
    missing.get_by_role("link", name="See it as it is now").click()
    expect(page.get_by_test_id("asset-name")).to_have_text(EMP_COMP)
    assert "at=" not in page.url
    # and back returns to the link's moment
    page.go_back()
    expect(page.get_by_test_id("asset-not-found")).to_be_visible()


def test_a_link_to_a_column_the_dataset_does_not_have_says_so(open_at: Any) -> None:
    # an older link to a column since renamed or dropped: not "what flows into" a column that is not there
    root = f"dataset:{DEMO_NS}:{EMP_COMP}"
    page = open_at((1440, 900), asset(root, col="TotalPay"))
    path = page.get_by_test_id("column-path")
    expect(path.get_by_test_id("column-missing")).to_contain_text("TotalPay is not a column of employee_compensation")
    expect(path.get_by_test_id("column-missing")).to_contain_text("History")
    expect(path.get_by_test_id("path-column")).to_have_count(0)
    # nothing dimmed on the canvas for a column that is not there
    expect(page.locator(CANVAS)).to_have_attribute("data-ready", "true")
    expect(page.locator('[data-emphasis="dim"]')).to_have_count(0)
    # a column it has: its path, no such note
    page.goto(asset(root, col="TotalCompensation"))
    expect(page.get_by_test_id("path-column").first).to_be_visible()
    expect(page.get_by_test_id("column-missing")).to_have_count(0)


def test_the_header_stays_on_one_line_at_1024(open_at: Any) -> None:
    page = open_at((1024, 700), "/")
    sign_in = page.get_by_test_id("sign-in")
    expect(sign_in).to_be_visible()
    assert sign_in.bounding_box()["height"] <= 34, "“Sign in” wraps over two lines"
    # the namespaces' counts say "1 dataset", not "1 datasets"
    expect(page.locator(".ns-row", has_text="finance_etl")).to_contain_text("0 datasets · 1 job")


def test_an_empty_catalog_says_what_to_do(open_at: Any) -> None:
    # nothing published yet, nobody signed in: not a bare "0 assets"
    page = open_at((1440, 900), "/catalog")
    empty = page.get_by_test_id("catalog-empty")
    expect(empty).to_contain_text("No published assets yet")
    expect(empty).to_contain_text("Sign in")
    # filtered: says the filters found nothing, and clears them
    page.goto("/catalog?q=payroll")
    empty = page.get_by_test_id("catalog-empty")
    expect(empty).to_contain_text("No asset matches these filters")
    empty.get_by_role("link", name="Clear the filters").click()
    expect(page).to_have_url(re.compile(r"/catalog$"))


def test_an_empty_glossary_says_how_domains_are_made(open_at: Any) -> None:
    page = open_at((1024, 700), "/glossary")
    empty = page.get_by_test_id("glossary-empty")
    expect(empty).to_contain_text("No domains yet")
    expect(empty).to_contain_text("POST /api/v1/catalog/domains")


def test_a_server_that_does_not_answer_is_said_in_words(open_at: Any) -> None:
    # the server restarting (or the network gone) while the explorer is open: not the browser's "Failed to
    # fetch" over a canvas that claims there is no lineage
    root = f"dataset:{DEMO_NS}:{EMP_COMP}"
    page = open_at((1440, 900), "/")
    page.route("**/api/v1/graph/lineage**", lambda route: route.abort("connectionrefused"))
    page.goto(asset(root))
    error = page.get_by_test_id("lineage-error")
    expect(error).to_contain_text("The Headwater server did not answer")
    expect(error).not_to_contain_text("Failed to fetch")
    expect(page.locator(".canvas-loading")).not_to_contain_text("No lineage")
    # a proxy's HTML error page in front of a restarting server: the same words, with its status
    page.unroute("**/api/v1/graph/lineage**")
    page.route(
        "**/api/v1/graph/lineage**",
        lambda route: route.fulfill(status=502, content_type="text/html", body="<html><body>Bad Gateway</body></html>"),
    )
    page.reload()
    expect(page.get_by_test_id("lineage-error")).to_contain_text("The Headwater server did not answer (502")
    page.unroute("**/api/v1/graph/lineage**")
    page.reload()
    expect(page.locator(CANVAS)).to_have_attribute("data-ready", "true")


def test_a_namespace_that_holds_nothing_says_so_once(open_at: Any) -> None:
    # a mistyped namespace: one message naming it and the way to those held, not two empty cards
    page = open_at((1024, 700), "/namespaces/" + "s3%3A%2F%2Fno-such-bucket")
    said = page.get_by_test_id("no-namespace")
    expect(said).to_contain_text("s3://no-such-bucket")
    expect(said.get_by_role("link", name="the namespaces Headwater holds")).to_have_attribute("href", "/namespaces")
    expect(page.locator(".card")).to_have_count(0)
    page.goto("/namespaces/finance_etl")  # one that holds a job and no dataset: its cards, as before
    expect(page.locator(".card")).to_have_count(2)
    assert page.get_by_test_id("no-namespace").count() == 0


@pytest.mark.parametrize("size", [(1440, 900), (1024, 700)])
def test_the_as_of_field_shows_its_whole_placeholder(open_at: Any, size: tuple[int, int]) -> None:
    page = open_at(size, asset(f"dataset:{DEMO_NS}:{EMP_COMP}"))
    field = page.locator("input.tb-time").first
    expect(field).to_have_attribute("placeholder", "YYYY-MM-DD HH:MM:SS")
    # the placeholder's text typed in: it fits when the field need not scroll to show it
    overflow = field.evaluate(
        """f => { const probe = f.cloneNode(); probe.value = f.placeholder; f.after(probe);
        const over = probe.scrollWidth - probe.clientWidth; probe.remove(); return over; }"""
    )
    assert overflow <= 0, f"the placeholder is cut off by {overflow:.1f} px"
