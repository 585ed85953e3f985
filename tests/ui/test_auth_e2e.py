"""A server started with read tokens: the UI asks for a token, then reads with it."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import pytest

from .fixtures.hr_events import EMP_COMP, ds

pytestmark = [pytest.mark.browser]

READ = "ui-read-token-1"
WRITE = "ui-write-token-1"
SERVER_ENV = {"HEADWATER_READ_TOKENS": READ, "HEADWATER_WRITE_TOKENS": WRITE}


def test_token_prompt_then_reads_with_the_token(page: Any) -> None:
    page.goto("/asset?" + urlencode({"node": ds(EMP_COMP)}))
    prompt = page.get_by_test_id("token-prompt")
    prompt.wait_for()
    assert page.get_by_test_id("lineage-canvas").count() == 0

    page.get_by_test_id("token-input").fill("wrong-token")
    page.get_by_test_id("token-submit").click()
    page.get_by_test_id("token-prompt").wait_for()
    assert "not accepted" in page.get_by_test_id("token-prompt").inner_text()

    page.get_by_test_id("token-input").fill(READ)
    page.get_by_test_id("token-submit").click()
    page.wait_for_selector('[data-testid="lineage-canvas"][data-ready="true"]')
    assert page.get_by_test_id("asset-name").inner_text() == EMP_COMP
    assert page.get_by_test_id("token-prompt").count() == 0
