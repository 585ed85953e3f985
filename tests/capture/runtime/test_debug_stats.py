"""``spark.headwater.debug.stats``: the agent's own costs, recorded only when asked for (benchmarks)."""

from __future__ import annotations

import json
import logging
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from headwater.capture import track
from headwater.capture.config import load_config
from headwater.capture.debugstats import DebugStats
from headwater.capture.tracker import Tracker

from .sink import Sink


def test_the_keys_are_off_by_default_and_parsed() -> None:
    assert load_config({}, {}).debug_stats is None
    assert load_config({}, {}).debug_tracemalloc is False
    assert load_config({"spark.headwater.debug.stats": "false"}, {}).debug_stats is None
    assert load_config({"spark.headwater.debug.stats": "TRUE"}, {}).debug_stats == "true"
    assert load_config({"spark.headwater.debug.stats": "/tmp/s.json"}, {}).debug_stats == "/tmp/s.json"
    assert load_config({"spark.headwater.debug.tracemalloc": "true"}, {}).debug_tracemalloc is True


class _Transport:
    def __init__(self) -> None:
        self.events: list[Any] = []
        self.kind = "test"

    def emit(self, event: Any) -> None:
        self.events.append(event)


def test_records_listener_worker_and_send_and_writes_the_report(tmp_path: Path) -> None:
    target = tmp_path / "stats.json"
    stats = DebugStats(str(target), trace_memory=True)
    token = stats.listener_begin()
    sum(i * i for i in range(20_000))
    stats.listener_end(token)
    item = stats.timed_item(lambda: [bytearray(2_000_000), "event"])
    assert len(item()) == 2
    inner = _Transport()
    sending = stats.timed_transport(inner)
    sending.emit({"e": 1})
    assert inner.events == [{"e": 1}] and sending.kind == "test"  # delegates
    stats.finish()
    report = json.loads(target.read_text())
    assert report["listener_cpu_s"]["n"] == 1 and report["listener_cpu_s"]["total"] > 0
    assert report["listener_jvm_cpu_s"] == {"n": 0}  # no JVM here
    assert report["worker_cpu_s"]["n"] == 1 and report["send_cpu_s"]["n"] == 1
    assert report["item_heap_peak_bytes"] >= 2_000_000
    assert report["max_rss_bytes"] > 0
    assert not tracemalloc.is_tracing()  # stopped by finish(): it started it


def test_true_logs_the_summary(caplog: pytest.LogCaptureFixture) -> None:
    stats = DebugStats("true")
    with caplog.at_level(logging.WARNING, logger="headwater.capture"):
        stats.finish()
    assert "headwater debug stats" in caplog.text and '"listener_cpu_s"' in caplog.text


def test_an_unwritable_target_is_logged_not_raised(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    stats = DebugStats(str(tmp_path / "missing-dir" / "stats.json"))
    with caplog.at_level(logging.WARNING, logger="headwater.capture"):
        stats.finish()
    assert "could not write the debug stats" in caplog.text


@pytest.fixture(scope="module")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .appName("debug stats test")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    yield session
    session.stop()


@pytest.mark.spark
def test_a_tracked_session_reports_its_costs_per_execution(spark: Any, tmp_path: Path) -> None:
    target = tmp_path / "stats.json"
    with Sink() as sink:
        tracker = track(
            spark,
            conf={
                "spark.openlineage.transport.type": "http",
                "spark.openlineage.transport.url": sink.url,
                "spark.headwater.spool.dir": str(tmp_path / "spool"),
                "spark.headwater.flushTimeoutSeconds": "60",
                "spark.headwater.debug.stats": str(target),
            },
        )
        assert isinstance(tracker, Tracker) and tracker.debug_stats is not None
        spark.range(10).selectExpr("id", "id * 2 AS twice").write.mode("overwrite").parquet(str(tmp_path / "out"))
        tracker.stop()
        sent = tracker.stats.sent
    report = json.loads(target.read_text())
    assert report["listener_cpu_s"]["n"] >= 1
    assert report["listener_jvm_cpu_s"]["n"] == report["listener_cpu_s"]["n"]  # ThreadMXBean through py4j
    assert report["listener_jvm_cpu_s"]["total"] > 0
    assert report["worker_cpu_s"]["n"] >= 1
    assert report["send_cpu_s"]["n"] == sent == 4  # application START/COMPLETE, the write's START/COMPLETE
    assert report["python_heap_peak_bytes"] == 0  # tracemalloc only when asked for


@pytest.mark.spark
def test_without_the_key_nothing_is_recorded(spark: Any, tmp_path: Path) -> None:
    tracker = track(
        spark,
        conf={
            "spark.openlineage.transport.type": "file",
            "spark.openlineage.transport.location": str(tmp_path / "events.ndjson"),
            "spark.headwater.spool.dir": str(tmp_path / "spool"),
        },
    )
    assert isinstance(tracker, Tracker)
    assert tracker.debug_stats is None and tracker.listener._stats is None
    assert tracker.emitter.transport is tracker.transport  # not wrapped
    tracker.stop()
