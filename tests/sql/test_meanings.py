"""The shared table of meanings (meanings.py): the SQL engine and Spark capture agree on what each kind means."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from headwater.sql import Catalog, StatementLineage, analyze_script

from .golden_util import kind
from .meanings import MEANINGS, ROW_MEANINGS

NS = "postgres://h:5432"
SPARK_GOLDEN = Path(__file__).resolve().parent.parent / "capture" / "lineage" / "golden"


def _record(sql: str) -> StatementLineage:
    """The one statement of ``sql``, over a known ``people`` table."""
    (record,) = analyze_script(
        sql,
        dialect="postgres",
        namespace=NS,
        default_database="db",
        catalog=Catalog(tables={"db.public.people": ["id", "name", "dept", "pay"]}),
    )
    return record


def _columns(sql: str) -> dict[str, dict[str, set[str]]]:
    record = _record(sql)
    assert record.notes == []
    (output,) = record.outputs
    return {col: {f: {kind(k) for k in kinds} for (_ds, f), kinds in deps.items()} for col, deps in output.columns}


def _dataset(sql: str) -> dict[str, set[str]]:
    (output,) = _record(sql).outputs
    return {f: {kind(k) for k in kinds} for (_ds, f), kinds in output.dataset.items()}


@pytest.mark.parametrize("item,expected,spark", MEANINGS, ids=[m[0][:40] for m in MEANINGS])
def test_sql_engine_meaning(item: str, expected: dict[str, set[str]], spark: tuple[str, str] | None) -> None:
    assert _columns(f"CREATE TABLE out AS SELECT {item} AS out FROM people") == {"out": expected}


@pytest.mark.parametrize(
    "item,expected,spark", [m for m in MEANINGS if m[2]], ids=[m[0][:40] for m in MEANINGS if m[2]]
)
def test_spark_capture_has_the_same_meaning(item: str, expected: dict[str, set[str]], spark: tuple[str, str]) -> None:
    case, field = spark
    doc = json.loads((SPARK_GOLDEN / f"{case}.spark3.expected.json").read_text())
    (output,) = doc["outputs"]
    fields = output["facets"]["columnLineage"]["fields"][field]["inputFields"]
    got = {
        f["field"]: {f"{t['type']}/{t['subtype']}" + ("/masked" if t["masking"] else "") for t in f["transformations"]}
        for f in fields
    }
    assert got == expected


@pytest.mark.parametrize("sql,column,expected", ROW_MEANINGS, ids=[r[0][:50] for r in ROW_MEANINGS])
def test_dataset_wide_meaning(sql: str, column: str, expected: str) -> None:
    """Row-deciding deps are the facet's dataset-level list (as Spark capture reports them), not on each field."""
    assert expected in _dataset(f"CREATE TABLE out AS {sql}")[column]
    for deps in _columns(f"CREATE TABLE out AS {sql}").values():
        assert expected not in deps.get(column, set())
