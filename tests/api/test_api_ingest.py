"""POST /api/v1/lineage and /batch in-process on real SQLite and PostgreSQL stores: acknowledged
events are stored exactly, duplicates change nothing, bad input is refused with a clear error
and nothing of it is stored."""

from __future__ import annotations

import copy
import gzip
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from api_events import Story, dataset_event, job_event
from api_helpers import assert_error, client_for, make_settings
from jsonschema import Draft202012Validator

from headwater.api import create_app
from headwater.spec.formats import format_checker
from headwater.spec.registry import CORE_ID, build_registry, load_schemas
from headwater.store import Store

pytestmark = pytest.mark.anyio


async def stored_events(client: httpx.AsyncClient) -> list[dict[str, Any]]:
    answer = await client.get("/api/v1/events", params={"limit": 1000})
    assert answer.status_code == 200, answer.text
    return list(answer.json()["events"])


async def test_event_is_stored_exactly_and_duplicate_changes_nothing(client: httpx.AsyncClient) -> None:
    event = Story().events[2]
    text = json.dumps(event, indent=1)  # the exact text must come back, whitespace included
    first = await client.post("/api/v1/lineage", content=text, headers={"Content-Type": "application/json"})
    assert first.status_code == 201, first.text
    assert first.json()["duplicate"] is False
    event_id = first.json()["id"]

    raw = await client.get(f"/api/v1/events/{event_id}")
    assert raw.status_code == 200
    assert raw.text == text
    assert raw.headers["content-type"].startswith("application/json")
    assert raw.headers["x-headwater-received-at"].endswith("Z")

    again = await client.post("/api/v1/lineage", json=event)
    assert again.status_code == 200
    assert again.json() == {"id": event_id, "duplicate": True, "warnings": []}
    assert len(await stored_events(client)) == 1


async def test_gzip_body_as_the_http_transport_sends_it(client: httpx.AsyncClient) -> None:
    event = Story().events[2]
    body = gzip.compress(json.dumps(event).encode(), compresslevel=3)
    answer = await client.post(
        "/api/v1/lineage", content=body, headers={"Content-Type": "application/json", "Content-Encoding": "gzip"}
    )
    assert answer.status_code == 201, answer.text
    raw = await client.get(f"/api/v1/events/{answer.json()['id']}")
    assert raw.json() == event


async def test_each_kind_is_summarised(client: httpx.AsyncClient) -> None:
    story = Story()
    for event in (dataset_event(), job_event(), story.events[2]):
        assert (await client.post("/api/v1/lineage", json=event)).status_code == 201
    summaries = {e["kind"]: e for e in await stored_events(client)}
    assert set(summaries) == {"RUN", "DATASET", "JOB"}
    run = summaries["RUN"]
    assert run["eventType"] == "START"
    assert run["job"] == "job:spark:payroll.build"
    assert run["runId"] == story.build_run_1
    assert run["event"] == story.events[2]
    assert summaries["JOB"]["job"] == "job:spark:payroll.report"
    assert summaries["DATASET"]["runId"] is None and summaries["DATASET"]["eventType"] is None


BAD_BODIES: list[tuple[bytes, dict[str, str], int, str, str]] = [
    (b"{not json", {}, 400, "invalid_json", "line 1 column 2"),
    (b"", {}, 400, "invalid_json", "empty"),
    (b"not gzip at all", {"Content-Encoding": "gzip"}, 400, "bad_encoding", "gzip"),
    (b'{"a": "\xff"}', {}, 400, "bad_encoding", "UTF-8"),
    (b"a=1", {"Content-Type": "application/x-www-form-urlencoded"}, 415, "unsupported_media_type", "application/json"),
    (b"{}", {"Content-Encoding": "br"}, 415, "unsupported_media_type", "'br'"),
    (b"{}", {"Content-Type": "text/plain"}, 415, "unsupported_media_type", "application/json"),  # CSRF-able type
    (b"{}", {"Content-Type": ""}, 415, "unsupported_media_type", "without Content-Type"),
    (b"[]", {}, 422, "invalid_event", "/api/v1/lineage/batch"),
    (b'"text"', {}, 422, "invalid_event", "got string"),
    (b'{"eventTime": "2026-11-22T05:10:10Z"}', {}, 422, "invalid_event", "not an OpenLineage event"),
]


async def test_bad_bodies_are_refused_and_nothing_is_stored(client: httpx.AsyncClient) -> None:
    for body, headers, status, code, words in BAD_BODIES:
        for path in ("/api/v1/lineage", "/api/v1/lineage/batch"):
            answer = await client.post(path, content=body, headers={"Content-Type": "application/json", **headers})
            if path.endswith("batch") and code == "invalid_event":
                continue  # a batch of [] is fine; other shapes are covered by the batch tests
            error = assert_error(answer, status, code)
            assert words in error["message"], (body, path, error)
    assert await stored_events(client) == []


async def test_schema_violations_list_each_problem_with_its_path(client: httpx.AsyncClient) -> None:
    event = copy.deepcopy(Story().events[2])
    event["run"]["runId"] = "run-1"
    del event["eventTime"]
    event["outputs"][0]["facets"]["columnLineage"]["fields"]["Total"].pop("inputFields")
    error = assert_error(await client.post("/api/v1/lineage", json=event), 422, "invalid_event")
    assert {(d["path"], d["message"]) for d in error["details"]} == {
        ("$.eventTime", "required field is missing"),
        ("$.run.runId", '"run-1" is not a valid uuid'),
        ("$.outputs[0].facets.columnLineage.fields.Total.inputFields", "required field is missing"),
    }
    assert await stored_events(client) == []


async def test_batch_stores_all_and_counts_duplicates(client: httpx.AsyncClient) -> None:
    story = Story()
    first = await client.post("/api/v1/lineage/batch", json=story.events[:4])
    assert first.status_code == 200, first.text
    assert first.json()["received"] == 4 and first.json()["stored"] == 4 and first.json()["duplicates"] == 0
    second = await client.post("/api/v1/lineage/batch", json={"events": story.events[2:]})
    body = second.json()
    assert (body["received"], body["stored"], body["duplicates"]) == (len(story.events) - 2, len(story.events) - 4, 2)
    assert body["ids"][:2] == first.json()["ids"][2:]
    assert len(await stored_events(client)) == len(story.events)


async def test_batch_is_all_or_nothing(client: httpx.AsyncClient) -> None:
    events = copy.deepcopy(Story().events)
    events[3]["eventType"] = "DONE"
    events[5]["job"].pop("name")
    error = assert_error(await client.post("/api/v1/lineage/batch", json=events), 422, "invalid_event")
    assert [d["path"] for d in error["details"]] == ["$[3].eventType", "$[5].job.name"]
    assert f"2 of {len(events)} events" in error["message"]
    assert await stored_events(client) == []


async def test_limits_answer_413(store: Store) -> None:
    app = create_app(make_settings(max_body_bytes=4000, max_batch_events=2), store)
    event = Story().events[2]
    async with client_for(app) as client:
        big = json.dumps({**event, "padding": "x" * 5000})
        assert_error(
            await client.post("/api/v1/lineage", content=big, headers={"Content-Type": "application/json"}),
            413,
            "payload_too_large",
        )
        bomb = gzip.compress(json.dumps({**event, "padding": " " * 100_000}).encode())
        assert len(bomb) < 4000
        error = assert_error(
            await client.post(
                "/api/v1/lineage",
                content=bomb,
                headers={"Content-Type": "application/json", "Content-Encoding": "gzip"},
            ),
            413,
            "payload_too_large",
        )
        assert "after gzip decompression" in error["message"]
        batch = [dataset_event(), dataset_event(), dataset_event()]
        error = assert_error(await client.post("/api/v1/lineage/batch", json=batch), 413, "payload_too_large")
        assert "max_batch_events" in error["message"]
        assert await stored_events(client) == []


async def test_every_stored_event_validates_against_the_official_schema(
    client: httpx.AsyncClient, spec_dir: Path
) -> None:
    official = Draft202012Validator(
        {"$ref": CORE_ID}, registry=build_registry(load_schemas(spec_dir)), format_checker=format_checker()
    )
    story = Story()
    assert (await client.post("/api/v1/lineage/batch", json=story.events)).status_code == 200
    events = await stored_events(client)
    assert len(events) == len(story.events)
    for summary in events:
        raw = (await client.get(f"/api/v1/events/{summary['id']}")).json()
        assert list(official.iter_errors(raw)) == []


async def test_events_paging_filters_and_unknown_id(client: httpx.AsyncClient) -> None:
    story = Story()
    assert (await client.post("/api/v1/lineage/batch", json=story.events)).status_code == 200
    seen: list[str] = []
    cursor = None
    while True:
        params = {"limit": 3, **({"cursor": cursor} if cursor else {})}
        page = (await client.get("/api/v1/events", params=params)).json()
        seen += [e["id"] for e in page["events"]]
        cursor = page["nextCursor"]
        if not cursor:
            break
    assert len(seen) == len(set(seen)) == len(story.events)
    times = [e["eventTime"] for e in await stored_events(client)]
    assert times == sorted(times, reverse=True)

    for_run = (await client.get("/api/v1/events", params={"nodeId": f"run:{story.report_run}"})).json()["events"]
    assert {e["eventType"] for e in for_run} == {"START", "FAIL"}
    windowed = (
        await client.get(
            "/api/v1/events",
            params={
                "since": "2026-11-11T00:00:00Z",
                "until": str(int(datetime(2026, 11, 13, tzinfo=UTC).timestamp() * 1000)),
            },
        )
    ).json()["events"]
    assert {e["runId"] for e in windowed} == {story.report_run, story.build_run_2}

    assert_error(await client.get("/api/v1/events/no-such-id"), 404, "not_found")
    assert_error(await client.get("/api/v1/events", params={"cursor": "garbage"}), 400, "invalid_parameter")
    error = assert_error(await client.get("/api/v1/events", params={"since": "last tuesday"}), 400, "invalid_parameter")
    assert error["details"][0]["path"] == "since"
    error = assert_error(await client.get("/api/v1/events", params={"limit": 0}), 400, "invalid_parameter")
    assert error["details"][0]["path"] == "limit"


@pytest.mark.postgres
async def test_store_outage_is_503_and_nothing_is_acknowledged(fresh_pg_url: str, pg_server_url: str) -> None:
    import psycopg

    store = Store.open(fresh_pg_url)
    try:
        async with client_for(create_app(make_settings(), store)) as client:
            assert (await client.post("/api/v1/lineage", json=dataset_event())).status_code == 201
            name = fresh_pg_url.rsplit("/", 1)[1]
            with psycopg.connect(pg_server_url, autocommit=True) as conn:  # the database goes away
                conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
            answer = await client.post("/api/v1/lineage", json=job_event())
            error = assert_error(answer, 503, "store_unavailable")
            assert "retry" in error["message"]
            assert answer.headers["retry-after"] == "5"
    finally:
        store.close()


async def test_text_that_is_not_unicode_is_refused_where_it_is(client: httpx.AsyncClient) -> None:
    """A lone UTF-16 surrogate escape has no UTF-8 and no canonical form: 422 naming the place, not a 500."""
    event = next(e for e in Story().events if "job" in e)
    text = json.dumps(event)
    lone = json.dumps({**event, "job": {**event["job"], "name": "\ud800" + event["job"]["name"]}})  # sent as \ud800
    headers = {"Content-Type": "application/json"}
    error = assert_error(await client.post("/api/v1/lineage", content=lone, headers=headers), 422, "invalid_event")
    assert error["details"][0]["path"] == "$.job.name" and "lone UTF-16 surrogate" in error["message"]
    batch = f"[{text}, {lone}]"
    error = assert_error(
        await client.post("/api/v1/lineage/batch", content=batch, headers=headers), 422, "invalid_event"
    )
    assert [d["path"] for d in error["details"]] == ["$[1].job.name"]
    assert await stored_events(client) == []  # none of either request was stored
    paired = json.dumps({**event, "job": {**event["job"], "name": "\U0001f600" + event["job"]["name"]}})  # a pair
    answer = await client.post("/api/v1/lineage", content=paired, headers=headers)
    assert answer.status_code == 201, answer.text
    assert (await stored_events(client))[0]["event"]["job"]["name"].startswith("\U0001f600")
