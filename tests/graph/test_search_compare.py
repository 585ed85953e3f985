"""Search ranking, lists, and comparing two moments."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from fixtures.stories.load import BON, COMP, DAG, DAY1, DAY3, EA, EMP, J1, J2, REP, RX, TAX, fid
from headwater.graph import GraphReader, NodeNotFound
from headwater.model.nodeid import parse_node_id as ref
from headwater.store import IncomingEvent, Store


def test_search(graph: GraphReader) -> None:
    jobs = graph.search("JOB1", types=["job"])["results"]
    assert jobs[0] == {
        "id": J1,
        "type": "JOB",
        "namespace": "hr_payroll",
        "name": "job1",
        "field": None,
        "kind": None,
        "updatedAt": "2026-01-08T02:01:00.250Z",
    }
    report = graph.search("compensation_report")["results"]
    assert [(r["id"], r["kind"]) for r in report] == [(REP, "jdbc")]
    # the report table is dropped: its fields are not current any more
    assert [(r["id"], r["kind"]) for r in graph.search("TotalCompensation", types=["field"])["results"]] == [
        (fid(COMP, "TotalCompensation"), "table")
    ]
    assert [r["id"] for r in graph.search("taxrate")["results"]] == [fid(TAX, "TaxRate")]
    datasets = [r["id"] for r in graph.search("employee", types=["dataset"])["results"]]
    assert set(datasets) == {EMP, EA, COMP}
    fields_first = graph.search("employee")["results"]
    assert fields_first[0]["type"] == "FIELD" and fields_first[0]["field"] == "EmployeeID"  # prefix before substring
    assert [r["id"] for r in graph.search("hr", namespace="postgres://db.hr.local:5432")["results"]] == [REP]
    assert graph.search("employee_att%", types=["dataset"])["results"] == []  # wildcards are literal
    assert len(graph.search("e", limit=3)["results"]) == 3
    with pytest.raises(ValueError, match="unknown search type"):
        graph.search("x", types=["table"])


def test_lists(graph: GraphReader) -> None:
    assert graph.namespaces() == {
        "namespaces": [
            {"name": "airflow", "datasets": 0, "jobs": 1, "updatedAt": "2026-01-08T02:01:50Z"},
            {"name": "file", "datasets": 7, "jobs": 0, "updatedAt": "2026-01-08T02:01:40Z"},
            {"name": "hr_payroll", "datasets": 0, "jobs": 3, "updatedAt": "2026-01-08T02:01:40Z"},
            {"name": "postgres://db.hr.local:5432", "datasets": 1, "jobs": 0, "updatedAt": "2026-01-09T08:00:00Z"},
        ]
    }
    files = graph.datasets(namespace="file", limit=2, offset=1)
    assert files["total"] == 7 and [n["name"] for n in files["items"]] == [
        "/data/hr/bonus_payments.csv",
        "/data/hr/employees.csv",
    ]
    jobs = graph.jobs()
    assert jobs["total"] == 4 and [n["id"] for n in jobs["items"]] == [DAG, J1, J2, RX]
    assert [n["id"] for n in graph.recent(limit=3)["items"]] == [REP, DAG, BON]


def test_compare_two_moments(graph: GraphReader) -> None:
    diff = graph.compare(ref(COMP), t_from=DAY1, t_to=DAY3)
    assert diff["from"] == "2026-01-05T12:00:00Z" and diff["to"] == "2026-01-07T12:00:00Z" and diff["root"] == COMP
    assert [n["id"] for n in diff["nodes"]["added"]] == [TAX, REP, RX]
    assert diff["nodes"]["removed"] == []
    assert {(e["source"], e["target"], e["type"]) for e in diff["edges"]["added"]} == {
        (TAX, J2, "INPUT"),
        (COMP, RX, "INPUT"),
        (RX, REP, "OUTPUT"),
    }
    assert diff["edges"]["removed"] == []
    assert diff["columns"] == {
        "added": [{"dataset": EA, "field": "Email", "type": "string"}],
        "removed": [],
        "changed": [],
    }
    assert {(e["source"], e["target"]) for e in diff["columnEdges"]["added"]} == {
        (fid(TAX, "TaxRate"), fid(COMP, "TotalCompensation")),
        (fid(TAX, "Department"), COMP),
        (fid(COMP, "EmployeeID"), fid(REP, "EmployeeID")),
        (fid(COMP, "TotalCompensation"), fid(REP, "TotalCompensation")),
    }
    assert diff["columnEdges"]["removed"] == []
    back = graph.compare(ref(COMP), t_from=DAY3, t_to=DAY1)
    assert [n["id"] for n in back["nodes"]["removed"]] == [TAX, REP, RX]
    assert back["columns"]["removed"] == [{"dataset": EA, "field": "Email", "type": "string"}]
    with pytest.raises(NodeNotFound):
        graph.compare(ref("dataset:file:/nope"), t_from=DAY1, t_to=DAY3)


def test_compare_sees_a_type_change(store_url: str) -> None:
    def event(time: str, type_: str) -> dict:
        return {
            "eventTime": time,
            "producer": "https://example.com/p",
            "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/DatasetEvent",
            "dataset": {
                "namespace": "file",
                "name": "/t",
                "facets": {
                    "schema": {
                        "_producer": "https://example.com/p",
                        "_schemaURL": "https://example.com/s",
                        "fields": [{"name": "amount", "type": type_}],
                    }
                },
            },
        }

    with Store.open(store_url) as store:
        store.append(
            [
                IncomingEvent(e, json.dumps(e))
                for e in (event("2026-02-01T00:00:00Z", "int"), event("2026-02-02T00:00:00Z", "decimal(10,2)"))
            ]
        )
        diff = GraphReader(store).compare(
            ref("dataset:file:/t"),
            t_from=datetime(2026, 2, 1, 12, tzinfo=UTC),
            t_to=datetime(2026, 2, 2, 12, tzinfo=UTC),
        )
    assert diff["columns"]["changed"] == [
        {"dataset": "dataset:file:/t", "field": "amount", "fromType": "int", "toType": "decimal(10,2)"}
    ]
    assert diff["nodes"] == {"added": [], "removed": [], "dropped": [], "restored": []}
