"""Marquez's read paths answer in Marquez's shapes (spec/openapi.yml of Marquez)."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import pytest
from api_events import BUILD, EMPLOYEES, PAYROLL, REPORT, REPORT_JOB, node_id
from api_helpers import Loaded, assert_error

pytestmark = pytest.mark.anyio

MARQUEZ_DATASET_KEYS = {
    "id",
    "type",
    "name",
    "physicalName",
    "createdAt",
    "updatedAt",
    "namespace",
    "sourceName",
    "fields",
    "tags",
    "lastModifiedAt",
    "description",
    "facets",
    "currentVersion",
}
MARQUEZ_JOB_KEYS = {
    "id",
    "type",
    "name",
    "createdAt",
    "updatedAt",
    "namespace",
    "inputs",
    "outputs",
    "location",
    "description",
    "latestRun",
    "facets",
    "currentVersion",
}
MARQUEZ_RUN_KEYS = {
    "id",
    "createdAt",
    "updatedAt",
    "nominalStartTime",
    "nominalEndTime",
    "state",
    "startedAt",
    "endedAt",
    "durationMs",
    "args",
    "facets",
}


async def get(loaded: Loaded, path: str, **params: Any) -> Any:
    async with loaded.client() as client:
        answer = await client.get(path, params=params)
    assert answer.status_code == 200, f"{path}: {answer.text}"
    return answer.json()


def enc(text: str) -> str:
    return quote(text, safe="")


async def test_namespaces(loaded: Loaded) -> None:
    listed = (await get(loaded, "/api/v1/namespaces"))["namespaces"]
    names = {n["name"] for n in listed}
    assert {"file", "spark", "postgres://db:5432"} <= names
    assert set(listed[0]) >= {"name", "createdAt", "updatedAt", "ownerName", "description"}
    one = await get(loaded, f"/api/v1/namespaces/{enc('postgres://db:5432')}")
    assert one["name"] == "postgres://db:5432"
    async with loaded.client() as client:
        assert_error(await client.get("/api/v1/namespaces/nope"), 404, "not_found")


async def test_datasets_and_versions(loaded: Loaded) -> None:
    listed = await get(loaded, "/api/v1/namespaces/file/datasets")
    assert listed["totalCount"] == 2
    assert {d["name"] for d in listed["datasets"]} == {EMPLOYEES[1], PAYROLL[1]}
    dataset = await get(loaded, f"/api/v1/namespaces/file/datasets/{enc(PAYROLL[1])}")
    assert set(dataset) >= MARQUEZ_DATASET_KEYS
    assert dataset["id"] == {"namespace": "file", "name": PAYROLL[1]}
    assert dataset["type"] == "DB_TABLE" and dataset["sourceName"] == "file"
    assert {f["name"]: f["type"] for f in dataset["fields"]}["Total"] == "decimal(10,2)"
    versions = await get(loaded, f"/api/v1/namespaces/file/datasets/{enc(PAYROLL[1])}/versions")
    assert versions["totalCount"] >= 2
    newest = versions["versions"][0]
    assert newest["id"]["name"] == PAYROLL[1] and newest["version"] == newest["id"]["version"]
    assert "Bonus" in {f["name"] for f in newest["fields"]}
    table = await get(loaded, f"/api/v1/namespaces/{enc(REPORT[0])}/datasets/{enc(REPORT[1])}")
    assert table["namespace"] == REPORT[0]


async def test_jobs_runs_and_one_run(loaded: Loaded) -> None:
    listed = await get(loaded, "/api/v1/namespaces/spark/jobs")
    # a nested job is named parent.child, as Marquez names it (its parent: the Airflow task payroll_dag.report)
    nested = f"payroll_dag.report.{REPORT_JOB[1]}"
    assert {j["name"] for j in listed["jobs"]} == {BUILD[1], nested}
    job = await get(loaded, f"/api/v1/namespaces/spark/jobs/{REPORT_JOB[1]}")
    assert job == await get(loaded, f"/api/v1/namespaces/spark/jobs/{nested}")  # found by either name
    assert (job["name"], job["simpleName"], job["parentJobName"]) == (nested, REPORT_JOB[1], "payroll_dag.report")
    assert job["id"] == {"namespace": "spark", "name": nested}
    assert set(job) >= MARQUEZ_JOB_KEYS
    assert job["inputs"] == [{"namespace": "file", "name": PAYROLL[1]}]
    assert job["outputs"] == [{"namespace": REPORT[0], "name": REPORT[1]}]
    assert job["latestRun"]["state"] == "FAILED" and job["type"] == "BATCH"
    runs = await get(loaded, f"/api/v1/namespaces/spark/jobs/{BUILD[1]}/runs")
    assert runs["totalCount"] == 2
    assert [r["state"] for r in runs["runs"]] == ["COMPLETED", "COMPLETED"]
    assert set(runs["runs"][0]) >= MARQUEZ_RUN_KEYS
    run = await get(loaded, f"/api/v1/jobs/runs/{loaded.story.report_run}")
    assert run["id"] == loaded.story.report_run and run["state"] == "FAILED"
    assert run["durationMs"] == 60_000
    assert "errorMessage" in run["facets"]


async def test_lineage_graph_in_marquez_shape(loaded: Loaded) -> None:
    graph = (await get(loaded, "/api/v1/lineage", nodeId=node_id("dataset", PAYROLL), depth=5))["graph"]
    nodes = {n["id"]: n for n in graph}
    payroll, build = nodes[node_id("dataset", PAYROLL)], nodes[node_id("job", BUILD)]
    assert payroll["type"] == "DATASET" and build["type"] == "JOB"
    assert {"origin": node_id("job", BUILD), "destination": node_id("dataset", PAYROLL)} in payroll["inEdges"]
    assert payroll["data"]["id"] == {"namespace": "file", "name": PAYROLL[1]}
    assert build["data"]["outputs"] == [{"namespace": "file", "name": PAYROLL[1]}]
    # the nested job has Marquez's parent.child name in its id, its data and the edges to it
    report = nodes["job:spark:payroll_dag.report.payroll.report"]
    assert report["data"]["name"] == "payroll_dag.report.payroll.report"
    assert report["data"]["parentJobName"] == "payroll_dag.report"
    assert {"origin": node_id("dataset", PAYROLL), "destination": report["id"]} in payroll["outEdges"]
    assert node_id("job", REPORT_JOB) not in nodes


async def test_column_lineage_in_marquez_shape(loaded: Loaded) -> None:
    total = node_id("datasetField", REPORT, "Total")
    graph = (await get(loaded, "/api/v1/column-lineage", nodeId=total, depth=10))["graph"]
    nodes = {n["id"]: n for n in graph}
    assert nodes[total]["type"] == "DATASET_FIELD"
    data = nodes[total]["data"]
    assert (data["namespace"], data["dataset"], data["field"]) == (REPORT[0], REPORT[1], "Total")
    assert [(i["dataset"], i["field"]) for i in data["inputFields"]] == [(PAYROLL[1], "Total")]
    payroll_total = nodes[node_id("datasetField", PAYROLL, "Total")]["data"]
    assert [(i["dataset"], i["field"]) for i in payroll_total["inputFields"]] == [(EMPLOYEES[1], "Salary")]
    downstream = (
        await get(
            loaded, "/api/v1/column-lineage", nodeId=node_id("datasetField", PAYROLL, "Total"), withDownstream="true"
        )
    )["graph"]
    assert total in {n["id"] for n in downstream}


async def test_search_and_lineage_events(loaded: Loaded) -> None:
    found = await get(loaded, "/api/v1/search", q="payroll", filter="DATASET")
    assert found["totalCount"] == len(found["results"]) >= 1
    assert {r["type"] for r in found["results"]} == {"DATASET"}
    assert set(found["results"][0]) == {"type", "name", "updatedAt", "namespace", "nodeId"}
    events = await get(loaded, "/api/v1/events/lineage", limit=3, offset=1)
    assert len(events["events"]) == 3
    everything = await get(loaded, "/api/v1/events/lineage", limit=100)
    assert everything["totalCount"] == len(loaded.story.events)
    assert events["events"] == everything["events"][1:4]
    window = await get(loaded, "/api/v1/events/lineage", after="2026-11-11T00:00:00Z", before="2026-11-11T23:59:59Z")
    assert {e["run"]["runId"] for e in window["events"]} == {loaded.story.report_run}
    async with loaded.client() as client:
        assert_error(await client.get("/api/v1/search", params={"q": "x", "filter": "TABLE"}), 400, "invalid_parameter")
