"""The bulk load (``headwater db load``): a big history of OpenLineage events from an events file into the store.

The contract, and how it keeps the guarantees of one-by-one ingest:

- **Validation**: every line gets the HTTP door's verdict for the same text posted alone
  (:func:`headwater.ingest.ndjson.accept_line`), so a loaded event is stored as that post stores it (same text,
  same id, same warnings). A bad line is **skipped and listed** (line number, code, reason), never silently
  dropped: the :class:`LoadReport` lists them, and the command writes them out and exits non-zero; with
  ``stop_at_error`` the load ends at the first bad line instead (the lines before it stay loaded).
- **Durability**: events are appended through :meth:`Store.append_prepared` — the same insert, deduplication
  and durable commit as an acknowledged HTTP post — in batches of ``batch`` events (the first
  :data:`FIRST_BATCH`, each next one twice the last), one transaction and one sync each. An event counted as
  loaded is in the log.
- **Resumable**: ids hash the event, so a re-run of the same file finds the events already in the log and
  skips them (counted as ``duplicates``); an interrupted load is finished by running it again.
- **The same graph**: the graph is derived by the store's own projector code (:meth:`Store.derive_step`: the
  background projector's step, with its locks and failure handling), in steps of ``step`` events instead of
  the server's small ones. Its answer does not depend on how the log is cut into steps (the projector's
  property tests), so the graph is the one one-by-one ingest gives.
- **Fast**: parsing, validating, hashing, observing, packing the observations' stored texts
  (:func:`headwater.store.parts.pack_observation`) and compressing the events' texts and the parts with the
  store's newest dictionary (:class:`headwater.store.codec.Encoder`, handed to the tasks) run in ``workers``
  processes (pure: text in, log rows and observations out), ahead of the main process, which appends and
  derives; the main process derives one step after each appended batch, while the workers parse the next lines.
  The cyclic garbage collector looks at each object of the main process once during a load (after the step it
  was made in: :func:`_collected_per_step`), the workers' rarely (:data:`GC_THRESHOLDS`). Into an empty store, the
  indexes no derivation reads (the column edges' two, the fields' by dataset, the dataset fields' by name, the
  edges' by dataset) and the name search's (SQLite's FTS5 tables with their triggers, PostgreSQL's trigram
  indexes) are made once at the end (:func:`_indexes_at_end`); a load killed before it leaves them to the
  store's next open (``store.migrate.restore_indexes``). On PostgreSQL the derived rows go by ``COPY``
  (``store.parts.insert_many``).
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from itertools import islice
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event

from headwater.ingest.accept import Policy
from headwater.ingest.ndjson import LineRejected, accept_line, read_lines
from headwater.model.jsontext import loads_text
from headwater.spec import EventValidator
from headwater.store.codec import Encoded, Encoder, codec_of
from headwater.store.eventlog import PreparedEvent, prepare
from headwater.store.migrate import DEFERRABLE_INDEXES, name_search_aside, restore_indexes
from headwater.store.observe import Observation, ObserveMemo, observe
from headwater.store.parts import pack_observation
from headwater.store.schema import datasets, jobs
from headwater.store.store import Store
from headwater.store.types import IncomingEvent

BATCH = 20_000  # events per append transaction (one sync each); 5,000 cost ~5–9 % more main-process CPU
# The first batch's size; each next one twice the last, up to ``batch``. With a whole batch first, the main process
# waited idle while one worker parsed 20,000 events (~14 s); doubling keeps both sides busy from the start (the
# main process derives n events in about the time a worker parses the next 2n).
FIRST_BATCH = 1_000
STEP = 20_000  # events per derivation step at most (each step one commit and its index pages rewritten once)
CHUNK = 500  # lines per task of a worker process
# tasks handed to the workers ahead of the main process: at least this many, and a batch's worth and two more, so
# that while the main process appends and derives one batch the workers prepare the whole next one (with fewer
# they stopped half-way and waited, and the two sides took turns instead of working at once)
AHEAD = 8
# The cyclic garbage collector's thresholds in a load's worker processes (the main process: _collected_per_step).
# With Python's (700, 10, 10) it ran every 700 new objects and went through the whole heap every 70,000 (in the main
# process: a quarter of its CPU on the 10k-job shape, and more as the heap grows). The load's objects are freed by
# their reference counts; the rare cycles wait for a collection every 50,000 allocations (the old generations' far
# less often).
GC_THRESHOLDS = (50_000, 50, 100)
# SQLite only, for the load's own connections (then back to SQLite's defaults): a page cache of this many KiB
# for the graph's file (SQLite's default 2 MiB holds little of the indexes a step inserts into), and a WAL
# checkpoint every this many pages instead of every 1,000 (a page a step changes is copied back to the file
# once per checkpoint instead of once per step); one checkpoint at the end. Durability is the same: each
# batch's and step's commit is synced as before.
SQLITE_CACHE_KIB = 1 << 20
SQLITE_CHECKPOINT_PAGES = 1 << 18


@dataclass
class LoadReport:
    """What a load did: lines read, events appended now, events found in the log already, lines rejected."""

    lines: int = 0  # non-blank lines read
    appended: int = 0
    duplicates: int = 0
    rejected: list[LineRejected] = field(default_factory=list)
    derived: int = 0  # events the graph was derived for in this run (earlier runs' included, when resumed)
    stopped_at: int | None = None  # the line the load stopped at (``stop_at_error``)
    seconds: float = 0.0


@dataclass(frozen=True)
class Progress:
    """Where a running load stands (handed to the progress callback after each batch and each step)."""

    phase: str  # "append" | "derive"
    lines: int
    appended: int
    duplicates: int
    rejected: int
    derived: int
    seconds: float


Dictionary = tuple[int, bytes | None]  # the store's newest zstd dictionary: its number and bytes (0, None: none)


@dataclass(frozen=True)
class _Task:
    lines: list[tuple[int, bytes]]
    policy: Policy
    max_bytes: int
    dictionary: Dictionary = (0, None)


@dataclass(frozen=True)
class _Ready:
    """A line's event ready to append: its log row, and its observations made from the text the log will hold
    (what the projector would make of the logged event: it uses them instead of parsing the text again)."""

    line: int
    prepared: PreparedEvent
    observations: list[Observation] | None  # None: observing failed (the projector finds and records why)


_validator: EventValidator | None = None  # each worker process's own
_memo = ObserveMemo()  # each process's own: schemas and column lineage that repeat, normalized once
# each process's own: the compressor of the tasks' dictionary, and the parts it compressed lately (key -> stored
# form: a part many events name is compressed once, and pickled once per task)
_encoder: Encoder | None = None
_encoded: dict[str, Encoded] = {}
ENCODED_KEPT = 8192


def _worker_start(parent: int) -> None:
    global _validator  # one per worker process, made once when it starts
    threading.Thread(target=_exit_with, args=(parent,), name="headwater-load-parent", daemon=True).start()
    _validator = EventValidator()
    gc.set_threshold(*GC_THRESHOLDS)  # this process only parses: its objects live one task


@contextmanager
def _collected_per_step() -> Iterator[Callable[[], None]]:
    """The cyclic garbage collector off in this process while the load runs, and the function to call after each
    step: it collects what was made since the last call, once, and puts what is left out of the collector's sight
    (``gc.freeze``), so no object is looked at twice; at the end everything is in its sight again (then as it
    was). Measured on the 100k shape into PostgreSQL (docs/benchmarks.md, sixth session): the collector's
    generations looked at each surviving object about twice — ~4–6 of ~48 s of the main process's CPU, against
    ~3 this way; off for the whole load it saved all of it, but then cycles would wait for the end however many a
    load's events made."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield _collect_new
    finally:
        gc.unfreeze()  # the objects frozen before the load too: a later collection looks at them once more
        if enabled:
            gc.enable()


def _collect_new() -> None:
    gc.collect()
    gc.freeze()


def _load_pragmas(dbapi_connection: Any, record: Any, _proxy: Any = None) -> None:
    if record.info.get(_LOADING):  # set once per connection: its page cache stays as it is
        return
    cursor = dbapi_connection.cursor()
    cursor.execute(f"PRAGMA main.cache_size=-{SQLITE_CACHE_KIB}")
    cursor.execute(f"PRAGMA wal_autocheckpoint={SQLITE_CHECKPOINT_PAGES}")
    cursor.close()
    record.info[_LOADING] = True


_LOADING = "headwater_load_pragmas"  # a pooled connection's mark: it has the load's pragmas


def _file_sqlite(engine: sa.Engine) -> bool:
    return engine.dialect.name == "sqlite" and engine.url.database not in (None, "", ":memory:")


@contextmanager
def _sqlite_for_load(engine: sa.Engine) -> Iterator[None]:
    """On a SQLite file: the load's connections with a big page cache and rare checkpoints
    (:data:`SQLITE_CACHE_KIB`), set once per connection and kept for the whole load, so that one step finds
    the pages the steps before it read (a connection given back with its cache shrunk, or a cache another
    connection's commit made stale, re-read every index page each step); the pool hands out the connection
    given back last (``engine.py``), so the appends and the steps use one connection. At the end one
    checkpoint, and the pool's connections closed: the next ones open with SQLite's defaults. An in-memory store
    and PostgreSQL: as they are (its cache and checkpoints are the server's)."""
    if not _file_sqlite(engine):
        yield
        return
    event.listen(engine, "checkout", _load_pragmas)
    try:
        yield
    finally:
        event.remove(engine, "checkout", _load_pragmas)
        # the idle connections closed; one still checked out (another thread's) is closed when given back
        engine.dispose()
    with engine.connect() as conn:  # the WAL back into the file (a failed load leaves it to SQLite's next one)
        conn.exec_driver_sql("PRAGMA main.wal_checkpoint(TRUNCATE)")


@contextmanager
def _indexes_at_end(engine: sa.Engine) -> Iterator[None]:
    """When the tables of :data:`DEFERRABLE_INDEXES` (column edges, fields, dataset fields, edges) and the datasets
    and jobs are all empty: those indexes dropped, and the name search set aside (``store.migrate.
    name_search_aside``: SQLite's trigram tables moved aside with their triggers dropped, PostgreSQL's trigram
    indexes dropped), for the load, and made at its end (also when it fails: the store stays as the schema
    declares it), each in one pass over its table instead of an insert into a growing index (or a name's
    trigrams) per row. Readers during the load get the same answers, slower (search scans the names). Otherwise
    the indexes are kept up to date as usual."""
    if engine.dialect.name not in ("sqlite", "postgresql"):
        yield
        return
    with engine.begin() as conn:
        tables = {index.table for index in DEFERRABLE_INDEXES if index.table is not None} | {datasets, jobs}
        empty = all(conn.execute(sa.select(sa.literal(1)).select_from(t).limit(1)).first() is None for t in tables)
        if empty:
            for index in DEFERRABLE_INDEXES:
                index.drop(conn, checkfirst=True)
            name_search_aside(conn)
    try:
        yield
    finally:
        if empty:
            restore_indexes(engine)


def _newest(engine: sa.Engine, known: Dictionary) -> Dictionary:
    """The store's newest dictionary (``known`` when it is that one: its bytes are read once)."""
    with engine.connect() as conn:
        held = codec_of(engine)
        n = held.newest(conn)[0]
        return known if n == known[0] else (n, held.dictionary(conn, n))


def _exit_with(parent: int) -> None:
    """End this worker when the load that started it is gone (killed: a worker waiting for work never notices)."""
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(0)


def _encoder_for(dictionary: Dictionary) -> Encoder:
    global _encoder  # one per process, made again when the store has trained a newer dictionary
    if _encoder is None or _encoder.n != dictionary[0]:
        _encoder = Encoder(*dictionary)
        _encoded.clear()
    return _encoder


def _prepare_lines(task: _Task, validator: EventValidator | None = None) -> list[_Ready | LineRejected]:
    """A task's lines as log rows ready to append (the text in its stored form: compressed with the task's
    dictionary), with their observations, or their rejections; pure."""
    checker = validator or _validator
    assert checker is not None, "a load worker starts with _worker_start"
    encoder = _encoder_for(task.dictionary)
    out: list[_Ready | LineRejected] = []
    for number, line in task.lines:
        verdict = accept_line(number, line, task.policy, checker, task.max_bytes)
        if isinstance(verdict, LineRejected):
            out.append(verdict)
            continue
        prepared = prepare([IncomingEvent.accepted(verdict)])[0]
        text = str(prepared.row["raw"])
        try:
            seen: list[Observation] | None = _packed(observe(loads_text(text), prepared.id, _memo), encoder)
        except Exception:  # noqa: BLE001 - the projector observes it again, and records why it cannot be derived
            seen = None
        # without the parsed event: the step has its observations, and unpickling it cost the main process (the
        # load's bottleneck) more than everything else the worker sends (~200 µs a Spark-sized event); the text
        # compressed here, not there (and a tenth of the bytes to pickle)
        row = {**prepared.row, **encoder.encode(text).columns()}
        out.append(_Ready(number, replace(prepared.without_payload(), row=row), seen))
    return out


def _packed(seen: list[Observation], encoder: Encoder) -> list[Observation]:
    """The observations with their stored texts and parts made here, the parts compressed (what the store would
    make of them: the main process, the load's bottleneck, inserts them as they are). A value the memo shares
    between events has its text and key noted once in this process, where it was seen before, and its stored
    form kept (:data:`ENCODED_KEPT`), so it is pickled once per task."""
    out = []
    for o in seen:
        found: dict[str, str] = {}
        text = pack_observation(o.data, found)
        parts: dict[str, str | Encoded] = {}
        for key, part in found.items():
            encoded = _encoded.get(key)
            if encoded is None:
                if len(_encoded) >= ENCODED_KEPT:
                    _encoded.clear()
                encoded = _encoded[key] = encoder.encode(part)
            parts[key] = encoded
        out.append(replace(o, stored=(text, parts)))
    return out


def _tasks(
    lines: Iterable[tuple[int, bytes]], policy: Policy, max_bytes: int, dictionary: Callable[[], Dictionary]
) -> Iterator[_Task]:
    it = iter(lines)
    while chunk := list(islice(it, CHUNK)):
        yield _Task(chunk, policy, max_bytes, dictionary())


def _results(
    tasks: Iterator[_Task], workers: int, validator: EventValidator, ahead: int = AHEAD
) -> Iterator[_Ready | LineRejected]:
    """The tasks' results in file order: in ``workers`` processes, at most ``ahead`` tasks ahead (memory
    stays bounded however big the file); ``workers`` 0 in this process."""
    if workers <= 0:
        for task in tasks:
            yield from _prepare_lines(task, validator)
        return
    # spawned, not forked: this process has threads (the store's), and a fork copies their locks held
    with ProcessPoolExecutor(
        workers, mp_context=multiprocessing.get_context("spawn"), initializer=_worker_start, initargs=(os.getpid(),)
    ) as pool:
        pending: deque[Future[list[_Ready | LineRejected]]] = deque()
        for task in tasks:
            pending.append(pool.submit(_prepare_lines, task))
            if len(pending) >= ahead:
                yield from pending.popleft().result()
        while pending:
            yield from pending.popleft().result()


def load_file(
    store: Store,
    path: Path,
    policy: Policy,
    *,
    max_bytes: int,
    validator: EventValidator | None = None,
    workers: int | None = None,
    batch: int = BATCH,
    step: int = STEP,
    stop_at_error: bool = False,
    progress: Callable[[Progress], None] | None = None,
) -> LoadReport:
    """Load the events file at ``path`` into ``store`` and derive the graph for them (the module docstring).

    ``store`` should be opened without its background projector (``Store.open(url, background=False)``): this
    function derives in big steps itself. ``workers``: parse processes (default: the machine's cores less one,
    at least 1; 0 parses in this process)."""
    started = time.perf_counter()
    report = LoadReport()
    validator = validator or EventValidator()
    if workers is None:
        workers = max(1, (os.cpu_count() or 2) - 1)

    def tell(phase: str) -> None:
        if progress is not None:
            progress(
                Progress(
                    phase,
                    report.lines,
                    report.appended,
                    report.duplicates,
                    len(report.rejected),
                    report.derived,
                    time.perf_counter() - started,
                )
            )

    observed: dict[str, list[Observation]] = {}  # appended events' observations, until their step takes them

    def derive(limit: int) -> None:
        while limit > 0:
            done = store.derive_step(min(step, limit), observed)
            collect()
            if not done:  # caught up: what is left was derived by another process (a server on the store)
                observed.clear()
                return
            report.derived += done
            limit -= done
            tell("derive")

    newest: list[Dictionary] = [_newest(store.engine, (0, None))]  # the dictionary the next tasks compress with

    def flush(buffer: list[_Ready]) -> None:
        if not buffer:
            return
        results = store.append_prepared([r.prepared for r in buffer])
        newest[0] = _newest(store.engine, newest[0])  # one trained after this batch: the tasks from now on use it
        for ready, result in zip(buffer, results, strict=True):
            if not result.duplicate and ready.observations is not None:
                observed[result.id] = ready.observations
        fresh = sum(1 for r in results if not r.duplicate)
        report.appended += fresh
        report.duplicates += len(results) - fresh
        tell("append")
        derive(fresh)  # the graph follows the log step by step, while the workers parse the next lines

    buffer: list[_Ready] = []
    size = min(batch, FIRST_BATCH)
    ahead = max(AHEAD, -(-batch // CHUNK) + 2)
    with _collected_per_step() as collect, _sqlite_for_load(store.engine), _indexes_at_end(store.engine):
        for result in _results(
            _tasks(read_lines(path), policy, max_bytes, lambda: newest[0]), workers, validator, ahead
        ):
            report.lines += 1
            if isinstance(result, LineRejected):
                report.rejected.append(result)
                if stop_at_error:
                    report.stopped_at = result.line
                    break
                continue
            buffer.append(result)
            if len(buffer) >= size:
                flush(buffer)
                buffer = []
                size = min(batch, size * 2)
        flush(buffer)
        derive(2**62)  # what is left (an earlier run's events not derived yet, too)
    report.seconds = time.perf_counter() - started
    return report
