"""Getting events to the backend without ever holding up the Spark job.

:class:`Emitter` owns a bounded queue and one daemon worker thread:

- :meth:`Emitter.submit` never blocks: when the queue is full the event is dropped and counted;
- the worker sends each event through the transport (every network call has the transport's timeout);
  when a send fails, the event goes to the :class:`~headwater.capture.spool.Spool` and the emitter switches
  to *spooling*: later events are appended behind it (so order is kept) and the spool is retried with
  exponential backoff (0.5 s doubling to 30 s) until it drains, then events go straight out again;
- errors are logged once per kind (not per event) and never propagate;
- with a :class:`~headwater.capture.batch.BatchSender` that is active (the backend is Headwater), the plain events
  of one worker item go out as one batch POST; when the batch is refused (HTTP 400/413/415/422) each event is sent
  on its own, so each gets its own verdict, and when it fails it is spooled like a failed event;
- :meth:`Emitter.close` flushes with a bounded timeout, then spools whatever is still queued or in flight.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import orjson
from openlineage.client.event_v2 import RunEvent
from openlineage.client.serde import Serde
from openlineage.client.transport import Transport

from headwater.capture.batch import BatchSender, NotBatched
from headwater.capture.plain import Outgoing
from headwater.capture.spool import Rejected, Spool

log = logging.getLogger("headwater.capture")

_STOP = object()
# answers that mean "this event is wrong", not "try later": the event is set aside, not retried
PERMANENT_STATUS = frozenset({400, 413, 415, 422})


def permanent_rejection(error: BaseException) -> str | None:
    """A reason when ``error`` is the backend refusing the event itself (HTTP 400/413/415/422), else None."""
    response = getattr(error, "response", None)
    status = getattr(response, "status_code", None)
    if isinstance(status, int) and status in PERMANENT_STATUS:
        body = ""
        try:
            body = str(response.text)[:500]  # type: ignore[union-attr]
        except Exception:  # noqa: BLE001
            pass
        return f"HTTP {status}: {body}"
    return None


MIN_BACKOFF = 0.5
MAX_BACKOFF = 30.0


@dataclass
class Stats:
    submitted: int = 0  # items queued: events, or callables that build events on the worker
    built: int = 0  # events those items turned into
    sent: int = 0
    spooled: int = 0
    dropped: int = 0
    rejected: int = 0
    failures: int = 0


class OnceLogger:
    """Logs each kind of problem once per process part, not once per event."""

    def __init__(self, logger: logging.Logger) -> None:
        self._logger = logger
        self._seen: set[str] = set()
        self._lock = threading.Lock()

    def warning(self, kind: str, message: str, *args: Any, exc_info: bool = False) -> None:
        with self._lock:
            if kind in self._seen:
                return
            self._seen.add(kind)
        self._logger.warning(message, *args, exc_info=exc_info)

    def capture_failed(self, kind: str, what: str, unaffected: str, exc: Exception) -> None:
        """Capture failed inside a Spark callback: said once per ``kind``, with the traceback, and that ``unaffected``
        (the job, the query, the server) is not."""
        self.warning(
            kind,
            f"headwater: lineage capture failed for {what} (%s: %s); {unaffected} is not affected",
            type(exc).__name__,
            exc,
            exc_info=True,
        )


class Emitter:
    def __init__(
        self,
        transport: Transport,
        spool: Spool,
        *,
        queue_size: int = 1000,
        name: str = "headwater-emitter",
        batch: BatchSender | None = None,
    ) -> None:
        self.transport = transport
        self.batch = batch  # one POST per worker item once the backend showed it is Headwater
        self.spool = spool
        self.stats = Stats()
        self.errors = OnceLogger(log)
        self._queue: queue.Queue[Any] = queue.Queue(maxsize=queue_size)
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._busy = 0  # events taken from the queue and not yet settled
        self._inflight: list[Outgoing] | None = None  # the events being sent right now (taken over by close())
        self._closed = False
        self._spool_lock = threading.Lock()
        self._spooling = False
        self._backoff = MIN_BACKOFF
        self._next_retry = 0.0
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    # -- producer side (any thread, never blocks) -----------------------------------------------
    def submit(self, event: Outgoing | Callable[[], Sequence[Outgoing]]) -> bool:
        if self._closed:
            return self._spool_now(self._materialize(event))
        try:
            self._queue.put_nowait(event)
        except queue.Full:
            self.stats.dropped += 1
            self.errors.warning(
                "queue-full",
                "headwater: the event queue is full (%d events); dropping events "
                "until the backend catches up (counted in the agent's stats)",
                self._queue.maxsize,
            )
            return False
        self.stats.submitted += 1
        return True

    def flush(self, timeout: float) -> bool:
        """Wait until every submitted event is sent or spooled (not for the spool to drain)."""
        deadline = time.monotonic() + timeout
        with self._idle:
            while self._queue.unfinished_tasks:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._idle.wait(min(left, 0.05))
        return True

    def close(self, timeout: float) -> None:
        """Flush for at most ``timeout`` seconds (one last try of the spool if the backend is healthy), stop
        the worker, and spool everything still queued or in flight."""
        if self._closed:
            return
        deadline = time.monotonic() + timeout
        try:
            self._queue.put(_STOP, timeout=max(0.0, timeout))
        except queue.Full:
            pass
        self._thread.join(max(0.0, deadline - time.monotonic()))
        with self._lock:
            self._closed = True
            leftovers = list(self._inflight) if self._inflight is not None else []
            self._inflight = None
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            if item is not _STOP:
                leftovers.extend(self._materialize(item))
            self._queue.task_done()
        if leftovers:
            self._spool_now(leftovers)
        self.spool.close()
        try:
            self.transport.close(0)
        except Exception:  # noqa: BLE001 - closing a transport must never fail the job
            pass

    @property
    def spooling(self) -> bool:
        return self._spooling

    # -- worker -------------------------------------------------------------------------------
    def _run(self) -> None:
        self._spooling = self._safe_pending()
        while True:
            wait = None
            if self._spooling:
                wait = max(0.0, self._next_retry - time.monotonic())
            try:
                item = self._queue.get(timeout=wait)
            except queue.Empty:
                item = None
            try:
                if item is _STOP:
                    if self._spooling and time.monotonic() >= self._next_retry:
                        self._retry_spool()
                    return
                if self._spooling and time.monotonic() >= self._next_retry:
                    self._retry_spool()
                if item is not None:
                    events = self._materialize(item)
                    if not self._deliver_batch(events):
                        for event in events:
                            self._deliver(event)
            except Exception:  # noqa: BLE001 - the worker must survive anything
                self.errors.warning("worker", "headwater: unexpected error in the event worker", exc_info=True)
            finally:
                if item is not None:
                    self._queue.task_done()
                    with self._idle:
                        self._idle.notify_all()

    def _materialize(self, item: Outgoing | Callable[[], Sequence[Outgoing]]) -> list[Outgoing]:
        """A queued item is an event, or a callable that builds a list of events (built here, off the job)."""
        if not callable(item):
            self.stats.built += 1
            return [item]
        try:
            events = list(item())
            self.stats.built += len(events)
            return events
        except Exception as exc:  # noqa: BLE001
            self.errors.warning(
                "build",
                "headwater: could not build lineage events (%s: %s); the job is not "
                "affected; further errors of this kind are not logged",
                type(exc).__name__,
                exc,
                exc_info=True,
            )
            return []

    def _take(self, events: list[Outgoing]) -> bool:
        """Mark ``events`` in flight; False (and spooled) when the emitter is closed."""
        with self._lock:
            closed = self._closed
            if not closed:
                self._inflight = events
        if closed:
            self._spool_now(events)
        return not closed

    def _settle(self, events: list[Outgoing]) -> bool:
        """Done with ``events``: False when close() took them over (and spooled them) meanwhile."""
        with self._lock:
            mine = self._inflight is events
            self._inflight = None
        return mine

    def _deliver_batch(self, events: list[Outgoing]) -> bool:
        """Send ``events`` as one batch when the batch sender is active and every one is a plain dict; True when
        they are settled here (sent, or spooled after a failure), False when they are to be sent one by one."""
        batch = self.batch
        if batch is None or not batch.active or self._spooling or not events:
            return False
        if not all(type(e) is dict for e in events):
            return False
        if not self._take(events):
            return True
        error: Exception | None = None
        try:
            batch.send(events)  # type: ignore[arg-type]  # checked above: every event is a plain dict
        except Exception as exc:  # noqa: BLE001
            error = exc
        if not self._settle(events):
            return True  # close() took them over and spooled them
        if error is None:
            self.stats.sent += len(events)
            return True
        if isinstance(error, (NotBatched, orjson.JSONEncodeError)) or permanent_rejection(error) is not None:
            log.debug("headwater: batch of %d events not stored (%s); sending them one by one", len(events), error)
            return False  # one by one: each event gets its own verdict
        self._failed(error)
        self._spool_now(events)
        return True

    def _deliver(self, event: Outgoing) -> None:
        if self._spooling:
            self._spool_now([event])
            return
        events = [event]
        if not self._take(events):
            return
        error: Exception | None = None
        answer: object = None
        try:
            answer = self.transport.emit(event)  # type: ignore[arg-type]  # transports serialise a plain dict as the event
        except Exception as exc:  # noqa: BLE001
            error = exc
        if not self._settle(events):
            return  # close() took it over and spooled it
        if error is None:
            self.stats.sent += 1
            if self.batch is not None and not self.batch.active:
                self.batch.learn(answer)
            return
        reason = permanent_rejection(error)
        if reason is not None:
            self._reject(event, reason)
            return
        self._failed(error)
        self._spool_now([event])

    def _rejected(self, reason: str) -> None:
        self.stats.rejected += 1
        self.errors.warning(
            "rejected",
            "headwater: the lineage backend refused an event (%s); it is kept in %s and not retried",
            reason,
            self.spool.directory / "rejected.ndjson",
        )

    def _reject(self, event: Outgoing, reason: str) -> None:
        self._rejected(reason)
        try:
            with self._spool_lock:
                self.spool.reject(event if isinstance(event, str) else Serde.to_json(event), reason)
        except Exception:  # noqa: BLE001
            pass

    def _failed(self, error: Exception) -> None:
        self.stats.failures += 1
        self.errors.warning(
            "send",
            "headwater: could not send lineage events (%s: %s); keeping them in the spool "
            "at %s and retrying with backoff",
            type(error).__name__,
            error,
            self.spool.directory,
        )
        self._spooling = True
        self._next_retry = time.monotonic() + self._backoff
        self._backoff = min(MAX_BACKOFF, self._backoff * 2)

    def _retry_spool(self) -> None:
        sent_before = self.stats.sent

        def send(payload: dict[str, Any]) -> None:
            try:
                self.transport.emit(payload)  # type: ignore[arg-type]  # transports serialise a dict with Serde as an event
            except Exception as exc:
                reason = permanent_rejection(exc)
                if reason is None:
                    raise
                self._rejected(reason)
                raise Rejected(reason) from exc
            self.stats.sent += 1

        try:
            with self._spool_lock:
                done = self.spool.drain(send)
        except Exception as exc:  # noqa: BLE001
            self.errors.warning("spool", "headwater: could not read the spool at %s: %s", self.spool.directory, exc)
            done = False
        if done:
            self._spooling = False
            self._backoff = MIN_BACKOFF
            if self.stats.sent > sent_before:
                log.info(
                    "headwater: the lineage backend is reachable again; sent %d spooled events",
                    self.stats.sent - sent_before,
                )
        else:
            self.stats.failures += 1
            self._next_retry = time.monotonic() + self._backoff
            self._backoff = min(MAX_BACKOFF, self._backoff * 2)

    def _safe_pending(self) -> bool:
        try:
            return self.spool.pending()
        except Exception:  # noqa: BLE001
            return False

    def _spool_now(self, events: list[Outgoing]) -> bool:
        try:
            lines = [e if isinstance(e, str) else Serde.to_json(e) for e in events]
            with self._spool_lock:
                written = self.spool.append(lines)
        except Exception as exc:  # noqa: BLE001
            self.stats.dropped += len(events)
            self.errors.warning(
                "spool-write",
                "headwater: could not write to the spool at %s (%s); events lost",
                self.spool.directory,
                exc,
            )
            return False
        self.stats.spooled += written
        if written < len(events):
            self.stats.dropped += len(events) - written
            self.errors.warning(
                "spool-full",
                "headwater: the spool at %s is full (%d bytes); dropping events",
                self.spool.directory,
                self.spool.max_bytes,
            )
        return written == len(events)


def event_json(event: RunEvent) -> dict[str, object]:
    """The JSON form of an openlineage-python event (what is sent and what is spooled)."""
    answer: dict[str, object] = json.loads(Serde.to_json(event))
    return answer
