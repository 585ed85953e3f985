"""End to end over real HTTP: the real openlineage-python client (HttpTransport, gzip, api_key)
sends the story to a real uvicorn server; the graph, column lineage, impact, history, raw events
and as-of answers are read back over HTTP."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import requests
from api_events import (
    BETWEEN_1_AND_2,
    EMPLOYEES,
    PAYROLL,
    REPORT,
    Story,
    dataset_event_object,
    job_event_object,
    node_id,
)
from api_helpers import make_settings, module_db_url
from openlineage.client import OpenLineageClient
from openlineage.client.transport.http import ApiKeyTokenProvider, HttpCompression, HttpConfig, HttpTransport

from headwater.api import create_app
from headwater.store import Store
from live_server import ThreadServer

TOKEN = "e2e-write-token"


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def served(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Story]]:
    pg = request.getfixturevalue("pg_server_url") if request.param == "postgresql" else None
    url, drop = module_db_url(request.param, tmp_path_factory.mktemp("e2e"), pg)
    store = Store.open(url)
    try:
        # bound to loopback as `headwater serve` is by default: the Host and cross-site checks apply
        with ThreadServer(create_app(make_settings(write_tokens=TOKEN), store, bind_host="127.0.0.1")) as server:
            story = Story()
            client = OpenLineageClient(
                transport=HttpTransport(
                    HttpConfig(
                        url=server.url,
                        compression=HttpCompression.GZIP,
                        auth=ApiKeyTokenProvider({"api_key": TOKEN}),
                    )
                )
            )
            for obj in (dataset_event_object(), job_event_object(), *story.objects):
                client.emit(obj)
            yield server.url, story
    finally:
        store.close()
        if drop is not None:
            drop()


def get(base: str, path: str, **params: Any) -> Any:
    answer = httpx.get(f"{base}{path}", params=params, timeout=30)
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_client_without_token_is_refused(served: tuple[str, Story]) -> None:
    url, story = served
    transport = HttpTransport(HttpConfig(url=url, retry={"total": 0}))
    with pytest.raises(requests.HTTPError) as info:
        transport.emit(story.objects[0])
    assert info.value.response is not None and info.value.response.status_code == 401
    reader = HttpTransport(HttpConfig(url=url, auth=ApiKeyTokenProvider({"api_key": "wrong"}), retry={"total": 0}))
    with pytest.raises(requests.HTTPError):
        reader.emit(story.objects[0])


def test_all_events_arrived_and_resending_is_idempotent(served: tuple[str, Story]) -> None:
    url, story = served
    events = get(url, "/api/v1/events", limit=100)["events"]
    assert len(events) == len(story.events)
    # the client adds its own tags run facet; every stored event is a valid event with it
    assert {e["kind"] for e in events} == {"RUN", "DATASET", "JOB"}
    client_sent = [e for e in events if e["kind"] == "RUN"]
    assert all(
        e["event"]["run"]["facets"]["tags"]["tags"][0]["key"] == "openlineage_client_version" for e in client_sent
    )
    raw = httpx.get(f"{url}/api/v1/events/{client_sent[0]['id']}").content
    again = httpx.post(
        f"{url}/api/v1/lineage",
        content=raw,
        headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"},
    )
    assert again.status_code == 200 and again.json() == {"id": client_sent[0]["id"], "duplicate": True, "warnings": []}
    assert len(get(url, "/api/v1/events", limit=100)["events"]) == len(story.events)


def test_lineage_graph_over_http(served: tuple[str, Story]) -> None:
    url, _ = served
    answer = get(url, "/api/v1/graph/lineage", nodeId=node_id("dataset", PAYROLL), depth=2)
    ids = {n["id"] for n in answer["nodes"]}
    assert {
        node_id("dataset", EMPLOYEES),
        node_id("dataset", PAYROLL),
        node_id("dataset", REPORT),
        "job:spark:payroll.build",
        "job:spark:payroll.report",
    } <= ids
    edges = {(e["source"], e["target"], e["type"]) for e in answer["edges"]}
    assert (node_id("dataset", EMPLOYEES), "job:spark:payroll.build", "INPUT") in edges
    assert ("job:spark:payroll.build", node_id("dataset", PAYROLL), "OUTPUT") in edges


def test_column_lineage_and_impact_over_http(served: tuple[str, Story]) -> None:
    url, _ = served
    salary = node_id("datasetField", EMPLOYEES, "Salary")
    columns = get(url, "/api/v1/graph/column-lineage", nodeId=salary, direction="downstream")
    targets = {e["target"] for e in columns["edges"]}
    assert node_id("datasetField", PAYROLL, "Total") in targets
    assert node_id("datasetField", REPORT, "Total") in targets
    impact = get(url, "/api/v1/graph/impact", nodeId=salary)
    impacted = {i["id"] for i in impact["items"]}
    assert node_id("datasetField", REPORT, "Total") in impacted
    csv_answer = httpx.get(f"{url}/api/v1/graph/impact", params={"nodeId": salary, "format": "csv"})
    assert csv_answer.headers["content-type"].startswith("text/csv")
    assert csv_answer.text.splitlines()[0] == "depth,type,id,namespace,name,field,path"


def test_history_and_as_of_over_http(served: tuple[str, Story]) -> None:
    url, _ = served
    payroll = node_id("dataset", PAYROLL)
    versions = get(url, "/api/v1/graph/history", nodeId=payroll)["versions"]
    assert len(versions) >= 2
    now_fields = {f["name"] for f in get(url, "/api/v1/graph/node", nodeId=payroll)["fields"]}
    then_fields = {f["name"] for f in get(url, "/api/v1/graph/node", nodeId=payroll, at=BETWEEN_1_AND_2)["fields"]}
    assert "Bonus" in now_fields and "Bonus" not in then_fields
    compare = get(url, "/api/v1/graph/compare", nodeId=payroll, **{"from": BETWEEN_1_AND_2})
    assert {"dataset": payroll, "field": "Bonus"}.items() <= next(
        c for c in compare["columns"]["added"] if c["field"] == "Bonus"
    ).items()
