"""Structured Streaming queries as one streaming job each: START, RUNNING per progress interval, COMPLETE / FAIL.

A streaming query runs for days as a sequence of micro-batches; reported like batch executions it would be
thousands of runs (or, as Spark runs the micro-batch writes without an action name, nothing at all). Here a
query is one job (``<app>.streaming.<query name>``, else named after its sink) with ``processingType:
STREAMING``, and one run per query run (a restart from the same checkpoint is a new run):

- Spark tells the agent through a ``StreamingQueryListener`` (:class:`QueryEvents`, registered with
  ``spark.streams.addListener`` on the tracked session) on Spark's listener thread; the callbacks only copy
  plain values (and, once per query, take the plan snapshot) and hand them to the agent's worker thread;
- the lineage is read once, at the first progress, from the plan the query runs
  (:func:`stream_plan`: the sink node over the query as defined, whose sources still carry their options;
  the sources and sinks are named by ``headwater.capture.lineage.handlers.streams``);
- START (event time: when the query started) goes out with the first progress (or with the end, for a query that
  ends before its first batch); then at most one RUNNING per ``spark.headwater.streaming.progressIntervalSeconds``
  (default 60 s) carrying the last progress (batch id, rows, rates) and how many micro-batches ran since the
  previous event; COMPLETE when the query stops, FAIL with its exception when it fails;
- the writes a ``foreachBatch`` function makes run on the query's own cloned session: the agent knows that
  session's id (:attr:`Streams.sessions`) and folds them into the query's run as its outputs instead of
  reporting each as a job (:meth:`Streams.batch_write`).

:class:`Streams` is driven only from the agent's single worker thread, except :attr:`Streams.sessions`, which the
listener threads read (a dict read).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from openlineage.client.event_v2 import InputDataset, OutputDataset, RunEvent
from openlineage.client.event_v2 import RunState as EventType
from openlineage.client.uuid import generate_new_uuid

from headwater.capture.events import (
    PRODUCER,
    AppContext,
    Failure,
    RunRef,
    StreamingRunFacet,
    StreamRun,
    stream_event,
)
from headwater.capture.jvmtypes import JavaObject, PySparkObject

if TYPE_CHECKING:
    from headwater.capture.lineage import QueryLineage
    from headwater.capture.stream_events import StreamEvents

log = logging.getLogger("headwater.capture")


@dataclass(frozen=True)
class QueryStarted:
    query_id: str
    query_run_id: str
    name: str | None
    at: float
    session_uuid: str | None = None  # the query's own session (foreachBatch writes run on it)


@dataclass(frozen=True)
class QueryProgress:
    query_id: str
    batch_id: int
    num_input_rows: int | None
    input_rate: float | None
    processed_rate: float | None
    at: float
    lineage: Any = None  # the analysed plan (a QueryLineage), taken once per query run
    sink: str | None = None  # Spark's description of the sink (``FileSink[...]``, ``ForeachBatchSink``, ``MemorySink``)


@dataclass
class _Stream:
    started: QueryStarted
    run_id: str
    job_name: str | None = None
    inputs: list[InputDataset] = field(default_factory=list)
    outputs: list[OutputDataset] = field(default_factory=list)
    last: QueryProgress | None = None
    batches: int = 0  # micro-batches since the last event
    last_event: float = 0.0
    start_sent: bool = False
    has_lineage: bool = False


class StreamPlan:
    """A ``QueryExecution``-shaped view of a running query for :func:`headwater.capture.lineage.take_snapshot`: the
    sink node of the plan the query runs, over the query as the user defined it."""

    def __init__(self, plan: JavaObject) -> None:
        self._plan = plan

    def analyzed(self) -> JavaObject:
        return self._plan

    def logical(self) -> JavaObject:
        return self._plan


def stream_plan(stream_execution: JavaObject, jvm: JavaObject) -> StreamPlan:
    """The plan to analyse for a query: its running plan's sink node (``WriteToMicroBatchDataSource[V1]``) with the
    analysed query as its child (that query's leaves keep the sources' options, which the running plan has
    replaced by the source objects). Builds a new plan object; the running query is not touched."""
    running = stream_execution.logicalPlan()
    analyzed = stream_execution.analyzedPlan()
    children = jvm.org.apache.spark.api.python.PythonUtils.toSeq(jvm.java.util.ArrayList([analyzed]))
    try:
        return StreamPlan(running.withNewChildren(children))
    except Exception:  # noqa: BLE001 - a sink without a child: the running plan as it is
        return StreamPlan(running)


def stream_job_suffix(name: str | None, lineage: QueryLineage | None, sink: str | None = None) -> str:
    """What names the job: the query name, else the sink's output (its job-name suffix), else the kind of sink
    (``ForeachBatchSink`` → ``foreach_batch_sink``), else ``stream``."""
    from headwater.capture.naming import normalize

    if name:
        return normalize(name) or "stream"
    if lineage is not None:
        suffix = lineage.job_suffix or lineage.output_name
        if suffix:
            return str(suffix)
    if sink:
        return normalize(sink.split("[", 1)[0]) or "stream"
    return "stream"


class Streams:
    """The streaming queries of one tracked application and the events they make."""

    def __init__(
        self,
        ctx: AppContext,
        job_name: Callable[[str], str],
        interval: float,
        *,
        parent: RunRef | None = None,
        extra_run_facets: dict[str, Any] | None = None,
    ) -> None:
        self._ctx = ctx
        self._job_name = job_name  # suffix -> the full job name
        self.interval = interval
        self._parent = parent
        self._extra = dict(extra_run_facets or {})
        self._streams: dict[str, _Stream] = {}
        self.sessions: dict[str, str] = {}  # the session id of a running query's own session -> its query id

    @property
    def active(self) -> int:
        return len(self._streams)

    def started(self, info: QueryStarted) -> list[RunEvent]:
        self._streams[info.query_id] = _Stream(info, str(generate_new_uuid()))
        if info.session_uuid:
            self.sessions[info.session_uuid] = info.query_id
        return []

    def progress(self, info: QueryProgress) -> list[RunEvent]:
        stream = self._streams.get(info.query_id)
        if stream is None:
            return []
        stream.batches += 1
        stream.last = info
        events: list[RunEvent] = []
        if not stream.has_lineage and info.lineage is not None:
            stream.has_lineage = True
            self._merge(stream, list(info.lineage.inputs), list(info.lineage.outputs))
            suffix = stream_job_suffix(stream.started.name, info.lineage, info.sink)
            stream.job_name = stream.job_name or self._job_name(suffix)
        if not stream.start_sent:
            events.append(self._event(stream, EventType.START, stream.started.at))
            stream.last_event = info.at  # the START carries this first progress
            return events
        if info.at - stream.last_event >= self.interval:
            events.append(self._event(stream, EventType.RUNNING, info.at))
        return events

    def batch_write(self, query_id: str, inputs: list[InputDataset], outputs: list[OutputDataset]) -> None:
        """A write made by the query's ``foreachBatch`` function: its outputs (and inputs) become the query's."""
        stream = self._streams.get(query_id)
        if stream is not None:
            self._merge(stream, inputs, outputs)

    def terminated(self, query_id: str, failure: Failure | None, at: float) -> list[RunEvent]:
        stream = self._streams.pop(query_id, None)
        if stream is None:
            return []
        # the query's session stays known: its foreachBatch writes may still be reported after the query ended
        events = []
        if not stream.start_sent:
            events.append(self._event(stream, EventType.START, stream.started.at))
        events.append(self._event(stream, EventType.FAIL if failure else EventType.COMPLETE, at, failure))
        return events

    def stop_all(self, at: float) -> list[RunEvent]:
        """The application ends with queries still running (Spark stops them without telling the listener)."""
        return [event for query_id in list(self._streams) for event in self.terminated(query_id, None, at)]

    def _merge(self, stream: _Stream, inputs: list[InputDataset], outputs: list[OutputDataset]) -> None:
        known = {(d.namespace, d.name) for d in stream.inputs}
        stream.inputs.extend(d for d in inputs if (d.namespace, d.name) not in known)
        known = {(d.namespace, d.name) for d in stream.outputs}
        stream.outputs.extend(d for d in outputs if (d.namespace, d.name) not in known)

    def _event(self, stream: _Stream, kind: EventType, at: float, failure: Failure | None = None) -> RunEvent:
        if kind == EventType.START:
            stream.start_sent = True
        last = stream.last
        facet = StreamingRunFacet(
            queryId=stream.started.query_id,
            queryRunId=stream.started.query_run_id,
            queryName=stream.started.name,
            batchId=last.batch_id if last else None,
            numInputRows=last.num_input_rows if last else None,
            inputRowsPerSecond=last.input_rate if last else None,
            processedRowsPerSecond=last.processed_rate if last else None,
            batches=stream.batches,
            producer=PRODUCER,
        )
        stream.batches = 0
        stream.last_event = at
        if stream.job_name is None:
            stream.job_name = self._job_name(stream_job_suffix(stream.started.name, None))
        run = StreamRun(
            run_id=stream.run_id,
            job_name=stream.job_name,
            inputs=list(stream.inputs),
            outputs=list(stream.outputs),
            progress=facet,
            parent=self._parent,
            extra_run_facets=self._extra,
        )
        return stream_event(self._ctx, run, kind, at, failure)


def spark_time(text: str | None) -> float:
    """Spark's progress timestamps (``2026-11-27T10:44:40.467Z``) → epoch seconds; now when unreadable."""
    from datetime import datetime

    if not text:
        return time.time()
    try:
        return datetime.fromisoformat(str(text).replace("Z", "+00:00")).timestamp()
    except ValueError:
        return time.time()


def make_listener(events: StreamEvents) -> PySparkObject:
    """A PySpark ``StreamingQueryListener`` reporting to ``events`` (imports PySpark's class only when called)."""
    from pyspark.sql.streaming.listener import StreamingQueryListener

    class QueryEvents(StreamingQueryListener):
        """Spark's listener thread: copy plain values, hand over, return; never raise."""

        def onQueryStarted(self, event: PySparkObject) -> None:  # noqa: N802 - PySpark's name
            events.callback(lambda: events.started(event))

        def onQueryProgress(self, event: PySparkObject) -> None:  # noqa: N802
            events.callback(lambda: events.progress(event.progress))

        def onQueryIdle(self, event: PySparkObject) -> None:  # noqa: N802
            return None

        def onQueryTerminated(self, event: PySparkObject) -> None:  # noqa: N802
            events.callback(lambda: events.terminated(event))

    return QueryEvents()
