"""The big graph answers are encoded with orjson (api/graph.json_answer): the same bytes FastAPI's own
encoding writes for the same dict — on seeded random JSON values (floats of every magnitude, NaN,
big integers, control characters, non-ASCII, U+2028) and on real answers of the story."""

from __future__ import annotations

import random
from typing import Any

import httpx
import pytest
from api_events import BETWEEN_1_AND_2, PAYROLL, node_id
from api_helpers import Loaded
from fastapi import FastAPI

from headwater.api.graph import json_answer

pytestmark = pytest.mark.anyio

PAYROLL_ID = node_id("dataset", PAYROLL)
LATER = "2027-06-01T00:00:00Z"


def reference_app() -> tuple[FastAPI, dict[str, Any]]:
    """A route answering a dict the default FastAPI way (``-> dict[str, Any]``), and one through json_answer."""
    app = FastAPI()
    holder: dict[str, Any] = {}

    @app.get("/default")
    def default() -> dict[str, Any]:
        value: dict[str, Any] = holder["value"]
        return value

    @app.get("/fast", response_model=dict[str, Any])
    def fast() -> Any:
        return json_answer(holder["value"])

    return app, holder


async def both(app: FastAPI, holder: dict[str, Any], value: dict[str, Any]) -> tuple[httpx.Response, httpx.Response]:
    holder["value"] = value
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
        return await client.get("/default"), await client.get("/fast")


def random_text(rng: random.Random) -> str:
    pools = [
        range(0x20),
        range(0x20, 0x7F),
        range(0x7F, 0x100),
        range(0x100, 0x800),
        range(0x2020, 0x2030),
        range(0xE000, 0xE010),
        range(0x1F600, 0x1F610),
    ]
    return "".join(chr(rng.choice(rng.choice(pools))) for _ in range(rng.randrange(12)))


def random_number(rng: random.Random) -> Any:
    kind = rng.randrange(7)
    if kind == 0:
        return rng.randrange(-(2**63), 2**64)
    if kind == 1:
        return rng.choice([0.0, -0.0, float("nan"), float("inf"), float("-inf"), 1e16, 1e-7, 1e22, 0.1, 5e-324])
    if kind == 2:
        return rng.uniform(-1, 1) * 10 ** rng.randrange(-30, 30)
    if kind == 3:
        return float(rng.randrange(-(10**17), 10**17))
    return rng.randrange(-1000, 1000) / rng.choice([1, 4, 10, 3])


def random_value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(8 if depth < 3 else 5)
    if kind == 0:
        return rng.choice([None, True, False])
    if kind in (1, 2):
        return random_number(rng)
    if kind in (3, 4):
        return random_text(rng)
    if kind in (5, 6):
        return {random_text(rng): random_value(rng, depth + 1) for _ in range(rng.randrange(4))}
    return [random_value(rng, depth + 1) for _ in range(rng.randrange(4))]


async def test_orjson_bytes_equal_fastapi_bytes_on_random_values() -> None:
    app, holder = reference_app()
    rng = random.Random(20261123)
    for _ in range(300):
        value = {"v": random_value(rng), "w": [random_number(rng) for _ in range(5)], "s": random_text(rng)}
        default, fast = await both(app, holder, value)
        assert (fast.status_code, fast.headers["content-type"], fast.content) == (
            default.status_code,
            default.headers["content-type"],
            default.content,
        ), value


async def test_integers_beyond_64_bits_go_fastapi_s_way() -> None:
    app, holder = reference_app()
    default, fast = await both(app, holder, {"n": 2**70, "m": -(2**64)})
    assert fast.content == default.content == b'{"n":1180591620717411303424,"m":-18446744073709551616}'


@pytest.mark.parametrize(
    ("path", "params"),
    [
        ("/api/v1/graph/lineage", {"depth": 20}),
        ("/api/v1/graph/lineage", {"depth": 20, "datasetsOnly": "true", "columns": "true"}),
        ("/api/v1/graph/lineage", {"depth": 3, "at": BETWEEN_1_AND_2}),
        ("/api/v1/graph/column-lineage", {}),
        ("/api/v1/graph/impact", {}),
        ("/api/v1/graph/compare", {"from": BETWEEN_1_AND_2, "to": LATER}),
    ],
)
async def test_graph_answers_are_the_bytes_fastapi_would_write(
    loaded: Loaded, path: str, params: dict[str, Any]
) -> None:
    async with loaded.client() as client:
        answer = await client.get(path, params={"nodeId": PAYROLL_ID, **params})
    assert answer.status_code == 200 and answer.headers["content-type"] == "application/json"
    # the value the route answered (read back from its bytes, not asked of the graph again), as FastAPI would write it
    expected = answer.json()
    app, holder = reference_app()
    default, _ = await both(app, holder, expected)
    assert answer.content == default.content
    assert len(answer.json()) > 0
