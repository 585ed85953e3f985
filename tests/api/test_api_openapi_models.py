"""The response models in /openapi.json describe the real answers (src/headwater/api/models.py).

Real answers of the HR payroll story (tests/fixtures/stories/hr_payroll.json, sent through the
ingest endpoints) are validated against the schema the OpenAPI document gives for their route
and status. The models forbid undeclared keys and require every declared key, so a model that
adds, drops, renames or mistypes a key fails here. Every JSON route of Headwater's own API
(ingest, raw events, graph reads) must be exercised; Marquez's paths answer in Marquez's shapes
and are not described by Headwater's models (docs/api.md).

The answers are encoded in the handlers (orjson), not by FastAPI through the models: each one is
also checked to be the bytes FastAPI writes for a ``dict[str, Any]`` answer of the same content.
"""

from __future__ import annotations

import copy
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import anyio
import httpx
import pytest
from api_helpers import client_for, make_settings
from fastapi import FastAPI
from jsonschema import Draft202012Validator
from pydantic import TypeAdapter

from fixtures.stories.load import COMP, DAY1, DAY2, DAY4, EA, EMP, J1, J2, REP, fid, story
from headwater.api import create_app
from headwater.store import Store

pytestmark = pytest.mark.anyio

NATIVE_PREFIXES = ("/api/v1/graph/", "/api/v1/events", "/api/v1/lineage")
MARQUEZ_PATHS = {"/api/v1/events/lineage", "/api/v1/lineage"}  # GET /api/v1/lineage is Marquez's
ANY_DICT: TypeAdapter[dict[str, Any]] = TypeAdapter(dict[str, Any])


class Story:
    """An app over a SQLite store holding the story, the ingest answers it gave and the document."""

    def __init__(
        self, app: FastAPI, ingest_answers: list[tuple[str, str, httpx.Response]], document: dict[str, Any]
    ) -> None:
        self.app = app
        self.ingest_answers = ingest_answers
        self.document = document


async def _load(app: FastAPI) -> tuple[list[tuple[str, str, httpx.Response]], dict[str, Any]]:
    events = story()
    answers: list[tuple[str, str, httpx.Response]] = []
    async with client_for(app) as client:
        first = await client.post("/api/v1/lineage", json=events[0])
        assert first.status_code == 201, first.text
        answers.append(("post", "/api/v1/lineage", first))
        again = await client.post("/api/v1/lineage", json=events[0])
        assert again.status_code == 200, again.text
        answers.append(("post", "/api/v1/lineage", again))
        batch = await client.post("/api/v1/lineage/batch", json=events)
        assert batch.status_code == 200, batch.text
        assert batch.json()["duplicates"] == 1
        answers.append(("post", "/api/v1/lineage/batch", batch))
        document = (await client.get("/openapi.json")).json()
    return answers, document


@pytest.fixture(scope="module")
def loaded_story(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Story]:
    store = Store.open(f"sqlite:///{tmp_path_factory.mktemp('openapi') / 'story.db'}")
    try:
        app = create_app(make_settings(), store)
        answers, document = anyio.run(_load, app)
        yield Story(app, answers, document)
    finally:
        store.close()


@pytest.fixture
async def story_client(loaded_story: Story) -> AsyncIterator[httpx.AsyncClient]:
    async with client_for(loaded_story.app) as c:
        yield c


def response_schema(document: dict[str, Any], method: str, path: str, status: int) -> dict[str, Any]:
    """The JSON schema the document gives for ``status`` of an operation (or its ``default``)."""
    responses = document["paths"][path][method]["responses"]
    described = responses.get(str(status)) or responses["default"]
    schema: dict[str, Any] = described["content"]["application/json"]["schema"]
    return schema


def problems(document: dict[str, Any], schema: dict[str, Any], value: Any) -> list[str]:
    validator = Draft202012Validator({**schema, "components": document["components"]})
    return [f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}" for e in validator.iter_errors(value)]


def assert_documented(document: dict[str, Any], method: str, path: str, answer: httpx.Response) -> None:
    assert answer.headers["content-type"] == "application/json", (path, answer.text[:300])
    found = problems(document, response_schema(document, method, path, answer.status_code), answer.json())
    assert found == [], f"{method.upper()} {path} answered {answer.status_code} off its documented schema: {found[:5]}"


# Every read of Headwater's own API, on the story: (path template, parameters).
GRAPH_READS: list[tuple[str, dict[str, str]]] = [
    ("/api/v1/graph/lineage", {"nodeId": COMP, "depth": "20"}),
    ("/api/v1/graph/lineage", {"nodeId": EMP, "depth": "20", "datasetsOnly": "true", "columns": "true"}),
    ("/api/v1/graph/lineage", {"nodeId": J2, "columns": "true", "at": DAY1.isoformat()}),
    ("/api/v1/graph/lineage", {"nodeId": fid(COMP, "TotalCompensation"), "direction": "upstream", "depth": "1"}),
    ("/api/v1/graph/column-lineage", {"nodeId": fid(COMP, "TotalCompensation")}),
    ("/api/v1/graph/column-lineage", {"nodeId": EA, "at": DAY1.isoformat()}),
    ("/api/v1/graph/impact", {"nodeId": EMP}),
    ("/api/v1/graph/impact", {"nodeId": fid(EMP, "EmployeeID"), "at": DAY2.isoformat()}),
    ("/api/v1/graph/node", {"nodeId": COMP}),
    ("/api/v1/graph/node", {"nodeId": EA, "at": DAY1.isoformat()}),
    ("/api/v1/graph/node", {"nodeId": REP}),
    ("/api/v1/graph/node", {"nodeId": J1}),
    ("/api/v1/graph/node", {"nodeId": J2, "at": DAY2.isoformat()}),
    ("/api/v1/graph/node", {"nodeId": fid(COMP, "Name")}),
    ("/api/v1/graph/history", {"nodeId": EA}),
    ("/api/v1/graph/history", {"nodeId": J2}),
    ("/api/v1/graph/runs", {"nodeId": J2}),
    ("/api/v1/graph/runs", {"nodeId": J1, "limit": "1", "offset": "1"}),
    ("/api/v1/graph/search", {"q": "employee"}),
    ("/api/v1/graph/search", {"q": "id", "type": "field"}),
    ("/api/v1/graph/search", {"q": "hr", "type": "dataset,job", "namespace": "airflow"}),
    ("/api/v1/graph/compare", {"nodeId": COMP, "from": DAY1.isoformat(), "to": DAY4.isoformat(), "depth": "3"}),
    ("/api/v1/graph/compare", {"nodeId": EA, "from": DAY1.isoformat()}),
    ("/api/v1/graph/namespaces", {}),
    ("/api/v1/graph/datasets", {}),
    ("/api/v1/graph/datasets", {"namespace": "file", "limit": "2", "offset": "1"}),
    ("/api/v1/graph/jobs", {}),
    ("/api/v1/graph/recent", {"limit": "5"}),
    ("/api/v1/events", {}),
    ("/api/v1/events", {"nodeId": J2, "limit": "2"}),
    ("/api/v1/events", {"since": DAY2.isoformat(), "until": DAY4.isoformat()}),
]


@pytest.mark.parametrize(("path", "params"), GRAPH_READS, ids=[f"{p}?{'&'.join(q)}" for p, q in GRAPH_READS])
async def test_read_answers_match_their_documented_model(
    loaded_story: Story, story_client: httpx.AsyncClient, path: str, params: dict[str, str]
) -> None:
    answer = await story_client.get(path, params=params)
    assert answer.status_code == 200, answer.text
    assert_documented(loaded_story.document, "get", path, answer)
    body = answer.json()
    assert any(v not in ([], {}, None, 0) for v in body.values()), body  # something real was validated
    # the handler's bytes are what FastAPI writes for a dict answer with this content
    assert answer.content == ANY_DICT.dump_json(body, by_alias=True)


async def test_runs_and_events_by_id(loaded_story: Story, story_client: httpx.AsyncClient) -> None:
    """A run as a node (``run:<id>``), and a raw event by id (documented as the OpenLineage object)."""
    runs = (await story_client.get("/api/v1/graph/runs", params={"nodeId": J2})).json()["runs"]
    states = {r["state"] for r in runs}
    assert {"COMPLETE", "FAIL"} <= states
    for run in runs:
        answer = await story_client.get("/api/v1/graph/node", params={"nodeId": f"run:{run['runId']}"})
        assert answer.status_code == 200
        assert_documented(loaded_story.document, "get", "/api/v1/graph/node", answer)
        assert answer.json() == run
    events = (await story_client.get("/api/v1/events", params={"limit": "1000"})).json()["events"]
    assert {e["kind"] for e in events} == {"RUN", "DATASET", "JOB"}
    for summary in events[:3]:
        raw = await story_client.get(f"/api/v1/events/{summary['id']}")
        assert raw.status_code == 200
        assert_documented(loaded_story.document, "get", "/api/v1/events/{event_id}", raw)


def test_ingest_answers_match_their_documented_model(loaded_story: Story) -> None:
    statuses = [answer.status_code for _, _, answer in loaded_story.ingest_answers]
    assert statuses == [201, 200, 200]
    for method, path, answer in loaded_story.ingest_answers:
        assert_documented(loaded_story.document, method, path, answer)


ERRORS: list[tuple[str, str, dict[str, Any], int]] = [
    ("get", "/api/v1/graph/node", {"params": {"nodeId": "dataset:file:/nowhere"}}, 404),
    ("get", "/api/v1/graph/lineage", {"params": {"nodeId": COMP, "depth": "-1"}}, 400),
    ("get", "/api/v1/graph/lineage", {"params": {"nodeId": "not-an-id"}}, 400),
    ("get", "/api/v1/graph/runs", {"params": {"nodeId": COMP}}, 400),
    ("get", "/api/v1/graph/search", {"params": {}}, 400),
    (
        "get",
        "/api/v1/graph/compare",
        {"params": {"nodeId": COMP, "from": DAY4.isoformat(), "to": DAY1.isoformat()}},
        400,
    ),
    ("get", "/api/v1/events", {"params": {"cursor": "garbage"}}, 400),
    ("get", "/api/v1/events/{event_id}", {"path": "/api/v1/events/nope"}, 404),
    ("post", "/api/v1/lineage", {"content": b"{not json", "headers": {"Content-Type": "application/json"}}, 400),
    ("post", "/api/v1/lineage", {"json": {"eventTime": "yesterday"}}, 422),
    ("post", "/api/v1/lineage", {"content": b"{}", "headers": {"Content-Encoding": "br"}}, 415),
    ("post", "/api/v1/lineage/batch", {"json": [{"eventType": "START"}]}, 422),
]


@pytest.mark.parametrize(
    ("method", "path", "request_args", "status"), ERRORS, ids=[f"{m}-{p}-{s}" for m, p, _, s in ERRORS]
)
async def test_error_answers_match_their_documented_model(
    loaded_story: Story,
    story_client: httpx.AsyncClient,
    method: str,
    path: str,
    request_args: dict[str, Any],
    status: int,
) -> None:
    args = dict(request_args)
    url = args.pop("path", path)
    answer = await story_client.request(method.upper(), url, **args)
    assert answer.status_code == status, answer.text
    assert str(status) in loaded_story.document["paths"][path][method]["responses"]
    assert_documented(loaded_story.document, method, path, answer)


def native_operations(document: dict[str, Any]) -> set[tuple[str, str]]:
    out = set()
    for path, operations in document["paths"].items():
        if not path.startswith(NATIVE_PREFIXES):
            continue
        for method in operations:
            if (method, path) not in {("get", p) for p in MARQUEZ_PATHS}:
                out.add((method, path))
    return out


def test_every_native_operation_is_described_and_exercised(loaded_story: Story) -> None:
    document = loaded_story.document
    operations = native_operations(document)
    exercised = (
        {("get", p) for p, _ in GRAPH_READS}
        | {(m, p) for m, p, _ in loaded_story.ingest_answers}
        | {(m, p) for m, p, _, _ in ERRORS}
    )
    assert operations == exercised
    for method, path in operations:
        responses = document["paths"][path][method]["responses"]
        ok = responses.get("200") or responses["201"]
        schema = ok["content"]["application/json"]["schema"]
        if path != "/api/v1/events/{event_id}":  # the raw event, as received
            assert set(schema) == {"$ref"}, (method, path, schema)
            target = document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]
            assert target.get("additionalProperties") is False or "anyOf" in target, (path, target)
        assert "422" not in responses or path.startswith("/api/v1/lineage"), (path, "FastAPI's 422 is not ours")
        assert responses["default"]["content"]["application/json"]["schema"] == {
            "$ref": "#/components/schemas/ErrorBody"
        }
    assert "HTTPValidationError" not in json.dumps([document["paths"][p][m] for m, p in operations])
    assert "HTTPValidationError" not in document["components"]["schemas"]  # Marquez's paths too: errors are ours


async def test_a_lying_model_is_caught(loaded_story: Story, story_client: httpx.AsyncClient) -> None:
    """The validation has teeth: an extra key, a missing key or a wrong type in a real answer fails."""
    document = loaded_story.document
    schema = response_schema(document, "get", "/api/v1/graph/lineage", 200)
    body = (await story_client.get("/api/v1/graph/lineage", params={"nodeId": COMP, "columns": "true"})).json()
    assert problems(document, schema, body) == []
    extra = copy.deepcopy(body)
    extra["nodes"][0]["color"] = "teal"
    missing = copy.deepcopy(body)
    del missing["columnEdges"][0]["job"]
    wrong = copy.deepcopy(body)
    wrong["nodes"][0]["level"] = "0"
    for lie in (extra, missing, wrong):
        assert problems(document, schema, lie) != []
