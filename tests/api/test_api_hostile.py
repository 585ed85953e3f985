"""2,000+ hostile requests (tests/api/hostile_payloads.py) against the ingest endpoints, in-process on
SQLite and PostgreSQL: never a 5xx, every 4xx is the standard error body and names the problem,
and whatever was acknowledged is projected into the graph (none recorded as failed)."""

from __future__ import annotations

import time

import httpx
import pytest
from api_helpers import client_for, make_settings
from fastapi import FastAPI
from hostile_payloads import answer_problem, hostile_requests

from headwater.api import create_app
from headwater.store import Store

pytestmark = pytest.mark.anyio


async def post_all(client: httpx.AsyncClient) -> tuple[int, dict[int, int], list[str]]:
    count, statuses, wrong = 0, {}, []
    for h in hostile_requests():
        count += 1
        started = time.monotonic()
        answer = await client.post(h.path, content=h.body, headers=h.headers)
        took = time.monotonic() - started
        statuses[answer.status_code] = statuses.get(answer.status_code, 0) + 1
        problem = answer_problem(h, answer.status_code, answer.text)
        if took > 10:
            problem = f"took {took:.1f} s"
        if problem is not None:
            wrong.append(f"{h.name}: {problem}")
    return count, statuses, wrong


async def test_hostile_requests_never_get_a_5xx_and_each_error_names_its_problem(store: Store) -> None:
    app = create_app(make_settings(parse_processes=1), store)  # bodies from 256 kB parsed in a worker process
    try:
        await _hostile(app, store)
    finally:
        app.state.headwater.parse_pool.close()


async def _hostile(app: FastAPI, store: Store) -> None:
    async with client_for(app) as client:
        count, statuses, wrong = await post_all(client)
        assert count >= 2000
        assert not wrong, f"{len(wrong)} of {count} answers are wrong ({statuses}):\n" + "\n".join(wrong[:40])
        assert sum(n for s, n in statuses.items() if s >= 500) == 0
        # everything acknowledged is in the graph: projected, none recorded as failed
        assert store.catch_up().caught_up
        status = await client.get("/api/v1/status")
        assert status.status_code == 200, status.text
        assert status.json()["projection"]["failed"] == 0, status.json()
