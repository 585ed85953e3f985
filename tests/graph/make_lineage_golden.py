"""Rewrite tests/graph/golden/lineage_hr_story.json from today's lineage read:
``.venv/bin/python tests/graph/make_lineage_golden.py`` (SQLite, in a temporary folder).

The file is the reference tests/graph/test_lineage_story_golden.py holds the lineage read to, on SQLite
and PostgreSQL. Review ``git diff tests/graph/golden`` by hand before committing (the summary this
prints — nodes with their levels, edges — is the quick way to read an answer against the story).
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: `fixtures` and this package

from fixtures.stories.load import incoming, story
from graph.story_lineage_cases import GOLDEN_FILE, cases, key
from headwater.graph import GraphReader, NodeNotFound
from headwater.model.nodeid import parse_node_id
from headwater.store import Store

GOLDEN = Path(__file__).resolve().parent / "golden"


def answer(graph: GraphReader, case: dict[str, object]) -> object:
    case = dict(case)
    node = parse_node_id(str(case.pop("node")))
    try:
        return graph.lineage(node, **case)  # type: ignore[arg-type]
    except NodeNotFound as exc:
        return {"NodeNotFound": str(exc)}


def summary(name: str, got: object) -> str:
    if not isinstance(got, dict) or "nodes" not in got:
        return f"{name}: {got}"
    nodes = ", ".join(f"{n['id']}@{n['level']}" for n in sorted(got["nodes"], key=lambda n: (n["level"], n["id"])))
    edges = ", ".join(sorted(f"{e['source']}->{e['target']}" for e in got["edges"]))
    return f"{name}:\n  nodes {nodes}\n  edges {edges}\n  truncated={got.get('truncated')}"


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp, Store.open(f"sqlite:///{tmp}/story.db") as store:
        store.append(incoming(story()))
        graph = GraphReader(store)
        answers = {key(case): answer(graph, case) for case in cases()}
    GOLDEN.mkdir(exist_ok=True)
    path = GOLDEN / GOLDEN_FILE
    text = json.dumps(answers, indent=1, ensure_ascii=False) + "\n"
    old = path.read_text() if path.exists() else None
    path.write_text(text)
    for name, got in answers.items():
        print(summary(name, got))
    print(f"{path}: {'unchanged' if old == text else 'WRITTEN — review the diff'} ({len(answers)} answers)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
