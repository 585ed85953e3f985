"""What a PostgreSQL server executed: ``pg_stat_statements`` and/or the server's csvlog → :class:`~.core.Execution`.

**pg_stat_statements** keeps one row per (user, database, normalised statement) with a running ``calls`` count, no
times. Each harvest reads the rows, compares ``calls`` with the checkpoint, and reports the calls since the last
harvest as one run of the statement's job (ended at the harvest time; the ``headwater_harvest`` facet says how many
calls, rows and milliseconds it covers). Statistics reset (``pg_stat_statements_info.stats_reset``) or an evicted
entry start the count again. Its texts are normalised (constants become ``$1``), which is what lineage needs.

**csvlog** (``log_destination = 'csvlog'``, ``logging_collector = on``, ``log_min_duration_statement = 0``) has one
record per statement with its end time and duration (so its real start), the session and line number that identify
it, and ERROR records for failed statements. Records are read from the files with :class:`~.checkpoint.FileReader`
(rotation and truncation safe); a run id is derived from the session id and line number, so a re-read stores
nothing twice.
"""

from __future__ import annotations

import csv
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from headwater.model.jsontypes import JSONObject

from .checkpoint import Checkpoint, FileReader, Line, rotated_away
from .core import Execution, Harvester, parse_time
from .schemas import DatabaseError, DbConnection

if TYPE_CHECKING:
    from .loop import Commit

HIDDEN = "<insufficient privilege>"


# --- pg_stat_statements -----------------------------------------------------------------------------------------


def read_statements(
    conn: DbConnection, checkpoint: Checkpoint, harvester: Harvester, *, now: datetime | None = None
) -> JSONObject:
    """Feed the calls made since the last harvest to ``harvester``; answer the checkpoint section to save after the
    events are acknowledged."""
    import psycopg

    state = checkpoint.section("pg_stat_statements")
    now = now or datetime.now(UTC)
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT current_setting('server_version_num')::int")
            version = cur.fetchone()[0]
            reset = ""
            if version >= 140000:
                cur.execute("SELECT stats_reset FROM pg_stat_statements_info")
                row = cur.fetchone()
                reset = row[0].isoformat() if row and row[0] else ""
            toplevel = "s.toplevel" if version >= 140000 else "true"
            exec_time = "s.total_exec_time" if version >= 130000 else "s.total_time"
            cur.execute(
                f"SELECT s.userid, s.dbid, s.queryid, {toplevel}, d.datname, r.rolname, s.query, s.calls, "
                f"{exec_time}, s.rows FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid "
                "LEFT JOIN pg_roles r ON r.oid = s.userid ORDER BY s.dbid, s.queryid"
            )
            rows = cur.fetchall()
    except psycopg.errors.UndefinedTable:
        raise DatabaseError(
            "pg_stat_statements is not installed in this database: run CREATE EXTENSION "
            "pg_stat_statements (it also needs shared_preload_libraries = 'pg_stat_statements' "
            "and a server restart; see docs/sql.md)"
        ) from None
    except psycopg.errors.ObjectNotInPrerequisiteState as exc:
        raise DatabaseError(
            f"pg_stat_statements is not loaded: {str(exc).strip()} (add it to "
            "shared_preload_libraries and restart the server; see docs/sql.md)"
        ) from None
    except psycopg.errors.InsufficientPrivilege as exc:
        raise DatabaseError(f"missing privilege: {str(exc).strip()} (GRANT pg_read_all_stats TO <user>)") from None
    calls_seen: dict[str, Any] = dict(state.get("calls", {})) if state.get("reset", "") == reset else {}
    since = state.get("harvested_at")
    new_calls: dict[str, Any] = {}
    for userid, dbid, queryid, top, datname, rolname, query, calls, total_ms, nrows in rows:
        key = f"{dbid}:{userid}:{queryid}:{'t' if top else 'n'}"
        before = calls_seen.get(key, [0, 0.0, 0])
        if calls < before[0]:  # evicted and counted again
            before = [0, 0.0, 0]
        new_calls[key] = [calls, float(total_ms or 0.0), int(nrows or 0)]
        delta = calls - before[0]
        if delta <= 0:
            continue
        if query is None or query == HIDDEN:
            harvester.skip(
                "statement text hidden: GRANT pg_read_all_stats TO the harvesting user", f"queryid {queryid}"
            )
            continue
        details: tuple[tuple[str, Any], ...] = (
            ("calls", delta),
            ("totalExecTimeMs", round(float(total_ms or 0.0) - before[1], 3)),
            ("rows", int(nrows or 0) - before[2]),
            ("queryId", str(queryid)),
        )
        if since:
            details += (("since", since),)
        harvester.add(
            Execution(
                key=f"{key}:{reset}:{before[0]}-{calls}",
                sql=query,
                database=datname,
                end=now,
                user=rolname,
                details=details,
                where=f"queryid {queryid}",
            )
        )
    return {"reset": reset, "calls": new_calls, "harvested_at": now.isoformat()}


# --- csvlog ------------------------------------------------------------------------------------------------------

# the first 14 columns of a csvlog record, the same since PostgreSQL 9.0 (query is column 20)
_LOG_TIME, _USER, _DB, _PID, _FROM, _SESSION, _LINE, _TAG = range(8)
_SEVERITY, _MESSAGE, _QUERY = 11, 13, 19
_DURATION = re.compile(r"(?s)^duration: ([0-9.]+) ms(?:\s+(?:statement|execute [^:]*): (.*))?$")
_STATEMENT = re.compile(r"(?s)^(?:statement|execute [^:]*): (.*)$")


@dataclass
class _Pending:
    execution: Execution
    line: Line  # the record's first line (to resume from when it is still open)


def csv_records(reader: FileReader, *, final: bool) -> Iterator[tuple[list[str], Line, Line]]:
    """(fields, first line, last line) of each complete csvlog record; records may span lines (quoted newlines)."""
    parts: list[str] = []
    first: Line | None = None
    quotes = 0
    for line in reader.lines(final=final):
        if first is None:
            first = line
        parts.append(line.text)
        quotes += line.text.count('"')
        if quotes % 2:
            continue
        text = "\n".join(parts)
        parts, quotes = [], 0
        start, first = first, None
        fields = next(csv.reader([text]), [])
        if len(fields) >= 14:
            yield fields, start, line


class CsvLog:
    """Executions of one or more csvlog files, resuming where the checkpoint says."""

    def __init__(self, paths: list[str], checkpoint: Checkpoint, *, since: datetime | None = None) -> None:
        self.files = checkpoint.section("csvlog")
        self.paths = paths
        self.since = since
        self.readers: dict[str, FileReader] = {}
        self.pending: dict[str, _Pending] = {}  # session -> statement logged by log_statement, awaiting its end

    def read(self, harvester: Harvester, *, final: bool) -> list[tuple[FileReader, Line]]:
        """Feed new executions to ``harvester``; answer the positions to commit once its events are acknowledged."""
        done: list[tuple[FileReader, Line]] = []
        paths: list[str] = []
        for path in _expand(self.paths):
            if path not in self.readers:  # first read: what was rotated away since the last run first
                paths.extend(p for p in rotated_away(path, self.files) if p not in paths and p not in self.paths)
            paths.append(path)
        for path in paths:
            reader = self.readers.get(path) or FileReader(path, self.files)
            self.readers[path] = reader
            last = None
            for fields, first, line in csv_records(reader, final=final):
                self._record(fields, first, harvester, path)
                last = line
            if final:
                self._flush_pending(harvester)
            if last is not None:
                hold = [p.line for p in self.pending.values() if p.execution.where.startswith(path + ":")]
                if hold:  # resume at the oldest statement still waiting for its end
                    earliest = min(hold, key=lambda x: x.end)
                    if earliest.number > 1:
                        done.append((reader, Line(earliest.number - 1, "", _line_start(earliest))))
                else:
                    done.append((reader, last))
        return done

    def _record(self, f: list[str], first: Line, harvester: Harvester, path: str) -> None:
        message, session, severity = f[_MESSAGE], f[_SESSION], f[_SEVERITY]
        when = parse_time(f[_LOG_TIME]) or datetime.now(UTC)
        where = f"{path}:{first.number}"
        key = f"{session}:{f[_LINE]}"
        if severity in ("ERROR", "FATAL", "PANIC"):
            query = f[_QUERY] if len(f) > _QUERY else ""
            pending = self.pending.pop(session, None)
            if pending is not None and (
                not query or " ".join(query.split()) == " ".join(pending.execution.sql.split())
            ):
                ex = pending.execution
                self._emit(
                    harvester,
                    Execution(ex.key, ex.sql, ex.database, ex.start, when, True, message, ex.user, where=ex.where),
                )
            elif query:
                self._emit(
                    harvester,
                    Execution(key, query, f[_DB] or None, when, when, True, message, f[_USER] or None, where=where),
                )
            return
        if severity != "LOG":
            return
        m = _DURATION.match(message)
        if m:
            millis, text = float(m.group(1)), m.group(2)
            if text is None:  # the statement was logged before (log_statement): this is its end
                pending = self.pending.pop(session, None)
                if pending is not None:
                    ex = pending.execution
                    self._emit(
                        harvester,
                        Execution(
                            ex.key,
                            ex.sql,
                            ex.database,
                            when - timedelta(milliseconds=millis),
                            when,
                            user=ex.user,
                            where=ex.where,
                        ),
                    )
                return
            self._settle(session, harvester)
            self._emit(
                harvester,
                Execution(
                    key,
                    text,
                    f[_DB] or None,
                    when - timedelta(milliseconds=millis),
                    when,
                    user=f[_USER] or None,
                    where=where,
                ),
            )
            return
        m = _STATEMENT.match(message)
        if m:
            self._settle(session, harvester)
            ex = Execution(key, m.group(1), f[_DB] or None, when, None, user=f[_USER] or None, where=where)
            self.pending[session] = _Pending(ex, first)

    def _settle(self, session: str, harvester: Harvester) -> None:
        """A session's earlier statement got no duration line: it ended when known (its own time)."""
        pending = self.pending.pop(session, None)
        if pending is not None:
            self._emit(harvester, pending.execution)

    def _flush_pending(self, harvester: Harvester) -> None:
        for session in list(self.pending):
            self._settle(session, harvester)

    def _emit(self, harvester: Harvester, ex: Execution) -> None:
        moment = ex.end or ex.start
        if self.since is not None and moment is not None and moment < self.since:
            harvester.skip("before --since")
            return
        harvester.add(ex)


def _expand(paths: list[str]) -> list[str]:
    """Files of the arguments: a folder is its ``*.csv`` files, listed again on every pass (new files of a rotation
    are found while following)."""
    out: list[str] = []
    for p in paths:
        if os.path.isdir(p):
            out.extend(sorted(str(f) for f in Path(p).glob("*.csv")))
        else:
            out.append(p)
    return out


def _line_start(line: Line) -> int:
    return line.end - len(line.text.encode("utf-8")) - 1


# --- the readers of `headwater harvest postgres` (headwater.harvest.loop.StatementReader) --------------------------


class StatStatements:
    """pg_stat_statements, through a connection: the calls since the last pass."""

    name = source = "pg_stat_statements"
    dialect = "postgres"
    needs_connection = True
    errors: tuple[type[Exception], ...] = ()

    def read(
        self, conn: DbConnection | None, checkpoint: Checkpoint, harvester: Harvester, *, final: bool
    ) -> Commit | None:
        if conn is None:
            raise DatabaseError("pg_stat_statements is read through a connection: give --dsn")
        section = read_statements(conn, checkpoint, harvester)

        def commit() -> None:
            checkpoint.data["pg_stat_statements"] = section

        return commit


class CsvLogReader:
    """The server's csvlog files (or folders of them), from the positions of the checkpoint."""

    name = source = "csvlog"
    dialect = "postgres"
    needs_connection = False
    errors: tuple[type[Exception], ...] = ()

    def __init__(self, paths: list[str], *, since: datetime | None = None) -> None:
        self.paths = paths
        self.since = since
        self._log: CsvLog | None = None  # made on the first pass, with the checkpoint

    def read(
        self, conn: DbConnection | None, checkpoint: Checkpoint, harvester: Harvester, *, final: bool
    ) -> Commit | None:
        if self._log is None:
            self._log = CsvLog(self.paths, checkpoint, since=self.since)
        log = self._log
        done = log.read(harvester, final=final)

        def commit() -> None:
            for reader, line in done:
                reader.commit(line)
            for reader in log.readers.values():
                reader.switch_if_replaced()

        return commit
