"""Lineage around a node: levels, edges, hasMore flags, datasets-only folding, columns, as-of."""

from __future__ import annotations

import pytest

from fixtures.stories.load import ADJ, ATT, BON, COMP, DAY1, EA, EMP, J1, J2, REP, RX, TAX, fid
from headwater.graph import GraphReader, NodeNotFound
from headwater.model.nodeid import parse_node_id as ref


def levels(answer: dict) -> dict[str, int]:
    return {n["id"]: n["level"] for n in answer["nodes"]}


def edge_set(answer: dict) -> set[tuple[str, str, str]]:
    return {(e["source"], e["target"], e["type"]) for e in answer["edges"]}


def test_lineage_both_directions(graph: GraphReader) -> None:
    answer = graph.lineage(ref(COMP), depth=2)
    assert answer["root"] == COMP and answer["at"] is None and answer["truncated"] is False
    assert levels(answer) == {COMP: 0, J2: -1, EA: -2, ADJ: -2, BON: -2, TAX: -2, RX: 1, REP: 2}
    assert edge_set(answer) == {
        (EA, J2, "INPUT"),
        (ADJ, J2, "INPUT"),
        (BON, J2, "INPUT"),
        (TAX, J2, "INPUT"),
        (J2, COMP, "OUTPUT"),
        (COMP, RX, "INPUT"),
        (RX, REP, "OUTPUT"),
    }
    nodes = {n["id"]: n for n in answer["nodes"]}
    assert nodes[EA]["hasMoreUpstream"] is True  # job1 writes it, beyond depth 2
    assert [k for k, n in nodes.items() if n["hasMoreUpstream"] or n["hasMoreDownstream"]] == [EA]
    assert nodes[COMP]["kind"] == "table" and nodes[REP]["kind"] == "jdbc" and nodes[EA]["kind"] == "file"
    assert nodes[REP]["deleted"] is True and nodes[COMP]["deleted"] is False
    assert [f["name"] for f in nodes[COMP]["fields"]] == ["EmployeeID", "Name", "TotalCompensation"]
    assert nodes[J2]["jobType"] == {"integration": "SPARK", "processingType": "BATCH", "jobType": "SQL_JOB"}
    assert nodes[J2]["latestRun"]["state"] == "FAIL"
    assert answer["columnEdges"] == []


def test_lineage_directions_and_depth(graph: GraphReader) -> None:
    up = graph.lineage(ref(COMP), direction="upstream", depth=4)
    assert levels(up) == {COMP: 0, J2: -1, EA: -2, ADJ: -2, BON: -2, TAX: -2, J1: -3, EMP: -4, ATT: -4}
    down = graph.lineage(ref(EMP), direction="downstream", depth=3)
    assert levels(down) == {EMP: 0, J1: 1, EA: 2, J2: 3}
    assert {n["id"]: n["hasMoreDownstream"] for n in down["nodes"]}[J2] is True
    job_root = graph.lineage(ref(J2), depth=1)
    assert levels(job_root) == {J2: 0, EA: -1, ADJ: -1, BON: -1, TAX: -1, COMP: 1}
    field_root = graph.lineage(ref(fid(COMP, "Name")), depth=1, direction="upstream")
    assert field_root["root"] == fid(COMP, "Name") and levels(field_root) == {COMP: 0, J2: -1}
    assert levels(graph.lineage(ref(COMP), depth=0)) == {COMP: 0}


def test_datasets_only_folds_jobs(graph: GraphReader) -> None:
    answer = graph.lineage(ref(COMP), direction="upstream", depth=2, datasets_only=True)
    assert levels(answer) == {COMP: 0, EA: -1, ADJ: -1, BON: -1, TAX: -1, EMP: -2, ATT: -2}
    assert {(e["source"], e["target"], e["type"], tuple(e["via"])) for e in answer["edges"]} == {
        (EA, COMP, "DERIVED", (J2,)),
        (ADJ, COMP, "DERIVED", (J2,)),
        (BON, COMP, "DERIVED", (J2,)),
        (TAX, COMP, "DERIVED", (J2,)),
        (EMP, EA, "DERIVED", (J1,)),
        (ATT, EA, "DERIVED", (J1,)),
    }
    assert all(n["type"] == "DATASET" for n in answer["nodes"])
    one = graph.lineage(ref(COMP), direction="upstream", depth=1, datasets_only=True)
    assert {n["id"] for n in one["nodes"] if n["hasMoreUpstream"]} == {EA}


def test_columns_among_the_answer(graph: GraphReader) -> None:
    answer = graph.lineage(ref(COMP), direction="upstream", depth=2, columns=True)
    got = {(e["source"], e["target"], e["job"]) for e in answer["columnEdges"]}
    assert got == {
        (fid(EA, "EmployeeID"), fid(COMP, "EmployeeID"), J2),
        (fid(EA, "Name"), fid(COMP, "Name"), J2),
        (fid(EA, "BaseSalary"), fid(COMP, "TotalCompensation"), J2),
        (fid(ADJ, "AdjustmentAmount"), fid(COMP, "TotalCompensation"), J2),
        (fid(BON, "BonusAmount"), fid(COMP, "TotalCompensation"), J2),
        (fid(TAX, "TaxRate"), fid(COMP, "TotalCompensation"), J2),
        (fid(EA, "EmployeeID"), COMP, J2),
        (fid(ADJ, "EmployeeID"), COMP, J2),
        (fid(BON, "EmployeeID"), COMP, J2),
        (fid(TAX, "Department"), COMP, J2),
    }
    by_key = {(e["source"], e["target"]): e for e in answer["columnEdges"]}
    assert by_key[(fid(ADJ, "AdjustmentAmount"), fid(COMP, "TotalCompensation"))]["transformations"] == [
        {"type": "DIRECT", "subtype": "AGGREGATION", "description": "sum(AdjustmentAmount)", "masking": False}
    ]
    assert by_key[(fid(TAX, "Department"), COMP)]["transformations"] == [
        {"type": "INDIRECT", "subtype": "JOIN", "description": None, "masking": False}
    ]


def test_lineage_as_of(graph: GraphReader) -> None:
    answer = graph.lineage(ref(COMP), depth=2, at=DAY1)
    assert answer["at"] == "2026-01-05T12:00:00Z"
    assert levels(answer) == {COMP: 0, J2: -1, EA: -2, ADJ: -2, BON: -2}  # no tax_rates, no report yet
    nodes = {n["id"]: n for n in answer["nodes"]}
    assert [f["name"] for f in nodes[EA]["fields"]] == ["EmployeeID", "Name", "Department", "BaseSalary", "TotalHours"]
    assert nodes[J2]["latestRun"]["state"] == "COMPLETE"
    assert nodes[J2]["latestRun"]["startedAt"] == "2026-01-05T02:01:10Z"
    with pytest.raises(NodeNotFound, match="not found at 2026-01-05T12:00:00Z"):
        graph.lineage(ref(REP), at=DAY1)


def test_unknown_node_and_bad_arguments(graph: GraphReader) -> None:
    with pytest.raises(NodeNotFound, match="dataset:file:/nope"):
        graph.lineage(ref("dataset:file:/nope"))
    with pytest.raises(ValueError, match="direction must be one of"):
        graph.lineage(ref(COMP), direction="sideways")


def test_truncation(graph: GraphReader) -> None:
    answer = graph.lineage(ref(COMP), depth=2, max_nodes=3)
    assert answer["truncated"] is True and len(answer["nodes"]) == 3


def test_run_root_means_its_job(graph: GraphReader) -> None:
    run_id = graph.runs(ref(J2))["runs"][0]["runId"]
    answer = graph.lineage(ref(f"run:{run_id}"), depth=1)
    assert answer["root"] == f"run:{run_id}"
    assert levels(answer) == {J2: 0, EA: -1, ADJ: -1, BON: -1, TAX: -1, COMP: 1}
