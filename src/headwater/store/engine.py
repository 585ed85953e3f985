"""Store URLs and engines: SQLite (embedded, default) and PostgreSQL (production)."""

from __future__ import annotations

import os
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


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # Leave transaction control to SQLAlchemy; make every commit durable.
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def _sqlite_begin(conn: sa.Connection) -> None:
    # Take the write lock at the start of a write transaction (no deadlocking upgrades).
    conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get("hw_write") else "BEGIN")


def create_store_engine(url: str) -> sa.Engine:
    """An engine for a store URL; for SQLite the file's folder is created if missing."""
    sa_url = sa.make_url(normalize_url(url))
    if sa_url.get_backend_name() == "sqlite":
        if sa_url.database and sa_url.database != ":memory:":
            Path(sa_url.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
        engine = sa.create_engine(sa_url, connect_args={"check_same_thread": False, "isolation_level": None})
        event.listen(engine, "connect", _sqlite_pragmas)
        event.listen(engine, "begin", _sqlite_begin)
        return engine
    # Each server's connections carry its process id (pg_stat_activity, pg_locks: which server holds what),
    # unless the URL names them (?application_name=...).
    named = {} if "application_name" in sa_url.query else {"application_name": f"headwater-{os.getpid()}"}
    return sa.create_engine(sa_url, pool_pre_ping=True, connect_args=named)
