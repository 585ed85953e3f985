"""Parse, validate and prepare large ingest bodies in worker processes, so ingest uses more than one core.

A Spark event of ~25 kB costs ~0.4 ms of Python to parse, check and give an id; the projector that derives the
graph costs about as much again, and both ran on one interpreter lock, so a server used one of the machine's
cores. A body of at least ``MIN_CHARS`` characters (a batch of ten Spark events, or one very wide event) is
handed to a worker process instead; the server's process keeps the HTTP, the append and the projector.

Contract of :meth:`ParsePool.prepare`: the same answer as the ingest door (``headwater.ingest.accept``) followed by
``eventlog.prepare`` — the events' stored text, validation warnings, ids and log rows, ready for
``Store.append_prepared`` — or the same :class:`~headwater.ingest.IngestError`. The worker is pure (text in,
rows out, nothing stored), so a 2xx still means validated against the official schema and durably appended
by the server. Only the rows come back, not the parsed payloads (building those again in the server would
cost what parsing does); a caller that needs the payloads (a project's claims, docs/catalog.md) parses in
its own process. A worker that dies (killed, out of memory) breaks the pool: that request is parsed in the
server's process, and the next one starts a new pool.

A body of usual events only (valid RunEvents with the core's keys: ``headwater.ingest.decode``) is accepted in
the server's process whatever its size: with each distinct facet checked once that costs less than a worker's
round trip, and its parsed events are handed to the projector. A worker parses any other large body.

The setting ``parse_processes`` (docs/settings.md) is the number of workers; 0 parses every body in the
server's process.
"""

from __future__ import annotations

import gc
import logging
import multiprocessing
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

from headwater.ingest import ParsedEvent, Policy, accept, accept_usual
from headwater.spec import EventValidator, Problem
from headwater.store import IncomingEvent
from headwater.store.eventlog import PreparedEvent, prepare
from headwater.store.projector_process import name_this_process

log = logging.getLogger("headwater.api")

MIN_CHARS = 256 * 1024  # bodies shorter than this are parsed in the server's process (a worker's round trip costs)
PARENT_CHECK = 1.0  # seconds between a worker's looks at whether the server that started it is still there


@dataclass(frozen=True)
class ReadyEvent:
    """One parsed, validated event as the log will hold it, with its warnings (lenient validation)."""

    prepared: PreparedEvent
    warnings: tuple[Problem, ...]


@dataclass(frozen=True)
class Job:
    """What a worker is asked: one body (``batch``: an array of events, else one event) and the ingest policy."""

    text: str
    batch: bool
    policy: Policy


_validator: EventValidator | None = None  # each worker process's own, made by _start_worker


def _start_worker(parent: int) -> None:
    """A worker's start: ``parent`` is the server's pid, passed by the server (a worker that starts after the
    server was killed already has another parent, and must not take that one for its server)."""
    global _validator  # one per worker process, made once when it starts
    threading.Thread(target=_exit_with, args=(parent,), name="headwater-parse-parent", daemon=True).start()
    gc.set_threshold(50_000, 50, 100)  # as `headwater serve` tunes its own process
    name_this_process("hw-parse")
    _validator = EventValidator()


def _exit_with(parent: int) -> None:
    """End this worker when the server that started it is gone (kill -9 included: a worker waiting for work
    holds both ends of its queue's pipe, so it would never see the server leave)."""
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK)
    os._exit(0)


def _ready() -> bool:
    return _validator is not None


def run(job: Job, validator: EventValidator | None = None) -> list[ReadyEvent]:
    """The work itself (in a worker, or in the server's process when ``validator`` is given)."""
    checker = validator or _validator
    assert checker is not None, "a parse worker starts with _start_worker"
    parsed = accept(job.text, job.policy, checker, batch=job.batch)
    return _rows(parsed, in_worker=validator is None)


def _rows(parsed: list[ParsedEvent], *, in_worker: bool) -> list[ReadyEvent]:
    rows = prepare([IncomingEvent.accepted(e) for e in parsed])
    if in_worker:  # the parsed values stay in the worker: sending them would cost what parsing does
        rows = [row.without_payload() for row in rows]
    return [ReadyEvent(row, e.warnings) for row, e in zip(rows, parsed, strict=True)]


@dataclass(frozen=True)
class PoolState:
    """The parse workers of one server process: how many are configured, whether they are started, and how
    many bodies they parse now."""

    configured: int
    started: int
    busy: int


class ParsePool:
    """Worker processes for large bodies (started on first use); :meth:`close` ends them."""

    def __init__(self, processes: int, validator: EventValidator, *, min_chars: int = MIN_CHARS) -> None:
        self.processes = processes
        self.min_chars = min_chars  # bodies shorter than this are parsed in the calling process
        self._validator = validator
        self._executor: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()
        self._closed = False
        self.in_workers = 0  # bodies a worker process parsed (the rest were parsed in the calling process)
        self._busy = 0  # bodies being parsed in the workers now

    def state(self) -> PoolState:
        """The workers as they are now (the ``/metrics`` gauges)."""
        with self._lock:
            started = self.processes if self._executor is not None else 0
            return PoolState(configured=self.processes, started=started, busy=self._busy)

    def prepare(self, job: Job) -> list[ReadyEvent]:
        """The events of ``job``, parsed in a worker when the body is large and workers are configured."""
        if self.processes < 1 or len(job.text) < self.min_chars:
            return run(job, self._validator)
        usual = accept_usual(job.text, job.policy, self._validator, batch=job.batch, mixed=False)
        if usual is not None:  # cheap here, and the parsed events go to this process's projector
            if self.state().started == 0:
                self.warm()  # the first large body starts the workers, as when it went to one
            return _rows(usual, in_worker=False)
        executor = self._pool()
        if executor is None:
            return run(job, self._validator)
        with self._lock:
            self._busy += 1
        try:
            ready = executor.submit(run, job).result()
        except BrokenProcessPool:
            log.warning("a parse worker died; this body is parsed in the server's process, the pool restarts")
            with self._lock:
                if self._executor is executor:
                    self._executor = None
            executor.shutdown(wait=False, cancel_futures=True)
            return run(job, self._validator)
        finally:
            with self._lock:
                self._busy -= 1
        with self._lock:
            self.in_workers += 1
        return ready

    def worker_pids(self) -> set[int]:
        """The process ids the running workers answer (none when no pool runs). Each of ``processes`` requests
        is answered by whichever worker is free: every worker when there is one."""
        with self._lock:
            executor = self._executor
        if executor is None:
            return set()
        return {f.result() for f in [executor.submit(os.getpid) for _ in range(self.processes)]}

    def warm(self) -> None:
        """Start the workers now (``headwater serve`` at start), without waiting for them: a worker takes about
        a second to import and compile the schemas, which the first large body would otherwise wait for."""
        if self.processes >= 1:
            executor = self._pool()
            if executor is not None:
                for _ in range(self.processes):
                    executor.submit(_ready)

    def _pool(self) -> ProcessPoolExecutor | None:
        with self._lock:
            if self._closed:
                return None
            if self._executor is None:
                self._executor = ProcessPoolExecutor(
                    self.processes,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=_start_worker,
                    initargs=(os.getpid(),),
                )
            return self._executor

    def close(self) -> None:
        with self._lock:
            self._closed = True
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)
