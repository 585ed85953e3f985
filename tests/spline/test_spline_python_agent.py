"""The real Python ``spline-agent`` (PyPI) against a real server: a decorated function's reads, write
and failure arrive as lineage (producer API v1.1, integer operation ids, as that agent sends them)."""

from __future__ import annotations

import pytest
from spline_agent import inputs, output, track_lineage
from spline_agent.dispatchers.http_dispatcher import HttpLineageDispatcher
from spline_agent.enums import WriteMode
from spline_helpers import Served

from headwater.model.naming import path_dataset


def _dispatcher(s: Served) -> HttpLineageDispatcher:
    return HttpLineageDispatcher(
        base_url=s.producer,
        plans_url="execution-plans",
        events_url="execution-events",
        content_type="application/vnd.absa.spline.producer.v1.1+json",
    )


def test_python_agent_lineage_arrives(served: Served) -> None:
    dispatcher = _dispatcher(served)

    @track_lineage(name="billing_rollup", dispatcher=dispatcher)
    @inputs("{orders}", "{customers}")
    @output("{target}", WriteMode.OVERWRITE)
    def rollup(orders: str, customers: str, target: str) -> int:
        return 42

    assert (
        rollup(
            "file:/data/shop/orders.csv", "s3a://shop-bucket/customers/date=2026-01-01", target="file:/data/shop/rollup"
        )
        == 42
    )

    target = path_dataset("file:/data/shop/rollup")
    orders = path_dataset("file:/data/shop/orders.csv")
    customers = path_dataset("s3a://shop-bucket/customers/date=2026-01-01")
    graph = served.http.get(
        "/api/v1/graph/lineage", params={"nodeId": f"dataset:{target[0]}:{target[1]}", "direction": "upstream"}
    ).json()
    job = "job:spline:billing_rollup.write.rollup"
    assert {f"dataset:{orders[0]}:{orders[1]}", f"dataset:{customers[0]}:{customers[1]}", job} <= {
        n["id"] for n in graph["nodes"]
    }
    runs = served.http.get("/api/v1/graph/runs", params={"nodeId": job}).json()["runs"]
    assert [r["state"] for r in runs] == ["COMPLETE"]
    plan_id = served.http.get("/api/v1/events", params={"nodeId": job}).json()["events"][0]["event"]["job"]["facets"][
        "spline"
    ]["planId"]
    raw = served.http.get(f"/spline/producer/execution-plans/{plan_id}")
    assert raw.headers["X-Spline-API-Version"] == "1.1"
    assert raw.json()["operations"]["other"][0]["extra"]["function_name"] == "rollup"


def test_python_agent_failure_is_a_failed_run(served: Served) -> None:
    @track_lineage(name="billing_rollup", dispatcher=_dispatcher(served))
    @inputs("{source}")
    @output("{target}", WriteMode.APPEND)
    def broken(source: str, target: str) -> None:
        raise ValueError("no rows for 2026-01-01")

    with pytest.raises(ValueError, match="no rows"):
        broken("file:/data/shop/orders.csv", "file:/data/shop/broken")
    runs = served.http.get("/api/v1/graph/runs", params={"nodeId": "job:spline:billing_rollup.write.broken"}).json()
    assert [(r["state"], r["errorMessage"]) for r in runs["runs"]] == [("FAIL", "no rows for 2026-01-01")]
