"""The background projector: derives the graph from the event log after appends are acknowledged.

``Store.append`` writes only the event log (durably) and answers; this thread then observes the
new events and brings the derived tables up to date, in chunks of the log in ``seq`` order. The
log is the source of truth (as in Marquez): the graph is a function of it, so deriving later
changes *when* a read sees an event, never *what* the graph is.

- **Watermark.** :func:`~headwater.store.watermark.projected_seq` (the newest observed event)
  is stored with the derived rows in one transaction, so a crash (kill -9, power loss) between an
  acknowledgement and its projection leaves a log ahead of the graph, and the projector started
  by the next ``Store.open`` derives the rest (crash recovery = catching up).
- **Read barrier.** :meth:`BackgroundProjector.wait_for` blocks a reader until every event
  appended before the read began is projected (bounded by a timeout), so a client that posts and
  then reads sees its own writes.
- **Serialization.** A projection chunk runs under the graph writers' locks (the store's write
  lock; on PostgreSQL an advisory lock), so events are projected exactly once, in log order, even
  with several servers on one database. Appends take other locks and never wait for a step (on
  SQLite the log is a file of its own, :mod:`headwater.store.engine`), however long a very wide
  event takes to derive. The projector reads the log with no gap: on SQLite any
  snapshot is one (appends commit one at a time, in ``seq`` order); on PostgreSQL a transaction
  may commit a lower ``seq`` after a higher one, so the projector reads new events while it holds
  the appends' advisory lock, for a moment, when no append is between its ``seq`` and its commit.
- **Several servers** (PostgreSQL, docs/deploy.md). Every server's projector may take the next
  chunk, one at a time (a second advisory lock around the whole step, so no chunk is observed by
  two); under the writers' lock it re-reads the watermark, so a chunk another server derived
  meanwhile is never derived twice. The log head a reader waits for is read from the database, so a
  read on one server sees what another acknowledged. A server killed mid-step (kill -9) holds the
  lock only in its transaction: PostgreSQL rolls it back and frees the lock when the connection
  drops, and the others carry on; an idle projector looks at the database every ``poll`` seconds,
  so events another server appended and could not derive are derived even when no request comes.
  While it derives, the projector's connection is named ``headwater-projector-<pid>``
  (``application_name``, shown in ``pg_stat_activity``), so an operator sees which server derives.
- **A failing event** (a bug in the derivation for some valid event) is retried alone, then
  logged and recorded as an observation of role ``error`` (node ``error:<event id>``, the
  message as data), which moves the watermark past it; it never blocks the others. It is never
  dropped silently: :meth:`BackgroundProjector.failed` counts and lists them (``GET
  /api/v1/status``), every start of the projector tries them again (a fixed version derives
  them), and so do ``headwater db retry-failed`` and ``rebuild``. A database that is away or full
  (a restart, a dropped connection, a full disk: :func:`~headwater.store.engine.unavailable`) is no
  event's fault: the whole step is tried again a second later, and no event is recorded as failed.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

import sqlalchemy as sa

from headwater.model.jsontypes import JSONObject
from headwater.store.engine import unavailable
from headwater.store.eventlog import NewEvent
from headwater.store.observe import Observation
from headwater.store.projection_failures import failed_events, mark_failed, retry_failed
from headwater.store.projector import ProjectionMemo, observe_row, observe_rows, project_observed, project_rows
from headwater.store.schema import events, observations
from headwater.store.types import GraphPosition
from headwater.store.watermark import LogEvent, pending_events, projected_seq

log = logging.getLogger("headwater.store")

CHUNK = 200  # events per projection transaction: big enough to amortize, short enough for appends
READ_TIMEOUT = 60.0  # default of the read_wait setting: seconds a read waits for the projector at most
GATHER = 0.05  # seconds the projector lets new events gather before a step, unless a reader waits
HAND_OVER = 1_000  # parsed events kept for the projector at most: 5 steps (repeated facets are shared objects)
MAX_LAG = 20_000  # events the graph may be behind the log before appends wait for the projector
POLL = 1.0  # seconds between an idle projector's looks at a shared (PostgreSQL) log

_NAME_PROJECTOR = sa.text("SELECT set_config('application_name', :name, true)")
PG_PROJECTOR_LOCK = 0x4857_5052  # advisory lock key: one projection step at a time across servers
_PROJECTOR_LOCK = sa.text("SELECT pg_advisory_xact_lock(:k)")


class BackgroundProjector:
    """One thread per store that keeps the derived graph caught up with the event log."""

    def __init__(
        self,
        engine: sa.Engine,
        write_lock: threading.Lock,
        lock_writers: Callable[[sa.Connection], None],
        lock_appends: Callable[[sa.Connection], None],
        chunk: int = CHUNK,
        retry_at_start: bool = True,
        poll: float | None = None,
    ) -> None:
        self._retry_failed_at_start = retry_at_start
        self._poll = poll  # seconds between looks at the log when idle (other servers' appends); None: never
        self._engine = engine
        self._write_lock = write_lock
        self._lock_writers = lock_writers
        self._lock_appends = lock_appends
        self._chunk = chunk
        self._memo = ProjectionMemo()  # work saved between steps (used by the projector thread only)
        self._parsed: dict[str, Mapping[str, Any]] = {}  # event id -> its value, handed over by the append
        self._parsed_lock = threading.Lock()
        self._cond = threading.Condition()
        self._kick = True  # look at the log once at start (crash recovery)
        self._steps = 0  # projection steps finished (readers wait for the next one)
        self._readers = 0  # readers waiting for the projector
        self._head = 0  # newest seq this process appended
        self._done = 0  # the watermark after the last step
        self.max_lag = MAX_LAG
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._observed: dict[str, list[Observation]] | None = None  # observations made ahead (derive_now)
        self._hurry = False  # a reader in another process waits: no gathering before the next step
        # after each step, with the watermark (the projector process tells the server's: store.projector_process)
        self.on_step: Callable[[int], None] | None = None
        # the value of a stored text not handed over, when cheaper than parsing it (None: not read here)
        self.reader: Callable[[str], Mapping[str, Any] | None] | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="headwater-projector", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = READ_TIMEOUT) -> None:
        """Finish the events already appended (up to ``timeout``), then end the thread."""
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout)

    def derive_now(self, chunk: int, observed: dict[str, list[Observation]] | None = None) -> int:
        """Project the next ``chunk`` events of the log in the caller's thread, as one step of this projector
        (the same code, locks and failure handling, in a bigger transaction); answers how many were projected.
        For a projector whose thread is not started (the bulk load: ``headwater db load``). ``observed``: the
        observations of events by id, made already from their logged text (in the bulk load's worker
        processes); the ones the step uses are taken out of it, the others are observed here."""
        saved, self._chunk, self._observed = self._chunk, chunk, observed
        try:
            return self._step()
        finally:
            self._chunk, self._observed = saved, None

    def hand_over(self, payloads: Mapping[str, Mapping[str, Any]]) -> None:
        """The values of events just appended, by id, parsed by the ingest door in this process: the projector
        observes them instead of parsing their stored text again (at most ``HAND_OVER`` kept, oldest dropped:
        an event not found here is read from the log as always)."""
        if not payloads:
            return
        with self._parsed_lock:
            self._parsed.update(payloads)
            while len(self._parsed) > HAND_OVER:
                del self._parsed[next(iter(self._parsed))]

    def take_back(self, payloads: Mapping[str, Any]) -> None:
        """Forget events handed over whose append failed."""
        with self._parsed_lock:
            for eid in payloads:
                self._parsed.pop(eid, None)

    def _take(self, rows: list[LogEvent]) -> dict[str, Mapping[str, Any]]:
        with self._parsed_lock:
            taken = {r.id: p for r in rows if (p := self._parsed.pop(r.id, None)) is not None}
        read = self.reader
        if read is not None:
            for r in rows:
                if r.id not in taken and (value := read(r.raw)) is not None:
                    taken[r.id] = value
        return taken

    def _alive(self) -> bool:
        """Whether someone derives the graph for this store: readers and appends wait for it only then."""
        return self._thread is not None and self._thread.is_alive()

    def _wake(self) -> None:
        """A reader or an append waits for the projector (called under the condition): in this process the
        condition tells the thread; a projector in another process is told here (store.projector_process)."""

    def hurry(self) -> None:
        """A reader elsewhere waits for the graph: step now, without letting events gather."""
        with self._cond:
            self._hurry = self._kick = True
            self._cond.notify_all()

    def notify(self, seq: int) -> None:
        """Events up to ``seq`` were appended: project them."""
        with self._cond:
            self._head = max(self._head, seq)
            self._kick = True
            self._cond.notify_all()

    def throttle(self, timeout: float = READ_TIMEOUT) -> None:
        """Backpressure: while the graph is more than ``max_lag`` events behind this process's
        appends, wait (up to ``timeout``) — acknowledgements may run ahead of the derivation only
        by a bounded backlog. Nothing is lost either way: the events are in the log."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._head - self._done > self.max_lag and self._alive():
                left = deadline - time.monotonic()
                if left <= 0:
                    return
                self._kick = True
                self._readers += 1  # someone waits: no gathering
                self._cond.notify_all()
                self._wake()
                try:
                    self._cond.wait(min(left, 1.0))
                finally:
                    self._readers -= 1

    def lag(self) -> tuple[int, int]:
        """(newest event ``seq`` in the log, newest projected ``seq``), read from the database in one query."""
        query = sa.select(
            sa.select(sa.func.max(events.c.seq)).scalar_subquery(),
            sa.select(sa.func.max(observations.c.event_seq)).scalar_subquery(),
        )
        with self._engine.connect() as conn:
            head, done = conn.execute(query).one()
        return int(head or 0), int(done or 0)

    def wait_caught_up(self, timeout: float = READ_TIMEOUT) -> GraphPosition:
        """Block until every event in the log now is projected, at most ``timeout`` seconds.

        Answers where the graph stands (``caught_up`` False when the time ran out first, or the
        projector thread is not running); never raises for being behind."""
        deadline = time.monotonic() + timeout
        with self._cond:
            steps = self._steps
        head, done = self.lag()
        while done < head:
            with self._cond:
                alive = self._alive()
                left = deadline - time.monotonic()
                if left <= 0 or not alive:
                    log.warning(
                        "graph read without waiting for the projector (projected up to event %d of %d)", done, head
                    )
                    return GraphPosition(log=head, graph=done)
                self._kick = True
                self._readers += 1
                self._cond.notify_all()
                self._wake()
                try:
                    while self._steps == steps and left > 0:
                        self._cond.wait(min(left, 1.0))
                        left = deadline - time.monotonic()
                finally:
                    self._readers -= 1
                steps = self._steps
            done = self.lag()[1]
        return GraphPosition(log=head, graph=done)

    @property
    def running(self) -> bool:
        return self._alive()

    def failed(self, limit: int = 100) -> tuple[int, list[JSONObject]]:
        """Events the projector could not derive: how many, and the oldest ``limit`` ``{seq, id, error}``."""
        with self._engine.connect() as conn:
            return failed_events(conn, limit)

    def retry_failed(self) -> tuple[int, list[JSONObject]]:
        """Derive the failed events again (under the writers' locks); (now derived, still failing)."""
        with self._write_lock, self._write() as conn, conn.begin():
            self._lock_writers(conn)
            return retry_failed(conn)

    def _retry_at_start(self) -> None:
        try:
            fixed, still = self.retry_failed()
        except Exception:
            log.exception("projector: could not retry the events recorded as failed")
            return
        if fixed:
            log.warning("projector: %d event(s) recorded as failed are derived now", fixed)
        if still:
            log.warning(
                "projector: %d event(s) still cannot be derived (GET /api/v1/status lists them); first: event %s: %s",
                len(still),
                still[0]["id"],
                still[0]["error"][:500],
            )

    def _run(self) -> None:
        if self._retry_failed_at_start:
            self._retry_at_start()  # a new version may derive what an older one could not
        while True:
            with self._cond:
                while not self._kick and not self._stopping:
                    if not self._cond.wait(self._poll) and self._poll is not None:
                        break  # idle for poll seconds: look at the log (another server may have appended)
                if not self._kick and self._stopping:
                    return
                idle_look = not self._kick
            if idle_look and not self._behind():  # outside the condition: readers never wait for this query
                continue
            with self._cond:
                # Let events gather (one step for many single posts costs little more than for one),
                # unless someone is waiting to read.
                gather_until = time.monotonic() + GATHER
                while not (self._readers or self._hurry or self._stopping) and time.monotonic() < gather_until:
                    self._cond.wait(max(0.0, gather_until - time.monotonic()))
                self._kick = self._hurry = False
            try:
                while self._step() == self._chunk:  # a full chunk: more is waiting
                    time.sleep(0.001)  # let a waiting append take the write lock between chunks
            except Exception:
                log.exception("projector: could not project the event log; retrying in 1 s")
                with self._cond:
                    self._kick = True
                    self._steps += 1  # wake readers: they re-check (and time out if this persists)
                    self._cond.notify_all()
                if self._stopping:
                    return
                time.sleep(1.0)

    def _write(self) -> sa.Connection:
        return self._engine.connect().execution_options(hw_write="graph")

    def _pending(self, after: int) -> list[LogEvent]:
        """The next chunk of the log after ``after``, with no gap (the module docstring)."""
        with self._engine.connect() as conn:
            self._lock_appends(conn)  # PostgreSQL: held until this read's transaction ends, a moment later
            return pending_events(conn, after, self._chunk)

    def _behind(self) -> bool:
        """Whether the log holds events the graph has not derived (one indexed query); False when unreadable."""
        try:
            head, done = self.lag()
        except Exception:  # the database is away: the next look tries again
            log.warning("projector: could not read the log position", exc_info=True)
            return False
        return head > done

    def _prepare(self) -> tuple[int, list[LogEvent], list[NewEvent] | None]:
        """Outside the writers' lock: the watermark, the next chunk of the log and its observations
        (None when an event cannot be observed: the step then finds it under the lock). Parsing and
        observing a chunk is pure CPU — seconds for a multi-MB event — that appends need not wait for."""
        with self._engine.connect() as conn:
            done = projected_seq(conn)
        rows = self._pending(done)
        try:
            given = self._observed
            if given is not None:  # made ahead from the same logged text: what observe_rows would make
                return (
                    done,
                    rows,
                    [
                        NewEvent(r.seq, r.id, given.pop(r.id)) if r.id in given else observe_row(r, self._memo)
                        for r in rows
                    ],
                )
            return done, rows, observe_rows(rows, self._memo, self._take(rows))
        except Exception:  # noqa: BLE001 - the step projects the rows one by one and records the failure
            return done, rows, None

    def _step(self) -> int:
        """Project the next chunk of the log; returns the number of events projected.

        On PostgreSQL one projector at a time, across servers, reads and observes a chunk (an advisory
        lock held by a connection of its own for the step): the others wait, without using CPU, and
        then start from the watermark it left, instead of observing the same chunk only to find it
        derived when they get the writers' lock (with 4 servers, 3 of every 4 chunks observed in vain)."""
        if self._engine.dialect.name != "postgresql":
            return self._step_now()
        with self._engine.connect() as guard, guard.begin():
            guard.execute(_PROJECTOR_LOCK, {"k": PG_PROJECTOR_LOCK})
            return self._step_now()

    def _step_now(self) -> int:
        prepared_at, prepared_rows, observed = self._prepare()
        with self._write_lock, self._write() as conn, conn.begin():
            self._lock_writers(conn)
            if conn.dialect.name == "postgresql":  # who derives, for operators (pg_stat_activity); reset at commit
                conn.execute(_NAME_PROJECTOR, {"name": f"headwater-projector-{os.getpid()}"})
            done = projected_seq(conn)
            if done == prepared_at and observed is not None:
                rows = prepared_rows  # the log is append-only: the rows after the watermark are the same
            else:  # another server projected meanwhile (PostgreSQL), or an event failed to observe
                rows, observed = self._pending(done), None
            if rows:
                try:
                    with conn.begin_nested():
                        if observed is not None:
                            project_observed(conn, observed, self._memo)
                        else:
                            project_rows(conn, rows, self._memo)
                except Exception as exc:  # find the event that fails; project the others
                    if unavailable(exc):
                        raise  # the database is away or full: the whole step is tried again, no event is at fault
                    self._one_by_one(conn, rows)
        with self._cond:
            self._steps += 1
            self._done = rows[-1].seq if rows else done
            if rows:
                self._kick = True  # look again: events may have come in meanwhile
            self._cond.notify_all()
            done = self._done
        if self.on_step is not None:
            self.on_step(done)
        return len(rows)

    def _one_by_one(self, conn: sa.Connection, rows: list[LogEvent]) -> None:
        for row in rows:
            try:
                with conn.begin_nested():
                    project_rows(conn, [row], self._memo)
            except Exception as exc:
                if unavailable(exc):
                    raise
                log.exception("projector: event %s (seq %d) could not be derived; skipped", row.id, row.seq)
                mark_failed(conn, row, f"{type(exc).__name__}: {exc}")
