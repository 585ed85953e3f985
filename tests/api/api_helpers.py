"""Helpers shared by the API tests (imported by name; conftest.py only holds fixtures)."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx
from api_events import Story
from fastapi import FastAPI

from headwater.settings import Settings, load_settings

BASE = "http://headwater.test"


def make_settings(**overrides: Any) -> Settings:
    """Settings from defaults and ``overrides`` only (the test's environment does not leak in).

    Large bodies are parsed in the app's own process unless a test asks for ``parse_processes``: an app driven
    through the ASGI transport is never shut down, so its worker processes would outlive it (the parse pool's
    own tests, and the hostile-input suite, turn it on and close it)."""
    overrides.setdefault("parse_processes", 0)
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


def module_db_url(kind: str, tmp: Path, pg_server_url: str | None) -> tuple[str, Callable[[], None] | None]:
    """A new database URL (SQLite file in ``tmp`` or a fresh PostgreSQL database) and how to drop it."""
    if kind == "sqlite":
        return f"sqlite:///{tmp / 'story.db'}", None
    import psycopg

    assert pg_server_url is not None
    name = f"hw_api_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(pg_server_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')

    def drop() -> None:
        with psycopg.connect(pg_server_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    return urlunsplit(urlsplit(pg_server_url)._replace(path=f"/{name}")), drop


class Loaded:
    """An app over a store holding the story, sent through the ingest endpoint."""

    def __init__(self, app: FastAPI, story: Story, ids: list[str]) -> None:
        self.app = app
        self.story = story
        self.ids = ids

    def client(self) -> httpx.AsyncClient:
        return client_for(self.app)
