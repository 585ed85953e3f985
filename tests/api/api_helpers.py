"""Helpers shared by the API tests (imported by name; conftest.py only holds fixtures)."""

from __future__ import annotations

from typing import Any

import httpx
from fastapi import FastAPI

from headwater.settings import Settings, load_settings

BASE = "http://headwater.test"


def make_settings(**overrides: Any) -> Settings:
    """Settings from defaults and ``overrides`` only (the test's environment does not leak in)."""
    return load_settings(overrides, environ={})


def client_for(app: FastAPI, **headers: str) -> httpx.AsyncClient:
    """An httpx client driving ``app`` in-process through the ASGI transport."""
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE, headers=headers)


def assert_error(answer: httpx.Response, status: int, code: str) -> dict[str, Any]:
    """The answer is the standard error body with this status and code; returns ``error``."""
    assert answer.status_code == status, answer.text
    body = answer.json()
    assert set(body) == {"error"}
    assert set(body["error"]) == {"code", "message", "details"}
    assert body["error"]["code"] == code
    assert body["error"]["message"]
    return dict(body["error"])
