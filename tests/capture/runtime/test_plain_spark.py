"""Real Spark events (local[2]) in plain form (headwater.capture.plain): byte-identical JSON to the event
objects through Serde, the console, file and HTTP transports and the spool; and the agent really hands the
plain form to the HTTP transport, whose bodies are valid OpenLineage."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from openlineage.client.transport import Transport

from headwater.capture import track
from headwater.capture.tracker import Tracker

from .events_util import assert_start_then_end, exec_events
from .plain_util import assert_same_json, assert_same_through_transports
from .sink import Sink

pytestmark = pytest.mark.spark


class Recorder(Transport):
    """Keeps the event objects the agent emits (a custom transport: it gets objects, never the plain form)."""

    kind = "recorder"

    def __init__(self) -> None:
        self.events: list[Any] = []

    def emit(self, event: Any) -> None:
        self.events.append(event)


@pytest.fixture(scope="module")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from pyspark.sql import SparkSession

    warehouse = tmp_path_factory.mktemp("warehouse")
    session = (
        SparkSession.builder.master("local[2]")
        .appName("plainFormTest")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.warehouse.dir", str(warehouse))
        .getOrCreate()
    )
    yield session
    session.stop()


def run_jobs(spark: Any, base: Path) -> None:
    """Writes of several shapes: a wide withColumn chain, a join + aggregate, a window, SQL, a table (nested
    commands), and a failing write."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    people = spark.createDataFrame(
        [(1, "ada", "eng", 10.0), (2, "bob", "ops", 20.0)], "id INT, name STRING, dept STRING, pay DOUBLE"
    )
    people.write.mode("overwrite").parquet(str(base / "people"))
    p = spark.read.parquet(str(base / "people"))
    wide = p.select("id", *[(F.col("pay") * i).alias(f"c{i}") for i in range(60)])
    for i in range(40):
        a, b = f"c{(i * 7) % 60}", f"c{(i * 13 + 1) % 60}"
        wide = (
            wide.withColumn(f"d{i}", F.when(F.col(a) > F.col(b), F.col(a)).otherwise(F.col(b) - 1))
            if i % 2
            else wide.withColumn(f"d{i}", F.concat_ws("-", F.col(a).cast("string"), F.lit("é")))
        )
    wide.filter(F.col("id") > 0).write.mode("overwrite").parquet(str(base / "wide"))
    depts = spark.createDataFrame([("eng", "Engineering")], "code STRING, title STRING")
    (
        p.join(depts, F.col("dept") == F.col("code"), "left")
        .groupBy("title")
        .agg(F.avg("pay").alias("avg_pay"))
        .write.mode("overwrite")
        .json(str(base / "agg"))
    )
    w = Window.partitionBy("dept").orderBy(F.col("pay").desc())
    p.withColumn("rk", F.row_number().over(w)).write.mode("overwrite").orc(str(base / "window"))
    spark.sql(f"SELECT id, upper(name) AS name FROM parquet.`{base / 'people'}` WHERE pay > 5").write.mode(
        "overwrite"
    ).parquet(str(base / "sql"))
    p.select("id", "name").write.mode("overwrite").saveAsTable("plain_people")
    with pytest.raises(Exception):  # noqa: B017 - the job's own failure (writing to an existing path)
        p.write.mode("error").parquet(str(base / "people"))


def test_real_spark_events_same_bytes(spark: Any, tmp_path: Path, spool_dir: Path) -> None:
    recorder = Recorder()
    tracker = track(
        spark,
        conf={"spark.headwater.spool.dir": str(spool_dir), "spark.headwater.flushTimeoutSeconds": "60"},
        transport=recorder,
    )
    assert isinstance(tracker, Tracker)
    assert not tracker._plain  # a custom transport gets the objects
    run_jobs(spark, tmp_path)
    assert tracker.flush(60)
    tracker.stop()
    events = recorder.events
    assert not any(isinstance(e, dict) for e in events)
    kinds = {(e.eventType.value, o.name.rsplit("/", 1)[-1]) for e in events for o in e.outputs or []}
    assert {("COMPLETE", "wide"), ("COMPLETE", "agg"), ("FAIL", "people")} <= kinds, kinds
    wide = [o for e in events for o in e.outputs or [] if o.name.endswith("/wide") and "columnLineage" in o.facets]
    assert len(wide[0].facets["columnLineage"].fields) == 101
    assert_same_json(events)
    assert_same_through_transports(events, tmp_path / "transports")


def test_agent_hands_the_plain_form_to_http(
    spark: Any, tmp_path: Path, spool_dir: Path, assert_valid_events: Any
) -> None:
    with Sink() as sink:
        tracker = track(
            spark,
            conf={
                "spark.openlineage.transport.type": "http",
                "spark.openlineage.transport.url": sink.url,
                "spark.headwater.spool.dir": str(spool_dir),
                "spark.headwater.flushTimeoutSeconds": "60",
            },
        )
        assert isinstance(tracker, Tracker) and tracker._plain
        http = tracker.emitter.transport
        given: list[type] = []
        original = http.emit

        def observe(event: Any) -> Any:
            given.append(type(event))
            return original(event)

        http.emit = observe  # observe what the real transport is handed; it still sends
        run_jobs(spark, tmp_path)
        assert tracker.flush(60)
        tracker.stop()
        events = sink.events()
    executions = exec_events(events)
    assert len(executions) >= 12
    # every event went out in plain form, the application's included (its START may have been sent before the
    # observer was put in place)
    assert given == [dict] * len(given) and len(events) - 1 <= len(given) <= len(events)
    assert_valid_events(events)
    assert_start_then_end(events)
