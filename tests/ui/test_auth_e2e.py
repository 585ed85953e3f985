"""A server started with read tokens: the UI asks for a token, then reads with it."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import pytest
from playwright.sync_api import expect

from .fixtures.hr_events import EMP_COMP, ds

pytestmark = [pytest.mark.browser]

READ = "ui-read-token-1"
WRITE = "ui-write-token-1"
SERVER_ENV = {"HEADWATER_READ_TOKENS": READ, "HEADWATER_WRITE_TOKENS": WRITE}


def test_token_prompt_then_reads_with_the_token(page: Any) -> None:
    page.goto("/asset?" + urlencode({"node": ds(EMP_COMP)}))
    prompt = page.get_by_test_id("token-prompt")
    expect(prompt).to_be_visible()
    expect(page.get_by_test_id("lineage-canvas")).to_have_count(0)  # nothing read without a token

    page.get_by_test_id("token-input").fill("wrong-token")
    page.get_by_test_id("token-submit").click()
    expect(prompt).to_contain_text("not accepted")
    expect(page.get_by_test_id("lineage-canvas")).to_have_count(0)

    page.get_by_test_id("token-input").fill(READ)
    page.get_by_test_id("token-submit").click()
    expect(page.get_by_test_id("lineage-canvas")).to_have_attribute("data-ready", "true")
    expect(page.get_by_test_id("asset-name")).to_have_text(EMP_COMP)
    expect(prompt).to_have_count(0)
