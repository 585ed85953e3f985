"""A server whose reads are open but that holds tokens: a tab signed in with a token the server does not know
(replaced, revoked, mistyped) is told so, and goes on without one when its user leaves the prompt empty."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import pytest
from playwright.sync_api import expect

from .fixtures.hr_events import EMP_COMP, ds

pytestmark = [pytest.mark.browser]

SERVER_ENV = {"HEADWATER_WRITE_TOKENS": "ui-write-token-2"}  # reads need no token; writes do


def test_a_token_the_server_does_not_know_is_said_so_and_left(page: Any) -> None:
    page.goto("/asset?" + urlencode({"node": ds(EMP_COMP)}))
    expect(page.get_by_test_id("lineage-canvas")).to_have_attribute("data-ready", "true")  # open reads
    prompt = page.get_by_test_id("token-prompt")
    expect(prompt).to_have_count(0)

    page.get_by_test_id("sign-in").click()
    page.get_by_test_id("token-input").fill("hwu_replaced-long-ago")
    page.get_by_test_id("token-submit").click()
    expect(page.get_by_test_id("token-refused")).to_contain_text("replaced, revoked or expired")
    expect(prompt).not_to_contain_text("needs a token to read")  # it does not: the token is what is wrong

    page.get_by_test_id("token-submit").click()  # left empty: on without a token
    expect(page.get_by_test_id("lineage-canvas")).to_have_attribute("data-ready", "true")
    expect(page.get_by_test_id("asset-name")).to_have_text(EMP_COMP)
    expect(prompt).to_have_count(0)
    assert page.evaluate("sessionStorage.getItem('headwater.token')") is None
