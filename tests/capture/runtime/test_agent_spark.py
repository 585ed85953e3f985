"""The agent in a real PySpark session (local[2]): events, failures, a backend that is down/erroring/hanging,
errors inside capture. One SparkSession for the module; each test tracks it with its own configuration."""

from __future__ import annotations

import json
import logging
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from headwater.capture import track
from headwater.capture.spool import Spool
from headwater.capture.tracker import Tracker

from .events_util import app_events, assert_parented, assert_start_then_end, exec_events
from .sink import Sink

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from pyspark.sql import SparkSession

    warehouse = tmp_path_factory.mktemp("warehouse")
    session = (
        SparkSession.builder.master("local[2]")
        .appName("Agent Runtime Test")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.warehouse.dir", str(warehouse))
        .getOrCreate()
    )
    yield session
    session.stop()


def http_conf(url: str, spool: Path, **extra: str) -> dict[str, str]:
    return {
        "spark.openlineage.transport.type": "http",
        "spark.openlineage.transport.url": url,
        "spark.openlineage.transport.timeoutInMillis": "1000",
        "spark.headwater.spool.dir": str(spool),
        "spark.headwater.flushTimeoutSeconds": "60",
        **extra,
    }  # generous: CI machines can be very busy


def start(spark: Any, conf: dict[str, str]) -> Tracker:
    tracker = track(spark, conf=conf)
    assert isinstance(tracker, Tracker)
    return tracker


def write_people(spark: Any, path: Path) -> list[Any]:
    """A small job: build a DataFrame, write it as Parquet, read it back (the result the job computes)."""
    from pyspark.sql import functions as F

    df = spark.createDataFrame([(1, "ada", 10.0), (2, "bob", 20.0), (3, "cy", 30.0)], ["id", "name", "pay"])
    df.withColumn("pay2", F.col("pay") * 2).write.mode("overwrite").parquet(str(path))
    return sorted(spark.read.parquet(str(path)).collect())


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_events_for_a_write_with_parent_chain(
    spark: Any, tmp_path: Path, spool_dir: Path, assert_valid_events: Any
) -> None:
    with Sink() as sink:
        tracker = start(spark, http_conf(sink.url, spool_dir, **{"spark.openlineage.namespace": "runtime_test"}))
        assert track(spark) is tracker  # idempotent
        write_people(spark, tmp_path / "people")
        spark.range(5).count()  # a pure read: no events of its own
        assert tracker.flush(20)
        tracker.stop()
        events = sink.events()
    assert_valid_events(events)
    assert_start_then_end(events)
    apps = app_events(events)
    assert [e["eventType"] for e in apps] == ["START", "COMPLETE"]
    assert apps[0]["job"] == {**apps[0]["job"], "namespace": "runtime_test", "name": "agent_runtime_test"}
    engine = apps[0]["run"]["facets"]["processing_engine"]
    assert (engine["name"], engine["version"]) == ("spark", spark.version)
    assert apps[0]["run"]["facets"]["spark_properties"]["properties"]["spark.master"] == "local[2]"
    all_execs = exec_events(events)
    # the read back (collect over the Parquet files) is reported with its input and no output, as the
    # OpenLineage integration reports read-only executions (spark.headwater.emitReadOnly); range().count()
    # reads no dataset and is not
    reads = [e for e in all_execs if not e.get("outputs")]
    assert [e["eventType"] for e in reads] == ["START", "COMPLETE"]
    assert [i["name"] for i in reads[1]["inputs"]] == [str(tmp_path / "people")]
    assert reads[1]["job"]["name"].startswith("agent_runtime_test.") and reads[1]["job"]["name"].count(".") == 1
    execs = [e for e in all_execs if e.get("outputs")]
    assert [e["eventType"] for e in execs] == ["START", "COMPLETE"]  # the write
    assert execs[0]["job"]["name"].startswith("agent_runtime_test.execute_insert_into_hadoop_fs_relation_command")
    assert execs[0]["eventTime"] <= execs[1]["eventTime"]
    assert [o["name"] for o in execs[1]["outputs"]] == [str(tmp_path / "people")]
    assert execs[0]["job"]["facets"]["jobType"] == {
        **execs[0]["job"]["facets"]["jobType"],
        "integration": "SPARK",
        "processingType": "BATCH",
        "jobType": "SQL_JOB",
    }
    assert_parented(events)
    assert tracker.stats.sent == len(events) and tracker.stats.spooled == 0
    tokens = [str(x.toString()) for x in spark._jsparkSession.listenerManager().listListeners()]
    assert tracker.listener.token not in tokens  # stop() really removed the listener from the session
    assert tracker.stopped and getattr(spark.sparkContext, "_headwater_tracker", None) is None
    again = start(
        spark,
        {
            "spark.openlineage.transport.type": "file",
            "spark.openlineage.transport.location": str(tmp_path / "again.ndjson"),
        },
    )
    assert again is not tracker and again.run_id != tracker.run_id  # a new application run after stop()
    again.stop()
    assert [json.loads(line)["eventType"] for line in (tmp_path / "again.ndjson").read_text().splitlines()] == [
        "START",
        "COMPLETE",
    ]


def test_failed_execution_emits_fail_with_error_message(
    spark: Any, tmp_path: Path, spool_dir: Path, assert_valid_events: Any
) -> None:
    from pyspark.sql import functions as F

    explode_on_three = F.when(F.col("id") == 3, F.raise_error(F.lit("bad row 3"))).otherwise(F.col("id"))
    with Sink() as sink:
        tracker = start(spark, http_conf(sink.url, spool_dir))
        with pytest.raises(Exception, match="bad row 3"):
            spark.range(5).select(explode_on_three.alias("v")).write.mode("overwrite").parquet(str(tmp_path / "never"))
        tracker.stop()
        events = sink.events()
    assert_valid_events(events)
    assert_start_then_end(events)
    fail = [e for e in exec_events(events) if e["eventType"] == "FAIL"]
    assert len(fail) == 1
    error = fail[0]["run"]["facets"]["errorMessage"]
    assert error["programmingLanguage"] == "JAVA"
    assert "bad row 3" in error["message"] + error.get("stackTrace", "")
    assert [e["eventType"] for e in app_events(events)] == ["START", "COMPLETE"]


def test_backend_down_job_unaffected_events_spooled_then_delivered(
    spark: Any, tmp_path: Path, spool_dir: Path, assert_valid_events: Any
) -> None:
    baseline = write_people(spark, tmp_path / "baseline")  # no tracker
    port = free_port()
    tracker = start(spark, http_conf(f"http://127.0.0.1:{port}", spool_dir))
    result = write_people(spark, tmp_path / "tracked")
    tracker.stop()
    assert result == baseline  # the job's result is the same with the backend down
    spooled = Spool(spool_dir).count()
    assert spooled == tracker.stats.spooled >= 4  # app START/COMPLETE + the write's START/COMPLETE
    assert tracker.stats.sent == 0 and tracker.stats.dropped == 0
    with Sink(port=port) as sink:  # the backend is back: the next run sends what waited
        later = start(spark, http_conf(sink.url, spool_dir))
        events = sink.wait_for(lambda b: len(b) >= spooled + 1, timeout=30)
        later.stop()
        events = sink.events()
    assert_valid_events(events)
    assert len(events) == spooled + 2  # the old run's events, then the new run's START and COMPLETE
    assert_start_then_end(events[:spooled])
    assert Spool(spool_dir).count() == 0


@pytest.mark.parametrize("mode", ["error", "hang"])
def test_backend_erroring_or_hanging_loses_nothing(
    spark: Any, tmp_path: Path, spool_dir: Path, mode: str, assert_valid_events: Any
) -> None:
    with Sink(mode=mode, hang_seconds=3) as sink:
        tracker = start(spark, http_conf(sink.url, spool_dir, **{"spark.headwater.flushTimeoutSeconds": "2"}))
        result = write_people(spark, tmp_path / "out")
        tracker.stop()
        assert [r.id for r in result] == [1, 2, 3]
        assert sink.events() == []
        produced = tracker.stats.built
        assert Spool(spool_dir).count() == produced >= 4
        sink.mode = "ok"
        done = Spool(spool_dir).drain(lambda event: _post(sink.url, event))
        assert done
        events = sink.events()
    assert len(events) == produced
    assert_valid_events(events)
    assert_start_then_end(events)


def _post(url: str, event: dict[str, Any]) -> None:
    import httpx

    httpx.post(url + "/api/v1/lineage", json=event, timeout=5).raise_for_status()


def test_error_inside_capture_is_logged_once_and_the_job_is_unaffected(
    spark: Any, tmp_path: Path, spool_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="headwater.capture")
    with Sink() as sink:
        tracker = start(spark, http_conf(sink.url, spool_dir, **{"spark.headwater.debug.failCapture": "true"}))
        first = write_people(spark, tmp_path / "a")
        second = write_people(spark, tmp_path / "b")
        assert tracker.flush(20)
        tracker.stop()
        events = sink.events()
    assert first == second and len(first) == 3
    failures = [r for r in caplog.records if "lineage capture failed" in r.getMessage()]
    assert len(failures) == 1, [r.getMessage() for r in caplog.records]
    assert tracker.listener.seen >= 4  # two writes and two reads went through the broken capture
    assert [e["eventType"] for e in events] == ["START", "COMPLETE"]  # the application run is still reported


def test_the_application_end_is_one_batch_with_the_held_writes_and_survives_a_failing_part(
    spark: Any, tmp_path: Path, spool_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """To Headwater, ``stop()`` sends the writes still held and the application's end as one batch POST (the
    application's START, whose answer shows Headwater, goes alone); a part of that batch that fails to build is
    logged and the other parts are still sent."""
    caplog.set_level(logging.WARNING, logger="headwater.capture")
    with Sink(mode="headwater") as sink:
        tracker = start(spark, http_conf(sink.url, spool_dir, **{"spark.headwater.nesting.graceSeconds": "600"}))

        def broken(ended: float) -> list[Any]:
            raise RuntimeError("streams cannot be ended")

        tracker.streams.stop_all = broken  # type: ignore[method-assign]
        spark.range(3).write.mode("overwrite").parquet(str(tmp_path / "out"))
        tracker.stop()
        posts, paths, events = len(sink.raw), list(sink.paths), sink.events()
    assert posts == 2
    assert paths == ["/api/v1/lineage"] + ["/api/v1/lineage/batch"] * 3
    app = tracker.context.app_job
    assert [(e["job"]["name"] == app, e["eventType"]) for e in events] == [
        (True, "START"),
        (False, "START"),
        (False, "COMPLETE"),
        (True, "COMPLETE"),
    ]
    assert events[1]["outputs"][0]["name"] == str(tmp_path / "out")
    failures = [r.getMessage() for r in caplog.records if "streams cannot be ended" in r.getMessage()]
    assert len(failures) == 1 and "the end of the application" in failures[0]


def test_parent_facets_namespace_app_name_and_disabled_facets(
    spark: Any, tmp_path: Path, spool_dir: Path, assert_valid_events: Any
) -> None:
    parent_run = "01890000-0000-7000-8000-00000000beef"
    root_run = "01890000-0000-7000-8000-00000000cafe"
    conf = http_conf("", spool_dir)
    with Sink() as sink:
        conf.update(
            {
                "spark.openlineage.transport.url": sink.url,
                "spark.openlineage.namespace": "payroll",
                "spark.openlineage.appName": "nightlyLoad",
                "spark.openlineage.parentJobNamespace": "airflow",
                "spark.openlineage.parentJobName": "payroll_dag.load",
                "spark.openlineage.parentRunId": parent_run,
                "spark.openlineage.rootParentJobNamespace": "airflow",
                "spark.openlineage.rootParentJobName": "payroll_dag",
                "spark.openlineage.rootParentRunId": root_run,
                "spark.openlineage.facets.disabled": "[spark_properties;processing_engine]",
                "spark.openlineage.jobName.appendDatasetName": "false",
            }
        )
        tracker = start(spark, conf)
        write_people(spark, tmp_path / "people")
        tracker.stop()
        events = sink.events()
    assert_valid_events(events)
    app = app_events(events)[0]
    assert (app["job"]["namespace"], app["job"]["name"]) == ("payroll", "nightly_load")
    parent = app["run"]["facets"]["parent"]
    assert parent["run"]["runId"] == parent_run
    assert parent["job"] == {"namespace": "airflow", "name": "payroll_dag.load", "facets": {}} or (
        parent["job"]["namespace"],
        parent["job"]["name"],
    ) == ("airflow", "payroll_dag.load")
    assert parent["root"]["run"]["runId"] == root_run
    for e in events:
        assert "spark_properties" not in e["run"]["facets"] and "processing_engine" not in e["run"]["facets"]
    execs = [e for e in exec_events(events) if e.get("outputs")]  # the write (the read back is reported too)
    assert execs and all(
        e["job"]["name"] == "nightly_load.execute_insert_into_hadoop_fs_relation_command" for e in execs
    )
    assert all(e["run"]["facets"]["parent"]["root"]["run"]["runId"] == root_run for e in execs)
    assert_parented(events)


def test_spark_connect_client_sessions_are_detected_and_pointed_to_the_server(caplog: pytest.LogCaptureFixture) -> None:
    from headwater.capture import is_connect_session

    class ConnectStyleSession:
        """What a pyspark.sql.connect SparkSession looks like from outside: a gRPC client, no JVM session."""

        def __init__(self) -> None:
            self.client = object()

    ConnectStyleSession.__module__ = "pyspark.sql.connect.session"
    session = ConnectStyleSession()
    assert is_connect_session(session)
    caplog.set_level(logging.WARNING, logger="headwater.capture")
    assert track(session) is None
    assert any(
        "Spark Connect" in r.getMessage() and "headwater connect-server" in r.getMessage() for r in caplog.records
    )


def test_classic_session_is_not_connect(spark: Any) -> None:
    from headwater.capture import is_connect_session

    assert not is_connect_session(spark)


def test_dataset_lineage_enabled_key_reaches_the_column_lineage(spark: Any, tmp_path: Path, spool_dir: Path) -> None:
    """spark.openlineage.columnLineage.datasetLineageEnabled moves the dataset-wide INDIRECT inputs (here the
    filter on pay) into the columnLineage facet's ``dataset`` field."""
    from pyspark.sql import functions as F

    source = tmp_path / "source"
    spark.createDataFrame([(1, "ada", 10.0), (2, "bob", 20.0)], ["id", "name", "pay"]).write.parquet(str(source))
    facets = {}
    for enabled in ("false", "true"):
        with Sink() as sink:
            tracker = start(
                spark,
                http_conf(sink.url, spool_dir, **{"spark.openlineage.columnLineage.datasetLineageEnabled": enabled}),
            )
            (
                spark.read.parquet(str(source))
                .where(F.col("pay") > 15)
                .select("id", "name")
                .write.mode("overwrite")
                .parquet(str(tmp_path / f"out_{enabled}"))
            )
            tracker.stop()
            complete = [e for e in exec_events(sink.events()) if e["eventType"] == "COMPLETE"]
        assert len(complete) == 1
        facets[enabled] = complete[0]["outputs"][0]["facets"]["columnLineage"]
    assert not facets["false"].get("dataset")
    assert facets["true"]["dataset"], facets["true"]
    assert any(f["field"] == "pay" for f in facets["true"]["dataset"])
    folded = [f for field in facets["false"]["fields"].values() for f in field["inputFields"]]
    assert any(f["field"] == "pay" for f in folded)  # folded into each field instead


@pytest.mark.parametrize("how", ["saveAsTable", "ctas"])
def test_a_command_and_the_executions_it_runs_are_one_job(
    spark: Any, tmp_path: Path, spool_dir: Path, how: str, assert_valid_events: Any
) -> None:
    """saveAsTable is 2 (Spark 3.5) or 3 (Spark 4) nested executions writing one table: one job, one run,
    named after the outermost command, with the output statistics the inner write measured."""
    from pyspark.sql import functions as F

    table = f"nested_{how.lower()}"
    spark.sql(f"DROP TABLE IF EXISTS {table}")
    source = tmp_path / "source"
    spark.range(20).write.parquet(str(source))
    with Sink() as sink:
        tracker = start(spark, http_conf(sink.url, spool_dir))
        df = spark.read.parquet(str(source)).withColumn("twice", F.col("id") * 2)
        if how == "saveAsTable":
            df.write.mode("overwrite").format("parquet").saveAsTable(table)
        else:
            df.createOrReplaceTempView("nested_source")
            spark.sql(f"CREATE TABLE {table} USING parquet AS SELECT id, twice FROM nested_source")
        other = tmp_path / "other"
        df.write.mode("overwrite").parquet(str(other))  # a separate write right after: its own job
        tracker.stop()
        events = sink.events()
        absorbed = tracker.nesting.absorbed
    assert_valid_events(events)
    assert_start_then_end(events)
    completes = [e for e in exec_events(events) if e["eventType"] == "COMPLETE"]
    names = sorted(e["job"]["name"] for e in completes)
    assert len(completes) == 2, names
    (table_job,) = (e for e in completes if e["outputs"][0]["name"].endswith(table))
    assert table_job["job"]["name"].split(".")[1] in {
        "execute_save_as_v1_table_command",
        "execute_create_data_source_table_as_select_command",
    }, names
    assert absorbed >= 1
    stats = table_job["outputs"][0]["outputFacets"]["outputStatistics"]
    assert stats["rowCount"] == 20
    assert [i["name"] for i in table_job["inputs"]] == [str(source)]
    lineage = table_job["outputs"][0]["facets"]["columnLineage"]["fields"]
    assert {
        name: [
            (f["field"], [t["type"] + ":" + t["subtype"] for t in f["transformations"]]) for f in field["inputFields"]
        ]
        for name, field in lineage.items()
    } == {"id": [("id", ["DIRECT:IDENTITY"])], "twice": [("id", ["DIRECT:TRANSFORMATION"])]}
    # column lineage and statistics come with the terminal event only, as in the OpenLineage Spark integration
    (table_start,) = (
        e for e in exec_events(events) if e["eventType"] == "START" and e["run"]["runId"] == table_job["run"]["runId"]
    )
    start_out = table_start["outputs"][0]
    assert "columnLineage" not in start_out["facets"] and "outputStatistics" not in start_out.get("outputFacets", {})
    assert start_out["facets"]["schema"] == table_job["outputs"][0]["facets"]["schema"]
    (other_job,) = (e for e in completes if e["outputs"][0]["name"] == str(other))
    assert other_job["job"]["name"].split(".")[1] == "execute_insert_into_hadoop_fs_relation_command"
