"""Lenient validation over HTTP, on SQLite and PostgreSQL: Marquez's own test events are
acknowledged, stored as sent, their warnings kept with them (the events API) and counted (the status),
and projected into the graph; with ``validation = strict`` the off-schema ones answer 422."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from api_helpers import assert_error, client_for, make_settings

from headwater.api import create_app
from headwater.store import Store

pytestmark = pytest.mark.anyio

MARQUEZ_EVENTS = Path(__file__).resolve().parent.parent / "fixtures" / "marquez" / "events"
WARNED = {
    "listener_1.json",
    "listener_2.json",
    "event_without_schema_url.json",
    "event_required_no_timezone.json",
    "event_full.json",
}


async def test_marquez_test_events_are_acknowledged_kept_and_projected(store: Store) -> None:
    app = create_app(make_settings(), store)
    ids: dict[str, str] = {}
    async with client_for(app) as client:
        for path in sorted(MARQUEZ_EVENTS.glob("*.json")):
            answer = await client.post(
                "/api/v1/lineage", content=path.read_bytes(), headers={"Content-Type": "application/json"}
            )
            assert answer.status_code == 201, f"{path.name}: {answer.text}"
            body = answer.json()
            assert bool(body["warnings"]) == (path.name in WARNED), path.name
            ids[path.name] = body["id"]

        full = ids["event_full.json"]
        raw = await client.get(f"/api/v1/events/{full}")
        assert raw.text == (MARQUEZ_EVENTS / "event_full.json").read_text()  # stored as sent
        assert raw.headers["x-headwater-validation-warnings"] == "1"
        clean = await client.get(f"/api/v1/events/{ids['event_simple.json']}")
        assert clean.headers["x-headwater-validation-warnings"] == "0"

        listed = (await client.get("/api/v1/events", params={"limit": 100})).json()["events"]
        by_id = {e["id"]: e for e in listed}
        assert by_id[full]["warnings"] == [
            {
                "path": "$.inputs[0].inputFacets.dataQualityMetrics.columnMetrics",
                "message": "required field is missing",
            }
        ]
        assert by_id[ids["event_simple.json"]]["warnings"] == []
        naive = by_id[ids["event_required_no_timezone.json"]]
        assert naive["eventTime"] == "2020-12-28T19:51:01.641499Z"  # no zone: read as UTC, its microseconds kept
        assert [w["path"] for w in naive["warnings"]] == ["$.eventTime"]

        status = (await client.get("/api/v1/status")).json()
        assert status["validation"] == {"mode": "lenient", "eventsWithWarnings": len(WARNED)}
        assert status["projection"]["failed"] == 0 and status["status"] == "ok"

        # the leniently accepted event is in the graph like any other: its job, its input with its facets
        event = json.loads((MARQUEZ_EVENTS / "event_full.json").read_text())
        job = event["job"]
        node = await client.get(
            "/api/v1/graph/node", params={"type": "job", "namespace": job["namespace"], "name": job["name"]}
        )
        assert node.status_code == 200, node.text
        first_input = event["inputs"][0]
        assert f"dataset:{first_input['namespace']}:{first_input['name']}" in node.json()["inputs"]

        again = await client.post(
            "/api/v1/lineage",
            content=(MARQUEZ_EVENTS / "event_full.json").read_bytes(),
            headers={"Content-Type": "application/json"},
        )
        assert again.status_code == 200 and again.json()["duplicate"] is True
        status = (await client.get("/api/v1/status")).json()
        assert status["validation"]["eventsWithWarnings"] == len(WARNED)  # a duplicate adds nothing


async def test_strict_mode_refuses_them(store: Store) -> None:
    app = create_app(make_settings(validation="strict"), store)
    async with client_for(app) as client:
        for name in sorted(WARNED):
            answer = await client.post(
                "/api/v1/lineage",
                content=(MARQUEZ_EVENTS / name).read_bytes(),
                headers={"Content-Type": "application/json"},
            )
            assert_error(answer, 422, "invalid_event")
        status = (await client.get("/api/v1/status")).json()
        assert status["validation"] == {"mode": "strict", "eventsWithWarnings": 0}
        batch = [json.loads((MARQUEZ_EVENTS / n).read_text()) for n in ("event_simple.json", "listener_1.json")]
        assert_error(await client.post("/api/v1/lineage/batch", json=batch), 422, "invalid_event")


async def test_a_lenient_batch_lists_warnings_by_index(store: Store) -> None:
    app = create_app(make_settings(), store)
    batch = [json.loads((MARQUEZ_EVENTS / n).read_text()) for n in ("event_simple.json", "listener_1.json")]
    async with client_for(app) as client:
        answer = await client.post("/api/v1/lineage/batch", json=batch)
    assert answer.status_code == 200, answer.text
    assert answer.json()["warnings"] == [{"path": "$[1].schemaURL", "message": "required field is missing"}]
    assert answer.json()["stored"] == 2


def test_the_setting_takes_only_strict_or_lenient() -> None:
    from headwater.settings import SettingError

    with pytest.raises(SettingError, match="validation"):
        make_settings(validation="loose")


async def test_core_problems_still_answer_422_when_lenient(store: Store) -> None:
    event = json.loads((MARQUEZ_EVENTS / "event_simple.json").read_text())
    event["run"]["runId"] = "not-a-uuid"
    async with client_for(create_app(make_settings(), store)) as client:
        error = assert_error(await client.post("/api/v1/lineage", json=event), 422, "invalid_event")
    assert [d["path"] for d in error["details"]] == ["$.run.runId"]
