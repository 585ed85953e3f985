"""Online backups of a store (``headwater db backup``), taken while servers run.

- **SQLite**: a store is two files, ``headwater.db`` (the graph, the catalog) and ``headwater.events.db``
  (the event log). Both are copied with SQLite's online backup API (``sqlite3.Connection.backup``) from one
  connection holding one read transaction over both: the graph's snapshot is taken first, then the log's,
  so the copied log holds every event the copied graph reflects (the graph is derived from the log, never
  ahead of it) and the copies are consistent with each other. Appends and the projector go on meanwhile
  (WAL readers block no writer). A restored copy's projector derives the log's events the graph
  had not reflected yet, as after any restart.
- **PostgreSQL**: ``pg_dump --format=custom`` of the database (one consistent snapshot); restore with
  ``pg_restore`` into an empty database (docs/deploy.md, "Backups").
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

import sqlalchemy as sa

from headwater.store.engine import LOG_SCHEMA, events_file, normalize_url


class BackupError(RuntimeError):
    """A backup could not be taken; the message says why and what to do."""


@dataclass(frozen=True)
class Backup:
    """Where the copy went (``files``), and for SQLite the log's and the graph's positions in it."""

    files: list[Path]
    log_position: int | None = None
    graph_position: int | None = None


def backup(url: str, target: Path) -> Backup:
    """Copy the store at ``url`` to ``target`` (SQLite: ``target`` and its log file beside it; PostgreSQL:
    a ``pg_dump`` custom-format archive). Refuses to overwrite an existing file."""
    sa_url = sa.make_url(normalize_url(url))
    if sa_url.get_backend_name() == "sqlite":
        if not sa_url.database or sa_url.database == ":memory:":
            raise BackupError("an in-memory store has nothing to back up")
        return _sqlite(Path(sa_url.database).expanduser(), target)
    return _pg_dump(sa_url, target)


def _sqlite(database: Path, target: Path) -> Backup:
    log_file, target_log = events_file(database), events_file(target)
    if not database.is_file() or not log_file.is_file():
        raise BackupError(f"no SQLite store at {database} (expected it and {log_file.name} beside it)")
    for path in (target, target_log):
        if path.exists():
            raise BackupError(f"{path} exists; back up to a new file name")
    target.parent.mkdir(parents=True, exist_ok=True)
    source = sqlite3.connect(database, isolation_level=None)
    try:
        source.execute("PRAGMA busy_timeout=30000")
        source.execute(f"ATTACH DATABASE ? AS {LOG_SCHEMA}", (str(log_file),))
        source.execute("BEGIN")
        # the graph's snapshot first, then the log's: every event the copied graph reflects is in the copied log
        graph = source.execute("SELECT max(event_seq) FROM main.observations").fetchone()[0]
        head = source.execute(f"SELECT max(seq) FROM {LOG_SCHEMA}.events").fetchone()[0]
        for name, path in (("main", target), (LOG_SCHEMA, target_log)):
            copy = sqlite3.connect(path)
            try:
                source.backup(copy, name=name)  # inside the read transaction: its snapshot
                copy.execute("PRAGMA journal_mode=WAL")  # as the store opens its files
            finally:
                copy.close()
        source.execute("COMMIT")
    except BaseException:
        for path in (target, target_log):
            path.unlink(missing_ok=True)
        raise
    finally:
        source.close()
    return Backup(files=[target, target_log], log_position=int(head or 0), graph_position=int(graph or 0))


def _pg_dump(sa_url: sa.URL, target: Path) -> Backup:
    tool = shutil.which("pg_dump")
    if tool is None:
        raise BackupError("pg_dump is not on PATH: install PostgreSQL's client tools (docs/deploy.md, Backups)")
    if target.exists():
        raise BackupError(f"{target} exists; back up to a new file name")
    env = dict(os.environ)
    if sa_url.password:  # not on the command line, where other users' ps would show it
        env["PGPASSWORD"] = unquote(str(sa_url.password))
    plain = sa_url.set(drivername="postgresql", password=None).render_as_string(hide_password=False)
    done = subprocess.run(
        [tool, "--format=custom", "--file", str(target), "--dbname", plain],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        target.unlink(missing_ok=True)
        raise BackupError(f"pg_dump failed: {done.stderr.strip()[:2000]}")
    return Backup(files=[target])
