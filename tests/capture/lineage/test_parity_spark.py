"""Parity with the OpenLineage Spark integration on its own tests.

The expectations are the integration's, written out by hand in ``golden/parity/*.json`` (each case names the
Java test or PySpark script it comes from); the queries run on real Spark here and Headwater's analysis of
them must give exactly that lineage: every (input field, type, subtype) once per output field, nothing more.
Where Headwater deliberately differs, the case says so in its ``note`` (and docs/capture-lineage.md lists it).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from headwater.capture.lineage import LineageOptions

from .spark_util import Runner, as_run_event, new_session

pytestmark = pytest.mark.spark

PARITY = Path(__file__).parent / "golden" / "parity"
TYPES = json.loads((PARITY / "column_transformation_types.json").read_text())["cases"]
FIELD_ONLY = json.loads((PARITY / "column_only_field_dependencies.json").read_text())["cases"]


@pytest.fixture(scope="module")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    session = new_session("ColumnLevelLineage", tmp_path_factory.mktemp("warehouse"))
    yield session
    session.stop()


@pytest.fixture(scope="module")
def run(spark: Any) -> Runner:
    return Runner(spark)


def _entries(facet_fields: list[Any], tables: dict[str, str]) -> list[list[str]]:
    out: list[list[str]] = []
    for f in facet_fields:
        table = tables.get(f.name, f.name)
        for t in f.transformations:
            out.append([table, f.field, t.type, t.subtype + ("+masked" if t.masking else "")])
    return sorted(out)


def _create(spark: Any, run: Runner, root: Path, name: str, columns: str) -> str:
    """ColumnLineageWithTransformationTypesTest.createTable: a table at <root>/<name> holding one row."""
    location = root / "column_transformation" / name
    run.executions(lambda: spark.sql(f"DROP TABLE IF EXISTS {name}"))
    run.executions(lambda: spark.sql(f"CREATE TABLE {name} ({columns}) USING parquet LOCATION '{location}'"))
    values = ",".join("'1'" if c.split()[1] == "string" else "1" for c in columns.split(", "))
    run.executions(lambda: spark.sql(f"INSERT INTO {name} VALUES ({values})"))
    return str(location)


@pytest.mark.parametrize("case", sorted(TYPES))
def test_column_transformation_types(
    spark: Any, run: Runner, tmp_path: Path, case: str, assert_valid_events: Any
) -> None:
    """ColumnLineageWithTransformationTypesTest.<case>: the query's column lineage, datasetLineageEnabled=true."""
    spec = TYPES[case]
    tables = {_create(spark, run, tmp_path, name, cols): name for name, cols in spec["tables"].items()}
    out = tmp_path / "out"
    ql = run.lineage(
        lambda: spark.sql(spec["sql"]).write.mode("overwrite").parquet(str(out)),
        options=LineageOptions(dataset_lineage_enabled=True),
    )
    facet = ql.outputs[0].facets["columnLineage"]
    got_fields = {name: _entries(f.inputFields, tables) for name, f in facet.fields.items()}
    want_fields = {name: sorted(deps) for name, deps in spec["fields"].items()}
    assert got_fields == want_fields
    assert _entries(facet.dataset, tables) == sorted(spec["dataset"])
    assert_valid_events([as_run_event(ql)])


@pytest.mark.parametrize("case", sorted(FIELD_ONLY))
def test_column_only_field_dependencies(
    spark: Any, run: Runner, tmp_path: Path, case: str, assert_valid_events: Any
) -> None:
    """ColumnLineageWithTransformationTypesOnlyFieldDependenciesTest.<case>: datasetLineageEnabled=false (the
    default), the dataset-wide dependencies in every field and the facet's ``dataset`` list empty."""
    spec = FIELD_ONLY[case]
    tables = {_create(spark, run, tmp_path, name, cols): name for name, cols in spec["tables"].items()}
    out = tmp_path / "out"
    ql = run.lineage(lambda: spark.sql(spec["sql"]).write.mode("overwrite").parquet(str(out)))
    facet = ql.outputs[0].facets["columnLineage"]
    got = {name: _entries(f.inputFields, tables) for name, f in facet.fields.items()}
    assert _entries(facet.dataset, tables) == []
    if spec.get("subset"):
        assert set(got) == set(spec["fields"])
        for name, deps in got.items():
            want = spec["fields"][name] + spec["every_field"]
            assert [d for d in want if d not in deps] == [], name
    else:
        assert got == {name: sorted(deps) for name, deps in spec["fields"].items()}
    assert_valid_events([as_run_event(ql)])


def test_output_schema_types_of_computed_columns(spark: Any, run: Runner, tmp_path: Path) -> None:
    """Output schema types come from the plan's resolved attributes (the integration's schema facet is built
    from the query's ``schema()``): computed columns have their real type, never ``unknown``."""
    src = _create(spark, run, tmp_path, "t1", "a string, b string, c int")
    assert src
    out = tmp_path / "typed"
    ql = run.lineage(
        lambda: (
            spark.sql(
                "SELECT a, count(*) AS n, upper(a) AS u, concat(a, b) AS ab, cast(c AS string) AS cs, c * 2 AS c2, "
                "sum(c) AS total, avg(c) AS mean, CASE WHEN c > 0 THEN a END AS cw FROM t1 GROUP BY a, b, c"
            )
            .write.mode("overwrite")
            .parquet(str(out))
        )
    )
    fields = [(f.name, f.type) for f in ql.outputs[0].facets["schema"].fields]
    assert fields == [
        ("a", "string"),
        ("n", "long"),
        ("u", "string"),
        ("ab", "string"),
        ("cs", "string"),
        ("c2", "integer"),
        ("total", "long"),
        ("mean", "double"),
        ("cw", "string"),
    ]


def test_rdd_with_parquet(spark: Any, run: Runner, tmp_path: Path, assert_valid_events: Any) -> None:
    """spark_rdd_with_parquet.py → pysparkRDDWithParquet.json: two Parquet reads turned into RDDs, a union, a
    Python map, back to a DataFrame, written to <dir>/rdd_c/20251030: the inputs are the two directories (no
    schema: the RDD rows are opaque), the output is <dir>/rdd_c (the date directory trimmed) with schema _1
    string, OVERWRITE, and the job suffix is the last two segments of that name."""
    from headwater.capture.naming import execution_job_name

    df = spark.createDataFrame([{"a": "x", "b": "z"}, {"a": "y", "b": "z"}])
    a, b, c = tmp_path / "rdd_a", tmp_path / "rdd_b", tmp_path / "rdd_c" / "20251030"
    run.executions(lambda: df.write.option("compression", "none").parquet(str(a)))
    run.executions(lambda: df.write.option("compression", "none").parquet(str(b)))
    rdd_a = spark.read.parquet(str(a)).rdd
    rdd_b = spark.read.parquet(str(b)).rdd
    ql = run.lineage(
        lambda: rdd_a.union(rdd_b).map(lambda x: (x["a"] + x["b"],)).toDF().write.mode("overwrite").parquet(str(c))
    )
    assert sorted((i.namespace, i.name) for i in ql.inputs) == [("file", str(a)), ("file", str(b))]
    assert all("schema" not in i.facets for i in ql.inputs)
    out = ql.outputs[0]
    assert (out.namespace, out.name) == ("file", str(tmp_path / "rdd_c"))
    assert [(f.name, f.type) for f in out.facets["schema"].fields] == [("_1", "string")]
    assert out.facets["lifecycleStateChange"].lifecycleStateChange.value == "OVERWRITE"
    assert (
        execution_job_name("Open Lineage Integration RDD with Parquet", ql.action, ql.job_suffix)
        == f"open_lineage_integration_rdd_with_parquet.execute_insert_into_hadoop_fs_relation_command.{tmp_path.name}_rdd_c"
    )
    assert_valid_events([as_run_event(ql)])
