"""Acknowledged means projected, or visibly not, on SQLite and PostgreSQL.

- the known causes are refused before the acknowledgement: NUL in a name (PostgreSQL's text cannot
  hold it), a name beyond ``max_name_bytes`` (PostgreSQL's B-tree rows); names at the limit, in
  every place the graph indexes them, are acknowledged *and* projected;
- an event that fails projection anyway is recorded (id, error), counted and listed by
  ``GET /api/v1/status``, derived again by ``headwater db retry-failed`` and on the next start.
"""

from __future__ import annotations

import copy
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from headwater.api import create_app
from headwater.cli import cli
from headwater.settings import MAX_NAME_BYTES, load_settings
from headwater.store import Store, projector

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "api"))
from hostile_payloads import template

SETTINGS = load_settings({}, environ={})


def client(store: Store) -> TestClient:
    return TestClient(create_app(SETTINGS, store), base_url="http://headwater.test")


def status(store: Store) -> dict[str, Any]:
    answer = client(store).get("/api/v1/status")
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def _name(size: int, ns: str = "") -> str:
    """A name of ``size`` UTF-8 bytes together with ``ns:`` — 4-byte characters, hard to compress."""
    budget = size - len(f"{ns}:".encode()) if ns else size
    chars = [chr(0x1F300 + (i * 7919) % 0x2FF) for i in range(budget // 4)]
    return "".join(chars) + "x" * (budget % 4)


def event_with_names(size: int) -> dict[str, Any]:
    event = copy.deepcopy(template())
    event["job"]["name"] = _name(size, event["job"]["namespace"])
    event["run"]["facets"]["parent"]["job"]["name"] = _name(size, "airflow")
    out = event["outputs"][0]
    out["namespace"] = "n"
    out["name"] = _name(size, "n")
    event["inputs"][0]["name"] = _name(size, "file")[:-1] + "i"
    field = _name(size)
    out["facets"]["schema"]["fields"][1]["name"] = field
    lineage = out["facets"]["columnLineage"]
    lineage["fields"] = {
        field: {
            "inputFields": [{"namespace": "file", "name": event["inputs"][0]["name"], "field": _name(size)[:-1] + "s"}]
        }
    }
    lineage["dataset"][0]["name"] = event["inputs"][0]["name"]
    lineage["dataset"][0]["field"] = _name(size)[:-1] + "d"
    return event


def test_names_at_the_limit_are_acknowledged_and_projected(store_url: str) -> None:
    with Store.open(store_url) as store:
        http = client(store)
        event = event_with_names(MAX_NAME_BYTES)
        answer = http.post("/api/v1/lineage", json=event)
        assert answer.status_code == 201, answer.text
        assert store.catch_up().caught_up
        health = status(store)
        assert health["projection"]["failed"] == 0, health
        node = http.get(
            "/api/v1/graph/node", params={"type": "job", "namespace": "spark", "name": event["job"]["name"]}
        )
        assert node.status_code == 200, node.text
        assert set(node.json()["outputs"]) == {f"dataset:n:{event['outputs'][0]['name']}"}
        columns = http.get(
            "/api/v1/graph/column-lineage", params={"nodeId": f"dataset:n:{event['outputs'][0]['name']}"}
        )
        assert columns.status_code == 200 and columns.json()["edges"], columns.text

        over = event_with_names(MAX_NAME_BYTES + 1)
        answer = http.post("/api/v1/lineage", json=over)
        assert answer.status_code == 422, answer.text
        paths = {d["path"] for d in answer.json()["error"]["details"]}
        assert {
            "$.job.name",
            "$.outputs[0].name",
            "$.run.facets.parent.job.name",
            "$.outputs[0].facets.schema.fields[1].name",
        } <= paths, paths
        assert all("max_name_bytes" in d["message"] for d in answer.json()["error"]["details"])


@pytest.mark.parametrize(
    "where",
    [
        ("job", "name"),
        ("job", "namespace"),
        ("outputs", 0, "name"),
        ("inputs", 0, "namespace"),
        ("run", "facets", "errorMessage", "message"),
    ],
)
def test_nul_is_refused_before_the_ack_on_every_database(store_url: str, where: tuple[Any, ...]) -> None:
    with Store.open(store_url) as store:
        event = copy.deepcopy(template())
        target: Any = event
        for step in where[:-1]:
            target = target[step]
        target[where[-1]] = "a\x00b"
        answer = client(store).post("/api/v1/lineage", json=event)
        assert answer.status_code == 422, answer.text
        detail = answer.json()["error"]["details"][0]
        assert detail["path"] == "$" + "".join(f"[{s}]" if isinstance(s, int) else f".{s}" for s in where)
        assert "NUL" in detail["message"]
        assert store.list_events()[0] == []


def _wait_for(check: Any, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


def test_a_failing_projection_is_recorded_counted_and_retried(store_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    real = projector.observe

    def flaky(payload: Any, event_id: str, memo: Any = None) -> Any:
        if payload.get("job", {}).get("name") == "breaks.projection":
            raise RuntimeError("a derivation bug")
        return real(payload, event_id, memo)

    good, bad = copy.deepcopy(template()), copy.deepcopy(template())
    bad["job"]["name"] = "breaks.projection"
    bad["run"]["runId"] = "38af66ad-be14-41ee-ae43-000000000bad"
    monkeypatch.setattr(projector, "observe", flaky)
    with Store.open(store_url) as store:
        http = client(store)
        assert http.post("/api/v1/lineage", json=good).status_code == 201
        answer = http.post("/api/v1/lineage", json=bad)
        assert answer.status_code == 201  # durable in the log: acknowledged
        bad_id = answer.json()["id"]
        assert store.catch_up().caught_up  # the failure does not hold the projection back
        health = status(store)
        assert health["status"] == "degraded"
        assert health["projection"]["failed"] == 1
        assert health["projection"]["failedEvents"][0]["id"] == bad_id
        assert "a derivation bug" in health["projection"]["failedEvents"][0]["error"]
        assert http.get("/api/v1/graph/node", params={"nodeId": "job:spark:payroll.report"}).status_code == 200
        assert http.get("/api/v1/graph/node", params={"nodeId": "job:spark:breaks.projection"}).status_code == 404
        fixed, still = store.retry_failed()  # not fixed yet: stays recorded, with this attempt's error
        assert (fixed, len(still)) == (0, 1)
    status_cli = CliRunner().invoke(cli, ["db", "status", "--db", store_url])
    assert status_cli.exit_code == 0 and "1 event(s) failed to derive" in status_cli.output, status_cli.output
    failing = CliRunner().invoke(cli, ["db", "retry-failed", "--db", store_url])
    assert failing.exit_code == 1 and "0 failed event(s) derived now; 1 still failing" in failing.output

    monkeypatch.setattr(projector, "observe", real)  # the fix
    result = CliRunner().invoke(cli, ["db", "retry-failed", "--db", store_url])
    assert result.exit_code == 0, result.output
    assert "1 failed event(s) derived now; 0 still failing" in result.output
    with Store.open(store_url) as store:
        health = status(store)
        assert health["status"] == "ok" and health["projection"]["failed"] == 0, health
        assert (
            client(store).get("/api/v1/graph/node", params={"nodeId": "job:spark:breaks.projection"}).status_code == 200
        )


def test_failed_events_are_retried_at_start(store_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    real = projector.observe

    def broken(payload: Any, event_id: str, memo: Any = None) -> Any:
        raise RuntimeError("a derivation bug")

    monkeypatch.setattr(projector, "observe", broken)
    with Store.open(store_url) as store:
        assert client(store).post("/api/v1/lineage", json=template()).status_code == 201
        assert store.catch_up().caught_up
        assert status(store)["projection"]["failed"] == 1
    monkeypatch.setattr(projector, "observe", real)  # a fixed version starts
    with Store.open(store_url) as store:
        _wait_for(lambda: store.projection_status().failed == 0)
        assert client(store).get("/api/v1/graph/node", params={"nodeId": "job:spark:payroll.report"}).status_code == 200


def test_rebuild_records_a_failing_event_and_goes_on(store_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    real = projector.observe
    good, bad = copy.deepcopy(template()), copy.deepcopy(template())
    bad["job"]["name"] = "breaks.projection"
    bad["run"]["runId"] = "38af66ad-be14-41ee-ae43-000000000bad"
    with Store.open(store_url) as store:
        assert client(store).post("/api/v1/lineage/batch", json=[good, bad]).status_code == 200
        assert store.catch_up().caught_up

        def flaky(payload: Any, event_id: str, memo: Any = None) -> Any:
            if payload.get("job", {}).get("name") == "breaks.projection":
                raise RuntimeError("a derivation bug")
            return real(payload, event_id, memo)

        monkeypatch.setattr(projector, "observe", flaky)
        assert store.rebuild() == 2
        health = status(store)
        assert (
            health["projection"]["failed"] == 1
            and "a derivation bug" in health["projection"]["failedEvents"][0]["error"]
        )
        assert client(store).get("/api/v1/graph/node", params={"nodeId": "job:spark:payroll.report"}).status_code == 200
        monkeypatch.setattr(projector, "observe", real)
        assert store.rebuild() == 2
        assert status(store)["projection"]["failed"] == 0
        assert (
            client(store).get("/api/v1/graph/node", params={"nodeId": "job:spark:breaks.projection"}).status_code == 200
        )
