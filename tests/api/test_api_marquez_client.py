"""marquez-python, Marquez's own client, against Headwater over real HTTP: its 17 read methods work.

The story (tests/api/api_events.py) is served by uvicorn on a loopback port (SQLite and PostgreSQL);
the client is ``MarquezClient(url=...)`` as a Marquez user would make it, unchanged.
"""

from __future__ import annotations

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
