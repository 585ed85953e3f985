"""The lineage read on the HR payroll story gives the frozen answers of tests/graph/golden/lineage_hr_story.json
(every root of the story, upstream and downstream at four moments, datasets-only, with columns, cut by
``max_nodes``), on SQLite and PostgreSQL, as JSON text with the keys in their order.

The file was written by tests/graph/make_lineage_golden.py and reviewed against the story (nodes,
levels and edges per day); the test never writes it. A deliberate change of the answers is a rerun of
that script and a reviewed diff.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from headwater.graph import GraphReader, NodeNotFound
from headwater.model.nodeid import parse_node_id
from headwater.store import Store

from .story_lineage_cases import GOLDEN_FILE, cases, key

GOLDEN = Path(__file__).resolve().parent / "golden" / GOLDEN_FILE


def _answer(graph: GraphReader, case: dict[str, Any]) -> Any:
    case = dict(case)
    node = parse_node_id(case.pop("node"))
    try:
        return graph.lineage(node, **case)
    except NodeNotFound as exc:
        return {"NodeNotFound": str(exc)}


def test_story_lineage_equals_the_frozen_answers(store: Store) -> None:
    expected: dict[str, Any] = json.loads(GOLDEN.read_text(encoding="utf-8"))
    graph = GraphReader(store)
    asked = [key(case) for case in cases()]
    assert sorted(asked) == sorted(expected), "the cases and the file differ: rerun make_lineage_golden.py"
    for case in cases():
        got = _answer(graph, case)
        want = expected[key(case)]
        assert json.dumps(got, ensure_ascii=False) == json.dumps(want, ensure_ascii=False), key(case)
    # the file is not trivial: most answers are graphs, a few say the node did not exist yet
    graphs = [a for a in expected.values() if "nodes" in a]
    assert len(graphs) > 70 and sum(1 for a in graphs if a["truncated"]) >= 8
