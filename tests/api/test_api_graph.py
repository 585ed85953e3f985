"""The native read API (/api/v1/graph/*) over a store loaded with the story through ingest:
shapes of docs/api.md, as-of answers, and parameter errors with clear messages."""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest
from api_events import BETWEEN_1_AND_2, BUILD, EMPLOYEES, PAYROLL, REPORT, REPORT_JOB, node_id
from api_helpers import Loaded, assert_error

pytestmark = pytest.mark.anyio

PAYROLL_ID = node_id("dataset", PAYROLL)
EMPLOYEES_ID = node_id("dataset", EMPLOYEES)
REPORT_ID = node_id("dataset", REPORT)
BUILD_ID = node_id("job", BUILD)
REPORT_JOB_ID = node_id("job", REPORT_JOB)


async def get(loaded: Loaded, path: str, **params: Any) -> Any:
    async with loaded.client() as client:
        answer = await client.get(path, params=params)
    assert answer.status_code == 200, answer.text
    return answer.json()


async def error(loaded: Loaded, path: str, status: int, code: str, **params: Any) -> dict[str, Any]:
    async with loaded.client() as client:
        return assert_error(await client.get(path, params=params), status, code)


async def test_lineage_of_a_dataset(loaded: Loaded) -> None:
    answer = await get(loaded, "/api/v1/graph/lineage", nodeId=PAYROLL_ID)
    assert answer["root"] == PAYROLL_ID and answer["depth"] == 2 and answer["truncated"] is False
    nodes = {n["id"]: n for n in answer["nodes"]}
    assert {EMPLOYEES_ID, PAYROLL_ID, REPORT_ID, BUILD_ID, REPORT_JOB_ID} <= set(nodes)
    assert nodes[PAYROLL_ID]["level"] == 0
    assert nodes[BUILD_ID]["level"] == -1 and nodes[REPORT_JOB_ID]["level"] == 1
    assert nodes[BUILD_ID]["type"] == "JOB" and nodes[PAYROLL_ID]["type"] == "DATASET"
    assert {f["name"] for f in nodes[PAYROLL_ID]["fields"]} == {"EmployeeID", "Total", "Bonus"}
    edges = {(e["source"], e["target"], e["type"]) for e in answer["edges"]}
    assert (EMPLOYEES_ID, BUILD_ID, "INPUT") in edges and (REPORT_JOB_ID, REPORT_ID, "OUTPUT") in edges


async def test_lineage_datasets_only_columns_and_direction(loaded: Loaded) -> None:
    folded = await get(loaded, "/api/v1/graph/lineage", nodeId=PAYROLL_ID, datasetsOnly="true", columns="true")
    assert {n["type"] for n in folded["nodes"]} == {"DATASET"}
    derived = {(e["source"], e["target"]): e for e in folded["edges"]}
    assert derived[(EMPLOYEES_ID, PAYROLL_ID)]["type"] == "DERIVED"
    assert derived[(EMPLOYEES_ID, PAYROLL_ID)]["via"] == [BUILD_ID]
    column_edges = {(c["source"], c["target"]) for c in folded["columnEdges"]}
    assert (node_id("datasetField", EMPLOYEES, "Salary"), node_id("datasetField", PAYROLL, "Total")) in column_edges
    upstream = await get(loaded, "/api/v1/graph/lineage", nodeId=PAYROLL_ID, direction="upstream")
    assert REPORT_ID not in {n["id"] for n in upstream["nodes"]}
    by_parts = await get(loaded, "/api/v1/graph/lineage", type="dataset", namespace=PAYROLL[0], name=PAYROLL[1])
    assert by_parts["root"] == PAYROLL_ID


async def test_lineage_as_of_a_past_moment(loaded: Loaded) -> None:
    then = await get(loaded, "/api/v1/graph/lineage", nodeId=PAYROLL_ID, at=BETWEEN_1_AND_2)
    payroll = next(n for n in then["nodes"] if n["id"] == PAYROLL_ID)
    assert {f["name"] for f in payroll["fields"]} == {"EmployeeID", "Total"}
    before_anything = await error(loaded, "/api/v1/graph/node", 404, "not_found", nodeId=PAYROLL_ID, at="2020-01-01")
    assert "payroll" in before_anything["message"]


async def test_column_lineage_and_impact(loaded: Loaded) -> None:
    total = node_id("datasetField", REPORT, "Total")
    upstream = await get(loaded, "/api/v1/graph/column-lineage", nodeId=total, direction="upstream")
    assert {n["id"] for n in upstream["nodes"]} >= {
        total,
        node_id("datasetField", PAYROLL, "Total"),
        node_id("datasetField", EMPLOYEES, "Salary"),
    }
    impact = await get(loaded, "/api/v1/graph/impact", nodeId=EMPLOYEES_ID)
    items = {i["id"]: i for i in impact["items"]}
    assert {PAYROLL_ID, REPORT_ID, BUILD_ID, REPORT_JOB_ID} <= set(items)
    assert items[PAYROLL_ID]["path"][0] == EMPLOYEES_ID and items[PAYROLL_ID]["path"][-1] == PAYROLL_ID
    assert impact["summary"]["datasets"] >= 2 and impact["summary"]["jobs"] >= 2

    async with loaded.client() as client:
        answer = await client.get("/api/v1/graph/impact", params={"nodeId": EMPLOYEES_ID, "format": "csv"})
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(answer.text)))
    assert list(rows[0]) == ["depth", "type", "id", "namespace", "name", "field", "path"]
    assert {r["id"] for r in rows} == set(items)
    report = next(r for r in rows if r["id"] == REPORT_ID)
    assert report["path"].startswith(EMPLOYEES_ID) and report["path"].endswith(REPORT_ID)


async def test_node_history_runs(loaded: Loaded) -> None:
    dataset = await get(loaded, "/api/v1/graph/node", nodeId=PAYROLL_ID)
    assert dataset["producers"] == [BUILD_ID] and dataset["consumers"] == [REPORT_JOB_ID]
    job = await get(loaded, "/api/v1/graph/node", nodeId=REPORT_JOB_ID)
    assert job["inputs"] == [PAYROLL_ID] and job["outputs"] == [REPORT_ID]
    assert job["latestRun"]["state"] == "FAIL"
    run = await get(loaded, "/api/v1/graph/node", nodeId=f"run:{loaded.story.report_run}")
    assert run["state"] == "FAIL" and run["errorMessage"] == "relation hr.public.report is locked"
    assert run["parentJob"] == "job:airflow:payroll_dag.report"
    versions = (await get(loaded, "/api/v1/graph/history", nodeId=PAYROLL_ID))["versions"]
    assert len(versions) >= 2 and "schema" in versions[0]["changes"]
    runs = await get(loaded, "/api/v1/graph/runs", nodeId=BUILD_ID, limit=1)
    assert runs["total"] == 2 and [r["runId"] for r in runs["runs"]] == [loaded.story.build_run_2]


async def test_search_lists_and_compare(loaded: Loaded) -> None:
    results = (await get(loaded, "/api/v1/graph/search", q="payroll"))["results"]
    assert {PAYROLL_ID, BUILD_ID, REPORT_JOB_ID} <= {r["id"] for r in results}
    fields = (await get(loaded, "/api/v1/graph/search", q="bonus", type="field"))["results"]
    assert [r["id"] for r in fields] == [node_id("datasetField", PAYROLL, "Bonus")]
    namespaces = {n["name"] for n in (await get(loaded, "/api/v1/graph/namespaces"))["namespaces"]}
    assert {"file", "spark", "postgres://db:5432"} <= namespaces
    datasets = await get(loaded, "/api/v1/graph/datasets", namespace="file")
    assert datasets["total"] == 2 and {n["id"] for n in datasets["items"]} == {EMPLOYEES_ID, PAYROLL_ID}
    jobs = await get(loaded, "/api/v1/graph/jobs", namespace="spark")
    assert {n["id"] for n in jobs["items"]} == {BUILD_ID, REPORT_JOB_ID}
    assert len((await get(loaded, "/api/v1/graph/recent", limit=3))["items"]) == 3
    compare = await get(loaded, "/api/v1/graph/compare", nodeId=PAYROLL_ID, **{"from": BETWEEN_1_AND_2})
    assert [(c["dataset"], c["field"]) for c in compare["columns"]["added"]] == [(PAYROLL_ID, "Bonus")]


@pytest.mark.parametrize(
    ("path", "params", "param", "words"),
    [
        ("/api/v1/graph/lineage", {"nodeId": "table:x:y"}, "nodeId", "unknown node type"),
        ("/api/v1/graph/lineage", {"nodeId": "dataset:nocolon"}, "nodeId", "namespace"),
        ("/api/v1/graph/lineage", {}, "nodeId", "missing"),
        ("/api/v1/graph/lineage", {"nodeId": PAYROLL_ID, "depth": 99}, "depth", "less than or equal"),
        ("/api/v1/graph/lineage", {"nodeId": PAYROLL_ID, "direction": "sideways"}, "direction", "both"),
        ("/api/v1/graph/lineage", {"nodeId": PAYROLL_ID, "at": "soon"}, "at", "ISO 8601"),
        ("/api/v1/graph/lineage", {"nodeId": "run:abc"}, "nodeId", "run"),
        ("/api/v1/graph/impact", {"nodeId": BUILD_ID}, "nodeId", "dataset"),
        ("/api/v1/graph/impact", {"nodeId": PAYROLL_ID, "format": "xml"}, "format", "json"),
        ("/api/v1/graph/search", {"q": "a", "type": "table"}, "type", "dataset, job, field"),
        ("/api/v1/graph/search", {}, "q", "required"),
        ("/api/v1/graph/compare", {"nodeId": PAYROLL_ID}, "from", "required"),
        ("/api/v1/graph/compare", {"nodeId": PAYROLL_ID, "from": "2026-11-23", "to": "2026-11-22"}, "from", "later"),
        ("/api/v1/graph/node", {"type": "dataset", "namespace": "file"}, "namespace", "name="),
        *(
            (path, {**extra, "offset": offset}, "offset", words)
            for path, extra in (
                ("/api/v1/graph/datasets", {}),
                ("/api/v1/graph/jobs", {}),
                ("/api/v1/graph/runs", {"nodeId": BUILD_ID}),
            )
            for offset, words in (
                ("1e30", "integer"),
                (str(10**30), "less than or equal to 10000000"),
                (str(2**63), "less than or equal to 10000000"),
                ("10000001", "less than or equal to 10000000"),
                ("-1", "greater than or equal to 0"),
            )
        ),
    ],
)
async def test_bad_parameters_are_400_naming_the_parameter(
    loaded: Loaded, path: str, params: dict[str, Any], param: str, words: str
) -> None:
    body = await error(loaded, path, 400, "invalid_parameter", **params)
    assert body["details"][0]["path"] == param
    assert words in body["message"]


async def test_unknown_nodes_and_paths_are_404(loaded: Loaded) -> None:
    await error(loaded, "/api/v1/graph/lineage", 404, "not_found", nodeId="dataset:file:/nowhere")
    await error(loaded, "/api/v1/graph/node", 404, "not_found", nodeId="run:00000000-0000-0000-0000-000000000000")
    await error(loaded, "/api/v1/no-such-thing", 404, "not_found")


async def test_epoch_millis_and_iso_give_the_same_answer(loaded: Loaded) -> None:
    iso_answer = await get(loaded, "/api/v1/graph/node", nodeId=PAYROLL_ID, at="2026-11-11T12:00:00Z")
    millis_answer = await get(loaded, "/api/v1/graph/node", nodeId=PAYROLL_ID, at="1794398400000")
    naive_answer = await get(loaded, "/api/v1/graph/node", nodeId=PAYROLL_ID, at="2026-11-11T12:00:00")
    assert iso_answer == millis_answer == naive_answer


async def test_openapi_documents_every_family(loaded: Loaded) -> None:
    spec = await get(loaded, "/openapi.json")
    paths = set(spec["paths"])
    assert {
        "/api/v1/lineage",
        "/api/v1/lineage/batch",
        "/api/v1/events",
        "/api/v1/events/{event_id}",
        "/api/v1/graph/lineage",
        "/api/v1/graph/impact",
        "/api/v1/namespaces",
    } <= paths
    async with loaded.client() as client:
        docs = await client.get("/docs")
    assert docs.status_code == 200 and "swagger" in docs.text.lower()
