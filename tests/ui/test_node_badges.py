"""Tags and data quality on the lineage graph's nodes, in real Chromium: a steward tags a source's email and
phone PII and a validation of the source fails; two hops downstream, the email column shows PII marked as
inherited, the hashed phone shows no tag, the source shows "failing" and each model built from it "upstream
issue"; the quality tab's PII tag lists where PII flows and where the hash stopped it."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlencode

import pytest
from playwright.sync_api import expect

from .fixtures.steward_events import NS, steward_events

pytestmark = [pytest.mark.browser]

SQL = """
CREATE TABLE raw.customers (id int, email text, phone text);
CREATE TABLE mart.contacts AS SELECT id, lower(email) AS email, md5(phone) AS phone_hash FROM raw.customers;
CREATE TABLE mart.mailing AS SELECT email FROM mart.contacts;
"""
RAW, CONTACTS, MAILING = (f"dataset:{NS}:shop.{t}" for t in ("raw.customers", "mart.contacts", "mart.mailing"))


def field(ds: str, column: str) -> str:
    return f"datasetField:{ds.removeprefix('dataset:')}:{column}"


def events() -> list[dict[str, Any]]:
    return steward_events(SQL)


EVENTS = events


def node(page: Any, ds: str) -> Any:
    return page.locator(f'.react-flow__node[data-id="{ds}"]')


def column(page: Any, ds: str, name: str) -> Any:
    return page.locator(f'[data-testid="column-row"][data-field-id="{field(ds, name)}"]')


def test_tag_and_quality_badges_downstream(page: Any) -> None:
    page.goto("/asset?" + urlencode({"node": RAW, "depth": "4", "direction": "downstream"}))
    expect(page.locator('[data-testid="lineage-canvas"]')).to_have_attribute("data-ready", "true")
    for ds in (RAW, CONTACTS, MAILING):  # open every column list (the focus node's opens by itself)
        toggle = node(page, ds).get_by_test_id("toggle-columns")
        if toggle.get_attribute("aria-expanded") != "true":
            toggle.click()
        expect(toggle).to_have_attribute("aria-expanded", "true")

    # the declared tags at the source: neither inherited
    for name in ("email", "phone"):
        badge = column(page, RAW, name).get_by_test_id("column-tag")
        expect(badge).to_have_attribute("data-tag", "PII")
        expect(badge).to_have_attribute("data-inherited", "false")
    # one and two hops downstream the email carries PII by value, marked inherited; the hash does not, nor the id
    for ds in (CONTACTS, MAILING):
        badge = column(page, ds, "email").get_by_test_id("column-tag")
        expect(badge).to_have_attribute("data-tag", "PII")
        expect(badge).to_have_attribute("data-inherited", "true")
        # the tooltip names the column it comes from and the path, ending at this column
        title = re.compile(r"^PII, inherited from shop\.raw\.customers\.email \(shop\.raw\.customers\.email → .*"
                           + re.escape(ds.rsplit(":", 1)[1]) + r"\.email\)$")  # fmt: skip
        expect(badge).to_have_attribute("title", title)
    expect(column(page, CONTACTS, "phone_hash").get_by_test_id("column-tag")).to_have_count(0)
    expect(column(page, CONTACTS, "id").get_by_test_id("column-tag")).to_have_count(0)

    # data quality: the failing source, and every dataset built from it flagged
    expect(node(page, RAW).get_by_test_id("node-quality-badge")).to_have_attribute("data-status", "failing")
    for ds in (CONTACTS, MAILING):
        expect(node(page, ds).get_by_test_id("node-quality-badge")).to_have_attribute("data-status", "upstream")
        expect(node(page, ds).get_by_test_id("node-quality-badge")).to_have_text("upstream issue")

    # where PII flows: from the quality tab of the last hop
    node(page, MAILING).locator(".lnode-head").click()
    pane = page.get_by_test_id("details-pane")
    pane.get_by_test_id("pane-tab-quality").click()
    pane.get_by_test_id("tag-flow-toggle").first.click()
    flow = pane.get_by_test_id("tag-flow")
    expect(flow).to_have_attribute("data-tag", "PII")
    carried = flow.get_by_test_id("tag-flow-column")
    expect(carried).to_have_count(4)  # customers.email, customers.phone, contacts.email, mailing.email
    ids = sorted(carried.nth(i).get_attribute("data-id") for i in range(4))
    assert ids == sorted([field(RAW, "email"), field(RAW, "phone"), field(CONTACTS, "email"), field(MAILING, "email")])
    stop = flow.get_by_test_id("tag-flow-stop")
    expect(stop).to_have_count(1)
    expect(stop).to_have_attribute("data-id", field(CONTACTS, "phone_hash"))
    expect(stop).to_contain_text("stopped: masked")
