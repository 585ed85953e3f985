"""Structured Streaming queries in a real PySpark session: each query is one streaming job (START, RUNNING per
progress interval, COMPLETE on stop, FAIL with the exception), its sources and sinks named by the naming spec,
foreachBatch writes folded into the query, column lineage through projections, watermark + window aggregations
and stream-static joins. Streams are short (1 s triggers, a few batches) and every wait is on a condition."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from headwater.capture import track
from headwater.capture.tracker import Tracker

from .sink import Sink

pytestmark = pytest.mark.spark

APP = "Streaming Test"  # → job names streaming_test.streaming.<query>
PG_JAR = "/usr/share/java/postgresql.jar"
DRIVER = "org.postgresql.Driver"


@pytest.fixture(scope="module")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .appName(APP)
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.warehouse.dir", str(tmp_path_factory.mktemp("warehouse")))
        .config("spark.jars", PG_JAR)  # Debian's PostgreSQL JDBC driver (scripts/setup-system)
        .config("spark.driver.extraClassPath", PG_JAR)
        .getOrCreate()
    )
    yield session
    session.stop()


@pytest.fixture
def sink() -> Iterator[Sink]:
    with Sink() as s:
        yield s


def tracked(spark: Any, sink: Sink, tmp_path: Path, interval: str) -> Tracker:
    tracker = track(
        spark,
        conf={
            "spark.openlineage.transport.type": "http",
            "spark.openlineage.transport.url": sink.url,
            "spark.headwater.spool.dir": str(tmp_path / "spool"),
            "spark.headwater.flushTimeoutSeconds": "60",
            "spark.headwater.streaming.progressIntervalSeconds": interval,
        },
    )
    assert isinstance(tracker, Tracker)
    return tracker


def wait_until(check: Callable[[], bool], what: str, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def batches_done(query: Any, count: int) -> Callable[[], bool]:
    """At least ``count`` micro-batches that read rows have finished."""

    def check() -> bool:
        return sum(1 for p in query.recentProgress if p["numInputRows"] > 0) >= count

    return check


def stream_events(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e["job"]["facets"]["jobType"]["processingType"] == "STREAMING"]


def names(datasets: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return sorted((d["namespace"], d["name"]) for d in datasets)


def stop_and_collect(spark: Any, tracker: Tracker, sink: Sink) -> list[dict[str, Any]]:
    tracker.stop()
    events = sink.events()
    assert tracker.stats.spooled == 0 and tracker.stats.dropped == 0
    return events


def test_rate_to_parquet_is_one_streaming_job_with_running_events(
    spark: Any, sink: Sink, tmp_path: Path, assert_valid_events: Any
) -> None:
    tracker = tracked(spark, sink, tmp_path, interval="0")  # 0: a RUNNING event for every progress
    out = tmp_path / "doubled"
    query = (
        spark.readStream.format("rate")
        .option("rowsPerSecond", 20)
        .load()
        .selectExpr("value * 2 AS doubled", "timestamp AS at")
        .writeStream.format("parquet")
        .option("path", str(out))
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .queryName("rate_doubled")
        .trigger(processingTime="1 second")
        .start()
    )
    wait_until(batches_done(query, 2), "two micro-batches with rows")
    query.stop()
    progress = [p["batchId"] for p in query.recentProgress]
    events = stop_and_collect(spark, tracker, sink)
    assert_valid_events(events)

    streams = stream_events(events)
    assert {e["job"]["name"] for e in streams} == {"streaming_test.streaming.rate_doubled"}
    assert len({e["run"]["runId"] for e in streams}) == 1, "one run for the query, not one per micro-batch"
    kinds = [e["eventType"] for e in streams]
    assert kinds[0] == "START" and kinds[-1] == "COMPLETE" and set(kinds[1:-1]) == {"RUNNING"}
    # one START at the first progress, then a RUNNING for each later progress (interval 0)
    assert kinds.count("RUNNING") == len(progress) - 1
    assert not [e for e in events if e["job"]["facets"]["jobType"]["jobType"] == "SQL_JOB" and e not in streams]

    for e in streams:
        assert names(e["inputs"]) == [("rate", "rate")]
        assert names(e["outputs"]) == [("file", str(out))]
    last_running = [e for e in streams if e["eventType"] == "RUNNING"][-1]["run"]["facets"]["headwater_streaming"]
    assert last_running["queryName"] == "rate_doubled"
    assert last_running["batchId"] in progress and last_running["batches"] == 1
    assert last_running["inputRowsPerSecond"] is not None and last_running["processedRowsPerSecond"] is not None
    assert last_running["queryId"] == str(query.id)

    fields = streams[-1]["outputs"][0]["facets"]["columnLineage"]["fields"]
    assert [(f["namespace"], f["name"], f["field"]) for f in fields["doubled"]["inputFields"]] == [
        ("rate", "rate", "value")
    ]
    assert [(f["namespace"], f["name"], f["field"]) for f in fields["at"]["inputFields"]] == [
        ("rate", "rate", "timestamp")
    ]
    assert fields["doubled"]["inputFields"][0]["transformations"][0]["subtype"] == "TRANSFORMATION"


@pytest.mark.postgres
def test_file_stream_with_foreach_batch_folds_the_batch_writes_into_the_stream(
    spark: Any, sink: Sink, tmp_path: Path, assert_valid_events: Any, pg_server_url: str
) -> None:
    pg = urlsplit(pg_server_url)
    jdbc_url = f"jdbc:postgresql://{pg.hostname}:{pg.port or 5432}{pg.path}"
    table = f"stream_people_{uuid.uuid4().hex[:8]}"
    tracker = tracked(spark, sink, tmp_path, interval="3600")  # the micro-batches are summarised
    landing = tmp_path / "landing"
    landing.mkdir()
    (landing / "a.json").write_text('{"id": 1, "name": "ada"}\n', encoding="utf-8")
    out = tmp_path / "people_parquet"

    def save(batch: Any, batch_id: int) -> None:  # each micro-batch to Parquet and to PostgreSQL
        batch.write.mode("append").parquet(str(out))
        batch.write.mode("append").jdbc(
            jdbc_url, table, properties={"user": pg.username or "", "password": pg.password or "", "driver": DRIVER}
        )

    query = (
        spark.readStream.schema("id LONG, name STRING")
        .json(str(landing))
        .selectExpr("id", "upper(name) AS name")
        .writeStream.foreachBatch(save)
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .trigger(processingTime="1 second")
        .start()
    )
    wait_until(batches_done(query, 1), "the first file's batch")
    (landing / "b.json").write_text('{"id": 2, "name": "bob"}\n', encoding="utf-8")  # added while it runs
    wait_until(batches_done(query, 2), "the second file's batch")
    (landing / "c.json").write_text('{"id": 3, "name": "cy"}\n', encoding="utf-8")
    wait_until(batches_done(query, 3), "the third file's batch")
    query.stop()
    batches = len(query.recentProgress)
    events = stop_and_collect(spark, tracker, sink)
    assert_valid_events(events)
    assert sorted(r["id"] for r in spark.read.parquet(str(out)).collect()) == [1, 2, 3]
    import psycopg

    with psycopg.connect(pg_server_url, autocommit=True) as conn:
        assert sorted(r[0] for r in conn.execute(f"SELECT id FROM {table}")) == [1, 2, 3]
        conn.execute(f"DROP TABLE {table}")

    streams = stream_events(events)
    assert [e["eventType"] for e in streams] == ["START", "COMPLETE"]
    assert {e["job"]["name"] for e in streams} == {"streaming_test.streaming.foreach_batch_sink"}
    # the batch function's writes are the stream's output, not jobs of their own
    assert names(streams[-1]["inputs"]) == [("file", str(landing))]
    pg_table = (f"postgres://{pg.hostname}:{pg.port or 5432}", f"{pg.path.strip('/')}.public.{table}")
    assert names(streams[-1]["outputs"]) == sorted([("file", str(out)), pg_table])
    batch_jobs = [e for e in events if e not in streams and e["job"]["facets"]["jobType"]["jobType"] == "SQL_JOB"]
    assert batch_jobs == []
    # every micro-batch is counted: the START carries the first, COMPLETE the rest
    counted = sum(e["run"]["facets"]["headwater_streaming"]["batches"] for e in streams)
    assert counted == batches


def test_watermark_window_and_stream_static_join_to_memory(
    spark: Any, sink: Sink, tmp_path: Path, assert_valid_events: Any
) -> None:
    tracker = tracked(spark, sink, tmp_path, interval="3600")
    static = tmp_path / "labels"
    spark.createDataFrame([(0, "even"), (1, "odd")], "k LONG, label STRING").write.parquet(str(static))
    labels = spark.read.parquet(str(static))
    from pyspark.sql import functions as F

    query = (
        spark.readStream.format("rate")
        .option("rowsPerSecond", 20)
        .load()
        .withWatermark("timestamp", "1 second")
        .selectExpr("timestamp", "value % 2 AS k")
        .join(labels, "k")
        .groupBy("label", F.window("timestamp", "1 second").alias("w"))
        .count()
        .selectExpr("label", "w.start AS window_start", "count AS n")
        .writeStream.format("memory")
        .queryName("labelled_counts")
        .outputMode("append")
        .trigger(processingTime="1 second")
        .start()
    )
    wait_until(batches_done(query, 2), "two micro-batches with rows")
    query.stop()
    events = stop_and_collect(spark, tracker, sink)
    assert_valid_events(events)

    streams = stream_events(events)
    assert {e["job"]["name"] for e in streams} == {"streaming_test.streaming.labelled_counts"}
    end = streams[-1]
    assert end["eventType"] == "COMPLETE"
    assert names(end["inputs"]) == sorted([("rate", "rate"), ("file", str(static))])
    assert names(end["outputs"]) == [("memory", "labelled_counts")]
    fields = end["outputs"][0]["facets"]["columnLineage"]["fields"]

    def sources(column: str, kind: str) -> set[tuple[str, str, str]]:
        return {
            (f["name"], f["field"], t["subtype"])
            for f in fields[column]["inputFields"]
            for t in f["transformations"]
            if t["type"] == kind
        }

    rate_value, rate_time = ("rate", "value"), ("rate", "timestamp")
    label, key = (str(static), "label"), (str(static), "k")
    assert {s[:2] for s in sources("label", "DIRECT")} == {label}
    assert {s[:2] for s in sources("window_start", "DIRECT")} == {rate_time}
    # the join of the stream with the static table, and the grouping, reach every output column
    for column in ("label", "window_start", "n"):
        indirect = sources(column, "INDIRECT")
        assert {(*rate_value, "JOIN"), (*key, "JOIN")} <= indirect, column
        assert {(*label, "GROUP_BY"), (*rate_time, "GROUP_BY")} <= indirect, column


def test_a_failing_stream_ends_its_run_with_fail(
    spark: Any, sink: Sink, tmp_path: Path, assert_valid_events: Any
) -> None:
    tracker = tracked(spark, sink, tmp_path, interval="3600")

    def explode(batch: Any, batch_id: int) -> None:
        if batch_id >= 1:
            raise ValueError("the batch function failed on purpose")

    query = (
        spark.readStream.format("rate")
        .option("rowsPerSecond", 20)
        .load()
        .writeStream.foreachBatch(explode)
        .queryName("doomed")
        .trigger(processingTime="1 second")
        .start()
    )
    with pytest.raises(Exception, match="failed on purpose"):
        query.awaitTermination(120)
    events = stop_and_collect(spark, tracker, sink)
    assert_valid_events(events)
    streams = stream_events(events)
    assert [e["eventType"] for e in streams][-1] == "FAIL"
    assert [e["eventType"] for e in streams][0] == "START"
    assert "failed on purpose" in streams[-1]["run"]["facets"]["errorMessage"]["message"] + streams[-1]["run"][
        "facets"
    ]["errorMessage"].get("stackTrace", "")


def test_to_table_names_the_output_as_the_table(
    spark: Any, sink: Sink, tmp_path: Path, assert_valid_events: Any
) -> None:
    """A stream written with ``toTable`` into the session catalog: its output is the table, named as a batch
    ``saveAsTable`` names it (the table's location, with the catalog name as a symlink)."""
    table = f"stream_to_table_{uuid.uuid4().hex[:8]}"
    tracker = tracked(spark, sink, tmp_path, interval="3600")
    query = (
        spark.readStream.format("rate")
        .option("rowsPerSecond", 20)
        .load()
        .selectExpr("value AS n")
        .writeStream.option("checkpointLocation", str(tmp_path / "checkpoint"))
        .trigger(processingTime="1 second")
        .toTable(table)
    )
    wait_until(batches_done(query, 2), "two micro-batches with rows")
    query.stop()
    events = stop_and_collect(spark, tracker, sink)
    assert_valid_events(events)
    assert spark.table(table).count() > 0
    location = urlsplit(spark.sql(f"DESCRIBE TABLE EXTENDED {table}").where("col_name = 'Location'").first()[1]).path
    spark.sql(f"DROP TABLE {table}")

    streams = stream_events(events)
    assert [e["eventType"] for e in streams] == ["START", "COMPLETE"]
    # no query name: the job is named after its sink, the table
    assert {e["job"]["name"] for e in streams} == {f"streaming_test.streaming.{table}"}
    (output,) = streams[-1]["outputs"]
    assert (output["namespace"], output["name"]) == ("file", location)
    assert location.endswith(f"/{table}")
    symlinks = [(s["name"], s["type"]) for s in output["facets"]["symlinks"]["identifiers"]]
    assert (f"default.{table}", "TABLE") in symlinks
    assert names(streams[-1]["inputs"]) == [("rate", "rate")]
    fields = output["facets"]["columnLineage"]["fields"]
    assert [(f["name"], f["field"]) for f in fields["n"]["inputFields"]] == [("rate", "value")]
