"""What a MariaDB/MySQL server executed → :class:`~.core.Execution`.

Two sources:

- ``performance_schema.events_statements_history_long`` (``performance_schema = ON`` in the server's configuration, a
  restart, and the ``events_statements_current`` and ``events_statements_history_long`` consumers enabled): one row per statement with its thread, event
  id, default database (``CURRENT_SCHEMA``) and timer start/end in picoseconds since the server started, which are
  turned into times with the server's start (``NOW() - Uptime``, kept in the checkpoint so a re-harvest gives the same
  times). The table is a ring buffer (``performance_schema_events_statements_history_long_size``, 10,000 rows by
  default): harvest more often than it wraps.
- the general query log as a table (``SET GLOBAL log_output = 'TABLE'; SET GLOBAL general_log = ON``, no restart):
  ``mysql.general_log`` has every statement received with its thread and arrival time (no end time: one COMPLETE
  event at that time). The default database of each thread comes from its ``Connect``/``Init DB`` rows and ``USE``.

The checkpoint keeps the last arrival time and the rows seen at that time (general log), or the last event id per
thread (performance_schema).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from headwater.model.jsontypes import JSONObject

from .checkpoint import Checkpoint
from .core import Execution, Harvester, parse_time
from .schemas import DatabaseError, DbConnection

if TYPE_CHECKING:
    from .loop import Commit

_CONNECT_DB = re.compile(r"\bon (\S+)(?: using|$)")
_USE = re.compile(r"(?is)^\s*use\s+`?([^`;\s]+)`?\s*;?\s*$")
PAGE = 20_000


def prepare(conn: DbConnection) -> None:
    """Session settings for reading: UTC times; keep the harvester's own statements out of the general log."""
    with conn.cursor() as cur:
        cur.execute("SET time_zone = '+00:00'")
        try:
            cur.execute("SET SESSION sql_log_off = 1")
        except Exception:  # noqa: BLE001 - needs SUPER; then our own SELECTs are logged (and skipped as reads)
            pass


# A consumer records only when the consumers above it are on too: history_long is filled from the current
# statement of each thread, which is recorded only with events_statements_current on (MariaDB's default is off).
STATEMENT_CONSUMERS = (
    "global_instrumentation",
    "thread_instrumentation",
    "events_statements_current",
    "events_statements_history_long",
)


def missing_consumers(conn: DbConnection) -> list[str]:
    """The performance_schema consumers events_statements_history_long needs that are off (all of them when
    performance_schema itself is off or cannot be read)."""
    with conn.cursor() as cur:
        cur.execute("SELECT @@performance_schema")
        if str(cur.fetchone()[0]) not in ("1", "ON"):
            return ["performance_schema", *STATEMENT_CONSUMERS]
        try:
            cur.execute("SELECT NAME, ENABLED FROM performance_schema.setup_consumers")
            enabled = {str(name): str(on).upper() == "YES" for name, on in cur.fetchall()}
        except Exception:  # noqa: BLE001 - no access to performance_schema
            return list(STATEMENT_CONSUMERS)
    return [c for c in STATEMENT_CONSUMERS if not enabled.get(c)]


def available(conn: DbConnection) -> list[str]:
    """Which sources the server has on: 'performance_schema', 'general_log'."""
    found = []
    if not missing_consumers(conn):
        found.append("performance_schema")
    with conn.cursor() as cur:
        cur.execute("SELECT @@general_log, @@log_output")
        on, output = cur.fetchone()
        if str(on) in ("1", "ON") and "TABLE" in str(output).upper():
            found.append("general_log")
    return found


def _mysql_error(exc: Exception, what: str) -> DatabaseError:
    code = exc.args[0] if exc.args else None
    if code in (1142, 1044, 1045, 1227):
        return DatabaseError(
            f"missing privilege to read {what}: {exc} (GRANT SELECT ON {what} TO the harvesting user; see docs/sql.md)"
        )
    return DatabaseError(f"cannot read {what}: {exc}")


@dataclass(frozen=True)
class Scope:
    """Which statements are harvested: those run in ``only_database`` (None: all), from ``since`` on (the first
    harvest); ``default_database``: the database of a statement whose session named none."""

    default_database: str | None = None
    only_database: str | None = None
    since: datetime | None = None


# --- general log -------------------------------------------------------------------------------------------------


def read_general_log(
    conn: DbConnection, checkpoint: Checkpoint, harvester: Harvester, scope: Scope
) -> JSONObject | None:
    """Feed one page of new general-log rows to ``harvester``; answer the checkpoint section to save (None: none)."""
    import pymysql  # type: ignore[import-untyped]

    state = checkpoint.section("general_log")
    last = state.get("time") or (
        scope.since.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f") if scope.since else "1970-01-01 00:00:01"
    )
    seen = set(state.get("seen", []))
    databases: dict[str, str] = dict(state.get("threads", {}))
    try:
        with conn.cursor() as cur:
            cur.execute(
                "SELECT event_time, user_host, thread_id, server_id, command_type, argument "
                "FROM mysql.general_log WHERE event_time >= %s ORDER BY event_time LIMIT %s",
                (last, PAGE),
            )
            rows = cur.fetchall()
    except pymysql.MySQLError as exc:
        raise _mysql_error(exc, "mysql.general_log") from None
    if not rows:
        return None
    newest = last
    at_newest: set[str] = set(seen)
    own = _own_thread(conn)
    fresh = 0
    for event_time, user_host, thread_id, server_id, command, argument in rows:
        text = argument.decode("utf-8", "replace") if isinstance(argument, (bytes, bytearray)) else str(argument)
        moment = event_time.strftime("%Y-%m-%d %H:%M:%S.%f")
        key = f"{server_id}:{thread_id}:{moment}:{hashlib.sha256(text.encode()).hexdigest()[:16]}"
        if moment > newest:
            newest, at_newest = moment, set()
        at_newest.add(key)
        if key in seen:
            continue
        fresh += 1
        thread = str(thread_id)
        if command == "Connect":
            m = _CONNECT_DB.search(text)
            if m:
                databases[thread] = m.group(1)
            continue
        if command == "Init DB":
            databases[thread] = text.strip()
            continue
        if command == "Quit":
            databases.pop(thread, None)
            continue
        if command not in ("Query", "Execute") or thread_id == own:
            continue
        use = _USE.match(text)
        if use:
            databases[thread] = use.group(1)
            continue
        database = databases.get(thread) or scope.default_database
        if scope.only_database and database != scope.only_database:
            continue
        user = str(user_host).split("[", 1)[0] or None
        harvester.add(
            Execution(
                key=key,
                sql=text,
                database=database,
                end=parse_time(event_time),
                user=user,
                details=(("thread", thread_id),),
                where=f"general_log {moment} thread {thread}",
            )
        )
    if not fresh:
        return None
    if len(databases) > 50_000:
        databases = dict(list(databases.items())[-10_000:])
    return {"time": newest, "seen": sorted(at_newest), "threads": databases}


def _own_thread(conn: DbConnection) -> int | None:
    with conn.cursor() as cur:
        cur.execute("SELECT CONNECTION_ID()")
        return int(cur.fetchone()[0])


# --- performance_schema ------------------------------------------------------------------------------------------


def read_performance_schema(
    conn: DbConnection, checkpoint: Checkpoint, harvester: Harvester, scope: Scope
) -> JSONObject | None:
    """Feed the finished statements of events_statements_history_long not harvested yet."""
    import pymysql

    state = checkpoint.section("performance_schema")
    try:
        off = missing_consumers(conn)
    except pymysql.MySQLError as exc:
        raise _mysql_error(exc, "performance_schema.setup_consumers") from None
    if off:
        raise DatabaseError(
            f"performance_schema records no statements: {', '.join(off)} off (my.cnf: performance_schema = ON, "
            "performance-schema-consumer-events-statements-current = ON, "
            "performance-schema-consumer-events-statements-history-long = ON; see docs/sql.md)"
        )
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT VARIABLE_VALUE FROM performance_schema.global_status WHERE VARIABLE_NAME = 'UPTIME'")
            uptime = float(cur.fetchone()[0])
            cur.execute("SELECT UTC_TIMESTAMP(6)")
            now = parse_time(cur.fetchone()[0]) or datetime.now(UTC)
            cur.execute(
                "SELECT THREAD_ID, EVENT_ID, TIMER_START, TIMER_END, SQL_TEXT, CURRENT_SCHEMA, MYSQL_ERRNO, "
                "MESSAGE_TEXT FROM performance_schema.events_statements_history_long "
                "WHERE END_EVENT_ID IS NOT NULL AND SQL_TEXT IS NOT NULL ORDER BY THREAD_ID, EVENT_ID"
            )
            rows = cur.fetchall()
    except pymysql.MySQLError as exc:
        raise _mysql_error(exc, "performance_schema.events_statements_history_long") from None
    boot = now - timedelta(seconds=uptime)
    known = parse_time(state.get("boot"))
    if known is not None and abs((known - boot).total_seconds()) < 5:
        boot = known  # the same server start: keep the times of earlier harvests
    else:
        state = {}
    last: dict[str, int] = dict(state.get("threads", {}))
    for thread_id, event_id, t0, t1, sql_text, schema, errno, message in rows:
        thread = str(thread_id)
        if event_id <= last.get(thread, 0):
            continue
        last[thread] = int(event_id)
        database = schema or scope.default_database
        if scope.only_database and database != scope.only_database:
            continue
        start = boot + timedelta(microseconds=int(t0 or 0) // 1_000_000)
        end = boot + timedelta(microseconds=int(t1 or 0) // 1_000_000)
        if scope.since is not None and end < scope.since:
            harvester.skip("before --since")
            continue
        text = sql_text.decode("utf-8", "replace") if isinstance(sql_text, (bytes, bytearray)) else str(sql_text)
        harvester.add(
            Execution(
                key=f"{thread}:{event_id}:{t0}",
                sql=text,
                database=database,
                start=start,
                end=end,
                failed=bool(errno),
                error=message if errno else None,
                details=(("thread", int(thread_id)), ("eventId", int(event_id))),
                where=f"events_statements_history_long thread {thread} event {event_id}",
            )
        )
    return {"boot": boot.isoformat(), "threads": last}


# --- the reader of `headwater harvest mysql` (headwater.harvest.loop.StatementReader) ------------------------------


class History:
    """performance_schema or the general log table (``choice`` "auto": the first one switched on), page by page."""

    name = source = "mysql"
    dialect = "mysql"
    needs_connection = True
    errors: tuple[type[Exception], ...] = ()

    def __init__(self, choice: str = "auto", scope: Scope | None = None) -> None:
        self.chosen = None if choice == "auto" else choice
        self.scope = scope or Scope()

    def read(
        self, conn: DbConnection | None, checkpoint: Checkpoint, harvester: Harvester, *, final: bool
    ) -> Commit | None:
        if conn is None:
            raise DatabaseError("the query history is read through a connection: give --dsn")
        if self.chosen is None:
            found = available(conn)
            if not found:
                raise DatabaseError(
                    "neither performance_schema (events_statements_current + events_statements_history_long) nor "
                    "the general log table is on: SET GLOBAL log_output = 'TABLE'; SET GLOBAL general_log = ON "
                    "(see docs/sql.md)"
                )
            self.chosen = found[0]
        prepare(conn)
        name = self.chosen
        read = read_general_log if name == "general_log" else read_performance_schema
        while True:
            section = read(conn, checkpoint, harvester, self.scope)
            if section is None:
                break
            checkpoint.data[name] = section  # the next page starts after this one
            harvester.flush()
            checkpoint.save()
            if name == "performance_schema":
                break
        return None
