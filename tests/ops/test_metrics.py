"""``/metrics``, ``/livez``, ``/readyz`` and JSON logs of a real ``headwater serve``, over real HTTP.

Every figure is written by hand from what the test sent: three events stored, one sent again, one with a
warning (an eventTime without a zone), one body that is not JSON, one event of an unknown type."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from headwater.api import create_app
from headwater.settings import load_settings
from headwater.store import Store
from live_server import ServeProcess, serve_env

from .faults import big_event


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of a Prometheus text answer: (name, sorted labels) → value."""
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def test_metrics_health_and_json_logs_of_a_real_server(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'headwater.db'}"
    env = serve_env(tmp_path / "data", HEADWATER_LOG_FORMAT="json")
    with ServeProcess(url, tmp_path / "serve.log", env) as server, httpx.Client(base_url=server.url) as http:
        first, second = big_event(0, size=200), big_event(1, size=200)
        naive = big_event(2, size=200)
        naive["eventTime"] = "2026-05-01T10:00:02"  # no zone: read as UTC, with a warning
        assert http.post("/api/v1/lineage", json=first).status_code == 201
        assert http.post("/api/v1/lineage", json=second).status_code == 201
        assert http.post("/api/v1/lineage", json=first).status_code == 200  # the same event again
        warned = http.post("/api/v1/lineage", json=naive)
        assert warned.status_code == 201 and len(warned.json()["warnings"]) == 1, warned.text
        bad = http.post("/api/v1/lineage", content=b"{", headers={"Content-Type": "application/json"})
        assert bad.status_code == 400
        unknown_type = big_event(3, size=200) | {"eventType": "EXPLODED"}
        assert http.post("/api/v1/lineage", json=unknown_type).status_code == 422
        assert http.get("/api/v1/graph/lineage", params={"nodeId": "dataset:ops:out_1"}).status_code == 200

        answer = http.get("/metrics")
        assert answer.status_code == 200
        assert answer.headers["content-type"].startswith("text/plain; version=")  # the text format
        got = samples(answer.text)
        assert got[("headwater_events_acknowledged_total", (("outcome", "stored"),))] == 3
        assert got[("headwater_events_acknowledged_total", (("outcome", "duplicate"),))] == 1
        assert got[("headwater_ingest_refused_total", (("reason", "invalid_json"),))] == 1
        assert got[("headwater_ingest_refused_total", (("reason", "invalid_event"),))] == 1
        assert got[("headwater_validation_warnings_total", ())] == 1
        assert got[("headwater_events_with_warnings", ())] == 1
        assert got[("headwater_log_position", ())] == 3
        assert got[("headwater_projection_lag_events", ())] == 0  # the graph read waited for it
        assert got[("headwater_projection_lag_seconds", ())] == 0
        assert got[("headwater_projection_failed_events", ())] == 0
        assert got[("headwater_store_up", ())] == 1
        assert got[("headwater_request_duration_seconds_count", (("family", "ingest"),))] == 6
        assert got[("headwater_request_duration_seconds_count", (("family", "graph"),))] == 1
        pid = str(server.pid)
        assert got[("headwater_parse_workers", (("pid", pid), ("state", "configured")))] == 1
        assert got[("headwater_db_connections", (("pid", pid), ("state", "size")))] == 5

        assert http.get("/livez").json() == {"status": "ok"}
        ready = http.get("/readyz")
        assert ready.status_code == 200 and ready.json()["status"] == "ready", ready.text

    lines = [json.loads(line) for line in server.log.read_text().splitlines() if line.startswith("{")]
    refused = [r for r in lines if r["logger"] == "headwater.api" and r["message"].startswith("refused")]
    assert len(refused) == 2 and {r["level"] for r in refused} == {"WARNING"}, lines
    assert {"time", "pid"} <= set(refused[0])
    assert any(r["logger"] == "uvicorn.error" and "Application startup complete" in r["message"] for r in lines)


def test_metrics_need_a_read_token_when_tokens_are_set_and_probes_do_not(tmp_path: Path) -> None:
    settings = load_settings({}, environ={"HEADWATER_READ_TOKENS": "r3ad"})
    with Store.open(f"sqlite:///{tmp_path / 'headwater.db'}") as store:
        http = TestClient(create_app(settings, store), base_url="http://localhost")
        assert http.get("/metrics").status_code == 401
        assert http.get("/metrics", headers={"Authorization": "Bearer r3ad"}).status_code == 200
        assert http.get("/readyz").status_code == 200
        assert http.get("/livez").status_code == 200
