"""Every asset of the store helper's HR payroll story (tests/fixtures/stories/hr_payroll.json)
opens in the browser: lineage drawn with the asset in it, schema or runs and events shown, no
JavaScript error (the page fixture fails the test on any)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest

pytestmark = [pytest.mark.browser]

STORY = Path(__file__).resolve().parents[1] / "fixtures" / "stories" / "hr_payroll.json"


def EVENTS() -> list[dict[str, Any]]:  # noqa: N802 - the name the server fixture looks for
    events: list[dict[str, Any]] = json.loads(STORY.read_text())
    return events


def test_every_story_asset_opens(page: Any, server: str) -> None:
    recent = httpx.get(f"{server}/api/v1/graph/recent", params={"limit": 100}).json()["items"]
    assert len(recent) >= 5, recent
    for item in recent:
        page.goto("/asset?" + urlencode({"node": item["id"]}))
        page.wait_for_selector('[data-testid="lineage-canvas"][data-ready="true"]')
        drawn = page.eval_on_selector_all("[data-node-id]", "els => els.map(e => e.dataset.nodeId)")
        assert item["id"] in drawn, (item["id"], drawn)
        assert page.get_by_test_id("asset-name").inner_text() == item["name"]
        if item["type"] == "JOB" and item.get("latestRun"):
            page.get_by_test_id("tab-runs").click()
            page.get_by_test_id("run-row").first.wait_for()
        elif item["type"] == "DATASET":
            page.get_by_test_id("tab-schema").click()
            page.locator('[data-testid="schema-table"], .empty').first.wait_for()
        page.get_by_test_id("tab-events").click()
        page.locator('[data-testid="event-item"], .empty').first.wait_for()
        assert page.get_by_test_id("event-item").count() > 0 or item["type"] == "JOB"
