"""Job hierarchy: the HR story's Airflow DAG runs job1 and job2 (parent run facet); report_export has no parent.

Expectations are written out from the story (tests/fixtures/stories/hr_payroll.json), not computed.
"""

from __future__ import annotations

from fixtures.stories.load import ADJ, ATT, BON, COMP, DAG, DAY1, EA, EMP, J1, J2, REP, RX, TAX
from headwater.graph import GraphReader
from headwater.model.nodeid import parse_node_id as ref


def edges(answer: dict) -> dict[tuple[str, str, str], list[str]]:
    return {(e["source"], e["target"], e["type"]): e["via"] for e in answer["edges"]}


def test_collapsed_lineage_shows_the_dag_for_its_tasks(graph: GraphReader) -> None:
    answer = graph.lineage(ref(COMP), direction="upstream", depth=4, collapse_jobs=True)
    nodes = {n["id"]: n for n in answer["nodes"]}
    assert set(nodes) == {COMP, DAG, EA, ADJ, BON, TAX, EMP, ATT}
    assert nodes[DAG]["children"] == [J1, J2] and nodes[DAG]["level"] == -1 and nodes[DAG]["type"] == "JOB"
    assert {n: v["level"] for n, v in nodes.items() if n != DAG} == {
        COMP: 0,
        EA: -2,
        ADJ: -2,
        BON: -2,
        TAX: -2,
        EMP: -4,
        ATT: -4,
    }
    assert edges(answer) == {
        (DAG, COMP, "OUTPUT"): [J2],
        (EA, DAG, "INPUT"): [J2],
        (ADJ, DAG, "INPUT"): [J2],
        (BON, DAG, "INPUT"): [J2],
        (TAX, DAG, "INPUT"): [J2],
        (DAG, EA, "OUTPUT"): [J1],
        (EMP, DAG, "INPUT"): [J1],
        (ATT, DAG, "INPUT"): [J1],
    }
    assert all(e["id"] == f"{e['source']}->{e['target']}" for e in answer["edges"])


def test_jobs_without_a_parent_and_the_default_view_are_unchanged(graph: GraphReader) -> None:
    plain = graph.lineage(ref(COMP), depth=2)
    assert "children" not in plain["nodes"][0]
    collapsed = graph.lineage(ref(COMP), depth=2, collapse_jobs=True)
    nodes = {n["id"]: n for n in collapsed["nodes"]}
    assert RX in nodes and REP in nodes and "children" not in nodes[RX]  # no parent: as it is
    assert J2 not in nodes and nodes[DAG]["children"] == [J2]  # only the children present in the answer
    assert edges(collapsed)[(COMP, RX, "INPUT")] == []


def test_datasets_only_lists_the_parent_as_the_deriving_job(graph: GraphReader) -> None:
    answer = graph.lineage(ref(COMP), direction="upstream", depth=2, datasets_only=True, collapse_jobs=True)
    assert edges(answer)[(EA, COMP, "DERIVED")] == [DAG]
    assert edges(answer)[(EMP, EA, "DERIVED")] == [DAG]


def test_job_details_name_parent_and_children(graph: GraphReader) -> None:
    dag = graph.node(ref(DAG))
    assert dag["parent"] is None and dag["children"] == [J1, J2]
    task = graph.node(ref(J1))
    assert task["parent"] == DAG and task["children"] == []
    assert graph.node(ref(DAG), at=DAY1)["children"] == [J1, J2]
    assert graph.node(ref(RX))["children"] == []
