"""Node details, runs, history, DatasetEvents, JobEvents and point-in-time reads."""

from __future__ import annotations

import uuid

import pytest

from fixtures.stories.load import ADJ, BON, COMP, DAG, DAY1, DAY2, DAY3, DAY4, EA, EMP, J1, J2, REP, RX, TAX
from headwater.graph import GraphReader, NodeNotFound
from headwater.model.nodeid import parse_node_id as ref

DAG_DAY4 = str(uuid.uuid5(uuid.NAMESPACE_URL, "headwater-story:dag-day4"))
JOB2_DAY4 = str(uuid.uuid5(uuid.NAMESPACE_URL, "headwater-story:job2-day4"))


def test_dataset_details(graph: GraphReader) -> None:
    node = graph.node(ref(COMP))
    assert node["id"] == COMP and node["type"] == "DATASET" and node["kind"] == "table"
    assert node["producers"] == [J2] and node["consumers"] == [RX]
    assert node["createdAt"] == "2026-01-05T02:01:10Z"
    assert set(node["facets"]) == {"symlinks", "documentation", "ownership", "hrClassification"}
    assert node["facets"]["hrClassification"]["level"] == "confidential"  # custom facet kept
    assert node["currentVersion"]["changes"] == ["facets"]
    assert node["currentVersion"]["validFrom"] == "2026-01-06T12:00:00Z"
    early = graph.node(ref(COMP), at=DAY1)
    assert set(early["facets"]) == {"symlinks"} and early["consumers"] == []
    assert early["currentVersion"]["changes"] == ["created"]


def test_dropped_dataset(graph: GraphReader) -> None:
    assert graph.node(ref(REP))["deleted"] is True
    assert graph.node(ref(REP))["currentVersion"]["changes"] == ["dropped"]
    assert graph.node(ref(REP), at=DAY4)["deleted"] is False
    assert graph.node(ref(REP), at=DAY4)["kind"] == "jdbc"
    with pytest.raises(NodeNotFound):
        graph.node(ref(REP), at=DAY2)


def test_job_details(graph: GraphReader) -> None:
    node = graph.node(ref(J2))
    assert node["jobType"] == {"integration": "SPARK", "processingType": "BATCH", "jobType": "SQL_JOB"}
    assert node["latestRun"] == {
        "runId": JOB2_DAY4,
        "state": "FAIL",
        "startedAt": "2026-01-08T02:01:10Z",
        "endedAt": "2026-01-08T02:01:40Z",
        "durationMs": 30000,
    }
    assert node["inputs"] == sorted([EA, ADJ, BON, TAX]) and node["outputs"] == [COMP]
    assert node["parent"] == DAG and node["createdAt"] == "2026-01-05T02:01:10Z"
    assert "TaxRate" in node["facets"]["sql"]["query"]
    assert node["currentVersion"]["changes"] == ["inputs", "sql", "columnLineage"]
    before = graph.node(ref(J2), at=DAY2)
    assert before["inputs"] == sorted([EA, ADJ, BON]) and "TaxRate" not in before["facets"]["sql"]["query"]
    assert before["latestRun"]["startedAt"] == "2026-01-06T02:01:10Z"
    dag = graph.node(ref(DAG))
    assert dag["jobType"] == {"integration": "AIRFLOW", "processingType": "BATCH", "jobType": "DAG"}
    assert dag["latestRun"]["state"] == "FAIL" and dag["inputs"] == [] and dag["parent"] is None
    export = graph.node(ref(RX))  # defined by a JobEvent only: no runs
    assert export["inputs"] == [COMP] and export["outputs"] == [REP] and export["latestRun"] is None
    assert export["jobType"]["integration"] == "DBT"


def test_runs(graph: GraphReader) -> None:
    answer = graph.runs(ref(J2))
    assert answer["total"] == 4
    assert [r["state"] for r in answer["runs"]] == ["FAIL", "COMPLETE", "COMPLETE", "COMPLETE"]
    failed = answer["runs"][0]
    assert failed["runId"] == JOB2_DAY4 and failed["job"] == J2
    assert failed["errorMessage"] == "Division by zero in TotalCompensation"
    assert failed["stackTrace"].endswith("ZeroDivisionError: division by zero")
    assert failed["parentRunId"] == DAG_DAY4 and failed["parentJob"] == DAG
    assert failed["facets"]["hrCostCenter"]["costCenter"] == "CC-42"
    assert failed["outputs"] == [COMP]  # from its START event: a run's inputs/outputs are the union
    assert graph.run(JOB2_DAY4) == failed
    assert graph.node(ref(f"run:{JOB2_DAY4}")) == failed
    page = graph.runs(ref(J2), limit=2, offset=1)
    assert [r["startedAt"] for r in page["runs"]] == ["2026-01-07T02:01:10Z", "2026-01-06T02:01:10Z"]
    assert page["total"] == 4
    assert graph.runs(ref(EMP))["total"] == 4  # runs that read employees.csv (job1, every day)
    with pytest.raises(NodeNotFound):
        graph.run(str(uuid.uuid4()))


def test_history(graph: GraphReader) -> None:
    def summary(node: str) -> list[tuple[str, str | None, list[str]]]:
        return [(v["validFrom"], v["validTo"], v["changes"]) for v in graph.history(ref(node))["versions"]]

    assert summary(J2) == [
        ("2026-01-07T02:01:10Z", None, ["inputs", "sql", "columnLineage"]),
        ("2026-01-05T02:01:10Z", "2026-01-07T02:01:10Z", ["created"]),
    ]
    # a job version says what it reads and writes (the UI shows what changed: TAX read from day 3)
    versions = graph.history(ref(J2))["versions"]
    assert [(v["inputs"], v["outputs"]) for v in versions] == [
        (sorted([EA, ADJ, BON, TAX]), [COMP]),
        (sorted([EA, ADJ, BON]), [COMP]),
    ]
    assert "inputs" not in graph.history(ref(EMP))["versions"][0]  # datasets: a schema instead
    assert summary(J1) == [
        ("2026-01-06T02:00:05Z", None, ["columnLineage"]),
        ("2026-01-05T02:00:05Z", "2026-01-06T02:00:05Z", ["created"]),
    ]
    assert summary(EMP) == [
        ("2026-01-06T02:00:05Z", None, ["schema"]),
        ("2026-01-05T02:00:05Z", "2026-01-06T02:00:05Z", ["created"]),
    ]
    assert summary(COMP) == [
        ("2026-01-06T12:00:00Z", None, ["facets"]),
        ("2026-01-05T02:01:10Z", "2026-01-06T12:00:00Z", ["created"]),
    ]
    assert summary(REP) == [
        ("2026-01-09T08:00:00Z", None, ["dropped"]),
        ("2026-01-07T09:00:00Z", "2026-01-09T08:00:00Z", ["created"]),
    ]
    versions = graph.history(ref(EMP))["versions"]
    assert [f["name"] for f in versions[0]["fields"]][-1] == "Email"
    assert versions[1]["runId"] == str(uuid.uuid5(uuid.NAMESPACE_URL, "headwater-story:job1-day1"))
    assert graph.history(ref(f"datasetField:{EMP[len('dataset:') :]}:Email")) == graph.history(ref(EMP))
    with pytest.raises(NodeNotFound):
        graph.history(ref("job:hr_payroll:nope"))


def test_job_version_as_of_each_day(graph: GraphReader) -> None:
    assert graph.node(ref(J2), at=DAY1)["currentVersion"]["changes"] == ["created"]
    assert graph.node(ref(J2), at=DAY3)["currentVersion"]["changes"] == ["inputs", "sql", "columnLineage"]
    with pytest.raises(NodeNotFound):
        graph.node(ref(J2), at=DAY1.replace(hour=1))
