"""Catalog changes while producers send events, on a real ``headwater serve`` (thread) over SQLite and
PostgreSQL: every change and every event is acknowledged (no "database is locked": catalog writes queue
behind the projector), and the curation history holds every edit."""

from __future__ import annotations

import threading
import uuid
from typing import Any

import httpx

from headwater.api import create_app
from headwater.settings import load_settings
from headwater.store import Store
from live_server import ThreadServer

ADMIN = {"Authorization": "Bearer admin-token"}


def _event(i: int) -> dict[str, Any]:
    return {
        "eventType": "COMPLETE",
        "eventTime": "2026-11-20T00:00:00Z",
        "producer": "https://test.test",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": str(uuid.uuid4())},
        "job": {"namespace": "etl", "name": f"job_{i}"},
        "inputs": [{"namespace": "wh", "name": f"in_{i}"}],
        "outputs": [{"namespace": "wh", "name": f"out_{i}"}],
    }


def test_catalog_changes_and_events_at_once(store_url: str) -> None:
    store = Store.open(store_url)
    app = create_app(load_settings({"write_tokens": "admin-token"}, environ={}), store)
    try:
        with ThreadServer(app) as served, httpx.Client(base_url=served.url, headers=ADMIN, timeout=60) as http:
            assert http.post("/api/v1/catalog/domains", json={"id": "d"}).status_code == 201
            assert http.post("/api/v1/catalog/projects", json={"id": "p", "domain": "d"}).status_code == 201
            body = {"project": "p", "namespace": "wh", "name": "curated", "custom": True}
            asset = http.post("/api/v1/catalog/assets", json=body).json()["id"]
            failures: list[str] = []

            def send() -> None:
                with httpx.Client(base_url=served.url, headers=ADMIN, timeout=60) as client:
                    for start in range(0, 300, 10):
                        answer = client.post(
                            "/api/v1/lineage/batch", json=[_event(i) for i in range(start, start + 10)]
                        )
                        if answer.status_code != 200:
                            failures.append(f"events: {answer.status_code} {answer.text[:200]}")

            sender = threading.Thread(target=send)
            sender.start()
            for n in range(15):
                answer = http.patch(f"/api/v1/catalog/assets/{asset}", json={"tags": [f"t{n}"]})
                if answer.status_code != 200:
                    failures.append(f"edit {n}: {answer.status_code} {answer.text[:200]}")
            sender.join()
            assert failures == []
            versions = http.get(f"/api/v1/catalog/assets/{asset}/versions").json()["versions"]
            assert [v["version"] for v in versions] == list(range(16, 0, -1))
            assert versions[0]["metadata"]["tags"] == ["t14"]
    finally:
        store.close()
