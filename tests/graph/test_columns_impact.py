"""Column lineage up and down (with transformation types) and impact analysis with paths."""

from __future__ import annotations

import pytest

from fixtures.stories.load import ADJ, ATT, BON, COMP, DAY1, EA, EMP, J1, J2, REP, RX, TAX, fid
from headwater.graph import GraphReader, NodeNotFound
from headwater.model.nodeid import parse_node_id as ref


def test_column_lineage_upstream(graph: GraphReader) -> None:
    root = fid(COMP, "TotalCompensation")
    answer = graph.column_lineage(ref(root), direction="upstream")
    assert answer["root"] == root and answer["truncated"] is False
    assert {n["id"]: n["level"] for n in answer["nodes"]} == {
        root: 0,
        fid(EA, "BaseSalary"): -1,
        fid(ADJ, "AdjustmentAmount"): -1,
        fid(BON, "BonusAmount"): -1,
        fid(TAX, "TaxRate"): -1,
        fid(EA, "EmployeeID"): -1,
        fid(ADJ, "EmployeeID"): -1,
        fid(BON, "EmployeeID"): -1,
        fid(TAX, "Department"): -1,
        fid(EMP, "BaseSalary"): -2,
        fid(EMP, "EmployeeID"): -2,
        fid(ATT, "EmployeeID"): -2,
        fid(ATT, "Date"): -2,
    }
    nodes = {n["id"]: n for n in answer["nodes"]}
    assert nodes[fid(TAX, "TaxRate")] == {
        "id": fid(TAX, "TaxRate"),
        "dataset": TAX,
        "namespace": "file",
        "name": "/data/hr/tax_rates.csv",
        "field": "TaxRate",
        "type": "double",
        "level": -1,
    }
    edges = {(e["source"], e["target"]): e for e in answer["edges"]}
    assert len(edges) == 13
    assert edges[(fid(ATT, "Date"), EA)]["transformations"] == [
        {"type": "INDIRECT", "subtype": "FILTER", "description": "Date >= start of month", "masking": False}
    ]
    assert edges[(fid(EMP, "BaseSalary"), fid(EA, "BaseSalary"))]["job"] == J1
    assert edges[(fid(EMP, "BaseSalary"), fid(EA, "BaseSalary"))]["transformations"][0]["subtype"] == "IDENTITY"


def test_column_lineage_downstream_and_legacy_transformations(graph: GraphReader) -> None:
    answer = graph.column_lineage(ref(fid(EMP, "BaseSalary")), direction="downstream")
    assert {n["id"]: n["level"] for n in answer["nodes"]} == {
        fid(EMP, "BaseSalary"): 0,
        fid(EA, "BaseSalary"): 1,
        fid(COMP, "TotalCompensation"): 2,
        fid(REP, "TotalCompensation"): 3,
    }
    edges = {(e["source"], e["target"]): e for e in answer["edges"]}
    # the report job's JobEvent uses the older transformationType strings
    assert edges[(fid(COMP, "TotalCompensation"), fid(REP, "TotalCompensation"))] == {
        "source": fid(COMP, "TotalCompensation"),
        "target": fid(REP, "TotalCompensation"),
        "job": RX,
        "transformations": [
            {"type": "DIRECT", "subtype": "TRANSFORMATION", "description": "rounded to hundreds", "masking": True}
        ],
    }


def test_column_lineage_of_a_dataset_and_as_of(graph: GraphReader) -> None:
    now = graph.column_lineage(ref(COMP), direction="upstream", depth=1)
    assert fid(TAX, "TaxRate") in {n["id"] for n in now["nodes"]}
    assert {n["id"] for n in now["nodes"] if n["level"] == 0} == {
        fid(COMP, "EmployeeID"),
        fid(COMP, "Name"),
        fid(COMP, "TotalCompensation"),
    }
    before = graph.column_lineage(ref(COMP), direction="upstream", depth=1, at=DAY1)
    assert {n["dataset"] for n in before["nodes"]} == {COMP, EA, ADJ, BON}
    with pytest.raises(NodeNotFound):
        graph.column_lineage(ref(J1))


def test_impact_of_a_dataset(graph: GraphReader) -> None:
    answer = graph.impact(ref(EMP))
    items = {i["id"]: i for i in answer["items"]}
    assert {k: (v["type"], v["depth"]) for k, v in items.items()} == {
        J1: ("JOB", 1),
        EA: ("DATASET", 2),
        J2: ("JOB", 3),
        COMP: ("DATASET", 4),
        RX: ("JOB", 5),
        REP: ("DATASET", 6),
        fid(EA, "EmployeeID"): ("FIELD", 2),
        fid(EA, "Name"): ("FIELD", 2),
        fid(EA, "Department"): ("FIELD", 2),
        fid(EA, "BaseSalary"): ("FIELD", 2),
        fid(EA, "Email"): ("FIELD", 2),
        fid(COMP, "EmployeeID"): ("FIELD", 4),
        fid(COMP, "Name"): ("FIELD", 4),
        fid(COMP, "TotalCompensation"): ("FIELD", 4),
        fid(REP, "EmployeeID"): ("FIELD", 6),
        fid(REP, "TotalCompensation"): ("FIELD", 6),
    }
    assert answer["summary"] == {"datasets": 3, "jobs": 3, "fields": 10}
    assert items[REP]["path"] == [EMP, J1, EA, J2, COMP, RX, REP]
    assert items[fid(REP, "TotalCompensation")]["path"] == [
        EMP,
        J1,
        fid(EA, "BaseSalary"),
        J2,
        fid(COMP, "TotalCompensation"),
        RX,
        fid(REP, "TotalCompensation"),
    ]
    assert items[fid(EA, "Email")] | {"path": None} == {
        "id": fid(EA, "Email"),
        "type": "FIELD",
        "namespace": "file",
        "name": "/warehouse/hr/employee_attendance",
        "field": "Email",
        "depth": 2,
        "path": None,
    }
    assert [i["depth"] for i in answer["items"]] == sorted(i["depth"] for i in answer["items"])


def test_impact_of_a_column(graph: GraphReader) -> None:
    answer = graph.impact(ref(fid(EMP, "BaseSalary")))
    assert [(i["id"], i["depth"]) for i in answer["items"]] == [
        (J1, 1),
        (EA, 2),
        (fid(EA, "BaseSalary"), 2),
        (J2, 3),
        (COMP, 4),
        (fid(COMP, "TotalCompensation"), 4),
        (RX, 5),
        (REP, 6),
        (fid(REP, "TotalCompensation"), 6),
    ]
    assert answer["summary"] == {"datasets": 3, "jobs": 3, "fields": 3}
    early = graph.impact(ref(fid(EMP, "BaseSalary")), at=DAY1)
    assert {i["id"] for i in early["items"]} == {
        J1,
        EA,
        fid(EA, "BaseSalary"),
        J2,
        COMP,
        fid(COMP, "TotalCompensation"),
    }
    shallow = graph.impact(ref(EMP), depth=2)
    assert {i["id"] for i in shallow["items"]} == {
        J1,
        EA,
        *(fid(EA, f) for f in ("EmployeeID", "Name", "Department", "BaseSalary", "Email")),
    }
