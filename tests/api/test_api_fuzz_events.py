"""Structured fuzzing of ingest (Hypothesis), on SQLite and PostgreSQL: near-valid events — the
valid template of hostile_payloads.py with a few mutations (a value replaced by hostile text, a huge
or non-finite number, a wrong type, a nested structure; a key removed or added) — posted one by one
and in batches. Every answer is below 500 and a 4xx is the standard error body; every event that was
acknowledged can be read back and is projected (GET /api/v1/status counts no failed event).

Examples are derandomized under CI (``CI`` set), random locally; a failure prints the shrunk event.
"""

from __future__ import annotations

import copy
import json
import os
from typing import Any

import pytest
from api_helpers import BASE, make_settings
from fastapi.testclient import TestClient
from hostile_payloads import _paths, template
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from headwater.api import create_app
from headwater.store import Store

TEMPLATE = template()
PATHS = [p for p, _ in _paths(TEMPLATE) if p]

# every code point, surrogates and NUL included; names and keys drawn from it
ANY_CHAR = st.characters(min_codepoint=0, max_codepoint=0x10FFFF, exclude_categories=())
TEXT = st.one_of(
    st.text(ANY_CHAR, max_size=20),
    st.sampled_from(["", "\x00", "\ud800", "a:b/c#%20 <x>", "é" * 300]),
    st.integers(0, 3).map(lambda k: "x" * (10**k * 600)),
)
NUMBER = st.one_of(
    st.integers(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0, -0.0, 1e308, 2**64, -(2**63)]),
)
SCALAR = st.one_of(st.none(), st.booleans(), NUMBER, TEXT)
VALUE = st.recursive(
    SCALAR,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(ANY_CHAR, max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


@st.composite
def near_valid_events(draw: st.DrawFn) -> dict[str, Any]:
    event = copy.deepcopy(TEMPLATE)
    event["run"]["runId"] = str(draw(st.uuids()))
    for _ in range(draw(st.integers(0, 3))):
        path = draw(st.sampled_from(PATHS))
        target: Any = event
        try:
            for step in path[:-1]:
                target = target[step]
            what = draw(st.sampled_from(["replace", "delete", "add"]))
            if what == "replace":
                target[path[-1]] = draw(VALUE)
            elif what == "delete" and isinstance(target, dict):
                target.pop(path[-1], None)
            elif isinstance(target, dict):
                target[draw(st.text(ANY_CHAR, max_size=8))] = draw(VALUE)
        except (KeyError, IndexError, TypeError):
            continue  # an earlier mutation changed the shape: skip this one
    return event


def body(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=True, allow_nan=True).encode()


def check(answer: Any) -> None:
    assert answer.status_code < 500, answer.text[:500]
    if answer.status_code >= 400:
        error = answer.json()["error"]
        assert set(error) == {"code", "message", "details"} and error["message"]


FUZZ = settings(
    max_examples=120,
    deadline=None,
    derandomize=bool(os.environ.get("CI")),
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
    database=None,
)


@pytest.fixture
def http(store: Store) -> TestClient:
    return TestClient(create_app(make_settings(), store), base_url=BASE)


def _projected(http: TestClient, store: Store, ids: list[str]) -> None:
    assert store.catch_up().caught_up
    status = http.get("/api/v1/status").json()
    assert status["projection"]["failed"] == 0, status["projection"]["failedEvents"][:3]
    for event_id in ids:
        assert http.get(f"/api/v1/events/{event_id}").status_code == 200


@FUZZ
@given(event=near_valid_events())
def test_near_valid_events_one_by_one(http: TestClient, store: Store, event: dict[str, Any]) -> None:
    answer = http.post("/api/v1/lineage", content=body(event), headers={"Content-Type": "application/json"})
    check(answer)
    if answer.status_code < 300:
        _projected(http, store, [answer.json()["id"]])


@FUZZ
@given(events=st.lists(near_valid_events(), min_size=1, max_size=4))
def test_near_valid_batches(http: TestClient, store: Store, events: list[dict[str, Any]]) -> None:
    answer = http.post("/api/v1/lineage/batch", content=body(events), headers={"Content-Type": "application/json"})
    check(answer)
    if answer.status_code < 300:
        _projected(http, store, list(answer.json()["ids"]))
