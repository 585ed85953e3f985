"""marquez-python, Marquez's own client, against Headwater over real HTTP: its 17 read methods work.

The story (tests/api/api_events.py) is served by uvicorn on a loopback port (SQLite and PostgreSQL);
the client is ``MarquezClient(url=...)`` as a Marquez user would make it, unchanged.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from api_events import BUILD, PAYROLL, REPORT_JOB
from api_helpers import Loaded
from marquez_client import MarquezClient

from live_server import ThreadServer

READ_METHODS = {
    "get_namespace",
    "list_namespaces",
    "list_events",
    "get_source",
    "list_sources",
    "get_dataset",
    "get_dataset_version",
    "list_dataset_versions",
    "list_datasets",
    "get_job",
    "list_jobs",
    "list_job_runs",
    "get_job_run",
    "get_column_lineage_by_dataset",
    "get_column_lineage_by_dataset_field",
    "get_column_lineage_by_job",
    "list_tags",
}


@pytest.fixture(scope="module")
def client(loaded: Loaded) -> Iterator[MarquezClient]:
    with ThreadServer(loaded.app) as server:
        yield MarquezClient(url=server.url)


def test_the_client_has_these_17_read_methods() -> None:
    public = {name for name in dir(MarquezClient) if not name.startswith("_")}
    reads = {name for name in public if name.startswith(("get_", "list_"))}
    assert reads == READ_METHODS


def test_all_17_read_methods(client: MarquezClient, loaded: Loaded) -> None:
    called: set[str] = set()

    def call(name: str, *args: object, **kwargs: object) -> dict[str, Any]:
        called.add(name)
        answer = getattr(client, name)(*args, **kwargs)
        assert isinstance(answer, dict), (name, answer)
        return answer

    ns, dataset = PAYROLL
    assert call("get_namespace", ns)["name"] == ns
    assert ns in {n["name"] for n in call("list_namespaces")["namespaces"]}
    assert len(call("list_events", limit=5)["events"]) == 5
    assert call("get_source", ns)["name"] == ns
    assert ns in {s["name"] for s in call("list_sources")["sources"]}
    found = call("get_dataset", ns, dataset)
    assert found["id"] == {"namespace": ns, "name": dataset} and found["columnLineage"]
    versions = call("list_dataset_versions", ns, dataset)["versions"]
    assert len(versions) >= 2
    oldest = call("get_dataset_version", ns, dataset, versions[-1]["version"])
    assert oldest["version"] == versions[-1]["version"]
    assert dataset in {d["name"] for d in call("list_datasets", ns)["datasets"]}
    job = call("get_job", *BUILD)
    assert job["latestRun"]["state"] == "COMPLETED" and job["inputs"]
    assert {j["simpleName"] for j in call("list_jobs", "spark")["jobs"]} == {BUILD[1], REPORT_JOB[1]}
    runs = call("list_job_runs", *BUILD)["runs"]
    assert {r["id"] for r in runs} == {loaded.story.build_run_1, loaded.story.build_run_2}
    assert call("get_job_run", loaded.story.report_run)["state"] == "FAILED"
    fields = {n["data"]["field"] for n in call("get_column_lineage_by_dataset", ns, dataset)["graph"]}
    assert {"Total", "Salary"} <= fields
    total = call("get_column_lineage_by_dataset_field", ns, dataset, "Total", with_downstream=True)["graph"]
    assert {(n["data"]["dataset"], n["data"]["field"]) for n in total} >= {
        (dataset, "Total"),
        ("/data/employees.csv", "Salary"),
    }
    assert call("get_column_lineage_by_job", *BUILD)["graph"]
    assert call("list_tags") == {"tags": []}
    assert called == READ_METHODS


SPARK = "https://github.com/OpenLineage/OpenLineage/tree/1.40.0/integration/spark"
PARENT_URL = "https://openlineage.io/spec/facets/1-1-0/ParentRunFacet.json#/$defs/ParentRunFacet"


def _nested_event(
    kind: str, run: str, job: tuple[str, str], parent: tuple[str, str, str] | None, when: str, io: bool = False
) -> dict[str, Any]:
    facets = {}
    if parent is not None:
        facets["parent"] = {
            "_producer": SPARK,
            "_schemaURL": PARENT_URL,
            "run": {"runId": parent[0]},
            "job": {"namespace": parent[1], "name": parent[2]},
        }
    return {
        "eventType": kind,
        "eventTime": when,
        "producer": SPARK,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": run, "facets": facets},
        "job": {"namespace": job[0], "name": job[1]},
        "inputs": [{"namespace": "s3://lake", "name": "raw/orders"}] if io else [],
        "outputs": [{"namespace": "s3://lake", "name": "clean/orders"}] if io else [],
    }


def test_an_airflow_parented_spark_job_as_marquez_names_it(store: Any) -> None:
    """An Airflow task runs a Spark application whose action writes a dataset (the parent facet at each level):
    Marquez names the action ``<dag>.<task>.<app>.<action>`` (its parent's name, a dot, its simple name), and
    marquez-python's job methods find, list and page it under that name; run dataset versions are UUIDs that
    name real versions."""
    from fastapi.testclient import TestClient

    from headwater.api import create_app
    from headwater.settings import load_settings

    task_run, app_run, action_run = (
        "11111111-1111-4111-8111-111111111111",
        "22222222-2222-4222-8222-222222222222",
        "33333333-3333-4333-8333-333333333333",
    )
    task, app, action = (
        ("airflow", "orders_dag.enrich_task"),
        ("spark", "orders_etl"),
        ("spark", "orders_etl.enrich_orders"),
    )
    events = [
        _nested_event("START", task_run, task, None, "2026-11-20T10:00:00Z"),
        _nested_event("START", app_run, app, (task_run, *task), "2026-11-20T10:01:00Z"),
        _nested_event("START", action_run, action, (app_run, *app), "2026-11-20T10:02:00Z", io=True),
        _nested_event("COMPLETE", action_run, action, (app_run, *app), "2026-11-20T10:05:00Z", io=True),
        _nested_event("COMPLETE", app_run, app, (task_run, *task), "2026-11-20T10:06:00Z"),
        _nested_event("COMPLETE", task_run, task, None, "2026-11-20T10:07:00Z"),
    ]
    served = create_app(load_settings({}, environ={}), store)
    with TestClient(served) as http:
        for e in events:
            assert http.post("/api/v1/lineage", json=e).status_code == 201
    full = "orders_dag.enrich_task.orders_etl.enrich_orders"
    with ThreadServer(served) as server:
        client = MarquezClient(url=server.url)
        for asked in (full, "orders_etl.enrich_orders"):  # its Marquez name, or the name its producer sent
            job = client.get_job("spark", asked)
            assert job["id"] == {"namespace": "spark", "name": full}
            assert (job["name"], job["simpleName"], job["parentJobName"]) == (
                full,
                "enrich_orders",
                "orders_dag.enrich_task.orders_etl",
            )
        listed = {(j["name"], j["simpleName"]) for j in client.list_jobs("spark")["jobs"]}
        assert listed == {("orders_dag.enrich_task.orders_etl", "orders_etl"), (full, "enrich_orders")}
        assert [j["name"] for j in client.list_jobs("airflow")["jobs"]] == ["orders_dag.enrich_task"]
        (run,) = client.list_job_runs("spark", full)["runs"]
        assert run["id"] == action_run and run["jobVersion"]["name"] == full
        used = [*run["inputDatasetVersions"], *run["outputDatasetVersions"]]
        assert [(u["datasetVersionId"]["namespace"], u["datasetVersionId"]["name"]) for u in used] == [
            ("s3://lake", "raw/orders"),
            ("s3://lake", "clean/orders"),
        ]
        for u in used:
            version = u["datasetVersionId"]["version"]
            assert str(uuid.UUID(version)) == version
            found = client.get_dataset_version("s3://lake", u["datasetVersionId"]["name"], version)
            assert found["version"] == version
        assert client.get_job_run(action_run)["jobVersion"]["name"] == full
