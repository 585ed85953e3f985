"""What the fault tests share: big Spark-sized events, posting with acknowledgement bookkeeping, the graph
compared to a rebuild."""

from __future__ import annotations

import secrets
import time
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx

from headwater.store.canonical import event_id

PRODUCER = "https://github.com/headwater-lineage/headwater/tests/ops"
SCHEMA_URL = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"
BLOB_FACET = "https://example.com/ops/BlobRunFacet.json"


def big_event(n: int, *, size: int = 20_000, moment: datetime | None = None, job: str | None = None) -> dict[str, Any]:
    """A COMPLETE event of about ``size`` bytes (a custom run facet of random hex, as a Spark plan facet is:
    it does not compress), writing ``ops.out_<n % 7>`` from ``ops.in_<n % 5>``."""
    at = (moment or datetime(2026, 5, 1, tzinfo=UTC)) + timedelta(seconds=n)
    return {
        "eventType": "COMPLETE",
        "eventTime": at.isoformat().replace("+00:00", "Z"),
        "producer": PRODUCER,
        "schemaURL": SCHEMA_URL,
        "run": {
            "runId": str(uuid.uuid4()),
            "facets": {"blob": {"_producer": PRODUCER, "_schemaURL": BLOB_FACET, "data": secrets.token_hex(size // 2)}},
        },
        "job": {"namespace": "ops", "name": job or f"job_{n % 11}"},
        "inputs": [{"namespace": "ops", "name": f"in_{n % 5}"}],
        "outputs": [{"namespace": "ops", "name": f"out_{n % 7}"}],
    }


def post_batch(client: httpx.Client, url: str, batch: list[dict[str, Any]]) -> httpx.Response:
    return client.post(f"{url}/api/v1/lineage/batch", json=batch)


def ids(batch: list[dict[str, Any]]) -> set[str]:
    return {event_id(e) for e in batch}


def wait_caught_up(url: str, timeout: float = 120.0) -> dict[str, Any]:
    """``GET /api/v1/status``'s projection once the graph reflects the whole log (an assertion after ``timeout``)."""
    deadline = time.monotonic() + timeout
    while True:
        projection = dict(httpx.get(f"{url}/api/v1/status", timeout=30).json()["projection"])
        if projection["behind"] == 0:
            return projection
        assert time.monotonic() < deadline, projection
        time.sleep(0.2)
