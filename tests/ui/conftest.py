"""End-to-end fixtures: one real ``headwater serve`` per module (subprocess, temp SQLite or, for a
module with ``SERVER_DB = "postgresql"``, a new PostgreSQL database; free port) filled over HTTP with the HR payroll events, and real headless Chromium via Playwright."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
import pytest

from databases import pg_database
from headwater.ui import static_dir

from .fixtures.hr_events import hr_events

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "test-artifacts" / "ui"
CHROMIUM = os.environ.get("HEADWATER_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-quic", "--no-first-run", "--disable-component-update", "--disable-sync"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Base URL of a running ``headwater serve`` holding the module's events: its ``EVENTS()``
    when it defines one, else the HR payroll events of fixtures/hr_events.py. A module's
    ``SERVER_ENV`` adds environment variables (tokens) to the server."""
    if not (static_dir() / "index.html").is_file():
        pytest.fail(f"the UI is not built in {static_dir()}: run `cd ui && npm ci && npm run build`")
    tmp = tmp_path_factory.mktemp("ui-server")
    with ExitStack() as stack:
        # a module's SERVER_DB = "postgresql" serves from a new database on the test PostgreSQL server
        if getattr(request.module, "SERVER_DB", "sqlite") == "postgresql":
            db = stack.enter_context(pg_database(request.getfixturevalue("pg_server_url"), prefix="hw_ui", migrated=True))
        else:
            db = f"sqlite:///{tmp / 'hw.db'}"
        yield from _serve(request, tmp, db)


def _serve(request: pytest.FixtureRequest, tmp: Path, db: str) -> Iterator[str]:
    port = _free_port()
    log = (tmp / "serve.log").open("w")
    env = {**os.environ, "HEADWATER_DATA_DIR": str(tmp)}
    for var in ("HEADWATER_DB", "HEADWATER_READ_TOKENS", "HEADWATER_WRITE_TOKENS"):
        env.pop(var, None)
    extra_env: dict[str, str] = getattr(request.module, "SERVER_ENV", {})
    env.update(extra_env)
    write_token = extra_env.get("HEADWATER_WRITE_TOKENS", "").split(",")[0]
    headers = {"Authorization": f"Bearer {write_token}"} if write_token else {}
    proc = subprocess.Popen(
        [sys.executable, "-m", "headwater", "serve", "--port", str(port), "--db", db],
        stdout=log, stderr=subprocess.STDOUT, env=env,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                pytest.fail(f"headwater serve exited with {proc.returncode}:\n{(tmp / 'serve.log').read_text()}")
            try:
                if httpx.get(f"{base}/api/v1/graph/namespaces", timeout=2, headers=headers).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"headwater serve did not answer within 60 s:\n{(tmp / 'serve.log').read_text()}")
            time.sleep(0.2)
        events = getattr(request.module, "EVENTS", hr_events)()
        answer = httpx.post(f"{base}/api/v1/lineage/batch", json=events, timeout=60, headers=headers)
        assert answer.status_code == 200, answer.text
        assert answer.json()["stored"] == len(events)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser: Any, server: str, request: pytest.FixtureRequest) -> Iterator[Any]:
    """A fresh page on the server; fails the test on any uncaught JavaScript error."""
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 1600, "height": 950}, base_url=server, accept_downloads=True)
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.set_default_timeout(20_000)
    expect.set_options(timeout=20_000)  # every expect() retries this long (a busy CI machine)
    yield pg
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    pg.screenshot(path=str(ARTIFACTS / f"{request.node.name}.png"))
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"
