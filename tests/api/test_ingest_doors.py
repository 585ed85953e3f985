"""One door, one verdict: the same event through every way in — ``POST /api/v1/lineage``, ``/batch``, a parse
worker process, DataZone's ``PostLineageEvent``, the embedded client (``client.StoreClient``) — gets the same
verdict, the same stored text and the same warnings, under the same settings (lenient and strict, limits set
low so each hostile class is cheap to build). The Spline translator and the catalog, whose events are built
from their own inputs, are checked with an event their inputs make: a name longer than ``max_name_bytes``.

Expected verdicts are written by hand per event (which mode accepts it, what the refusal names); the doors are
then compared with each other. Each door appends to its own store (SQLite), so what a door stored is read back
from the log (``Store.list_events``) and not taken from its answer.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from api_helpers import client_for, make_settings

from headwater.api import create_app
from headwater.api.parse_pool import Job, ParsePool
from headwater.client import SendError, StoreClient
from headwater.ingest import IngestError, Policy
from headwater.settings import Settings
from headwater.spec import EventValidator
from headwater.store import Store

LIMITS = {
    "max_json_depth": 12,
    "max_string_length": 2_000,
    "max_array_length": 40,
    "max_object_keys": 40,
    "max_name_bytes": 64,
}
FACET = "https://example.com/schemas/custom.json#/$defs/X"
DOMAIN = "dzd_6ck1ipz7lm2a7v"
SPLINE = Path(__file__).resolve().parent.parent / "spline" / "fixtures"  # the Spark agent's recorded payloads


def _event(label: str, **custom: Any) -> dict[str, Any]:
    run_facets = {"x_probe": {"_producer": "https://example.com/p", "_schemaURL": FACET, **custom}} if custom else {}
    return {
        "eventType": "COMPLETE",
        "eventTime": "2026-11-20T10:00:00.000Z",
        "producer": "https://example.com/doors",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": str(uuid.uuid5(uuid.NAMESPACE_URL, label)), "facets": run_facets},
        "job": {"namespace": "doors", "name": f"job_{label}"},
        "inputs": [{"namespace": "file", "name": "/in/a"}],
        "outputs": [
            {
                "namespace": "file",
                "name": "/out/b",
                "facets": {
                    "schema": {
                        "_producer": "https://example.com/p",
                        "_schemaURL": "https://openlineage.io/spec/facets/1-2-0/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet",
                        "fields": [{"name": "id", "type": "int"}],
                    }
                },
            }
        ],
    }


def _deep(levels: int) -> Any:
    value: Any = 1
    for _ in range(levels):
        value = {"d": value}
    return value


@dataclass(frozen=True)
class Case:
    label: str
    text: str  # the event as compact JSON text (what the log keeps when it is accepted)
    lenient: str | None  # None: accepted in lenient mode; else text its refusal must name
    strict: str | None  # the same in strict mode
    python: bool = True  # the event has a Python value the embedded client can be given (1e999 has none)


def _text(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _cases() -> list[Case]:
    warned = _event("warned")
    del warned["outputs"][0]["facets"]["schema"]["_schemaURL"]  # outside the core: a warning when lenient
    nameless = _event("nameless")
    nameless["job"]["name"] = ""
    long_name = _event("long_name")
    long_name["outputs"][0]["name"] = "/out/" + "n" * 80
    bad_run = _event("bad_run")
    bad_run["run"]["runId"] = "not-a-uuid"
    return [
        Case("valid", _text(_event("valid")), None, None),
        Case("warned", _text(warned), None, "_schemaURL"),
        Case("deep", _text(_event("deep", v=_deep(14))), "max_json_depth", "max_json_depth"),
        Case("long string", _text(_event("string", v="s" * 2_500)), "max_string_length", "max_string_length"),
        Case("long array", _text(_event("array", v=list(range(50)))), "max_array_length", "max_array_length"),
        Case(
            "many keys", _text(_event("keys", v={f"k{i}": i for i in range(50)})), "max_object_keys", "max_object_keys"
        ),
        Case("NUL", json.dumps(_event("nul", v="a\u0000b"), separators=(",", ":")), "NUL", "NUL"),
        Case(
            "lone surrogate",
            _text(_event("surrogate", v="SURROGATE")).replace("SURROGATE", "\\ud800"),
            "surrogate",
            "surrogate",
        ),
        Case(
            "infinite",
            _text(_event("infinite", v=123)).replace('"v":123', '"v":1e999'),
            "out of range",
            "out of range",
            python=False,
        ),
        Case("long name", _text(long_name), "max_name_bytes", "max_name_bytes"),
        Case("empty name", _text(nameless), "$.job.name", "$.job.name"),
        Case("bad run id", _text(bad_run), "$.run.runId", "$.run.runId"),
    ]


@dataclass(frozen=True)
class Verdict:
    accepted: bool
    status: int | None = None  # of a refusal
    code: str | None = None
    message: str = ""
    problems: tuple[tuple[str, str], ...] = ()  # (JSON path from the event's root, message)
    stored: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()  # (text kept, its warnings) per new event


def _problems(details: list[dict[str, str]], root: str) -> tuple[tuple[str, str], ...]:
    return tuple(("$" + d["path"][len(root) :], d["message"]) for d in details)


class Doors:
    """Each door over its own store, for one settings object."""

    def __init__(self, settings: Settings, folder: Path) -> None:
        self.settings = settings
        self.stores = {door: Store.open(f"sqlite:///{folder / door}.db") for door in DOORS}
        self.seen: dict[str, set[str]] = {door: set() for door in DOORS}
        self.pool = ParsePool(1, EventValidator(), min_chars=0)  # every body to the worker process

    def close(self) -> None:
        self.pool.close()
        for store in self.stores.values():
            store.close()

    def stored(self, door: str) -> tuple[tuple[str, tuple[tuple[str, str], ...]], ...]:
        events, _ = self.stores[door].list_events(limit=1000)
        new = [e for e in events if e.id not in self.seen[door]]
        self.seen[door].update(e.id for e in new)
        return tuple((e.raw, tuple((w["path"], w["message"]) for w in e.warnings)) for e in new)

    async def http(self, door: str, path: str, body: str, root: str) -> Verdict:
        app = create_app(self.settings, self.stores[door])
        async with client_for(app) as client:
            answer = await client.post(path, content=body.encode(), headers={"Content-Type": "application/json"})
        if answer.status_code < 300:
            return Verdict(True, stored=self.stored(door))
        error = answer.json()["error"]
        return Verdict(False, answer.status_code, error["code"], error["message"], _problems(error["details"], root))


async def _single(d: Doors, case: Case) -> Verdict:
    return await d.http("single", "/api/v1/lineage", case.text, "$")


async def _batch(d: Doors, case: Case) -> Verdict:
    return await d.http("batch", "/api/v1/lineage/batch", f"[{case.text}]", "$[0]")


async def _worker(d: Doors, case: Case) -> Verdict:
    try:
        ready = d.pool.prepare(Job(f"[{case.text}]", True, Policy.from_settings(d.settings)))
    except IngestError as exc:
        problems = _problems([p.as_dict() for p in exc.details], "$[0]")
        return Verdict(False, exc.status, exc.code, exc.message, problems)
    d.stores["worker"].append_prepared([r.prepared for r in ready])
    return Verdict(True, stored=d.stored("worker"))


async def _datazone(d: Doors, case: Case) -> Verdict:
    app = create_app(d.settings, d.stores["datazone"])
    async with client_for(app) as client:
        answer = await client.post(f"/v2/domains/{DOMAIN}/lineage/events", content=case.text.encode())
    if answer.status_code < 300:
        return Verdict(True, stored=d.stored("datazone"))
    assert answer.headers["x-amzn-ErrorType"] == "ValidationException", answer.text
    return Verdict(False, answer.status_code, "ValidationException", answer.json()["message"])


async def _client(d: Doors, case: Case) -> Verdict:
    with StoreClient(d.stores["client"], settings=d.settings) as client:
        try:
            client.send([json.loads(case.text)])
        except SendError as exc:
            return Verdict(False, message=str(exc))
    return Verdict(True, stored=d.stored("client"))


DOORS: dict[str, Callable[[Doors, Case], Any]] = {
    "single": _single,
    "batch": _batch,
    "worker": _worker,
    "datazone": _datazone,
    "client": _client,
}


@pytest.fixture(params=["lenient", "strict"])
def doors(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Doors]:
    opened = Doors(make_settings(validation=request.param, **LIMITS), tmp_path)
    yield opened
    opened.close()


@pytest.mark.anyio
async def test_every_door_gives_the_same_event_the_same_verdict(doors: Doors) -> None:
    lenient = doors.settings.validation == "lenient"
    for case in _cases():
        expected = case.lenient if lenient else case.strict
        seen = {name: await door(doors, case) for name, door in DOORS.items() if case.python or name != "client"}
        single, batch = seen["single"], seen["batch"]
        what = f"{case.label} ({doors.settings.validation})"
        assert {v.accepted for v in seen.values()} == {expected is None}, f"{what}: {seen}"
        if expected is None:
            # stored as sent, with the same warnings, through every door
            for name, verdict in seen.items():
                assert [raw for raw, _ in verdict.stored] == [case.text], f"{what}: {name}"
                assert verdict.stored == single.stored, f"{what}: {name}"
            assert bool(single.stored[0][1]) == (case.label == "warned"), what
            continue
        assert single.status == 422 and single.code == "invalid_event", f"{what}: {single}"
        assert expected in single.message, f"{what}: {single}"
        # the same problems at the same places; each door's own wording around them
        assert batch.status == single.status and batch.code == single.code and batch.problems == single.problems
        assert seen["worker"] == batch, what
        assert seen["datazone"].message.startswith(f"event: {single.message}"), what
        if case.python:
            assert seen["client"].message == f"the events were refused: {batch.message}", what


@pytest.mark.anyio
async def test_spline_and_catalog_events_meet_the_same_policy(tmp_path: Path) -> None:
    """A Spline run whose job name is longer than ``max_name_bytes`` is refused as the same events posted to
    ``/batch`` are; a catalog asset whose name is too long is refused by the catalog with the ingest door's
    verdict (it was a server error when the catalog validated with limits of its own)."""
    from headwater.spline import run_events

    settings = make_settings(max_name_bytes=40, write_tokens="admin-token")
    plan = json.loads((SPLINE / "join_aggregate_to_file.plan.json").read_text())
    executions = json.loads((SPLINE / "join_aggregate_to_file.events.json").read_text())
    converted = [e for x in executions for e in run_events(plan, x, api_version="1.2")]
    auth = {"Authorization": "Bearer admin-token"}
    media = {"Content-Type": "application/vnd.absa.spline.producer.v1.2+json", **auth}
    with Store.open(f"sqlite:///{tmp_path / 'spline.db'}") as store:
        async with client_for(create_app(settings, store)) as client:
            as_batch = await client.post("/api/v1/lineage/batch", json=converted, headers=auth)
            assert as_batch.status_code == 422, as_batch.text
            assert "max_name_bytes" in as_batch.text
            answer = await client.post("/spline/producer/execution-plans", content=json.dumps(plan), headers=media)
            assert answer.status_code == 201, answer.text
            answer = await client.post(
                "/spline/producer/execution-events", content=json.dumps(executions), headers=media
            )
            assert answer.status_code == 422, answer.text
            assert answer.json()["error"] == as_batch.json()["error"]
            assert store.list_events()[0] == []

            await _world(client, auth)
            asset = {"project": "p", "custom": True, "namespace": "warehouse", "name": "t" * 60}
            answer = await client.post("/api/v1/catalog/assets", json=asset, headers=auth)
            assert answer.status_code == 422, answer.text
            error = answer.json()["error"]
            assert error["code"] == "invalid_event" and "max_name_bytes" in error["message"], error


async def _world(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    for path, body in (
        ("/api/v1/catalog/domains", {"id": "d", "name": "D"}),
        ("/api/v1/catalog/projects", {"id": "p", "domain": "d"}),
    ):
        answer = await client.post(path, json=body, headers=auth)
        assert answer.status_code == 201, answer.text
