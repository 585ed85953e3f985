"""Golden tests (sqlglot style): real Spark plan snapshots (Spark 3.5 and 4.x) as input, the
expected lineage as output, and the pure analysis run over each. No Spark needed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from headwater.capture.lineage import LineageOptions, PlanSnapshot, analyze

from .golden_util import GOLDEN, lineage_document

SNAPSHOTS = sorted(GOLDEN.glob("*.snapshot.json"))


def test_golden_files_exist_for_both_spark_versions() -> None:
    majors = {p.name.split(".spark", 1)[1].split(".", 1)[0] for p in SNAPSHOTS}
    assert {"3", "4"} <= majors, f"golden snapshots for Spark 3 and 4 expected, found {sorted(majors)}"


@pytest.mark.parametrize("snapshot", SNAPSHOTS, ids=[p.name.removesuffix(".snapshot.json") for p in SNAPSHOTS])
def test_golden(snapshot: Path) -> None:
    expected_path = snapshot.with_name(snapshot.name.replace(".snapshot.json", ".expected.json"))
    expected = json.loads(expected_path.read_text())
    snap = PlanSnapshot.from_dict(json.loads(snapshot.read_text()))
    got = lineage_document(analyze(snap, LineageOptions(dataset_lineage_enabled=True)))
    assert got == expected
    assert expected["outputs"] and expected["outputs"][0]["facets"]["columnLineage"]["fields"]
