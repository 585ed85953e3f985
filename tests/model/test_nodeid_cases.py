"""The Python node-id parser answers the table of cases it shares with the UI's parser.

tests/fixtures/nodeid_cases.json is read here and by ui/src/model/nodeid.cases.test.ts; its expected
answers are written by hand, so both parsers are held to one statement of the rules.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TypedDict

import pytest

from headwater.model.nodeid import InvalidNodeId, NodeRef, parse_node_id

CASES_FILE = Path(__file__).resolve().parent.parent / "fixtures" / "nodeid_cases.json"


class ParsedCase(TypedDict):
    type: str
    namespace: str
    name: str
    field: str | None


class Case(TypedDict, total=False):
    id: str
    node: ParsedCase
    error: str


CASES: list[Case] = json.loads(CASES_FILE.read_text())["cases"]


def test_the_table_covers_every_kind_and_refusals() -> None:
    kinds = {c["node"]["type"] for c in CASES if "node" in c}
    assert kinds == {"dataset", "job", "datasetField", "run"}
    assert sum("error" in c for c in CASES) >= 8
    assert all(("node" in c) != ("error" in c) for c in CASES)


@pytest.mark.parametrize("case", CASES, ids=[c["id"] or "<empty>" for c in CASES])
def test_python_parser_answers_the_shared_case(case: Case) -> None:
    if "error" in case:
        with pytest.raises(InvalidNodeId, match=re.escape(case["error"])):
            parse_node_id(case["id"])
        return
    want = case["node"]
    ref = parse_node_id(case["id"])
    assert ref == NodeRef(want["type"], want["namespace"], want["name"], want["field"])  # type: ignore[arg-type]
    assert ref.id == case["id"]  # and the id is given back as it was written
