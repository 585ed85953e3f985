"""The harvest loop every source shares: read what is new, send it, then record how far; again with ``follow``.

Two protocols, one loop:

- :class:`Source`: anything harvested pass by pass. :func:`run` calls :meth:`Source.read` once (``follow``: again
  every ``interval`` seconds until :class:`Stop` is asked), then :meth:`Source.finish` and :meth:`Source.close`, and answers an
  :class:`Outcome`: 0 when all went well, 1 when the server refused events (reported), 2 when the source could not
  be read or the events could not be delivered (the message says which). A pass records its position (the
  checkpoint) only after its events are acknowledged, so an interrupted harvest resends, never skips.
- :class:`StatementReader`: a database's query history (``postgres.StatStatements``, ``postgres.CsvLogReader``,
  ``mysql.History``, ``redshift.Export``): it feeds the executions of one pass to a
  :class:`~headwater.harvest.core.Harvester` and answers what to record once they are sent.
  :class:`QueryHistory` makes one a :class:`Source` (the connection, the schemas, the events, the checkpoint).
  OpenLineage events in log files are a :class:`Source` of their own (:class:`headwater.harvest.logs.LogFiles`).
"""

from __future__ import annotations

import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from headwater.client import LineageClient, SendError
from headwater.harvest.checkpoint import Checkpoint
from headwater.harvest.core import Harvester
from headwater.harvest.schemas import DatabaseError, DbConnection, connect, database_provider

Commit = Callable[[], None]  # records a pass's position, once its events are acknowledged
Progress = Callable[[str], None]  # a line saying how far a long pass is


class Source(Protocol):
    """Something harvested pass by pass."""

    name: str  # in messages: "pg_stat_statements", "csvlog", "logs", ...
    errors: tuple[type[Exception], ...]  # what it raises when it cannot be read (reported, exit status 2)

    def read(self, *, final: bool) -> None:
        """One pass: read what is new, send it, record how far (``final``: a line without its newline is whole)."""

    def finish(self, *, followed: bool) -> None:
        """After the last pass (not after a failed one): a last look when the source was followed."""

    def close(self) -> None:
        """Close what is open (also after a failure)."""

    def summary(self) -> list[str]:
        """What was harvested: a first line, then indented details."""

    def refused(self) -> int:
        """How many events the server refused."""


class StatementReader(Protocol):
    """One database's query history, read pass by pass."""

    name: str  # in messages
    source: str  # names the runs (part of their ids: never changes for a source)
    dialect: str  # the SQL dialect its statements are parsed in
    needs_connection: bool  # read through a connection to the database (else from files)
    errors: tuple[type[Exception], ...]

    def read(
        self, conn: DbConnection | None, checkpoint: Checkpoint, harvester: Harvester, *, final: bool
    ) -> Commit | None:
        """Feed the executions not harvested yet to ``harvester``; answer what to record once they are sent
        (None: the reader recorded its position itself, page by page)."""


class Stop:
    """SIGINT/SIGTERM end a followed harvest after the pass under way (its events sent, its position saved)."""

    def __init__(self) -> None:
        self.asked = False
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, self._ask)

    def _ask(self, *_: object) -> None:
        self.asked = True

    def __call__(self) -> bool:
        return self.asked

    def sleep(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while not self.asked and time.monotonic() < end:
            time.sleep(min(0.2, max(0.0, end - time.monotonic())))


@dataclass
class Outcome:
    status: int  # 0 done, 1 events refused, 2 not read or not delivered
    problem: str | None  # what went wrong (status 2)
    summary: list[str] = field(default_factory=list)


def run(source: Source, *, follow: bool = False, interval: float = 30.0, stop: Stop | None = None) -> Outcome:
    """Harvest ``source`` once, or with ``follow`` until ``stop`` is asked (see the module docstring)."""
    problem = None
    try:
        while True:
            source.read(final=not follow)
            if not follow or stop is None or stop():
                break
            stop.sleep(interval)
            if stop():
                break
        source.finish(followed=follow)
    except SendError as exc:
        problem = f"the events were not delivered: {exc}"
    except source.errors as exc:
        problem = str(exc)
    finally:
        source.close()
    status = 2 if problem is not None else 1 if source.refused() else 0
    return Outcome(status, problem, source.summary())


class QueryHistory:
    """A :class:`StatementReader` as a :class:`Source`: its connection (opened at the first pass), the table
    schemas of ``schemas_from`` (a database URL: SELECT * and unqualified columns resolved), the events, the
    checkpoint."""

    def __init__(
        self,
        reader: StatementReader,
        client: LineageClient,
        *,
        namespace: str,
        checkpoint: Checkpoint,
        dsn: str | None = None,
        schemas: bool = True,
        start_events: bool = True,
        progress: Progress | None = None,
    ) -> None:
        self.reader = reader
        self.name = reader.name
        self.errors: tuple[type[Exception], ...] = (DatabaseError, *reader.errors)
        self._client = client
        self._namespace = namespace
        self._checkpoint = checkpoint
        self._dsn = dsn
        self._schemas = schemas
        self._start_events = start_events
        self._progress = progress
        self._conn: DbConnection | None = None
        self._harvester: Harvester | None = None

    def _open(self) -> Harvester:
        if self._harvester is None:
            if self.reader.needs_connection and self._dsn is not None:
                self._conn = connect(self._dsn)
            progress = self._progress
            self._harvester = Harvester(
                self._client,
                source=self.reader.source,
                namespace=self._namespace,
                dialect=self.reader.dialect,
                providers=[database_provider(self._dsn, self._conn)] if self._schemas and self._dsn else [],
                progress=None if progress is None else (lambda s: progress(s.lines()[0])),
                start_events=self._start_events,
            )
        return self._harvester

    def read(self, *, final: bool) -> None:
        harvester = self._open()
        commit = self.reader.read(self._conn, self._checkpoint, harvester, final=final)
        harvester.flush()
        if commit is not None:
            commit()
            self._checkpoint.save()

    def finish(self, *, followed: bool) -> None:
        pass  # every pass recorded its position

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def summary(self) -> list[str]:
        return [] if self._harvester is None else self._harvester.summary.lines()

    def refused(self) -> int:
        return 0  # a refused batch fails the pass (SendError): the position is not recorded


def state_file(path: Path | None, kind: str, *identity: str) -> Path:
    """The state file of a harvest: ``path``, or one per source under ``~/.headwater/harvest/`` named by a digest
    of what identifies it (the same harvest finds its state again)."""
    import hashlib

    if path is not None:
        return path
    digest = hashlib.sha256("\n".join(identity).encode()).hexdigest()[:12]
    return Path.home() / ".headwater" / "harvest" / f"{kind}-{digest}.json"


__all__ = ["Commit", "Outcome", "QueryHistory", "Source", "StatementReader", "Stop", "run", "state_file"]
