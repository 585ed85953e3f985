"""Streaming sources and sinks named from their options (Kafka, files, rate), and a streaming query's events:
one run, START at the first progress, RUNNING at most once per progress interval with the micro-batches between
summarised, COMPLETE / FAIL at the end (pure: no Spark)."""

from __future__ import annotations

from typing import Any

from openlineage.client.event_v2 import InputDataset, OutputDataset
from openlineage.client.serde import Serde

from headwater.capture.events import AppContext, Failure
from headwater.capture.lineage.handlers.streams import _source, kafka_names
from headwater.capture.lineage.relations import datasets_of
from headwater.capture.streaming import QueryProgress, QueryStarted, Streams, stream_job_suffix
from headwater.model.naming import kafka_dataset


def test_kafka_topics_are_named_by_the_first_bootstrap_server_and_the_topic() -> None:
    servers = {"kafka.bootstrap.servers": "broker1:9092,broker2:9092"}
    assert kafka_names({**servers, "subscribe": "orders,refunds"}) == [
        ["kafka://broker1:9092", "orders"],
        ["kafka://broker1:9092", "refunds"],
    ]
    assert kafka_names({**servers, "assign": '{"payments": [0, 1]}'}) == [["kafka://broker1:9092", "payments"]]
    assert kafka_names({**servers, "subscribePattern": "audit.*"}) == [["kafka://broker1:9092", "audit.*"]]
    # options are case-insensitive, as Spark's are; a sink names the topic it writes
    assert kafka_names({"KAFKA.BOOTSTRAP.SERVERS": "b:9093", "topic": "out"}, sink=True) == [["kafka://b:9093", "out"]]
    assert kafka_names({"kafka.bootstrap.servers": "b:9093"}, sink=True) == []  # topic from a column: unknown
    assert kafka_names({"subscribe": "orders"}) == []  # no servers: no namespace to name it by
    assert kafka_dataset("SASL_SSL://secure:9094", "t") == ("kafka://secure:9094", "t")


def test_streaming_sources_by_format_and_options() -> None:
    json_dir = _source("json", {"path": "/landing/in"}, [], "StreamingRelation")
    assert [(d.namespace, d.name) for d in datasets_of(json_dir)] == [("file", "/landing/in")]
    parquet = _source("parquet", {}, ["s3a://bucket/events"], "StreamingRelation")
    assert [(d.namespace, d.name) for d in datasets_of(parquet)] == [("s3://bucket", "events")]
    kafka = _source("kafka", {"kafka.bootstrap.servers": "k:9092", "subscribe": "t1"}, [], "StreamingRelationV2")
    assert [(d.namespace, d.name) for d in datasets_of(kafka)] == [("kafka://k:9092", "t1")]
    rate = _source("rate", {"rowsPerSecond": "5"}, [], "StreamingRelationV2")
    assert [(d.namespace, d.name) for d in datasets_of(rate)] == [("rate", "rate")]
    assert datasets_of(_source("socket", {"host": "h"}, [], "StreamingRelationV2")) == []


def test_stream_job_is_named_after_the_query_else_the_sink() -> None:
    class Lineage:
        job_suffix = "out_events"
        output_name = "events"

    assert stream_job_suffix("Orders Enriched", Lineage()) == "orders_enriched"
    assert stream_job_suffix(None, Lineage()) == "out_events"
    assert stream_job_suffix(None, None, "ForeachBatchSink") == "foreach_batch_sink"
    assert stream_job_suffix(None, None, None) == "stream"


CTX = AppContext(namespace="ns", app_job="app", app_run_id="01a21ca1-6307-7730-a039-a0fabdeb6016", spark_version="4.0")


class Lineage:
    inputs = [InputDataset(namespace="rate", name="rate")]
    outputs = [OutputDataset(namespace="file", name="/out")]
    job_suffix = None
    output_name = None


def progress(batch: int, at: float, lineage: Any = None) -> QueryProgress:
    return QueryProgress("q1", batch, 10, 5.0, 50.0, at, lineage)


def kinds(events: list[Any]) -> list[str]:
    return [e.eventType.value for e in events]


def test_one_running_event_per_interval_summarising_the_micro_batches(assert_valid_events: Any) -> None:
    streams = Streams(CTX, lambda suffix: f"app.streaming.{suffix}", interval=60.0)
    assert streams.started(QueryStarted("q1", "r1", "orders", 1000.0, "session-1")) == []
    assert streams.sessions == {"session-1": "q1"}
    events = streams.progress(progress(0, 1001.0, Lineage()))
    assert kinds(events) == ["START"]
    start = events[0]
    assert start.eventTime.startswith("1970-01-01T00:16:40")  # when the query started (1000 s), not the batch
    for batch, at in enumerate((1011.0, 1021.0, 1050.0), start=1):  # within the minute: summarised
        assert streams.progress(progress(batch, at)) == []
    running = streams.progress(progress(4, 1062.0))
    assert kinds(running) == ["RUNNING"]
    facet = running[0].run.facets["headwater_streaming"]
    assert (facet.batchId, facet.batches, facet.inputRowsPerSecond, facet.processedRowsPerSecond) == (4, 4, 5.0, 50.0)
    assert streams.progress(progress(5, 1100.0)) == []  # 38 s after the last event
    # a foreachBatch write adds the query's output
    streams.batch_write("q1", [], [OutputDataset(namespace="postgres://db:5432", name="app.public.t")])
    end = streams.terminated("q1", None, 1130.0)
    assert kinds(end) == ["COMPLETE"]
    assert end[0].run.facets["headwater_streaming"].batches == 1
    assert [(o.namespace, o.name) for o in end[0].outputs] == [("file", "/out"), ("postgres://db:5432", "app.public.t")]
    everything = [*events, *running, *end]
    assert {e.run.runId for e in everything} == {start.run.runId}
    assert {e.job.name for e in everything} == {"app.streaming.orders"}
    assert {e.job.facets["jobType"].processingType for e in everything} == {"STREAMING"}
    assert_valid_events([Serde.to_dict(e) for e in everything])
    assert streams.active == 0


def test_a_stream_that_fails_before_its_first_batch_still_starts_and_fails() -> None:
    streams = Streams(CTX, lambda suffix: f"app.streaming.{suffix}", interval=60.0)
    streams.started(QueryStarted("q1", "r1", None, 1000.0))
    events = streams.terminated("q1", Failure(message="boom", stack_trace="trace"), 1002.0)
    assert kinds(events) == ["START", "FAIL"]
    assert events[-1].run.facets["errorMessage"].message == "boom"
    assert events[0].job.name == "app.streaming.stream"
    assert streams.terminated("q1", None, 1003.0) == []  # ended once


def test_the_application_ending_completes_running_streams() -> None:
    streams = Streams(CTX, lambda suffix: f"app.streaming.{suffix}", interval=0.0)  # 0: every progress
    streams.started(QueryStarted("q1", "r1", "a", 1000.0))
    assert kinds(streams.progress(progress(0, 1001.0, Lineage()))) == ["START"]  # carrying the first progress
    assert kinds(streams.progress(progress(1, 1002.0))) == ["RUNNING"]
    assert kinds(streams.stop_all(1003.0)) == ["COMPLETE"]
