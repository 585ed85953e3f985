"""2,000+ hostile requests (tests/api/hostile_payloads.py) against the ingest endpoints, in-process on
SQLite and PostgreSQL: never a 5xx, every 4xx is the standard error body and names the problem,
and whatever was acknowledged is projected into the graph (none recorded as failed)."""

from __future__ import annotations

import time

import httpx
import pytest

from headwater.api import create_app
from headwater.store import Store

from api_helpers import client_for, make_settings
from hostile_payloads import Hostile, hostile_requests

pytestmark = pytest.mark.anyio


def check_answer(h: Hostile, answer: httpx.Response) -> str | None:
    """What is wrong with the answer to ``h`` (``None`` when it is right)."""
    if answer.status_code >= 500:
        return f"{answer.status_code}: {answer.text[:300]}"
    if answer.status_code < 400:
        return "accepted although its error should name " + repr(h.expect) if h.expect else None
    try:
        body = answer.json()
        error = body["error"]
        assert set(body) == {"error"} and set(error) == {"code", "message", "details"} and error["message"]
    except Exception:  # noqa: BLE001 - any failure to read the standard body is the finding
        return f"{answer.status_code} without the standard error body: {answer.text[:300]}"
    if h.expect is not None:
        said = error["message"] + " " + " ".join(f"{d.get('path')} {d.get('message')}" for d in error["details"])
        if h.expect not in said:
            return f"{answer.status_code} does not name {h.expect!r}: {said[:300]}"
    return None


async def post_all(client: httpx.AsyncClient) -> tuple[int, dict[int, int], list[str]]:
    count, statuses, wrong = 0, {}, []
    for h in hostile_requests():
        count += 1
        started = time.monotonic()
        answer = await client.post(h.path, content=h.body, headers=h.headers)
        took = time.monotonic() - started
        statuses[answer.status_code] = statuses.get(answer.status_code, 0) + 1
        problem = check_answer(h, answer)
        if took > 10:
            problem = f"took {took:.1f} s"
        if problem is not None:
            wrong.append(f"{h.name}: {problem}")
    return count, statuses, wrong


async def test_hostile_requests_never_get_a_5xx_and_each_error_names_its_problem(store: Store) -> None:
    app = create_app(make_settings(), store)
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
