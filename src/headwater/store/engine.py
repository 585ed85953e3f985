"""Store URLs and engines: SQLite (embedded, default) and PostgreSQL (production).

A SQLite store is two files: ``headwater.db`` holds the derived graph and everything beside the log
(catalog, translators' records), ``headwater.events.db`` (:func:`events_file`) holds the event log
(``events``, ``event_warnings``, ``event_dictionaries``). SQLite lets one writer at a time into a file, so with one file an
append waited for the projector's transaction (seconds for an event with 100,000 column edges):
with two, an append never waits for a derivation. Every connection attaches the log
file as schema ``log``; SQLite finds an unqualified table name in the attached file when the main
one has no such table, so queries name tables as on PostgreSQL. A write transaction says which file
it writes (``hw_write``), and takes only that file's write lock at ``BEGIN``:

- ``"graph"`` (or ``True``): the main file — the projector and the small writers beside it;
- ``"log"``: the log file — appends;
- ``"all"``: both (``BEGIN IMMEDIATE``) — prune and rebuild, which change both.

A transaction that changes both files is atomic in each file but not across them (SQLite's WAL mode):
the two writers of both (prune, the layout move in :mod:`headwater.store.migrate`) are written so that
a crash between the files' commits leaves a state the next run completes. An in-memory store
(``sqlite://``) keeps everything in one database. A file store's pool hands out the connection given back
last (LIFO): its page cache is the warmest (SQLite drops a connection's cache when another connection has
written the file since).
"""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event


class InvalidStoreUrl(ValueError):
    """The store URL is not one Headwater can use; the message shows the accepted forms."""


def normalize_url(url: str) -> str:
    """Map user-facing URLs to SQLAlchemy ones.

    ``postgres://`` and ``postgresql://`` use the psycopg 3 driver; ``sqlite:///path`` stays.
    """
    text = url.strip()
    for prefix in ("postgres://", "postgresql://", "postgresql+psycopg://"):
        if text.startswith(prefix):
            return "postgresql+psycopg://" + text[len(prefix) :]
    if text.startswith("sqlite:///") or text == "sqlite://":
        return text
    raise InvalidStoreUrl(
        f"unsupported store URL {url!r}: use sqlite:///path/to/headwater.db or "
        "postgresql://user:password@host:port/database"
    )


LOG_SCHEMA = "log"  # the name the event log's file is attached under (SQLite)
LOG_TABLES = ("events", "event_warnings", "event_dictionaries")  # the tables that live in the log file


def events_file(database: str | Path) -> Path:
    """The event log's file beside a SQLite store's main file: ``x/headwater.db`` → ``x/headwater.events.db``."""
    path = Path(database)
    return path.with_name(f"{path.stem}.events{path.suffix}" if path.suffix else f"{path.name}.events")


def _sqlite_pragmas(dbapi_connection: Any, _record: Any, log_file: Path | None) -> None:
    # Leave transaction control to SQLAlchemy; make every commit durable, in both files.
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute("PRAGMA foreign_keys=ON")
    if log_file is not None:
        cursor.execute(f"ATTACH DATABASE ? AS {LOG_SCHEMA}", (str(log_file),))
        cursor.execute(f"PRAGMA {LOG_SCHEMA}.journal_mode=WAL")
        cursor.execute(f"PRAGMA {LOG_SCHEMA}.synchronous=FULL")
    cursor.close()


# The statement that takes one file's write lock at the start of a transaction (it changes nothing).
_LOCK_GRAPH = "DELETE FROM main.store_horizon WHERE 0"
_LOCK_LOG = f"DELETE FROM {LOG_SCHEMA}.events WHERE 0"


def _sqlite_begin(conn: sa.Connection, split: bool) -> None:
    # Take the write lock(s) at the start of a write transaction (no deadlocking upgrades), and only
    # those of the file(s) the transaction writes (the module docstring).
    kind = conn.get_execution_options().get("hw_write")
    if not kind:
        conn.exec_driver_sql("BEGIN")
    elif not split or kind == "all":
        conn.exec_driver_sql("BEGIN IMMEDIATE")
    else:
        conn.exec_driver_sql("BEGIN")
        conn.exec_driver_sql(_LOCK_LOG if kind == "log" else _LOCK_GRAPH)


# PostgreSQL SQLSTATE classes of a database that is away or out of resources, not of an event it cannot hold:
# 08 connection exception, 53 insufficient resources (disk full), 57 operator intervention (shutdown,
# restart, "the database system is starting up"), 58 system error (I/O).
_PG_UNAVAILABLE = ("08", "53", "57", "58")
_SQLITE_UNAVAILABLE = frozenset({"SQLITE_FULL", "SQLITE_IOERR", "SQLITE_CANTOPEN", "SQLITE_BUSY", "SQLITE_LOCKED"})


def unavailable(exc: BaseException) -> bool:
    """Whether a database error says the database is away or out of space (a restart, a dropped connection,
    a full disk) rather than that a statement cannot be done: the same work succeeds once it is back."""
    if isinstance(exc, sa.exc.DBAPIError) and exc.connection_invalidated:
        return True
    orig = getattr(exc, "orig", None)
    name = str(getattr(orig, "sqlite_errorname", "") or "")
    if any(name.startswith(known) for known in _SQLITE_UNAVAILABLE):  # SQLITE_IOERR_WRITE, ...
        return True
    if orig is None or not hasattr(orig, "sqlstate"):
        return False
    state = str(orig.sqlstate or "")
    if not state:  # psycopg: no SQLSTATE is a failure on the client's side of the connection (refused, reset)
        return isinstance(exc, (sa.exc.OperationalError, sa.exc.InterfaceError))
    return state[:2] in _PG_UNAVAILABLE


def create_store_engine(url: str) -> sa.Engine:
    """An engine for a store URL; for SQLite the file's folder is created if missing, and every
    connection attaches the event log's file (:func:`events_file`)."""
    sa_url = sa.make_url(normalize_url(url))
    if sa_url.get_backend_name() == "sqlite":
        log_file = None
        if sa_url.database and sa_url.database != ":memory:":
            main = Path(sa_url.database).expanduser()
            main.parent.mkdir(parents=True, exist_ok=True)
            log_file = events_file(main)
        # a file's pool hands out the connection given back last: its page cache is the warmest (SQLite drops a
        # connection's cache when another connection has written the file since)
        lifo = {"pool_use_lifo": True} if log_file is not None else {}
        engine = sa.create_engine(sa_url, connect_args={"check_same_thread": False, "isolation_level": None}, **lifo)
        event.listen(engine, "connect", partial(_sqlite_pragmas, log_file=log_file))
        event.listen(engine, "begin", partial(_sqlite_begin, split=log_file is not None))
        return engine
    # Each server's connections carry its process id (pg_stat_activity, pg_locks: which server holds what),
    # unless the URL names them (?application_name=...).
    named = {} if "application_name" in sa_url.query else {"application_name": f"headwater-{os.getpid()}"}
    return sa.create_engine(sa_url, pool_pre_ping=True, connect_args=named)
