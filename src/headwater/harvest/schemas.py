"""Table schemas from a live database (information_schema), for the SQL engine's catalog."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from headwater.model.naming import database_namespace, table_levels

Columns = list[tuple[str, str | None]]


class DbConnection(Protocol):
    """A DB-API connection (psycopg's or PyMySQL's)."""

    def cursor(self) -> Any: ...

    def close(self) -> None: ...


class DatabaseError(RuntimeError):
    """The database could not be reached or read; the message says what to do."""


def connect(url: str) -> DbConnection:
    """A DB-API connection for a postgresql:// or mysql:// / mariadb:// URL, with clear errors."""
    from urllib.parse import unquote, urlsplit

    scheme = urlsplit(url).scheme.split("+", 1)[0].lower()
    if scheme in ("postgresql", "postgres"):
        import psycopg

        try:
            return psycopg.connect(
                url.replace("postgresql+psycopg://", "postgresql://"), autocommit=True, connect_timeout=10
            )
        except psycopg.OperationalError as exc:
            raise DatabaseError(
                f"cannot connect to PostgreSQL at {_safe(url)}: {str(exc).strip()} "
                "(check host, port, database, user and password in --dsn)"
            ) from None
    if scheme in ("mysql", "mariadb"):
        import pymysql  # type: ignore[import-untyped]

        parts = urlsplit(url)
        try:
            connection: DbConnection = pymysql.connect(
                host=parts.hostname or "localhost",
                port=parts.port or 3306,
                user=unquote(parts.username or ""),
                password=unquote(parts.password or ""),
                database=parts.path.strip("/") or None,
                autocommit=True,
                connect_timeout=10,
            )
            return connection
        except pymysql.MySQLError as exc:
            raise DatabaseError(
                f"cannot connect to MariaDB/MySQL at {_safe(url)}: {exc} "
                "(check host, port, database, user and password in --dsn)"
            ) from None
    raise DatabaseError(f"unsupported database URL scheme {scheme!r}: use postgresql:// or mysql://")


def _safe(url: str) -> str:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.hostname}:{parts.port or ''}{parts.path}"


def database_provider(
    url: str, conn: DbConnection | None = None
) -> Callable[[str, str], Sequence[tuple[str, str | None]] | None]:
    """A Catalog provider answering columns from the database's information_schema (one query per table)."""
    namespace, _db = database_namespace(url)
    levels = table_levels(namespace)
    opened = conn

    def provider(_ns: str, name: str) -> Columns | None:
        nonlocal opened
        parts = name.split(".")
        if opened is None:
            opened = connect(url)
        c = opened
        if levels == 3 and len(parts) == 3:
            sql = (
                "SELECT column_name, data_type FROM information_schema.columns WHERE table_catalog = %s "
                "AND table_schema = %s AND table_name = %s ORDER BY ordinal_position"
            )
            args = parts
        elif levels == 2 and len(parts) == 2:
            sql = (
                "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = %s "
                "AND table_name = %s ORDER BY ordinal_position"
            )
            args = parts
        else:
            return None
        cur = c.cursor()
        try:
            cur.execute(sql, args)
            rows = cur.fetchall()
        finally:
            cur.close()
        return [(str(r[0]), str(r[1])) for r in rows] or None

    return provider
