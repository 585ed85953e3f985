"""Opt-in cost accounting of the agent itself: ``spark.headwater.debug.stats`` (off by default).

For benchmarks (``bench/capture_overhead.py``), not for production. When on, the agent records

- per listener callback (Spark's listener-bus thread): the Python CPU time (``time.thread_time``), the
  wall time, and the CPU time of the *JVM* thread that called us (the ThreadMXBean's current-thread CPU
  time, read through py4j at the start and end of the callback: PySpark's pinned-thread py4j runs our
  calls back into Java on that same listener thread, so this is what ``toJSON`` and the other reads cost
  Spark's listener bus);
- per worker item (analysis and event building) and per send (one event, or one batch POST of several): Python
  CPU and wall time;
- the process's peak RSS, and with ``spark.headwater.debug.tracemalloc=true`` Python heap peaks from
  ``tracemalloc`` (overall and per worker item; tracemalloc slows every Python allocation in the process,
  CPU figures of such a run are inflated — measure CPU and memory in separate runs).

At ``stop()`` the summary is written as JSON to the file the setting names (``true`` logs it on the
``headwater.capture`` logger instead). Recording never raises into capture or the job.
"""

from __future__ import annotations

import json
import logging
import resource
import statistics
import threading
import time
import tracemalloc
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from headwater.capture.jvmtypes import JavaObject

if TYPE_CHECKING:
    from openlineage.client.transport import Transport

    from headwater.capture.batch import BatchSender
    from headwater.capture.plain import Outgoing

log = logging.getLogger("headwater.capture")


def _summary(values: list[float]) -> dict[str, float]:
    if not values:
        return {"n": 0}
    return {"n": len(values), "total": sum(values), "median": statistics.median(values), "max": max(values)}


class DebugStats:
    """Counters filled from the listener thread and the worker thread; ``report()`` summarises them."""

    def __init__(self, target: str, jvm: JavaObject = None, *, trace_memory: bool = False) -> None:
        self.target = target  # "true" (log) or a file path
        self._lock = threading.Lock()
        self._mx: Any = None
        try:
            self._mx = jvm.java.lang.management.ManagementFactory.getThreadMXBean() if jvm is not None else None
        except Exception:  # noqa: BLE001
            self._mx = None
        self.listener: list[dict[str, float]] = []
        self.worker: list[dict[str, float]] = []
        self.send: list[dict[str, float]] = []
        self.item_heap_peaks: list[int] = []
        self._started_tracing = False
        if trace_memory and not tracemalloc.is_tracing():
            tracemalloc.start()
            self._started_tracing = True

    def _jvm_cpu(self) -> float | None:
        try:
            return int(self._mx.getCurrentThreadCpuTime()) / 1e9 if self._mx is not None else None
        except Exception:  # noqa: BLE001
            return None

    # -- listener thread --------------------------------------------------------------------------
    def listener_begin(self) -> tuple[float, float, float | None]:
        return time.thread_time(), time.perf_counter(), self._jvm_cpu()

    def listener_end(self, token: tuple[float, float, float | None]) -> None:
        cpu0, wall0, jvm0 = token
        jvm1 = self._jvm_cpu()
        row = {"cpu": time.thread_time() - cpu0, "wall": time.perf_counter() - wall0}
        if jvm0 is not None and jvm1 is not None:
            row["jvm_cpu"] = jvm1 - jvm0
        with self._lock:
            self.listener.append(row)

    # -- worker thread ----------------------------------------------------------------------------
    def timed_item(self, build: Callable[[], Sequence[Outgoing]]) -> Callable[[], Sequence[Outgoing]]:
        """Wrap a worker item (analysis + event building) so its CPU, wall time and heap peak are recorded."""

        def run() -> Sequence[Outgoing]:
            tracing = tracemalloc.is_tracing()
            base = tracemalloc.get_traced_memory()[0] if tracing else 0
            if tracing:
                tracemalloc.reset_peak()
            cpu0, wall0 = time.thread_time(), time.perf_counter()
            try:
                return build()
            finally:
                row = {"cpu": time.thread_time() - cpu0, "wall": time.perf_counter() - wall0}
                with self._lock:
                    self.worker.append(row)
                    if tracing:
                        self.item_heap_peaks.append(max(0, tracemalloc.get_traced_memory()[1] - base))

        return run

    def timed_transport(self, transport: Transport) -> Transport:
        return cast("Transport", _TimedTransport(transport, self))  # duck-typed: delegates everything else

    def timed_batch(self, batch: BatchSender) -> BatchSender:
        """The batch sender with each ``send`` (one POST of several events) recorded as one send."""
        return cast("BatchSender", _TimedBatch(batch, self))  # duck-typed: delegates everything else

    def report(self) -> dict[str, Any]:
        with self._lock:
            listener, worker, send = list(self.listener), list(self.worker), list(self.send)
            peaks = list(self.item_heap_peaks)
        current, peak = tracemalloc.get_traced_memory() if tracemalloc.is_tracing() else (0, 0)
        return {
            "listener_cpu_s": _summary([r["cpu"] for r in listener]),
            "listener_wall_s": _summary([r["wall"] for r in listener]),
            "listener_jvm_cpu_s": _summary([r["jvm_cpu"] for r in listener if "jvm_cpu" in r]),
            "worker_cpu_s": _summary([r["cpu"] for r in worker]),
            "worker_wall_s": _summary([r["wall"] for r in worker]),
            "send_cpu_s": _summary([r["cpu"] for r in send]),
            "send_wall_s": _summary([r["wall"] for r in send]),
            "item_heap_peak_bytes": max(peaks, default=0),
            "python_heap_peak_bytes": peak,
            "python_heap_now_bytes": current,
            "max_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
            "listener": listener,
            "worker": worker,
            "send": send,
        }

    def finish(self) -> None:
        """Write (or log) the report and stop tracemalloc if we started it. Never raises."""
        try:
            report = self.report()
            if self.target.lower() == "true":
                brief = {k: v for k, v in report.items() if k not in ("listener", "worker", "send")}
                log.warning("headwater debug stats: %s", json.dumps(brief))
            else:
                Path(self.target).write_text(json.dumps(report, indent=1), encoding="utf-8")
        except Exception as exc:  # noqa: BLE001
            log.warning("headwater: could not write the debug stats to %s: %s", self.target, exc)
        finally:
            if self._started_tracing:
                tracemalloc.stop()
                self._started_tracing = False


@contextmanager
def _timed_send(stats: DebugStats) -> Iterator[None]:
    """Record the CPU and wall time of the block (one send: an event or a batch) in ``stats.send``."""
    cpu0, wall0 = time.thread_time(), time.perf_counter()
    try:
        yield
    finally:
        row = {"cpu": time.thread_time() - cpu0, "wall": time.perf_counter() - wall0}
        with stats._lock:
            stats.send.append(row)


class _TimedTransport:
    """Delegates to the real transport; records the CPU and wall time of each ``emit``."""

    def __init__(self, inner: Transport, stats: DebugStats) -> None:
        self._inner = inner
        self._stats = stats

    def emit(self, event: Outgoing) -> object:
        with _timed_send(self._stats):
            return self._inner.emit(event)  # type: ignore[arg-type]  # transports serialise a plain dict as the event

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class _TimedBatch:
    """Delegates to the batch sender; records the CPU and wall time of each ``send`` (serialisation and POST)."""

    def __init__(self, inner: BatchSender, stats: DebugStats) -> None:
        self._inner = inner
        self._stats = stats

    def send(self, events: Sequence[dict[str, object]]) -> None:
        with _timed_send(self._stats):
            self._inner.send(events)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)
