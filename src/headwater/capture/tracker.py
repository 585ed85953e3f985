"""Tracking one SparkSession: the application run, the listener, the emitter, shutdown.

:func:`track` is the one entry point (the notebook call, the ``headwater run`` bootstrap and the
``.pth`` auto mode all end here). It is idempotent per SparkContext: the live :class:`Tracker` is kept
on the SparkContext object it belongs to (``sc._headwater_tracker``), not in a module global.

Why ~600 lines: what stays here shares the tracker's state (the run, the emitter, the nesting of writes, the
Connect sessions) — start and stop, executions → events; the parts that only hand values over are modules of
their own: RDD jobs (:mod:`.rdd_jobs`, pure analysis in :mod:`.lineage.rdd_job`), streaming query events
(:mod:`.stream_events`), the script's facets (:mod:`.script`).
"""

from __future__ import annotations

import atexit
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar

from openlineage.client.event_v2 import RunState as EventType
from openlineage.client.transport import Transport
from openlineage.client.uuid import generate_new_uuid

from headwater.capture.batch import BatchSender
from headwater.capture.config import AgentConfig, load_config
from headwater.capture.connect import (
    CONNECT_MESSAGE,
    PLUGIN,
    QUEUE,
    BusListener,
    ConnectSession,
    describe,
    is_connect_session,
    local_server_session,
)
from headwater.capture.debugstats import DebugStats
from headwater.capture.delivery import Emitter, Stats
from headwater.capture.events import (
    CALL_SITE_FACET,
    CONNECT_FACET,
    PRODUCER,
    AppContext,
    Execution,
    Failure,
    RunRef,
    SparkConnectRunFacet,
    application_event,
    execution_events,
    session_event,
)
from headwater.capture.jvmtypes import JavaObject, PySparkObject
from headwater.capture.listener import Observed, QueryListener, unregister
from headwater.capture.naming import application_job_name, execution_job_name
from headwater.capture.nesting import NestedWrites
from headwater.capture.plain import Outgoing, plain_events
from headwater.capture.rdd_jobs import RddCall, RddJobs
from headwater.capture.script import script_url, source_code
from headwater.capture.spool import Spool
from headwater.capture.stream_events import StreamEvents
from headwater.capture.streaming import Streams
from headwater.capture.transports import accepts_plain, build_transport
from headwater.capture.transports import describe as describe_transport

if TYPE_CHECKING:
    from headwater.capture.lineage import PlanSnapshot, QueryLineage

N = TypeVar("N", int, float)

log = logging.getLogger("headwater.capture")
ATTR = "_headwater_tracker"


def _live_tracker(sc: PySparkObject) -> Tracker | None:
    """The live tracker of a SparkContext (the RDD save hooks ask), or None."""
    tracker = getattr(sc, ATTR, None) if sc is not None else None
    return tracker if isinstance(tracker, Tracker) and not tracker.stopped else None


class Tracker:
    """A handle on the lineage capture of one Spark application. ``flush()`` and ``stop()`` are safe to call
    at any time, any number of times; nothing here ever raises into the caller."""

    def __init__(
        self, spark: PySparkObject, config: AgentConfig, conf: Mapping[str, str], *, transport: Transport | None = None
    ) -> None:
        self.config = config
        self._spark = spark
        self._sc = spark.sparkContext
        self._stopped = False
        self._stop_lock = threading.Lock()
        self._failure: Failure | None = None
        app_name = config.app_name or conf.get("spark.app.name") or "spark_application"
        self.app_name = app_name
        self.context = AppContext(
            namespace=config.namespace,
            app_job=application_job_name(app_name, config.job_name_style),
            app_run_id=str(generate_new_uuid()),
            spark_version=str(spark.version),
            properties={k: conf[k] for k in config.captured_properties if conf.get(k)},
            job_tags=config.job_tags,
            run_tags=config.run_tags,
            job_owners=config.job_owners,
            parent=RunRef(*config.parent) if config.parent else None,
            root=RunRef(*config.root_parent) if config.root_parent else None,
            script_url=script_url(),
            source_code=source_code(config),
            disabled_facets=config.disabled_facets,
            environment={name: os.environ.get(name) for name in config.environment_variables},
        )
        self.transport = transport or build_transport(config)
        # execution events go to transports that only serialise them in the form Serde serialises fastest
        self._plain = accepts_plain(self.transport)
        self.spool = Spool(config.spool_dir, config.spool_max_bytes)
        self.debug_stats = (
            DebugStats(config.debug_stats, spark.sparkContext._jvm, trace_memory=config.debug_tracemalloc)
            if config.debug_stats
            else None
        )
        sending = self.debug_stats.timed_transport(self.transport) if self.debug_stats else self.transport
        # the plain events of one worker item in one POST, once the backend showed it is Headwater (capture/batch.py)
        batch = BatchSender.for_transport(self.transport) if self._plain else None
        if batch is not None and self.debug_stats is not None:
            batch = self.debug_stats.timed_batch(batch)
        self.emitter = Emitter(sending, self.spool, queue_size=config.queue_size, batch=batch)
        self._snapshot, self._analyze = _lineage_functions(spark, config)
        self.nesting = NestedWrites(config.nesting_grace)
        self._rdd = RddJobs(
            self._sc,
            config,
            app_name,
            stopped=lambda: self._stopped,
            hand_over=self.emitter.submit,
            item=self._item,
            events=self._events,
        )
        self.streams = Streams(self.context, self._stream_job_name, config.stream_progress_interval)
        # a Spark Connect server's driver: every client session's executions are heard on the listener bus
        self.connect_server = PLUGIN in str(conf.get("spark.plugins", ""))
        self._bus_listener: BusListener | None = None
        self._sessions: dict[str, tuple[RunRef, SparkConnectRunFacet]] = {}  # worker thread only
        self._timers_lock = threading.Lock()
        self._timer: threading.Timer | None = None
        self.listener = QueryListener(
            self._snapshot,
            self._observed,
            self.emitter.errors,
            jvm=self._sc._jvm,
            fail_for_test=config.debug_fail_capture,
            stats=self.debug_stats,
            wants_session=lambda: bool(self.streams.sessions),
        )
        self._stream_events = StreamEvents(
            spark,
            self.streams,
            self._snapshot,
            self._analyze,
            submit=lambda build: self.emitter.submit(self._item(build)),
            plain_if=self._plain_if,
            errors=self.emitter.errors,
            enabled=lambda: self.listener.enabled,
        )

    # -- lifecycle ---------------------------------------------------------------------------
    def _start(self) -> None:
        from pyspark.java_gateway import ensure_callback_server_started

        ensure_callback_server_started(self._sc._gateway)  # type: ignore[no-untyped-call]  # PySpark is untyped
        if self.connect_server:
            self._bus_listener = BusListener(
                self.listener.bus_execution_end, self._session_closed, self.emitter.errors, self._sc._jvm
            )
            self._sc._jsc.sc().listenerBus().addToQueue(self._bus_listener, QUEUE)
        else:
            self._spark._jsparkSession.listenerManager().register(self.listener)
        started = _app_start_time(self._sc)
        # in the form the transport serialises fastest (headwater.capture.plain), built on the worker
        self.emitter.submit(
            self._item(lambda: self._plain_if([application_event(self.context, EventType.START, started)]))
        )
        if not self.config.rdd_events_disabled:
            try:
                from headwater.capture import rdd

                rdd.install(_live_tracker)
            except Exception as exc:  # noqa: BLE001 - RDD jobs are then not reported; nothing else changes
                log.debug("headwater: RDD save hooks not installed: %s", exc)
        log.info(
            "headwater: capturing lineage of Spark application %r (run %s) to %s",
            self.app_name,
            self.context.app_run_id,
            describe_transport(self.transport),
        )
        if CALL_SITE_FACET not in self.config.disabled_facets:
            try:
                from headwater.capture import callsite

                callsite.install()
            except Exception as exc:  # noqa: BLE001 - runs then carry no call site; nothing else changes
                log.debug("headwater: call-site hooks not installed: %s", exc)
        self._stream_events.start()
        self._wrap_context_stop()
        atexit.register(self._at_exit)

    @property
    def stopped(self) -> bool:
        return self._stopped

    @property
    def stats(self) -> Stats:
        return self.emitter.stats

    @property
    def run_id(self) -> str:
        return self.context.app_run_id

    def record_failure(self, exc: BaseException) -> None:
        """Mark the application as failed (its end event becomes FAIL with this exception)."""
        self._failure = Failure.from_exception(exc)

    def flush(self, timeout: float | None = None) -> bool:
        """Wait (bounded) until Spark has reported every finished execution and their events are sent or spooled."""
        limit = self.config.flush_timeout if timeout is None else timeout
        deadline = time.monotonic() + limit
        if not self._stopped:
            _wait_listener_bus(self._sc, limit)
            self.emitter.submit(self._item(self._release_all))
        return self.emitter.flush(max(0.0, deadline - time.monotonic()))

    def stop(self, failure: BaseException | None = None) -> None:
        """End the application run (COMPLETE, or FAIL if the script failed) and flush with a bounded timeout."""
        with self._stop_lock:
            if self._stopped:
                return
            self._stopped = True
        try:
            if failure is not None:
                self.record_failure(failure)
            deadline = time.monotonic() + self.config.flush_timeout
            _wait_listener_bus(self._sc, self.config.flush_timeout)
            self.listener.enabled = False
            if self._bus_listener is not None:
                self._bus_listener.enabled = False
            try:
                unregister(self._spark._jsparkSession.listenerManager(), self.listener)
            except Exception:  # noqa: BLE001 - the JVM may already be gone
                pass
            self._cancel_timer()
            self._stream_events.stop()
            ended = time.time()
            kind = EventType.FAIL if self._failure else EventType.COMPLETE
            self.emitter.submit(self._item(self._last_events(ended, kind, time.time(), self._failure)))
            self.emitter.close(max(0.5, deadline - time.monotonic()))
            if self.debug_stats is not None:
                self.debug_stats.finish()
            stats = self.emitter.stats
            if stats.spooled or stats.dropped:
                log.warning(
                    "headwater: lineage capture ended with %d events sent, %d kept in the spool at %s "
                    "(sent on the next run or `headwater agent flush`), %d dropped",
                    stats.sent,
                    stats.spooled,
                    self.spool.directory,
                    stats.dropped,
                )
        except Exception as exc:  # noqa: BLE001
            self.emitter.errors.warning("stop", "headwater: error while stopping lineage capture: %s", exc)
        finally:
            try:
                if getattr(self._sc, ATTR, None) is self:
                    delattr(self._sc, ATTR)
            except Exception:  # noqa: BLE001
                pass
            try:
                atexit.unregister(self._at_exit)
            except Exception:  # noqa: BLE001
                pass

    def _last_events(
        self, ended: float, kind: EventType, app_ended: float, failure: Failure | None
    ) -> Callable[[], list[Outgoing]]:
        """One worker item for everything ``stop()`` reports, in this order: the writes still held, the streaming
        queries' and client sessions' ends, the application's end — one batch POST to Headwater instead of one per
        part. Each part is built on its own: one that fails is logged once and the others are still sent."""

        def build() -> list[Outgoing]:
            parts: tuple[Callable[[], Sequence[Outgoing]], ...] = (
                self._release_all,
                lambda: self.streams.stop_all(ended),
                lambda: self._end_sessions(ended),
                lambda: [application_event(self.context, kind, app_ended, failure)],
            )
            events: list[Outgoing] = []
            for part in parts:
                try:
                    events.extend(part())
                except Exception as exc:  # noqa: BLE001 - the other parts are still reported
                    self.emitter.errors.capture_failed("stop-events", "the end of the application", "the job", exc)
            return self._plain_if(events)

        return build

    def _at_exit(self) -> None:
        self.stop()

    def _wrap_context_stop(self) -> None:
        """``spark.stop()`` ends the application: end the run first, while the JVM still answers."""
        sc = self._sc
        original: Callable[[], None] = sc.stop
        tracker = self

        def stop() -> None:
            tracker.stop()
            original()

        sc.stop = stop

    # -- executions (called on Spark's listener thread; must return quickly) ------------------
    def _observed(self, seen: Observed) -> None:
        """Hand the snapshot to the worker thread: analysis and event building happen there."""
        if seen.snapshot is not None:
            self.emitter.submit(self._item(lambda: self._events_for(seen)))

    def _item(self, build: Callable[[], Sequence[Outgoing]]) -> Callable[[], Sequence[Outgoing]]:
        """A worker item, timed when ``spark.headwater.debug.stats`` is on."""
        return self.debug_stats.timed_item(build) if self.debug_stats is not None else build

    # -- streaming queries (headwater.capture.streaming) ----------------------------------------
    def _stream_job_name(self, suffix: str) -> str:
        return execution_job_name(
            self.app_name,
            "streaming",
            suffix,
            style=self.config.job_name_style,
            replace_dot_with_underscore=self.config.replace_dot_with_underscore,
        )

    def _plain_if(self, events: Sequence[Outgoing]) -> list[Outgoing]:
        return plain_events(events) if self._plain else list(events)

    def _events_for(self, seen: Observed) -> list[Outgoing]:
        """Runs on the emitter's worker thread: pure-Python lineage analysis → START + COMPLETE/FAIL.

        Writes pass through :class:`NestedWrites` first, so an execution Spark ran inside a command is
        reported as part of that command (``headwater.capture.nesting``)."""
        snapshot = seen.snapshot
        lineage = self._analyze(snapshot) if snapshot is not None else None
        if snapshot is None or lineage is None:
            return []
        stream = self.streams.sessions.get(seen.session_uuid) if seen.session_uuid else None
        if stream is not None:  # a write of a streaming query's foreachBatch function: the query's output
            self.streams.batch_write(stream, list(lineage.inputs), list(lineage.outputs))
            return []
        if not self._reported(lineage):
            return []
        style = self.config.job_name_style
        parent: RunRef | None = None
        extra: dict[str, Any] = {}
        session_events: list[Any] = []
        app_name = self.app_name
        if seen.connect is not None:
            session_events, parent, facet = self._session_of(seen.connect, seen.started)
            extra = {CONNECT_FACET: facet}
            app_name = seen.connect.app_name or self.app_name
        job = execution_job_name(
            app_name,
            lineage.action,
            lineage.output_name if style == "headwater" else lineage.job_suffix,
            append_dataset_name=self.config.append_dataset_name,
            style=style,
            replace_dot_with_underscore=self.config.replace_dot_with_underscore,
        )
        execution = Execution(
            run_id=str(generate_new_uuid()),
            job_name=job,
            started=seen.started,
            ended=seen.ended,
            inputs=list(lineage.inputs),
            outputs=list(lineage.outputs),
            sql=lineage.sql,
            failure=seen.failure,
            execution_id=seen.execution_id,
            unhandled_command=getattr(lineage, "unhandled_command", None),
            call_site=self._call_site(seen.started),
            logical_plan=self._logical_plan(snapshot),
            parent=parent,
            extra_run_facets=extra,
        )
        ready = self.nesting.add(execution)
        if self.nesting.holding:
            self._schedule_release()
        events = self._events(ready)
        return [*self._plain_if(session_events), *events] if seen.connect is not None else events

    # -- Spark Connect client sessions (headwater.capture.connect) -----------------------------
    def _session_of(self, connect: ConnectSession, at: float) -> tuple[list[Outgoing], RunRef, SparkConnectRunFacet]:
        """The run of a client session (worker thread): its START the first time the session is seen."""
        known = self._sessions.get(connect.session_id)
        if known is not None:
            return [], known[0], known[1]
        style = self.config.job_name_style
        name = application_job_name(connect.app_name or self.app_name, style)
        if name == self.context.app_job:  # the client set no appName of its own: not the server's job
            name = f"{name}.connect_session"
        ref = RunRef(self.context.namespace, name, str(generate_new_uuid()))
        facet = SparkConnectRunFacet(
            sessionId=connect.session_id,
            userId=connect.user_id or None,
            userName=connect.user_name or None,
            clientType=connect.client_type or None,
            producer=PRODUCER,
        )
        self._sessions[connect.session_id] = (ref, facet)
        return [session_event(self.context, ref, facet, EventType.START, at)], ref, facet

    def _session_closed(self, session_id: str, at: float) -> None:
        """Spark's listener thread: a client session ended; its run completes (on the worker)."""

        def end() -> list[Outgoing]:
            known = self._sessions.pop(session_id, None)
            if known is None:
                return []
            return self._plain_if([session_event(self.context, known[0], known[1], EventType.COMPLETE, at)])

        self.emitter.submit(self._item(self._release_all))
        self.emitter.submit(self._item(end))

    def _end_sessions(self, at: float) -> list[Outgoing]:
        sessions, self._sessions = self._sessions, {}
        return [session_event(self.context, ref, facet, EventType.COMPLETE, at) for ref, facet in sessions.values()]

    def _call_site(self, started: float) -> tuple[str, int, str | None] | None:
        """The line of the job's code whose action ran the execution that started at ``started``."""
        if CALL_SITE_FACET in self.config.disabled_facets:
            return None
        from headwater.capture import callsite

        site = callsite.find(started)
        return (site.file, site.line, site.function) if site is not None else None

    def _logical_plan(self, snapshot: PlanSnapshot) -> list[object] | None:
        """The optimized plan for the ``spark.logicalPlan`` facet, when it is on and not larger than its cap."""
        plan = getattr(snapshot, "query", None) if self.config.logical_plan else None
        if not plan:
            return None
        import orjson

        size = len(orjson.dumps(plan))
        if size > self.config.logical_plan_max_bytes:
            log.debug(
                "headwater: spark.logicalPlan left out: %d bytes > spark.headwater.logicalPlan.maxBytes=%d",
                size,
                self.config.logical_plan_max_bytes,
            )
            return None
        return list(plan)

    def _reported(self, lineage: QueryLineage) -> bool:
        """Writes always; executions that only read (``collect()``, ``show()`` over a file or table) when they
        read a dataset, as the OpenLineage Spark integration reports them (``spark.headwater.emitReadOnly``,
        default true); executions that touch no dataset only with ``spark.headwater.emitWithoutOutput``."""
        if lineage.has_output or self.config.emit_without_output:
            return True
        return self.config.emit_read_only and bool(lineage.inputs)

    def rdd_saved(
        self,
        rdd: PySparkObject,
        path: str | None,
        started: float,
        ended: float,
        failure: BaseException | None,
        jobs: tuple[int, int] | None = None,
    ) -> None:
        """Called by the RDD save wrapper (:mod:`headwater.capture.rdd`) on the job's thread: hand over, return."""
        self._rdd.submit(rdd, RddCall(path, started, ended, _failure_of(failure), jobs=jobs))

    def rdd_action(
        self,
        rdd: PySparkObject,
        python_map: bool,
        started: float,
        ended: float,
        failure: BaseException | None,
        jobs: tuple[int, int] | None = None,
    ) -> None:
        """Called by the RDD action wrappers (``collect``, ``toLocalIterator``, ``SparkContext.runJob``) on the job's
        thread: hand over, return. ``python_map``: Spark ran a Python map over ``rdd`` (runJob)."""
        call = RddCall(None, started, ended, _failure_of(failure), action=True, python_map=python_map, jobs=jobs)
        self._rdd.submit(rdd, call)

    def _events(self, executions: list[Execution]) -> list[Outgoing]:
        events: list[Outgoing] = [event for ex in executions for event in execution_events(self.context, ex)]
        return plain_events(events) if self._plain else events

    def _release_due(self) -> list[Outgoing]:
        ready = self.nesting.due()
        if self.nesting.holding:
            self._schedule_release()
        return self._events(ready)

    def _release_all(self) -> list[Outgoing]:
        return self._events(self.nesting.drain())

    def _schedule_release(self) -> None:
        """Wake the worker when the grace period of the held writes is over (one timer at a time)."""
        with self._timers_lock:
            if self._timer is not None and self._timer.is_alive() or self._stopped:
                return
            timer = threading.Timer(self.nesting.grace + 0.05, self._submit_release)
            timer.daemon = True
            timer.name = "headwater-nesting"
            self._timer = timer
            timer.start()

    def _submit_release(self) -> None:
        with self._timers_lock:
            self._timer = None
        self.emitter.submit(self._item(self._release_due))

    def _cancel_timer(self) -> None:
        with self._timers_lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None


def track(
    spark: PySparkObject,
    *,
    conf: Mapping[str, str] | None = None,
    defaults: Mapping[str, str] | None = None,
    transport: Transport | None = None,
) -> Tracker | None:
    """Capture lineage of everything ``spark`` runs from now on; returns the tracker (``.flush()``, ``.stop()``).

    Idempotent: tracking the same SparkContext again returns the live tracker. ``conf`` adds or overrides
    ``spark.openlineage.*`` / ``spark.headwater.*`` keys on top of the SparkConf; ``defaults`` (what
    ``headwater run --conf`` passes) apply only where the SparkConf says nothing. Returns None (after logging
    why, once) for a Spark Connect session, or when capture cannot start — never raises into the job.
    """
    try:
        if is_connect_session(spark):
            server = local_server_session()  # remote("local[*]"): PySpark started a Connect server in this process
            if server is None:
                log.warning(CONNECT_MESSAGE.format(kind=describe(spark)))
                return None
            spark = server
        sc = spark.sparkContext
        existing = getattr(sc, ATTR, None)
        if isinstance(existing, Tracker) and not existing.stopped:
            return existing
        merged = dict(defaults or {})
        merged.update(dict(sc.getConf().getAll()))
        merged.update(conf or {})
        config = load_config(merged)
        if config.disabled:
            log.info("headwater: spark.openlineage.disabled=true: lineage capture is off for this application")
            return None
        tracker = Tracker(spark, config, merged, transport=transport)
        setattr(sc, ATTR, tracker)
        tracker._start()
        _install_excepthook()
        return tracker
    except Exception as exc:  # noqa: BLE001 - capture never fails the job
        log.warning(
            "headwater: lineage capture could not start (%s: %s); the job runs without it", type(exc).__name__, exc
        )
        return None


# -- helpers ------------------------------------------------------------------------------------


def _install_excepthook() -> None:
    """Chain ``sys.excepthook`` once per process so an uncaught exception makes the application run FAIL."""
    if getattr(sys.excepthook, "_headwater", False):
        return
    previous = sys.excepthook

    def hook(kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        try:
            from pyspark import SparkContext

            sc = SparkContext._active_spark_context
            if sc is not None:
                tracker = getattr(sc, ATTR, None)
                if isinstance(tracker, Tracker):
                    tracker.record_failure(exc)
        except Exception:  # noqa: BLE001
            pass
        previous(kind, exc, tb)

    hook._headwater = True  # type: ignore[attr-defined]
    sys.excepthook = hook


def _lineage_functions(
    spark: PySparkObject, config: AgentConfig
) -> tuple[Callable[[JavaObject, int | None], PlanSnapshot | None], Callable[[PlanSnapshot], QueryLineage | None]]:
    """(snapshot, analyze): the plan helper's py4j snapshot (listener thread) and pure analysis (worker)."""
    try:
        from headwater.capture.lineage import LineageOptions, analyze, take_snapshot
    except ImportError as exc:
        log.warning(
            "headwater: the plan analysis (headwater.capture.lineage) is not available (%s); "
            "only the application run is reported",
            exc,
        )
        return (lambda qe, execution_id: None), (lambda snap: None)

    options = LineageOptions(
        dataset_lineage_enabled=config.dataset_lineage_enabled,
        namespace_resolvers=config.namespace_resolvers,
        disabled_facets=config.disabled_facets,
    )

    def snapshot(qe: JavaObject, execution_id: int | None) -> PlanSnapshot | None:
        return take_snapshot(qe, spark)

    def analyze_snapshot(snap: PlanSnapshot) -> QueryLineage | None:
        return analyze(snap, options)

    return snapshot, analyze_snapshot


def _failure_of(exc: BaseException | None) -> Failure | None:
    return Failure.from_exception(exc) if exc is not None else None


def _wait_listener_bus(sc: PySparkObject, timeout: float) -> None:
    """Let Spark's listener bus deliver pending events (our callbacks) — bounded, errors ignored."""
    try:
        jsc = sc._jsc
        if jsc is None:
            return
        jsc.sc().listenerBus().waitUntilEmpty(int(max(0.0, timeout) * 1000))
    except Exception:  # noqa: BLE001 - a timeout or a stopped context
        pass


def _app_start_time(sc: PySparkObject) -> float:
    try:
        return int(sc.startTime) / 1000.0
    except Exception:  # noqa: BLE001
        return time.time()
