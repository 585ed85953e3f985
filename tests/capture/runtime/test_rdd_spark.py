"""RDD jobs, on real Spark: the integration's spark_rdd_to_table.py and
spark_single_input_rdd.py scripts, against pysparkRddToCsvCompleteEvent.json and pysparkSingleRDDStatistics.json
(job name, inputs, outputs; the date directory of the output trimmed)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from headwater.capture import track

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .appName("Spark rdd to table")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.warehouse.dir", str(tmp_path_factory.mktemp("wh")))
        .getOrCreate()
    )
    yield session
    session.stop()


def _run(spark: Any, tmp_path: Path, job: Any, **conf: str) -> list[dict[str, Any]]:
    events_file = tmp_path / "events.ndjson"
    tracker = track(
        spark,
        conf={
            "spark.openlineage.transport.type": "file",
            "spark.openlineage.transport.location": str(events_file),
            "spark.headwater.spool.dir": str(tmp_path / "spool"),
            **conf,
        },
    )
    assert tracker is not None
    try:
        job()
    finally:
        tracker.stop()
    return [json.loads(line) for line in events_file.read_text().splitlines()]


def _rdd_runs(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e["job"]["facets"].get("jobType", {}).get("jobType") == "RDD_JOB"]


def test_parallelize_map_save_as_text_file(spark: Any, tmp_path: Path, assert_valid_events: Any) -> None:
    """spark_rdd_to_table.py → pysparkRddToCsvCompleteEvent.json."""
    out = tmp_path / "test_data" / "rdd_to_csv_output"

    def job() -> None:
        rdd = spark.sparkContext.parallelize([("ab cd", 3), ("ef gh", 30)])
        rdd.setName("list of random words and numbers")
        rdd.map(lambda x: ",".join(str(i) for i in x)).saveAsTextFile(str(out))

    events = _run(spark, tmp_path, job)
    assert_valid_events(events)
    runs = _rdd_runs(events)
    assert [e["eventType"] for e in runs] == ["START", "COMPLETE"]
    end = runs[-1]
    assert end["job"]["name"] == "spark_rdd_to_table.map_partitions_python_list_of_random_words_and_numbers"
    assert [(o["namespace"], o["name"]) for o in end["outputs"]] == [("file", str(out))]
    assert end["inputs"] == []
    assert end["run"]["facets"]["parent"]["run"]["runId"] == events[0]["run"]["runId"]
    assert out.exists()  # the job's own work is done


def test_text_file_map_save_to_a_dated_directory(spark: Any, tmp_path: Path, assert_valid_events: Any) -> None:
    """spark_single_input_rdd.py → pysparkSingleRDDStatistics.json: input /tmp/rdd_input, output /tmp/rdd_output
    (written to .../rdd_output/20251030)."""
    src = tmp_path / "rdd_input"
    src.mkdir()
    (src / "sample.txt").write_text("hello world\nhello pyspark rdd\nspark rdd transforms are fun\nhello again world")
    out = tmp_path / "rdd_output" / "20251030"
    events = _run(
        spark, tmp_path, lambda: spark.sparkContext.textFile(str(src)).map(lambda x: x).saveAsTextFile(str(out))
    )
    assert_valid_events(events)
    end = _rdd_runs(events)[-1]
    assert [(i["namespace"], i["name"]) for i in end["inputs"]] == [("file", str(src))]
    assert [(o["namespace"], o["name"]) for o in end["outputs"]] == [("file", str(tmp_path / "rdd_output"))]
    assert (out / "_SUCCESS").exists()
    # the statistics of the job's stages, on the single input and output (rowCount 4 and a size in the expected
    # event), only once the job has run: not on START
    read = end["inputs"][0]["inputFacets"]["inputStatistics"]
    written = end["outputs"][0]["outputFacets"]["outputStatistics"]
    assert (read["rowCount"], written["rowCount"]) == (4, 4) and read["size"] > 0 and written["size"] > 0
    start = _rdd_runs(events)[-2]
    assert start["eventType"] == "START" and not start["inputs"][0].get("inputFacets")


def test_failed_save_and_disabled(spark: Any, tmp_path: Path) -> None:
    """A failing save is reported as FAIL and its exception reaches the job unchanged;
    spark.openlineage.filter.rddEventsDisabled=true reports nothing."""
    out = tmp_path / "exists"
    out.mkdir()
    (out / "x").write_text("x")

    def job() -> None:
        with pytest.raises(Exception, match="already exists"):
            spark.sparkContext.parallelize([1, 2]).saveAsTextFile(str(out))

    runs = _rdd_runs(_run(spark, tmp_path, job))
    assert [e["eventType"] for e in runs] == ["START", "FAIL"]
    (tmp_path / "events.ndjson").unlink()
    other = tmp_path / "other"
    runs = _rdd_runs(
        _run(
            spark,
            tmp_path,
            lambda: spark.sparkContext.parallelize([1]).saveAsTextFile(str(other)),
            **{"spark.openlineage.filter.rddEventsDisabled": "true"},
        )
    )
    assert runs == [] and other.exists()


def test_rdd_actions_that_read_files(spark: Any, tmp_path: Path, assert_valid_events: Any) -> None:
    """RDD actions other than saves (RddExecutionContext: every Spark job outside SQL is an RDD job named after its
    final RDD, with the files it reads). spark_input_only_rdd.py (SparkContainerIntegrationTest.testRddRepartition:
    the map_partitions jobs have no outputs and only the read directory as input); ``count()`` and ``collect()`` of
    a text file. An action that reads no file (``parallelize(...).count()``) is not reported, as a query without a
    dataset is not; the integration sends only a START for a job without output, Headwater START and COMPLETE."""
    src = tmp_path / "rdd_input"
    src.mkdir()
    (src / "sample.txt").write_text("hello world\nhello pyspark rdd\nspark rdd transforms are fun\nhello again world")
    parquet = tmp_path / "input_rdd"
    spark.createDataFrame([{"a": "x", "b": "z"}, {"a": "y", "b": "z"}]).write.option("compression", "none").parquet(
        str(parquet)
    )

    def job() -> None:
        sc = spark.sparkContext
        assert sc.textFile(str(src)).count() == 4
        assert sc.textFile(str(src)).collect()[0] == "hello world"
        rdd = spark.read.parquet(str(parquet)).rdd
        assert sorted(rdd.map(lambda x: (x["a"] + x["b"],)).repartition(2).collect()) == [("xz",), ("yz",)]
        assert sc.parallelize([1, 2]).count() == 2

    events = _run(spark, tmp_path, job)
    assert_valid_events(events)
    runs = [e for e in _rdd_runs(events) if e["eventType"] == "COMPLETE"]
    assert [(e["job"]["name"], [i["name"] for i in e["inputs"]], e["outputs"]) for e in runs[:2]] == [
        ("spark_rdd_to_table.python_map_partitions_hadoop", [str(src)], []),
        ("spark_rdd_to_table.map_partitions_hadoop", [str(src)], []),
    ]
    (df_rdd,) = runs[2:]
    assert df_rdd["job"]["name"].startswith("spark_rdd_to_table.map_partitions")
    assert [i["name"] for i in df_rdd["inputs"]] == [str(parquet)] and df_rdd["outputs"] == []
    assert [e["eventType"] for e in _rdd_runs(events)] == ["START", "COMPLETE"] * 3
    assert runs[0]["inputs"][0]["inputFacets"]["inputStatistics"]["rowCount"] == 4  # count() read 4 lines
    # spark.headwater.emitReadOnly=false: actions that only read are not reported
    (tmp_path / "events.ndjson").unlink()
    quiet = _run(
        spark,
        tmp_path,
        lambda: spark.sparkContext.textFile(str(src)).count(),
        **{"spark.headwater.emitReadOnly": "false"},
    )
    assert _rdd_runs(quiet) == []


def test_rdd_output_read_as_a_table_and_word_count(spark: Any, tmp_path: Path, assert_valid_events: Any) -> None:
    """spark_rdd_to_table.py's second job (pysparkRddToTableCompleteEvent.json: the RDD's CSV output read with a
    schema, filtered through a temp view, written as Parquet; job
    spark_rdd_to_table.execute_insert_into_hadoop_fs_relation_command.test_data_rdd_to_table) and
    spark_word_count.py (pysparkWordCountWithCliArgsCompleteEvent.json: a text file grouped and counted to CSV)."""
    from pyspark.sql.types import IntegerType, StringType, StructField, StructType

    csv_dir = tmp_path / "test_data" / "rdd_to_csv_output"
    table = tmp_path / "test_data" / "rdd_to_table"
    text = tmp_path / "data.txt"
    text.write_text("a\nb\na\n")
    words = tmp_path / "test_data" / "test_output"

    def job() -> None:
        spark.sparkContext.parallelize(["ab cd,30", "ef gh,70"]).saveAsTextFile(str(csv_dir))
        schema = StructType([StructField("name", StringType(), False), StructField("age", IntegerType(), False)])
        spark.read.option("header", False).schema(schema).csv(str(csv_dir)).createOrReplaceTempView("test_people")
        spark.sql("SELECT * FROM test_people WHERE age > 20 AND age < 65").write.mode("overwrite").option(
            "compression", "none"
        ).parquet(str(table))
        spark.read.text(str(text)).groupBy("value").count().write.mode("overwrite").csv(str(words))

    events = _run(spark, tmp_path, job)
    assert_valid_events(events)
    ends = [e for e in events if e["eventType"] == "COMPLETE" and e["outputs"]]

    def summary(ds: dict[str, Any]) -> tuple[str, list[tuple[str, str]], str | None]:
        facets = ds.get("facets", {})
        fields = [(f["name"], f["type"]) for f in facets.get("schema", {}).get("fields", [])]
        return ds["name"], fields, facets.get("lifecycleStateChange", {}).get("lifecycleStateChange")

    to_table = next(e for e in ends if e["outputs"][0]["name"] == str(table))
    assert (
        to_table["job"]["name"]
        == "spark_rdd_to_table.execute_insert_into_hadoop_fs_relation_command.test_data_rdd_to_table"
    )
    assert [summary(i) for i in to_table["inputs"]] == [(str(csv_dir), [("name", "string"), ("age", "integer")], None)]
    assert [summary(o) for o in to_table["outputs"]] == [
        (str(table), [("name", "string"), ("age", "integer")], "OVERWRITE")
    ]
    # PlanUtils.datasourceFacet: name and uri are the namespace ("uri": "file" in every expected event)
    source = to_table["outputs"][0]["facets"]["dataSource"]
    assert (source["name"], source["uri"]) == ("file", "file")
    count = next(e for e in ends if e["outputs"][0]["name"] == str(words))
    assert [summary(i) for i in count["inputs"]] == [(str(text), [("value", "string")], None)]
    assert [summary(o) for o in count["outputs"]] == [
        (str(words), [("value", "string"), ("count", "long")], "OVERWRITE")
    ]
