"""A dataset's quality tab in real Chromium: the data-quality status, the failing source upstream with its
path, and the columns' tags (a PII tag inherited along column lineage, marked with its origin) — on a
pipeline the SQL engine reported, a failing assertion and a steward's tags facet on the source."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import pytest
from playwright.sync_api import expect

from .fixtures.steward_events import NS, steward_events

pytestmark = [pytest.mark.browser]

SQL = """
CREATE TABLE raw.customers (id int, email text, phone text);
CREATE TABLE mart.contacts AS SELECT id, lower(email) AS email, md5(phone) AS phone_hash FROM raw.customers;
"""
RAW, MART = f"dataset:{NS}:shop.raw.customers", f"dataset:{NS}:shop.mart.contacts"


def events() -> list[dict[str, Any]]:
    return steward_events(SQL)


EVENTS = events


def test_the_quality_tab_shows_the_failing_source_upstream_and_inherited_tags(page: Any) -> None:
    page.goto("/asset?" + urlencode({"node": MART, "depth": "1"}))
    expect(page.locator('[data-testid="lineage-canvas"]')).to_have_attribute("data-ready", "true")
    page.locator(f'.react-flow__node[data-id="{MART}"] .lnode-head').click()
    pane = page.get_by_test_id("details-pane")
    pane.get_by_test_id("pane-tab-quality").click()
    expect(pane.get_by_test_id("quality-status")).to_have_attribute("data-status", "unknown")  # no checks of its own
    expect(pane.get_by_test_id("quality-flagged")).to_be_visible()
    cause = pane.get_by_test_id("quality-cause")
    expect(cause).to_have_attribute("data-id", RAW)
    expect(cause).to_contain_text("assertion not_null on email failed")
    tags = pane.get_by_test_id("tag-column")
    expect(tags).to_have_count(1)  # email inherits PII; the phone's hash does not (masked)
    expect(tags).to_have_attribute("data-inherited", "true")
    expect(tags).to_contain_text("email")
    expect(tags).to_contain_text("PII")
    expect(tags).to_contain_text("inherited from")
