"""Large ingest bodies parsed in a worker process (headwater.api.parse_pool), on SQLite and PostgreSQL.

A body of usual events only is accepted in the server's process (the ingest fast path: checked below); any
other large body goes to a worker. The worker's answer must be the server's own: the same ids, stored text, warnings and graph; the same 422 for
an invalid event; and a worker that dies costs nothing but time (that body is parsed in the server, the next
one gets a new worker).
"""

from __future__ import annotations

import copy
import os
import signal
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from api_helpers import client_for, make_settings
from fastapi import FastAPI

from headwater.api import create_app
from headwater.api.parse_pool import MIN_CHARS
from headwater.store import Store
from live_server import ServeProcess, serve_env

pytestmark = pytest.mark.anyio

PRODUCER = "https://github.com/headwater-lineage/headwater/tests"
SCHEMA = "https://openlineage.io/spec/facets/1-1-1/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet"
RUN_EVENT = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"


def wide_event(i: int, columns: int = 120) -> dict[str, Any]:
    fields = [{"name": f"c{k}", "type": "string"} for k in range(columns)]
    return {
        "eventType": "COMPLETE",
        "eventTime": f"2026-11-25T04:{i // 60 % 60:02d}:{i % 60:02d}Z",
        "producer": PRODUCER,
        "schemaURL": RUN_EVENT,
        # a key outside the core (valid: the schema allows more keys): the ingest fast path, which takes a body
        # of usual events in the server's process, leaves this one to the full path, in a worker
        "x-producer-note": f"event {i}",
        "run": {"runId": str(uuid.uuid4())},
        "job": {"namespace": "pool", "name": f"job{i}"},
        "inputs": [{"namespace": "file", "name": f"/in/{i}", "facets": {}}],
        "outputs": [
            {
                "namespace": "file",
                "name": f"/out/{i}",
                "facets": {"schema": {"_producer": PRODUCER, "_schemaURL": SCHEMA, "fields": fields}},
            }
        ],
    }


def big_batch(count: int = 80) -> list[dict[str, Any]]:
    batch = [wide_event(i) for i in range(count)]
    assert len(httpx.Request("POST", "http://x", json=batch).content) > MIN_CHARS  # goes to a worker
    return batch


@pytest.fixture
def pooled(store: Store) -> Iterator[FastAPI]:
    app = create_app(make_settings(parse_processes=1), store)
    yield app
    app.state.headwater.parse_pool.close()


async def _post(app: FastAPI, path: str, body: Any) -> httpx.Response:
    async with client_for(app) as client:
        return await client.post(path, json=body)


async def test_a_worker_answers_as_the_server_does(pooled: FastAPI, store: Store, tmp_path: Any) -> None:
    batch = big_batch()
    batch[3]["outputs"][0]["facets"]["schema"].pop("_schemaURL")  # a warning (lenient by default)
    answer = await _post(pooled, "/api/v1/lineage/batch", batch)
    assert answer.status_code == 200, answer.text
    assert pooled.state.headwater.parse_pool.in_workers == 1  # the body went to a worker
    with Store.open(f"sqlite:///{tmp_path / 'in_process.db'}") as other:
        here = create_app(make_settings(parse_processes=0), other)
        expected = await _post(here, "/api/v1/lineage/batch", batch)
        assert expected.status_code == 200, expected.text
        assert answer.json() == expected.json()  # ids, counts, warnings
        assert answer.json()["warnings"] and answer.json()["warnings"][0]["path"].startswith("$[3].outputs[0]")
        store_events = {i: store.get_event(i) for i in answer.json()["ids"]}
        other_events = {i: other.get_event(i) for i in expected.json()["ids"]}
        for eid, event in store_events.items():
            assert event is not None and other_events[eid] is not None
            assert (event.raw, event.kind, event.job, event.event_time, event.warnings) == (
                other_events[eid].raw,  # type: ignore[union-attr]
                other_events[eid].kind,  # type: ignore[union-attr]
                other_events[eid].job,  # type: ignore[union-attr]
                other_events[eid].event_time,  # type: ignore[union-attr]
                other_events[eid].warnings,  # type: ignore[union-attr]
            )
    async with client_for(pooled) as client:
        node = await client.get("/api/v1/graph/node", params={"nodeId": "dataset:file:/out/79"})
        assert node.status_code == 200, node.text


async def test_a_worker_refuses_as_the_server_does(pooled: FastAPI, tmp_path: Any) -> None:
    batch = big_batch()
    broken = copy.deepcopy(batch)
    broken[7]["run"]["runId"] = "not-a-uuid"
    answer = await _post(pooled, "/api/v1/lineage/batch", broken)
    with Store.open(f"sqlite:///{tmp_path / 'in_process.db'}") as other:
        expected = await _post(create_app(make_settings(parse_processes=0), other), "/api/v1/lineage/batch", broken)
    assert answer.status_code == expected.status_code == 422, answer.text
    assert answer.json() == expected.json()
    assert "$[7].run.runId" in answer.text
    one = wide_event(0, columns=6000)  # one event of more than 256 kB: /api/v1/lineage, in a worker too
    one["run"]["runId"] = "nope"
    single = await _post(pooled, "/api/v1/lineage", one)
    assert single.status_code == 422 and "$.run.runId" in single.text


async def test_a_dead_worker_costs_only_time(pooled: FastAPI, store: Store) -> None:
    first = await _post(pooled, "/api/v1/lineage/batch", big_batch(70))
    assert first.status_code == 200, first.text
    pool = pooled.state.headwater.parse_pool
    assert pool.in_workers == 1
    pids = pool.worker_pids()
    assert pids
    for pid in pids:  # kill -9 the worker, as the OOM killer would
        os.kill(pid, signal.SIGKILL)
    again = big_batch(70)
    answer = await _post(pooled, "/api/v1/lineage/batch", again)  # parsed in the server's process
    assert answer.status_code == 200, answer.text
    assert all(store.get_event(i) is not None for i in answer.json()["ids"])
    later = await _post(pooled, "/api/v1/lineage/batch", big_batch(70))
    assert later.status_code == 200, later.text
    assert pool.in_workers == 2  # a new worker parsed the third body
    assert pool.worker_pids() and not pool.worker_pids() & pids


async def test_a_body_of_usual_events_is_accepted_in_the_server(pooled: FastAPI, store: Store) -> None:
    batch = big_batch(70)
    for event in batch:
        del event["x-producer-note"]
    answer = await _post(pooled, "/api/v1/lineage/batch", batch)
    assert answer.status_code == 200, answer.text
    assert pooled.state.headwater.parse_pool.in_workers == 0
    assert [store.get_event(i) is not None for i in answer.json()["ids"]] == [True] * 70


def _children(pid: int) -> set[int]:
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.add(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.parametrize("when", ["after work", "while the worker starts"])
def test_a_killed_server_leaves_no_worker_behind(tmp_path: Path, when: str) -> None:
    """``headwater serve`` starts its parse worker at start; kill -9 the server and the worker ends too (it
    watches the server's pid, passed to it: a worker still starting when the server dies has another parent
    already), instead of waiting for work forever."""
    server = ServeProcess(f"sqlite:///{tmp_path / 'hw.db'}", tmp_path / "serve.log", serve_env(tmp_path))
    with server:
        deadline = time.monotonic() + 60
        while not (workers := _children(server.pid)) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert workers, "serve started no parse worker"
        if when == "after work":
            answer = httpx.post(f"{server.url}/api/v1/lineage/batch", json=big_batch(), timeout=60)
            assert answer.status_code == 200, answer.text
        os.kill(server.pid, signal.SIGKILL)
        server.proc.wait()
        deadline = time.monotonic() + 60
        while any(_alive(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(_alive(w) for w in workers), f"left behind: {workers}"
