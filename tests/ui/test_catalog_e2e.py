"""The catalog in a real browser: two projects' tokens on one ``headwater serve``.

The producer (alice, owner of ``producer``) catalogs employee_compensation from its dataset page,
curates it (business name, Markdown description, owners, glossary term, tags) and publishes it; the
consumer (dave, owner of ``consumer``) finds only the published asset, subscribes, is approved by alice
(in her own browser), and sees the subscription target in the lineage, with the producer's inventory
drawn as restricted nodes. employee_attendance stays in the producer's inventory: the consumer must not
see it anywhere (catalog search and filters, graph search, namespace listing, lineage).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import httpx
import pytest
from playwright.sync_api import expect

from .conftest import ARTIFACTS
from .fixtures.hr_events import EMP_ATT, EMP_COMP, EMPLOYEES, ds

pytestmark = [pytest.mark.browser]

ADMIN = "ui-catalog-admin-token"
SERVER_ENV = {"HEADWATER_WRITE_TOKENS": ADMIN}
C = "/api/v1/catalog"
TERM = "Compensation"
SECRET = "employee_attendance"  # the name of the inventory asset only the producer may see


@pytest.fixture(scope="module")
def tokens(server: str) -> dict[str, str]:
    """The domain, both projects, alice (producer owner), carol (producer viewer) and dave (consumer owner), a
    glossary term, and
    employee_attendance catalogued by alice into the producer's inventory (it stays there)."""
    admin = {"Authorization": f"Bearer {ADMIN}"}
    with httpx.Client(base_url=server, timeout=30) as http:

        def ok(answer: httpx.Response) -> Any:
            assert answer.status_code in (200, 201), f"{answer.request.url}: {answer.text}"
            return answer.json()

        ok(http.post(f"{C}/domains", json={"id": "people", "name": "People"}, headers=admin))
        out: dict[str, str] = {}
        for project, user in (("producer", "alice"), ("consumer", "dave")):
            ok(http.post(f"{C}/projects", json={"id": project, "domain": "people"}, headers=admin))
            out[user] = ok(http.post(f"{C}/users", json={"id": user}, headers=admin))["token"]
            ok(http.put(f"{C}/projects/{project}/members/{user}", json={"role": "owner"}, headers=admin))
        out["carol"] = ok(http.post(f"{C}/users", json={"id": "carol"}, headers=admin))["token"]
        ok(http.put(f"{C}/projects/producer/members/carol", json={"role": "viewer"}, headers=admin))
        alice = {"Authorization": f"Bearer {out['alice']}", "Headwater-Project": "producer"}
        ok(
            http.put(
                f"{C}/domains/people/glossary/{TERM}", json={"definition": "What an employee is paid"}, headers=alice
            )
        )
        ok(http.post(f"{C}/assets", json={"nodeId": ds(EMP_ATT), "project": "producer"}, headers=alice))
    return out


def sign_in(page: Any, token: str, project: str | None) -> None:
    """Through the header: Sign in with the token, then pick the project in the switcher (None: keep none)."""
    page.goto("/")
    page.get_by_test_id("sign-in").click()
    page.get_by_test_id("token-input").fill(token)
    page.get_by_test_id("token-submit").click()
    expect(page.get_by_test_id("project-select")).to_be_visible()
    if project is None:
        return
    page.get_by_test_id("project-select").select_option(project)
    expect(page.locator(".app")).to_have_attribute("data-project", project)


def new_page(browser: Any, server: str) -> Any:
    context = browser.new_context(viewport={"width": 1600, "height": 950}, base_url=server)
    pg = context.new_page()
    pg.set_default_timeout(20_000)
    return pg


def test_producer_catalogs_curates_and_publishes(page: Any, tokens: dict[str, str]) -> None:
    sign_in(page, tokens["alice"], "producer")
    # every API call now carries the project context
    with page.expect_request(lambda r: "/api/v1/graph/" in r.url) as req:
        page.goto("/asset?" + urlencode({"node": ds(EMP_COMP)}))
    assert req.value.headers.get("headwater-project") == "producer"

    # the glossary: an owner of the domain's project defines a term
    page.goto("/glossary")
    expect(page.locator(f'[data-testid="glossary-term"][data-term="{TERM}"]')).to_contain_text(
        "What an employee is paid"
    )
    page.get_by_test_id("term-name").fill("Payroll")
    page.get_by_test_id("term-definition").fill("Paying employees")
    page.get_by_test_id("term-save").click()
    expect(page.locator('[data-testid="glossary-term"][data-term="Payroll"]')).to_contain_text("Paying employees")
    page.goto("/asset?" + urlencode({"node": ds(EMP_COMP)}))

    # catalog: from the dataset's page into the project's inventory
    page.get_by_test_id("catalog-add").click()
    asset = page.get_by_test_id("catalog-asset")
    expect(asset).to_have_attribute("data-state", "inventory")
    asset_id = asset.get_attribute("data-asset")
    expect(page.get_by_test_id("catalog-asset-name")).to_have_text(EMP_COMP)

    # curate in place: business name, Markdown description (raw HTML shown as text), owners, term, tags
    page.get_by_test_id("edit-metadata").click()
    page.get_by_test_id("edit-business-name").fill("Employee compensation")
    page.get_by_test_id("edit-description").fill(
        "**Pay** per employee <script>window.__xss=9</script> [run](javascript:window.__xss=8)"
    )
    page.get_by_test_id("edit-owners").fill("alice, hr-team")
    page.locator(f'[data-testid="edit-term"][data-term="{TERM}"]').check()
    page.get_by_test_id("edit-tags").fill("hr, pii")
    expect(page.locator('[data-testid="edit-term"][data-term="Payroll"]')).to_have_count(1)  # the new term
    page.get_by_test_id("edit-forms").fill("retention years = 7")
    page.get_by_test_id("edit-save").click()
    expect(page.get_by_test_id("edit-error")).to_contain_text("line 1")  # not sent
    page.get_by_test_id("edit-forms").fill("retention.years = 7")
    page.get_by_test_id("edit-save").click()
    expect(page.get_by_test_id("business-name")).to_have_text("Employee compensation")
    description = page.get_by_test_id("asset-description")
    expect(description.locator("strong")).to_have_text("Pay")
    expect(description).to_contain_text("<script>window.__xss=9</script>")  # shown as text
    expect(description.locator("script")).to_have_count(0)
    expect(description.locator('a[href^="javascript"]')).to_have_count(0)  # unsafe link schemes refused
    assert page.evaluate("window.__xss") is None
    expect(page.locator('[data-testid="term-chip"]')).to_have_text([TERM])
    expect(page.locator('[data-testid="tag-chip"]')).to_have_text(["hr", "pii"])
    expect(page.locator('[data-testid="owner-chip"]')).to_have_text(["alice", "hr-team"])
    expect(page.locator('[data-testid="asset-form"][data-form="retention"]')).to_contain_text("years: 7")

    # publish: the published node is drawn downstream of the inventory node, each with its badge
    page.get_by_test_id("publish").click()
    expect(asset).to_have_attribute("data-state", "published")
    expect(page.get_by_test_id("unpublish")).to_be_visible()
    changes = page.get_by_test_id("asset-version")
    expect(changes).to_have_count(3)
    assert [c.get_attribute("data-change") for c in changes.all()] == ["published", "metadata", "created"]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "catalog-asset-page.png"), full_page=True)
    page.get_by_test_id("published-lineage").click()
    expect(page.get_by_test_id("lineage-canvas")).to_have_attribute("data-ready", "true")
    expect(page.locator('[data-testid="dataset-node"][data-catalog-role="published"]')).to_have_count(1)
    expect(page.locator(f'[data-testid="dataset-node"][data-node-id="{ds(EMP_COMP)}"]')).to_have_attribute(
        "data-catalog-role", "inventory"
    )
    expect(page.locator('[data-testid="job-node"][data-catalog-role="publish_job"]')).to_have_count(1)
    # the details pane of the published node leads back to its catalog asset
    page.locator('[data-testid="dataset-node"][data-catalog-role="published"] .lnode-head').click()
    expect(page.get_by_test_id("details-catalog-asset")).to_have_attribute("href", f"/catalog/asset?id={asset_id}")

    # the producer's catalog: both its assets; the inventory filter shows the unpublished one
    page.goto("/catalog?state=inventory")
    expect(page.get_by_test_id("catalog-row")).to_have_count(1)
    expect(page.get_by_test_id("catalog-row")).to_have_attribute("data-name", EMP_ATT)
    page.goto(f"/catalog?term={TERM}")
    expect(page.get_by_test_id("catalog-row")).to_have_count(1)
    expect(page.get_by_test_id("catalog-row")).to_have_attribute("data-state", "published")


def test_a_viewer_reads_the_inventory_but_cannot_change_it(browser: Any, server: str, tokens: dict[str, str]) -> None:
    viewer = new_page(browser, server)
    try:
        sign_in(viewer, tokens["carol"], "producer")
        viewer.goto("/catalog?state=inventory")
        rows = viewer.get_by_test_id("catalog-row")
        expect(rows.first).to_be_visible()  # a member sees the project's inventory
        expect(viewer.locator(f'[data-testid="catalog-row"][data-name="{EMP_ATT}"]')).to_have_count(1)
        viewer.locator(f'[data-testid="catalog-row"][data-name="{EMP_ATT}"] [data-testid="catalog-link"]').click()
        expect(viewer.get_by_test_id("catalog-asset")).to_have_attribute("data-state", "inventory")
        expect(viewer.get_by_test_id("inventory-lineage")).to_be_visible()
        for action in ("edit-metadata", "publish", "unpublish", "subscribe-form"):
            expect(viewer.get_by_test_id(action)).to_have_count(0)
        viewer.goto("/asset?" + urlencode({"node": ds(EMP_ATT)}))
        expect(viewer.get_by_test_id("catalog-strip")).to_have_attribute("data-role", "inventory")
        viewer.goto("/asset?" + urlencode({"node": ds(EMPLOYEES)}))  # not cataloged: a viewer may not add it
        expect(viewer.get_by_test_id("lineage-canvas")).to_have_attribute("data-ready", "true")
        expect(viewer.get_by_test_id("catalog-add")).to_have_count(0)
    finally:
        viewer.context.close()


def _published_id(server: str, tokens: dict[str, str]) -> str:
    """The published asset's id; publishes it through the API when the producer's test did not run first."""
    alice = {"Authorization": f"Bearer {tokens['alice']}", "Headwater-Project": "producer"}
    with httpx.Client(base_url=server, timeout=30) as http:
        found = http.get(f"{C}/assets", params={"q": "employee_compensation"}, headers=alice).json()["assets"]
        if not found:
            made = http.post(f"{C}/assets", json={"nodeId": ds(EMP_COMP), "project": "producer"}, headers=alice)
            found = [made.json()]
        asset = found[0]
        if asset["state"] != "published":
            patch = {"businessName": "Employee compensation", "glossaryTerms": [TERM], "tags": ["hr", "pii"]}
            assert http.patch(f"{C}/assets/{asset['id']}", json=patch, headers=alice).status_code == 200
            assert http.post(f"{C}/assets/{asset['id']}/publish", headers=alice).status_code == 200
        return str(asset["id"])


def assert_no_inventory(page: Any, where: str = "html") -> None:
    content = page.locator(where).first.inner_html()
    assert SECRET not in content, f"the inventory asset leaks on {page.url}"
    expect(page.locator('[data-catalog-role="inventory"]')).to_have_count(0)


def test_consumer_finds_subscribes_is_approved_and_sees_the_target(
    page: Any, browser: Any, server: str, tokens: dict[str, str]
) -> None:
    asset_id = _published_id(server, tokens)
    sign_in(page, tokens["dave"], "consumer")

    # search: only the published asset, whatever the filters
    page.goto("/catalog")
    rows = page.get_by_test_id("catalog-row")
    expect(rows).to_have_count(1)
    expect(rows).to_have_attribute("data-state", "published")
    assert_no_inventory(page)
    page.get_by_test_id("filter-state").select_option("inventory")
    expect(page.get_by_test_id("catalog-count")).to_have_text("0 assets")
    page.get_by_test_id("filter-state").select_option("")
    page.get_by_test_id("filter-project").select_option("producer")
    expect(rows).to_have_count(1)
    page.get_by_test_id("filter-term").select_option(TERM)
    expect(rows).to_have_count(1)
    page.get_by_test_id("filter-tag").fill("pii")
    page.get_by_test_id("catalog-q").fill("compensation")
    page.get_by_test_id("catalog-search").click()
    expect(page).to_have_url(f"{server}/catalog?q=compensation&ownerProject=producer&term={TERM}&tag=pii")
    expect(rows).to_have_count(1)
    page.get_by_test_id("catalog-q").fill("attendance")
    page.get_by_test_id("catalog-search").click()
    expect(page.get_by_test_id("catalog-count")).to_have_text("0 assets")

    # the graph's own search and listings know nothing of the inventory either
    page.goto(f"/search?q={SECRET}")
    expect(page.locator("h1 .count")).to_have_text("0")
    # no result rows: the page says nothing matches (it and the heading repeat the query)
    expect(page.get_by_test_id("search-empty")).to_be_visible()
    expect(page.locator("tbody tr")).to_have_count(0)
    expect(page.locator('[data-catalog-role="inventory"]')).to_have_count(0)
    page.goto("/")  # the home page's recent datasets and jobs
    expect(page.locator("main")).to_contain_text("/data/hr/employees.csv")
    assert_no_inventory(page)
    page.get_by_test_id("search-input").fill("employee_att")  # the header's type-ahead
    expect(page.get_by_test_id("search-results")).to_contain_text("No match")
    expect(page.get_by_test_id("search-result")).to_have_count(0)
    page.get_by_test_id("search-input").fill("employee")  # a visible dataset answers: the search works
    expect(page.get_by_test_id("search-result").first).to_be_visible()
    assert SECRET not in page.get_by_test_id("search-results").inner_text()
    page.goto("/namespaces")
    expect(page.get_by_test_id("namespaces")).to_be_visible()
    assert_no_inventory(page)
    page.goto("/namespaces/file")
    expect(page.locator("main")).to_contain_text("/data/hr/employees.csv")
    assert_no_inventory(page)
    page.goto("/asset?" + urlencode({"node": ds(EMP_ATT)}))
    expect(page.get_by_test_id("asset-not-found")).to_be_visible()

    # subscribe
    page.goto("/catalog?q=compensation")
    page.get_by_test_id("catalog-link").click()
    expect(page.get_by_test_id("catalog-asset")).to_have_attribute("data-asset", asset_id)
    expect(page.get_by_test_id("publish")).to_have_count(0)  # not the consumer's to publish
    expect(page.get_by_test_id("edit-metadata")).to_have_count(0)
    page.get_by_test_id("subscribe-target").fill("analytics")
    page.get_by_test_id("subscribe-reason").fill("quarterly pay report")
    page.get_by_test_id("subscribe-submit").click()
    row = page.get_by_test_id("subscription-row")
    expect(row).to_have_attribute("data-state", "requested")
    expect(page.get_by_test_id("subscription-approve")).to_have_count(0)  # the consumer cannot approve

    # the producer's owner approves it in their own browser
    producer = new_page(browser, server)
    try:
        sign_in(producer, tokens["alice"], None)
        # a link may carry the project context: the switcher follows it
        producer.goto("/catalog?project=producer")
        expect(producer.locator(".app")).to_have_attribute("data-project", "producer")
        expect(producer.get_by_test_id("project-select")).to_have_value("producer")
        waiting = producer.get_by_test_id("subscriptions-waiting")
        expect(waiting.get_by_test_id("subscription-item")).to_have_count(1)
        waiting.get_by_role("link").click()
        producer_row = producer.get_by_test_id("subscription-row")
        expect(producer_row).to_have_attribute("data-project", "consumer")
        producer.get_by_test_id("subscription-approve").click()
        expect(producer_row).to_have_attribute("data-state", "approved")
    finally:
        producer.context.close()

    # approved: the consumer's lineage from the target back to the restricted inventory
    page.reload()
    expect(row).to_have_attribute("data-state", "approved")
    page.get_by_test_id("subscription-target-link").click()
    expect(page.get_by_test_id("lineage-canvas")).to_have_attribute("data-ready", "true")
    expect(page.locator('[data-testid="dataset-node"][data-catalog-role="target"]')).to_have_count(1)
    expect(page.locator('[data-testid="dataset-node"][data-catalog-role="published"]')).to_have_count(1)
    expect(page.locator('[data-testid="job-node"][data-catalog-role="subscribe_job"]')).to_have_count(1)
    expect(page.get_by_test_id("restricted-node").first).to_be_visible()
    expect(page.locator(f'[data-node-id="{ds(EMP_COMP)}"]')).to_have_count(0)
    assert_no_inventory(page)

    # the consumer ends the subscription: its target node's validity ends (drawn as dropped)
    page.go_back()
    expect(row).to_have_attribute("data-state", "approved")
    page.get_by_test_id("subscription-revoke").click()
    expect(row).to_have_attribute("data-state", "revoked")
    expect(page.get_by_test_id("subscription-target-link")).to_have_count(1)
    page.get_by_test_id("subscription-target-link").click()
    expect(page.locator(".pill-removed")).to_have_text("dropped")


def test_an_admin_may_pick_any_project(page: Any, tokens: dict[str, str]) -> None:
    sign_in(page, ADMIN, "consumer")  # a member of none: every project is offered
    expect(page.get_by_test_id("who")).to_have_text("admin")
    expect(page.locator('[data-testid="project-select"] option')).to_have_text(
        ["All projects (admin)", "consumer (admin)", "producer (admin)"]
    )
    page.get_by_test_id("project-select").select_option("producer")
    expect(page.locator(".app")).to_have_attribute("data-project", "producer")
    with page.expect_request(lambda r: "/api/v1/catalog/assets" in r.url) as req:
        page.goto("/catalog?state=inventory")
    assert req.value.headers.get("headwater-project") == "producer"
    expect(page.locator(f'[data-testid="catalog-row"][data-name="{EMP_ATT}"]')).to_have_count(1)
