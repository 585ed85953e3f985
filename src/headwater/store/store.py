"""The :class:`Store`: event log + derived graph behind one small interface."""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, Literal, Unpack, cast, get_args

import sqlalchemy as sa

from headwater.model.jsontypes import JSONObject
from headwater.model.times import from_micros, iso, now_micros, to_micros
from headwater.store import codec, eventlog, health, migrate, retention, rules
from headwater.store.background import MAX_LAG, POLL, READ_TIMEOUT, BackgroundProjector
from headwater.store.engine import create_store_engine, events_file
from headwater.store.observe import Observation
from headwater.store.projector import project_rows
from headwater.store.projector_process import RemoteProjector
from headwater.store.rebuild import rebuild_all
from headwater.store.retention import PruneResult
from headwater.store.schema import events
from headwater.store.types import AppendResult, GraphPosition, IncomingEvent, ProjectionStatus, StoredEvent
from headwater.store.watermark import pending_events, projected_seq

# PostgreSQL advisory lock keys, across processes and servers: one serializes the graph's writers (projection
# steps, prune, rebuild), the other appends (so events commit in ``seq`` order: the projector, holding it for a
# moment, reads a log with no gap; see headwater.store.background). Appends never wait for a projection step.
PG_WRITER_LOCK = 0x4857_5354
PG_APPEND_LOCK = 0x4857_4150
PRUNE_EVERY = 3600.0  # seconds between two prunes of a rolling retention window
PRUNE_SLICE = 20_000  # events per prune transaction (appends wait for one slice at most)

# Where the graph is derived: a thread of this process, or a process of its own (store/projector_process.py)
ProjectorPlace = Literal["thread", "process"]


def projector_place(value: str) -> ProjectorPlace:
    """``value`` as a :data:`ProjectorPlace`; ValueError when it names none."""
    if value in get_args(ProjectorPlace):
        return cast(ProjectorPlace, value)
    raise ValueError(f"projector must be one of {', '.join(get_args(ProjectorPlace))}, got {value!r}")


HAND_OVER_MAX_CHARS = 256 * 1024  # a larger event is not kept for the projector: it parses the text (bounded memory)

log = logging.getLogger("headwater.store")


class HistoryPruned(LookupError):
    """An as-of read before the store's retention horizon: that history was pruned (``headwater db prune``)."""

    def __init__(self, at: datetime, horizon: datetime) -> None:
        super().__init__(
            f"history before {iso(to_micros(horizon))} was pruned (headwater db prune); "
            f"{iso(to_micros(at))} is before it: ask for a moment at or after it"
        )
        self.at = at
        self.horizon = horizon


class _Request:
    """One caller's events waiting for a group commit."""

    def __init__(self, events: list[eventlog.PreparedEvent]) -> None:
        self.events = events
        self.done = False
        self.results: list[AppendResult] = []
        self.error: BaseException | None = None

    def finish(self, *, results: list[AppendResult] | None = None, error: BaseException | None = None) -> None:
        self.results, self.error, self.done = results or [], error, True

    def answer(self) -> list[AppendResult]:
        if self.error is not None:
            raise self.error
        return self.results


def _settle_rules(engine: sa.Engine) -> None:
    """A store that derived nothing yet is derived by this code's rules from now on (store/rules.py)."""
    try:
        with engine.begin() as conn:
            rules.settle(conn)
    except sa.exc.IntegrityError:
        pass  # another process opening the same new store recorded them first


class Store:
    """The append-only event log and the lineage graph derived from it.

    Thread-safe: appends are serialized (one writer at a time); reads run concurrently.
    ``append`` answers once the events are durably in the log; a background projector derives
    the graph, and every graph read (through :meth:`read_connection`) first waits until the graph
    has caught up with the log as it was when the read began — so a caller reads its own writes.
    No call waits for the projector longer than ``projector_wait`` seconds (the setting of that
    name): a read that could not catch up in time goes on with the graph as it is, and
    :meth:`catch_up` says how far behind that is. The store knows nothing of the graph
    questions: ``headwater.graph`` reads through :meth:`read_connection`.
    """

    def __init__(
        self,
        engine: sa.Engine,
        *,
        projector_wait: float = READ_TIMEOUT,
        max_lag: int = MAX_LAG,
        retry_failed: bool = True,
        retention_days: float | None = None,
        background: bool = True,
        projector: ProjectorPlace = "thread",
    ) -> None:
        projector_place(projector)
        if not projector_wait > 0:
            raise ValueError(f"projector_wait must be a positive number of seconds, got {projector_wait!r}")
        self.projector_wait = projector_wait
        self._engine = engine
        self._write_lock = threading.Lock()  # the graph's writers in this process (the projector, prune, rebuild)
        self._append_lock = threading.Lock()  # appends in this process (one group commit at a time)
        self._group = threading.Condition()
        self._waiting: list[_Request] = []
        self._leader_busy = False
        self._projector = (
            RemoteProjector(  # "process": derived in a process of its own (store/projector_process.py)
                engine.url.render_as_string(hide_password=False),
                engine,
                self._write_lock,
                self._lock_writers,
                self._lock_appends,
                retry_at_start=retry_failed,
            )
            if projector == "process" and background
            else BackgroundProjector(
                engine,
                self._write_lock,
                self._lock_writers,
                self._lock_appends,
                retry_at_start=retry_failed,
                poll=POLL if engine.dialect.name == "postgresql" else None,  # other servers may append to the log
            )
        )
        self._projector.max_lag = max_lag  # events the graph may run behind before appends wait
        if background:  # else the caller derives in steps of its own (derive_step: the bulk load)
            self._projector.start()  # derives whatever the log holds beyond the graph (crash recovery)
        self._trainer = codec.Trainer(engine)  # the log's zstd dictionaries, trained in the background
        self._retention_days = retention_days
        self._closing = threading.Event()
        self._pruner: threading.Thread | None = None
        if retention_days is not None:
            self._pruner = threading.Thread(target=self._prune_window, name="headwater-retention", daemon=True)
            self._pruner.start()

    @classmethod
    def open(
        cls,
        url: str,
        *,
        projector_wait: float = READ_TIMEOUT,
        max_lag: int = MAX_LAG,
        retry_failed: bool = True,
        retention_days: float | None = None,
        background: bool = True,
        projector: ProjectorPlace = "thread",
    ) -> Store:
        """Open (and create when missing) the store at ``url`` and migrate it to the newest schema.

        The projector first tries again the events recorded as failed (a fixed version derives
        them), unless ``retry_failed`` is False. With ``retention_days`` the store prunes history older
        than that many days at start and every hour (:meth:`prune`). Without ``background`` no projector
        thread runs: the caller derives the graph with :meth:`derive_step` (the bulk load). ``projector``: where the
        graph is derived, ``thread`` (of this process) or ``process`` (a child process: store/projector_process.py)."""
        projector_place(projector)  # before anything is created or migrated
        engine = create_store_engine(url)
        moved = migrate.upgrade(engine)
        _settle_rules(engine)
        if moved and engine.url.database:
            log.warning(
                "store: the event log (%d events) moved into its own file, %s", moved, events_file(engine.url.database)
            )
        return cls(
            engine,
            projector_wait=projector_wait,
            max_lag=max_lag,
            retry_failed=retry_failed,
            retention_days=retention_days,
            background=background,
            projector=projector,
        )

    @property
    def engine(self) -> sa.Engine:
        """The database engine, as it is: no wait. Call :meth:`caught_up` first to read derived tables
        that reflect every append so far."""
        return self._engine

    def catch_up(self, timeout: float | None = None) -> GraphPosition:
        """Wait until every event appended so far (by any process) is in the derived graph, at most
        ``timeout`` seconds (default ``projector_wait``); answers where the graph stands then."""
        return self._projector.wait_caught_up(self.projector_wait if timeout is None else timeout)

    def caught_up(self, timeout: float | None = None) -> bool:
        """:meth:`catch_up`, answering only whether the graph caught up (False: it is behind the log)."""
        return self.catch_up(timeout).caught_up

    def read_connection(self, *, wait: bool = True) -> sa.Connection:
        """A connection for reading the derived graph.

        With ``wait`` (the default) it first waits, at most ``projector_wait`` seconds, until every
        event appended before the call is derived, so a caller reads its own writes; a caller that
        already waited (and looked at :meth:`catch_up`'s answer) passes ``wait=False``. On
        PostgreSQL the connection reads one ``REPEATABLE READ`` snapshot, so all the queries of one
        answer see the same graph. The graph layer (:class:`headwater.graph.GraphReader`) opens
        every answer's connection here.
        """
        if wait:
            self.catch_up()
        conn = self._engine.connect()
        if self.dialect == "postgresql":
            conn = conn.execution_options(isolation_level="REPEATABLE READ")
        return conn

    def write_connection(self) -> sa.Connection:
        """A connection for a small write transaction of a table beside the log (a translator's own records,
        such as the DataZone API's): on SQLite its transactions begin ``IMMEDIATE``, so they wait for the other
        writers (``busy_timeout``) instead of failing with "database is locked" when a read must turn into a
        write. Never for the log or the derived tables: those are written by :meth:`append` and the projector."""
        return self._write("graph")

    @property
    def dialect(self) -> str:
        return self._engine.dialect.name

    def close(self) -> None:
        """Project what was appended (bounded wait), stop the projector, close the connections."""
        self._closing.set()
        if self._pruner is not None:
            self._pruner.join(self.projector_wait)
        self._projector.stop(self.projector_wait)
        self._trainer.join(self.projector_wait)
        self._engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def _write(self, files: str) -> sa.Connection:
        """A connection whose transactions write ``files``: "graph", "log" or "all" (SQLite takes only
        their write locks at BEGIN: :mod:`headwater.store.engine`)."""
        return self._engine.connect().execution_options(hw_write=files)

    def _lock_writers(self, conn: sa.Connection) -> None:
        if self.dialect == "postgresql":
            conn.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": PG_WRITER_LOCK})

    def _lock_appends(self, conn: sa.Connection) -> None:
        if self.dialect == "postgresql":
            conn.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": PG_APPEND_LOCK})

    def append(self, events: Sequence[IncomingEvent]) -> list[AppendResult]:
        """Store events in the log (all or nothing), commit durably; duplicates change nothing.

        The answer comes once the events are committed and synced; the graph is derived from
        them in the background (reads wait for it).

        Concurrent callers are group-committed: one caller (the leader) writes every waiting
        caller's events in one transaction and one sync; each caller's answer comes back only
        after that commit. If the shared transaction fails, each caller's events are retried
        alone, so one bad batch never fails another caller.
        """
        if not events:
            return []
        return self.append_prepared(eventlog.prepare(events))  # ids and rows outside the write lock

    def append_prepared(self, prepared: Sequence[eventlog.PreparedEvent]) -> list[AppendResult]:
        """:meth:`append` for events whose ids and log rows were made already (:func:`eventlog.prepare`, e.g. in
        a worker process that parsed them: headwater.api.parse_pool)."""
        if not prepared:
            return []
        request = _Request(list(prepared))
        self._projector.throttle(self.projector_wait)  # the graph may run behind the log only by a bounded backlog
        with self._group:
            self._waiting.append(request)
            while not request.done and self._leader_busy:
                self._group.wait()
            if request.done:
                return request.answer()
            self._leader_busy = True
            group, self._waiting = self._waiting, []
        try:
            self._commit_group(group)
        finally:
            for waiting in group:
                if not waiting.done:  # interrupted (KeyboardInterrupt...): never leave a caller waiting
                    waiting.finish(error=RuntimeError("append interrupted before its commit"))
            with self._group:
                self._leader_busy = False
                self._group.notify_all()
        return request.answer()

    def _commit_group(self, group: list[_Request]) -> None:
        try:
            results = self._commit([e for r in group for e in r.events])
        except Exception as exc:  # noqa: BLE001 - any failure of the shared commit: retried per caller below
            if len(group) == 1:
                group[0].finish(error=exc)
                return
            for request in group:  # find the culprit: each caller alone
                try:
                    request.finish(results=self._commit(request.events))
                except Exception as single:  # noqa: BLE001 - handed to that caller
                    request.finish(error=single)
            return
        start = 0
        for request in group:
            request.finish(results=results[start : start + len(request.events)])
            start += len(request.events)

    def _commit(self, events: Sequence[eventlog.PreparedEvent]) -> list[AppendResult]:
        handed: dict[str, Any] = {}
        try:
            with self._append_lock, self._write("log") as conn, conn.begin():
                self._lock_appends(conn)
                ids, fresh, last_seq = eventlog.insert_events(conn, events, now_micros())
                # before the commit, so the projector finds them whenever it sees the rows
                handed = {
                    e.id: e.payload
                    for e in events
                    if e.payload is not None and e.id in fresh and len(e.row["raw"]) <= HAND_OVER_MAX_CHARS
                }
                self._projector.hand_over(handed)
        except BaseException:
            self._projector.take_back(handed)  # never stored: nothing will take them
            raise
        if last_seq:
            self._projector.notify(last_seq)
            self._trainer.poke(last_seq)
        results: list[AppendResult] = []
        for eid in ids:
            results.append(AppendResult(eid, duplicate=eid not in fresh))
            fresh.discard(eid)  # the same event twice: the second is a duplicate
        return results

    def derive_step(self, events: int, observed: dict[str, list[Observation]] | None = None) -> int:
        """Derive the next ``events`` events of the log in this thread, in one transaction of the projector's
        own step (:meth:`BackgroundProjector.derive_now`, ``observed``: observations made ahead, by event id);
        answers how many (0: the graph has caught up)."""
        return self._projector.derive_now(events, observed)

    def projection_status(self, limit: int = 100) -> ProjectionStatus:
        """Where the graph stands, without waiting: log and graph positions, and the events the projector
        could not derive (how many; the oldest ``limit`` with their errors)."""
        head, done = self._projector.lag()
        count, failed = self._projector.failed(limit)
        return ProjectionStatus(
            position=GraphPosition(log=head, graph=done),
            failed=count,
            failed_events=failed,
            running=self._projector.running,
        )

    def projection_lag(self) -> health.ProjectionLag:
        """How far the graph is behind the log, in events and in seconds (:mod:`headwater.store.health`)."""
        with self._engine.connect() as conn:
            return health.projection_lag(conn)

    def clock_skew(self) -> health.ClockSkew:
        """How far the newest events' times are from their arrival (:mod:`headwater.store.health`)."""
        with self._engine.connect() as conn:
            return health.clock_skew(conn)

    def pool_state(self) -> health.PoolState:
        """This process's database connection pool, as it is now."""
        return health.pool_state(self._engine)

    def retry_failed(self) -> tuple[int, list[JSONObject]]:
        """Derive again the events recorded as failed; answers (how many are derived now, those still failing)."""
        return self._projector.retry_failed()

    def warning_count(self) -> int:
        """How many events in the log were accepted leniently with validation warnings (``event_warnings``)."""
        with self._engine.connect() as conn:
            return eventlog.warning_count(conn)

    def get_event(self, event_id: str) -> StoredEvent | None:
        with self._engine.connect() as conn:
            return eventlog.get_event(conn, event_id)

    def list_events(self, **query: Unpack[eventlog.EventQuery]) -> tuple[list[StoredEvent], str | None]:
        """:func:`headwater.store.eventlog.list_events`: events newest first (by event time); ``node`` limits to
        the events that touched it."""
        if query.get("node") is not None:  # the events of a node are found through the projected observations
            self.caught_up()
        with self._engine.connect() as conn:
            return eventlog.list_events(conn, **query)

    def rebuild(self) -> int:
        """Re-derive the whole graph from the event log; returns the number of events replayed."""
        with self._write_lock, self._append_lock, self._write("all") as conn, conn.begin():
            self._lock_writers(conn)
            self._lock_appends(conn)
            return rebuild_all(conn)

    def graph_rules(self) -> rules.GraphRules:
        """The rules of derivation the graph was derived by, and whether it needs ``headwater db rebuild``
        (:mod:`headwater.store.rules`)."""
        with self._engine.connect() as conn:
            return rules.graph_rules_of(conn)

    def pruned_before(self) -> datetime | None:
        """The event time before which history was pruned (:meth:`prune`); None when it never was."""
        with self._engine.connect() as conn:
            value = retention.pruned_before(conn)
        return None if value is None else from_micros(value)

    def check_as_of(self, at: datetime | None) -> None:
        """Raise :class:`HistoryPruned` when ``at`` is before the pruned history (an as-of read cannot be answered)."""
        if at is None:
            return
        horizon = self.pruned_before()
        if horizon is not None and at < horizon:
            raise HistoryPruned(at, horizon)

    def prune(self, before: datetime, *, slice_events: int = PRUNE_SLICE) -> PruneResult:
        """Remove raw events and runs older than ``before``, keeping the graph's current state and every
        version still valid after it (:mod:`headwater.store.retention`); as-of reads before it then raise
        :class:`HistoryPruned`. The graph is first brought up to date with the log.

        A long history is pruned in slices of about ``slice_events`` events, oldest first, each a prune of
        its own (one transaction under the writers' lock), so appends wait for one slice at most; the
        horizon moves forward with each."""
        self.catch_up()
        end = to_micros(before)
        step = None
        done = PruneResult(before=end, events=0, runs=0, job_samples=0)
        while step != end:
            with self._engine.connect() as conn:
                after = sa.select(events.c.event_time).where(events.c.event_time < end)
                if step is not None:
                    after = after.where(events.c.event_time > step)
                boundary = conn.scalar(after.order_by(events.c.event_time).offset(slice_events).limit(1))
            step = end if boundary is None else int(boundary)
            with self._write_lock, self._append_lock, self._write("all") as conn, conn.begin():
                self._lock_writers(conn)
                self._lock_appends(conn)
                while rows := pending_events(conn, projected_seq(conn), 500):  # what came in meanwhile
                    project_rows(conn, rows)
                part = retention.prune(conn, step, now_micros())
            done = PruneResult(
                before=part.before,
                events=done.events + part.events,
                runs=done.runs + part.runs,
                job_samples=done.job_samples + part.job_samples,
            )
        return done

    def _prune_window(self) -> None:
        """The rolling retention window: prune at start, then every ``PRUNE_EVERY`` seconds, until closed."""
        assert self._retention_days is not None
        while not self._closing.is_set():
            before = datetime.now(UTC) - timedelta(days=self._retention_days)
            try:
                done = self.prune(before)
                if done.events or done.runs:
                    log.info("retention: pruned %d event(s) and %d run(s) before %s", done.events, done.runs, before)
            except Exception:
                log.exception("retention: could not prune the history before %s; trying again later", before)
            self._closing.wait(PRUNE_EVERY)
