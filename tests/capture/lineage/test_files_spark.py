"""File sources and sinks (CSV, JSON, Parquet, ORC, text; append/overwrite; partitioned) and
column lineage through DataFrame transformations, on real Spark (local[2])."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from headwater.capture.lineage import LineageOptions

from .spark_util import Runner, as_run_event, column_map, dataset_deps, new_session

pytestmark = pytest.mark.spark

D, I = "DIRECT", "INDIRECT"


@pytest.fixture(scope="module")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    session = new_session("lineage files", tmp_path_factory.mktemp("warehouse"))
    yield session
    session.stop()


@pytest.fixture(scope="module")
def run(spark: Any) -> Runner:
    return Runner(spark)


@pytest.fixture(scope="module")
def people(spark: Any, run: Runner, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("src") / "people_csv"
    df = spark.createDataFrame(
        [(1, "ada", "eng", 10.0), (2, "bob", "ops", 20.0), (3, "cy", "eng", None)],
        "id INT, name STRING, dept STRING, pay DOUBLE",
    )
    run.executions(lambda: df.write.mode("overwrite").option("header", True).csv(str(path)))
    return path


def read_people(spark: Any, path: Path) -> Any:
    return spark.read.option("header", True).schema("id INT, name STRING, dept STRING, pay DOUBLE").csv(str(path))


@pytest.mark.parametrize("fmt", ["csv", "json", "parquet", "orc"])
def test_file_formats_read_and_write(
    spark: Any, run: Runner, people: Path, tmp_path: Path, fmt: str, assert_valid_events: Any
) -> None:
    first = tmp_path / f"first_{fmt}"
    second = tmp_path / f"second_{fmt}"
    ql = run.lineage(
        lambda: read_people(spark, people).write.mode("overwrite").format(fmt).option("header", True).save(str(first))
    )
    assert [(i.namespace, i.name) for i in ql.inputs] == [("file", str(people))]
    assert [(o.namespace, o.name) for o in ql.outputs] == [("file", str(first))]
    assert ql.action == "execute_insert_into_hadoop_fs_relation_command"
    assert ql.output_name == f"first_{fmt}"
    assert column_map(ql) == {c: {(str(people), c, D, "IDENTITY")} for c in ("id", "name", "dept", "pay")}
    out = ql.outputs[0]
    assert out.facets["lifecycleStateChange"].lifecycleStateChange.value == "OVERWRITE"
    assert [(f.name, f.type) for f in out.facets["schema"].fields] == [
        ("id", "integer"),
        ("name", "string"),
        ("dept", "string"),
        ("pay", "double"),
    ]
    assert out.facets["dataSource"].name == "file"
    assert out.outputFacets["outputStatistics"].rowCount == 3
    assert out.outputFacets["outputStatistics"].size > 0
    assert_valid_events([as_run_event(ql)])
    # read back what we wrote, append to a second dataset: no lifecycle change on append
    ql2 = run.lineage(
        lambda: (
            spark.read.format(fmt)
            .option("header", True)
            .load(str(first))
            .write.mode("append")
            .format(fmt)
            .option("header", True)
            .save(str(second))
        )
    )
    assert [(i.namespace, i.name) for i in ql2.inputs] == [("file", str(first))]
    assert "lifecycleStateChange" not in ql2.outputs[0].facets
    assert set(column_map(ql2)) == {"id", "name", "dept", "pay"}


def test_text_read_and_write(spark: Any, run: Runner, people: Path, tmp_path: Path) -> None:
    from pyspark.sql import functions as F

    out = tmp_path / "names_txt"
    ql = run.lineage(
        lambda: (
            read_people(spark, people)
            .select(F.concat_ws(":", "name", "dept").alias("value"))
            .write.mode("overwrite")
            .text(str(out))
        )
    )
    assert column_map(ql) == {
        "value": {(str(people), "name", D, "TRANSFORMATION"), (str(people), "dept", D, "TRANSFORMATION")}
    }
    again = tmp_path / "again_txt"
    ql2 = run.lineage(lambda: spark.read.text(str(out)).write.mode("overwrite").text(str(again)))
    assert [(i.namespace, i.name) for i in ql2.inputs] == [("file", str(out))]
    assert column_map(ql2) == {"value": {(str(out), "value", D, "IDENTITY")}}


def test_partitioned_write_and_read(spark: Any, run: Runner, people: Path, tmp_path: Path) -> None:
    out = tmp_path / "by_dept"
    ql = run.lineage(lambda: read_people(spark, people).write.mode("overwrite").partitionBy("dept").parquet(str(out)))
    assert [(o.namespace, o.name) for o in ql.outputs] == [("file", str(out))]
    # the sort Spark adds for a partitioned write is not the user's: no SORT dependency
    assert dataset_deps(ql) == set()
    assert column_map(ql)["dept"] == {(str(people), "dept", D, "IDENTITY")}
    copy = tmp_path / "copy"
    ql2 = run.lineage(lambda: spark.read.parquet(str(out / "dept=eng")).write.mode("overwrite").parquet(str(copy)))
    assert [(i.namespace, i.name) for i in ql2.inputs] == [("file", str(out))]


def test_transformations(spark: Any, run: Runner, people: Path, tmp_path: Path, assert_valid_events: Any) -> None:
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    src = str(people)
    out = tmp_path / "t"
    w = Window.partitionBy("dept").orderBy("pay")

    def job() -> None:
        df = read_people(spark, people)
        df = (
            df.withColumn("pay2", F.col("pay") * 2)
            .withColumn("pay3", F.col("pay2") + 1)
            .withColumn("grade", F.when(F.col("pay") > 15, "high").otherwise(F.col("dept")))
            .withColumn("safe_pay", F.coalesce("pay", F.lit(0.0)))
            .withColumn("name_hash", F.sha2("name", 256))
            .withColumn("rank", F.rank().over(w))
            .withColumn("running", F.sum("pay").over(w))
            .withColumn("as_text", F.col("id").cast("string"))
            .where(F.col("id") > 0)
        )
        df.select("id", "pay3", "grade", "safe_pay", "name_hash", "rank", "running", "as_text").write.mode(
            "overwrite"
        ).parquet(str(out))

    ql = run.lineage(job, options=LineageOptions(dataset_lineage_enabled=True))
    cols = column_map(ql)
    assert cols["id"] == {(src, "id", D, "IDENTITY")}
    assert cols["pay3"] == {(src, "pay", D, "TRANSFORMATION")}
    # value branches of CASE WHEN / COALESCE are TRANSFORMATION, a bare column included (OpenLineage
    # ColumnLineageWithTransformationTypesTest.simpleQueryWithCaseWhenConditional / ...CoalesceConditional)
    assert cols["grade"] == {(src, "pay", I, "CONDITIONAL"), (src, "dept", D, "TRANSFORMATION")}
    assert cols["safe_pay"] == {(src, "pay", D, "TRANSFORMATION"), (src, "pay", I, "CONDITIONAL")}
    assert cols["name_hash"] == {(src, "name", D, "TRANSFORMATION+masked")}
    assert cols["rank"] == {(src, "dept", I, "WINDOW"), (src, "pay", I, "WINDOW")}
    assert cols["running"] == {(src, "pay", D, "AGGREGATION"), (src, "dept", I, "WINDOW"), (src, "pay", I, "WINDOW")}
    assert cols["as_text"] == {(src, "id", D, "TRANSFORMATION")}
    assert dataset_deps(ql) == {(src, "id", I, "FILTER")}
    assert_valid_events([as_run_event(ql)])
    # without datasetLineageEnabled the dataset-wide dependency is folded into every field
    folded = run.lineage(job)
    assert (src, "id", I, "FILTER") in column_map(folded)["pay3"]
    assert folded.outputs[0].facets["columnLineage"].dataset == []


def test_aggregation_join_union_explode_struct(spark: Any, run: Runner, people: Path, tmp_path: Path) -> None:
    from pyspark.sql import functions as F

    src = str(people)
    depts = tmp_path / "depts"
    spark.createDataFrame([("eng", "Engineering"), ("ops", "Operations")], "code STRING, title STRING").write.mode(
        "overwrite"
    ).json(str(depts))
    out = tmp_path / "agg"

    def job() -> None:
        p = read_people(spark, people)
        d = spark.read.json(str(depts))
        joined = p.join(d, p.dept == d.code)
        agg = joined.groupBy("title").agg(F.sum("pay").alias("total"), F.count("id").alias("n"))
        agg.write.mode("overwrite").parquet(str(out))

    ql = run.lineage(job, options=LineageOptions(dataset_lineage_enabled=True))
    assert {i.name for i in ql.inputs} == {src, str(depts)}
    cols = column_map(ql)
    assert cols["title"] == {(str(depts), "title", D, "IDENTITY")}
    assert cols["total"] == {(src, "pay", D, "AGGREGATION")}
    assert cols["n"] == {(src, "id", D, "AGGREGATION+masked")}
    # the optimizer infers isnotnull() filters on the join keys: they are real filters of the plan
    assert dataset_deps(ql) == {
        (src, "dept", I, "JOIN"),
        (str(depts), "code", I, "JOIN"),
        (str(depts), "title", I, "GROUP_BY"),
        (src, "dept", I, "FILTER"),
        (str(depts), "code", I, "FILTER"),
    }

    union_out = tmp_path / "union"
    ql2 = run.lineage(
        lambda: (
            read_people(spark, people)
            .select("id", "name")
            .union(spark.read.json(str(depts)).select(F.lit(0).alias("id"), F.col("title").alias("name")))
            .write.mode("overwrite")
            .parquet(str(union_out))
        )
    )
    assert column_map(ql2)["name"] == {(src, "name", D, "IDENTITY"), (str(depts), "title", D, "IDENTITY")}
    assert column_map(ql2)["id"] == {(src, "id", D, "IDENTITY")}

    nested = tmp_path / "nested"
    ql3 = run.lineage(
        lambda: (
            read_people(spark, people)
            .select(F.struct("name", "dept").alias("who"), F.split("name", "").alias("letters"))
            .select(F.col("who.name").alias("who_name"), F.explode("letters").alias("letter"), "who")
            .write.mode("overwrite")
            .parquet(str(nested))
        )
    )
    cols3 = column_map(ql3)
    # a field of a struct column depends on the struct (its fields are not tracked one by one)
    assert {x for x in cols3["who_name"] if x[2] == D} == {
        (src, "name", D, "TRANSFORMATION"),
        (src, "dept", D, "TRANSFORMATION"),
    }
    assert {x for x in cols3["letter"] if x[2] == D} == {(src, "name", D, "TRANSFORMATION")}
    # explode drops rows with empty arrays: Spark's inferred size() > 0 filter is a row dependency
    assert (src, "name", I, "FILTER") in cols3["letter"]
    who = next(f for f in ql3.outputs[0].facets["schema"].fields if f.name == "who")
    assert who.type == "struct" and [(f.name, f.type) for f in who.fields] == [("name", "string"), ("dept", "string")]


def test_self_join_sql_cte_and_subquery(spark: Any, run: Runner, people: Path, tmp_path: Path) -> None:
    src = str(people)
    read_people(spark, people).createOrReplaceTempView("people_v")
    out = tmp_path / "sql_out"
    query = """
        WITH eng AS (SELECT id, name, pay FROM people_v WHERE dept = 'eng')
        SELECT a.id, b.name AS boss, a.pay - (SELECT avg(pay) FROM people_v) AS delta
        FROM eng a JOIN people_v b ON a.id = b.id
    """
    ql = run.lineage(
        lambda: spark.sql(query).write.mode("overwrite").parquet(str(out)),
        options=LineageOptions(dataset_lineage_enabled=True),
    )
    assert [i.name for i in ql.inputs] == [src]  # self-join: one input dataset
    cols = column_map(ql)
    assert cols["id"] == {(src, "id", D, "IDENTITY")}
    assert cols["boss"] == {(src, "name", D, "IDENTITY")}
    assert cols["delta"] == {(src, "pay", D, "TRANSFORMATION"), (src, "pay", D, "AGGREGATION")}
    assert {(src, "id", I, "JOIN"), (src, "dept", I, "FILTER")} <= dataset_deps(ql)


def test_python_and_pandas_udfs(spark: Any, run: Runner, people: Path, tmp_path: Path) -> None:
    from pyspark.sql import functions as F

    src = str(people)

    shout = F.udf(lambda name, dept: f"{name}!{dept}", "string")

    @F.pandas_udf("double")  # type: ignore[call-overload]
    def double(pay: pd.Series) -> pd.Series:
        return pay * 2

    out = tmp_path / "udf"
    ql = run.lineage(
        lambda: (
            read_people(spark, people)
            .select("id", shout("name", "dept").alias("loud"), double("pay").alias("dbl"))
            .write.mode("overwrite")
            .parquet(str(out))
        )
    )
    cols = column_map(ql)
    assert cols["loud"] == {(src, "name", D, "TRANSFORMATION"), (src, "dept", D, "TRANSFORMATION")}
    assert cols["dbl"] == {(src, "pay", D, "TRANSFORMATION")}
    assert cols["id"] == {(src, "id", D, "IDENTITY")}


def test_local_rdd_cached_and_failed(spark: Any, run: Runner, people: Path, tmp_path: Path) -> None:
    from pyspark.sql import functions as F

    src = str(people)
    local = tmp_path / "local"
    ql = run.lineage(
        lambda: spark.createDataFrame([(1, "x")], "a INT, b STRING").write.mode("overwrite").parquet(str(local))
    )
    assert ql.inputs == [] and [o.name for o in ql.outputs] == [str(local)]
    assert "columnLineage" not in ql.outputs[0].facets
    assert [f.name for f in ql.outputs[0].facets["schema"].fields] == ["a", "b"]

    rdd_out = tmp_path / "rdd"
    ql = run.lineage(lambda: read_people(spark, people).rdd.toDF().write.mode("overwrite").parquet(str(rdd_out)))
    # LogicalRDD: the RDD's dependency graph is walked to the files it reads; the RDD's rows
    # are opaque, so the input has no schema and the output no column lineage from it
    assert [(i.namespace, i.name) for i in ql.inputs] == [("file", src)]
    assert "schema" not in ql.inputs[0].facets
    assert "columnLineage" not in ql.outputs[0].facets

    cached = read_people(spark, people).withColumn("x", F.col("pay") + 1).cache()
    cached_out = tmp_path / "cached"
    ql = run.lineage(lambda: cached.select("id", "x").write.mode("overwrite").parquet(str(cached_out)))
    assert [i.name for i in ql.inputs] == [src]
    assert column_map(ql)["x"] == {(src, "pay", D, "TRANSFORMATION")}
    cached.unpersist()

    failed = tmp_path / "failed"
    ql = run.lineage(
        lambda: (
            read_people(spark, people)
            .select("id", F.assert_true(F.col("id") < 0).alias("boom"))
            .write.mode("overwrite")
            .parquet(str(failed))
        ),
        expect_error=True,
    )
    assert [o.name for o in ql.outputs] == [str(failed)]
    assert column_map(ql)["id"] == {(src, "id", D, "IDENTITY")}


def test_query_without_output(spark: Any, run: Runner, people: Path) -> None:
    ql = run.lineage(lambda: read_people(spark, people).where("pay > 1").collect())
    assert [i.name for i in ql.inputs] == [str(people)]
    assert ql.outputs == [] and not ql.has_output and ql.output_name is None


def test_plan_too_large_for_json_keeps_inputs(
    spark: Any, run: Runner, people: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from headwater.capture.lineage import snapshot

    monkeypatch.setattr(snapshot, "MAX_PLAN_JSON_BYTES", 10)
    out = tmp_path / "huge"
    snaps = run.snapshots(lambda: read_people(spark, people).write.mode("overwrite").parquet(str(out)))
    snap = snaps[-1]
    assert snap.query is None and any("too large" in n for n in snap.notes)
    from headwater.capture.lineage import analyze

    ql = analyze(snap)
    assert [(i.name, [f.name for f in i.facets["schema"].fields]) for i in ql.inputs] == [
        (str(people), ["id", "name", "dept", "pay"])
    ]
    assert [o.name for o in ql.outputs] == [str(out)] and "columnLineage" not in ql.outputs[0].facets
