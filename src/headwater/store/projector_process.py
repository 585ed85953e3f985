"""The projector in a process of its own: the server's process appends and reads, this one derives the graph.

With the setting ``projector = process`` (docs/settings.md) a store opened by a server does not run the
background projector as a thread of the server's process (one interpreter lock for the acknowledgements and
the derivation) but in a child process that :class:`RemoteProjector` starts, supervises and stops, so the two
use two cores. The derivation is the same code (:class:`~headwater.store.background.BackgroundProjector`, its
locks, chunks and failure handling) run in the child; only the signalling between appends, readers and the
projector crosses the process boundary, over one pipe:

- server → child: ``("appended", seq)`` after each append's commit (the child steps, letting events gather
  as the thread does), ``("hurry",)`` when a reader or a throttled append waits (no gathering), ``("stop",)``;
- child → server: ``("done", watermark)`` after each step: the server's readers and back-pressure wait on the
  same condition as with the thread, and re-read the watermark from the store (:meth:`wait_caught_up` reads
  the log head and the watermark in the database: what the graph reflects is always the store's word, never
  the message's). A thread of the server sends the child's messages, merged while they wait (only the newest
  ``seq`` counts), so no append or reader ever waits on the pipe, even for a child that hangs.

Contract:

- A 2xx still means durable and validated: appends are the server's, unchanged. The graph is the same function
  of the log (the same derivation, one step at a time under the graph writers' locks: SQLite's write lock on
  the main file, PostgreSQL's advisory locks; the step re-reads the watermark under them).
- A read waits until the graph reflects every event the log held when it began (or ``projector_wait``
  passes), as with the thread; an append waits while the graph is more than ``max_lag`` events behind.
- The child is handed no parsed events (another process): it reads the stored text, each repeated facet
  recognized by its bytes in a facet cache of its own (:func:`headwater.ingest.decode.read_stored`), not
  parsed again; the shared facet values give its derivation the same shortcuts as the server's parsed events.
- A child that dies (killed, out of memory) is started again after :data:`RESTART_DELAY` seconds; its
  unfinished step was one transaction, rolled back, and the new child derives from the watermark (crash
  recovery = catching up). Readers waiting meanwhile keep waiting (bounded by ``projector_wait``). The child
  ends when the server stops it (after deriving what was appended, as the thread does) or when its pipe closes
  (the server is gone).
"""

from __future__ import annotations

import gc
import logging
import multiprocessing
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from headwater.store.background import POLL, READ_TIMEOUT, BackgroundProjector

log = logging.getLogger("headwater.store")

RESTART_DELAY = 1.0  # seconds before a projector process that died is started again
STOP_GRACE = 5.0  # seconds a child gets, after its stop timeout, before it is terminated

Message = tuple[Any, ...]


def name_this_process(name: str) -> None:
    """Name this process as ``ps``, ``top`` and /proc show it (Linux: at most 15 bytes; elsewhere nothing), so an
    operator, and the benchmarks' CPU figures, tell a server's helper processes apart."""
    try:
        Path("/proc/self/comm").write_text(name[:15])
    except OSError:
        pass


class RemoteProjector(BackgroundProjector):
    """The server's side of a projector process: the same interface as the thread (notify, throttle,
    wait_caught_up, lag, failed, retry_failed), the derivation done by a child process it supervises."""

    def __init__(
        self,
        url: str,
        engine: sa.Engine,
        write_lock: threading.Lock,
        lock_writers: Callable[[sa.Connection], None],
        lock_appends: Callable[[sa.Connection], None],
        retry_at_start: bool = True,
    ) -> None:
        super().__init__(engine, write_lock, lock_writers, lock_appends, retry_at_start=False)
        self._url = url
        self._retry_in_child = retry_at_start  # the child retries the failed events once, at its first start
        self._send_lock = threading.Lock()
        # what the child is to be told, sent by a thread of its own, so no append or reader ever waits on the
        # pipe (a child that hangs would fill it): the newest appended seq, whether a reader waits, the stop
        self._outbox = threading.Condition()
        self._out_seq = 0
        self._out_hurry = False
        self._out_stop: float | None = None
        self._pipe: Connection | None = None
        self._process: BaseProcess | None = None
        self._supervisor: threading.Thread | None = None
        self.restarts = 0  # children started again after one died

    def start(self) -> None:
        self._supervisor = threading.Thread(target=self._supervise, name="headwater-projector-supervisor", daemon=True)
        self._supervisor.start()
        threading.Thread(target=self._send_loop, name="headwater-projector-sender", daemon=True).start()

    def stop(self, timeout: float = READ_TIMEOUT) -> None:
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        self._post(stop=timeout)
        if self._supervisor is not None:
            self._supervisor.join(timeout + STOP_GRACE)
        process = self._process
        if process is not None and process.is_alive():
            log.warning("projector process %s did not stop in time; terminating it", process.pid)
            process.terminate()
            process.join(STOP_GRACE)

    def hand_over(self, payloads: Any) -> None:
        """Nothing is handed over to another process (it reads the stored text)."""

    def notify(self, seq: int) -> None:
        super().notify(seq)
        self._post(seq=seq)

    def _wake(self) -> None:
        self._post(hurry=True)

    def _alive(self) -> bool:
        # while the supervisor runs, a child derives or is about to again: readers and appends wait for it
        return self._supervisor is not None and self._supervisor.is_alive()

    @property
    def running(self) -> bool:
        process = self._process
        return process is not None and process.is_alive()

    @property
    def pid(self) -> int | None:
        """The projector process's id (None before it started)."""
        process = self._process
        return None if process is None else process.pid

    def _post(self, seq: int = 0, hurry: bool = False, stop: float | None = None) -> None:
        """Tell the child (by the sender thread; messages not sent yet are merged: only the newest seq counts)."""
        with self._outbox:
            self._out_seq = max(self._out_seq, seq)
            self._out_hurry = self._out_hurry or hurry
            if stop is not None:
                self._out_stop = stop
            self._outbox.notify()

    def _send_loop(self) -> None:
        while True:
            with self._outbox:
                self._outbox.wait_for(lambda: self._out_seq > 0 or self._out_hurry or self._out_stop is not None)
                seq, hurry, stop = self._out_seq, self._out_hurry, self._out_stop
                self._out_seq, self._out_hurry = 0, False
            if seq:
                self._send(("appended", seq))
            if hurry:
                self._send(("hurry",))
            if stop is not None:
                self._send(("stop", stop))
                return

    def _send(self, message: Message) -> None:
        pipe = self._pipe
        if pipe is None:
            return  # no child now: the next one looks at the log when it starts
        try:
            with self._send_lock:
                pipe.send(message)
        except (OSError, ValueError):
            pass  # the child is gone: the supervisor starts another, which looks at the log

    def _supervise(self) -> None:
        context = multiprocessing.get_context("spawn")
        retry = self._retry_in_child
        while True:
            ours, theirs = context.Pipe(duplex=True)
            process = context.Process(
                target=run_projector, args=(self._url, theirs, retry), name="headwater-projector", daemon=True
            )
            process.start()
            theirs.close()
            retry = False
            self._process, self._pipe = process, ours
            if self._stopping:  # stopped while it started: it derives what was appended, then ends
                self._send(("stop", READ_TIMEOUT))
            self._listen(ours)
            self._pipe = None
            ours.close()
            process.join(STOP_GRACE if self._stopping else None)
            if self._stopping:
                return
            log.error("projector process %s ended (exit code %s); starting another", process.pid, process.exitcode)
            self.restarts += 1
            with self._cond:
                self._steps += 1  # readers look at the store again (and go on waiting for the next child)
                self._cond.notify_all()
                self._cond.wait_for(lambda: self._stopping, RESTART_DELAY)
            if self._stopping:
                return

    def _listen(self, pipe: Connection) -> None:
        while True:
            try:
                message = pipe.recv()
            except (EOFError, OSError):
                return
            if message[0] == "done":
                with self._cond:
                    self._done = max(self._done, int(message[1]))
                    self._steps += 1
                    self._cond.notify_all()


def run_projector(url: str, pipe: Connection, retry_failed: bool) -> None:
    """The projector process: derive the store's graph at ``url`` until told to stop or the server is gone."""
    from headwater.ingest.decode import FacetCache, read_stored
    from headwater.store import store as store_module
    from headwater.store.engine import create_store_engine

    name_this_process("hw-projector")
    # As `headwater serve` tunes its own process: parsed events are large trees of dicts (JSON makes no cycles),
    # which the collector's default thresholds would walk again and again; what start-up made is out of its sight.
    gc.freeze()
    gc.set_threshold(50_000, 50, 100)
    engine = create_store_engine(url)
    postgres = engine.dialect.name == "postgresql"

    def locker(key: int) -> Callable[[sa.Connection], None]:
        def lock(conn: sa.Connection) -> None:
            if postgres:
                conn.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": key})

        return lock

    projector = BackgroundProjector(
        engine,
        threading.Lock(),
        locker(store_module.PG_WRITER_LOCK),
        locker(store_module.PG_APPEND_LOCK),
        retry_at_start=retry_failed,
        poll=POLL,  # a look at the log every second when idle, whatever a message said
    )
    cache = FacetCache()
    projector.reader = lambda text: read_stored(text, cache)
    send_lock = threading.Lock()

    def done(seq: int) -> None:
        try:
            with send_lock:
                pipe.send(("done", seq))
        except (OSError, ValueError):
            pass  # the server is gone: the receive below ends

    projector.on_step = done
    projector.start()
    timeout = READ_TIMEOUT
    try:
        while True:
            try:
                message = pipe.recv()
            except (EOFError, OSError):
                break  # the server is gone
            if message[0] == "appended":
                projector.notify(int(message[1]))
            elif message[0] == "hurry":
                projector.hurry()
            elif message[0] == "stop":
                timeout = float(message[1])
                break
    finally:
        projector.stop(timeout)
        pipe.close()
        engine.dispose()
