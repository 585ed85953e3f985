"""``headwater harvest``: lineage from what databases executed (query history, logs) and from log files."""

from __future__ import annotations

import hashlib
import signal
import sys
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import click

_SINKS = [
    click.option("--url", default=None, help="Headwater server to send the events to (http://host:port)."),
    click.option(
        "--store",
        "store",
        default=None,
        help="Append to this store instead (sqlite:///path or postgresql://...), embedded.",
    ),
    click.option("--token", envvar="HEADWATER_TOKEN", default=None, help="Bearer token for --url (HEADWATER_TOKEN)."),
    click.option(
        "--project",
        default=None,
        help="Catalog project the harvest is for (with --url and a member's token): the datasets its statements "
        "write become the project's inventory, seen by no other project (docs/catalog.md).",
    ),
    click.option(
        "--state",
        "state_path",
        type=click.Path(path_type=Path),
        default=None,
        help="Checkpoint file (default ~/.headwater/harvest/<source>-<digest>.json).",
    ),
    click.option("--follow", is_flag=True, help="Keep harvesting until interrupted (Ctrl-C / SIGTERM)."),
    click.option("--quiet", "-q", is_flag=True, help="No progress lines on stderr."),
]
_INTERVAL = click.option(
    "--interval",
    default=30.0,
    show_default=True,
    type=click.FloatRange(0.1),
    help="Seconds between passes with --follow.",
)
_SCHEMAS = click.option(
    "--schemas/--no-schemas",
    default=True,
    show_default=True,
    help="Resolve SELECT * and unqualified columns with the database's information_schema.",
)
_START_EVENTS = click.option(
    "--start-events/--no-start-events",
    default=True,
    show_default=True,
    help="A START event at each execution's real start (else only COMPLETE/FAIL, the start in the run facet: "
    "half the events).",
)


def _sink_options(f: Callable[..., Any]) -> Callable[..., Any]:
    for option in reversed(_SINKS):
        f = option(f)
    return f


def _state(path: Path | None, kind: str, *identity: str) -> Path:
    if path is not None:
        return path
    digest = hashlib.sha256("\n".join(identity).encode()).hexdigest()[:12]
    return Path.home() / ".headwater" / "harvest" / f"{kind}-{digest}.json"


def _since(value: str | None) -> datetime | None:
    if not value:
        return None
    from headwater.harvest.core import parse_time

    try:
        return parse_time(value)
    except ValueError:
        raise click.BadParameter(f"{value!r} is not a time (2026-11-24T10:00:00Z)", param_hint="--since") from None


class _Stop:
    """SIGINT/SIGTERM end a --follow harvest after the pass under way (its events sent, its checkpoint saved)."""

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


def _client(url: str | None, store: str | None, token: str | None, project: str | None) -> Any:
    from headwater.client import open_client

    if url and store:
        raise click.UsageError("give --url or --store, not both")
    try:
        return open_client(url=url, database=store, token=token, project=project)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None


def _progress(kind: str, quiet: bool) -> Callable[[Any], None] | None:
    if quiet:
        return None
    return lambda summary: click.echo(f"harvest {kind}: {summary.lines()[0]}", err=True)


def _harvest_db(
    kind: str,
    *,
    dsn: str,
    dialect: str,
    url: str | None,
    store: str | None,
    token: str | None,
    project: str | None,
    state_path: Path,
    follow: bool,
    interval: float,
    quiet: bool,
    schemas: bool,
    once: Callable[[Any, Any, Any], Callable[[], None] | None],
    needs_connection: bool = True,
    start_events: bool = True,
) -> None:
    """The loop every query-history harvester shares: read, send, then save the checkpoint; repeat with --follow."""
    from headwater.client import SendError
    from headwater.harvest.checkpoint import Checkpoint
    from headwater.harvest.core import Harvester
    from headwater.harvest.schemas import DatabaseError, connect, database_provider
    from headwater.model.naming import database_namespace

    namespace, _db = database_namespace(dsn)
    try:
        checkpoint = Checkpoint(state_path)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    stop = _Stop() if follow else None
    status = 0
    conn = None
    with _client(url, store, token, project) as client:
        try:
            conn = connect(dsn) if needs_connection else None
            providers = [database_provider(dsn, conn)] if schemas else []
            harvester = Harvester(
                client,
                source=kind,
                namespace=namespace,
                dialect=dialect,
                providers=providers,
                progress=_progress(kind, quiet),
                start_events=start_events,
            )
            while True:
                commit = once(conn, checkpoint, harvester)
                harvester.flush()
                if commit is not None:
                    commit()
                    checkpoint.save()
                if stop is None or stop():
                    break
                stop.sleep(interval)
                if stop():
                    break
        except DatabaseError as exc:
            click.echo(f"harvest {kind}: {exc}", err=True)
            status = 2
        except SendError as exc:
            click.echo(f"harvest {kind}: the events were not delivered: {exc}", err=True)
            status = 2
        finally:
            if conn is not None:
                conn.close()
        if "harvester" in locals():
            for line in harvester.summary.lines():
                click.echo(f"harvest {kind}: {line}" if not line.startswith(" ") else line, err=True)
    sys.exit(status)


@click.group("harvest")
def command() -> None:
    """Lineage from what databases executed (query history, server logs) and from OpenLineage events in logs."""


# --- postgres ------------------------------------------------------------------------------------------------------


@command.command("postgres")
@click.option(
    "--dsn",
    required=True,
    help="postgresql://user:password@host:port/database (the user needs "
    "pg_read_all_stats to see every statement's text)",
)
@click.option(
    "--csvlog",
    "csvlogs",
    multiple=True,
    type=click.Path(),
    help="Read the server's csvlog file(s) or log folder (its *.csv) instead of pg_stat_statements "
    "(real start/end times).",
)
@click.option("--since", default=None, help="Only executions that ended at or after this time (csvlog).")
@_INTERVAL
@_SCHEMAS
@_START_EVENTS
@_sink_options
def postgres_command(
    dsn: str,
    csvlogs: tuple[str, ...],
    since: str | None,
    interval: float,
    schemas: bool,
    start_events: bool,
    url: str | None,
    store: str | None,
    token: str | None,
    project: str | None,
    state_path: Path | None,
    follow: bool,
    quiet: bool,
) -> None:
    """Harvest the statements a PostgreSQL server executed: one job per distinct statement, a run per execution.

    Without --url or --store the events are printed as JSON lines. The checkpoint (--state) remembers what was
    harvested, so each execution is sent once. Exit status 2 when the database cannot be read or the events
    cannot be delivered.
    """
    from headwater.harvest import postgres

    when = _since(since)
    if csvlogs:
        log: postgres.CsvLog | None = None  # made on the first pass, with the checkpoint

        def once_csv(_conn: Any, checkpoint: Any, harvester: Any) -> Callable[[], None]:
            nonlocal log
            if log is None:
                log = postgres.CsvLog([str(Path(p).resolve()) for p in csvlogs], checkpoint, since=when)
            done = log.read(harvester, final=not follow)

            def commit() -> None:
                for reader, line in done:
                    reader.commit(line)
                for reader in log.readers.values():
                    reader.switch_if_replaced()

            return commit

        _harvest_db(
            "csvlog",
            dsn=dsn,
            dialect="postgres",
            url=url,
            store=store,
            token=token,
            project=project,
            state_path=_state(state_path, "csvlog", dsn.split("@")[-1], *sorted(csvlogs)),
            follow=follow,
            interval=min(interval, 2.0) if follow else interval,
            quiet=quiet,
            schemas=schemas,
            once=once_csv,
            needs_connection=False,
            start_events=start_events,
        )
        return
    if when is not None:
        click.echo("harvest postgres: --since is ignored with pg_stat_statements (it keeps no times)", err=True)

    def once(conn: Any, checkpoint: Any, harvester: Any) -> Callable[[], None]:
        section = postgres.read_statements(conn, checkpoint, harvester)

        def commit() -> None:
            checkpoint.data["pg_stat_statements"] = section

        return commit

    _harvest_db(
        "pg_stat_statements",
        dsn=dsn,
        dialect="postgres",
        url=url,
        store=store,
        token=token,
        project=project,
        state_path=_state(state_path, "postgres", dsn.split("@")[-1]),
        follow=follow,
        interval=interval,
        quiet=quiet,
        schemas=schemas,
        once=once,
    )


# --- mysql -----------------------------------------------------------------------------------------------------------


@command.command("mysql")
@click.option("--dsn", required=True, help="mysql://user:password@host:port/database (MariaDB or MySQL)")
@click.option(
    "--source",
    type=click.Choice(["auto", "performance_schema", "general_log"]),
    default="auto",
    show_default=True,
    help="Where executed statements are read (auto: the first one switched on).",
)
@click.option("--only-database", default=None, help="Harvest only statements run in this database.")
@click.option("--since", default=None, help="Only statements from this time on (first harvest).")
@_INTERVAL
@_SCHEMAS
@_START_EVENTS
@_sink_options
def mysql_command(
    dsn: str,
    source: str,
    only_database: str | None,
    since: str | None,
    interval: float,
    schemas: bool,
    start_events: bool,
    url: str | None,
    store: str | None,
    token: str | None,
    project: str | None,
    state_path: Path | None,
    follow: bool,
    quiet: bool,
) -> None:
    """Harvest the statements a MariaDB/MySQL server executed (performance_schema or the general log table)."""
    from headwater.harvest import mysql
    from headwater.harvest.schemas import DatabaseError
    from headwater.model.naming import database_namespace

    when = _since(since)
    _ns, default_db = database_namespace(dsn)
    chosen: dict[str, str | None] = {"source": None if source == "auto" else source}

    def once(conn: Any, checkpoint: Any, harvester: Any) -> Callable[[], None] | None:
        if chosen["source"] is None:
            found = mysql.available(conn)
            if not found:
                raise DatabaseError(
                    "neither performance_schema (events_statements_current + events_statements_history_long) nor the general "
                    "log table is on: SET GLOBAL log_output = 'TABLE'; SET GLOBAL general_log = ON "
                    "(see docs/sql.md)"
                )
            chosen["source"] = found[0]
        mysql.prepare(conn)
        name = chosen["source"] or "general_log"
        read = mysql.read_general_log if name == "general_log" else mysql.read_performance_schema
        sections: dict[str, Any] = {}
        while True:
            section = read(
                conn, checkpoint, harvester, default_database=default_db, only_database=only_database, since=when
            )
            if section is None:
                break
            sections[name] = section
            checkpoint.data[name] = section  # the next page starts after this one
            harvester.flush()
            checkpoint.save()
            if name == "performance_schema":
                break
        return None

    _harvest_db(
        "mysql",
        dsn=dsn,
        dialect="mysql",
        url=url,
        store=store,
        token=token,
        project=project,
        state_path=_state(state_path, "mysql", dsn.split("@")[-1], source),
        follow=follow,
        interval=interval,
        quiet=quiet,
        schemas=schemas,
        once=once,
        start_events=start_events,
    )


# --- redshift-export -------------------------------------------------------------------------------------------------


@command.command("redshift-export")
@click.argument("files", nargs=-1, required=True)
@click.option(
    "--texts", multiple=True, help="Export(s) of SYS_QUERY_TEXT: the whole text of statements over 4,000 characters."
)
@click.option(
    "--cluster",
    required=True,
    help="The cluster's endpoint, as dataset names use it: <cluster-id>.<region>[:port] or redshift://...",
)
@click.option("--default-database", default=None, help="Database of rows without database_name.")
@click.option("--since", default=None, help="Only queries that ended at or after this time.")
@_START_EVENTS
@_sink_options
def redshift_command(
    files: tuple[str, ...],
    texts: tuple[str, ...],
    cluster: str,
    default_database: str | None,
    since: str | None,
    start_events: bool,
    url: str | None,
    store: str | None,
    token: str | None,
    project: str | None,
    state_path: Path | None,
    follow: bool,
    quiet: bool,
) -> None:
    """Harvest an export of Redshift's SYS_QUERY_HISTORY (CSV, JSON lines, or aws redshift-data JSON).

    Every query maps to the same events on every harvest (run id from the query id and start time): harvesting the
    same export twice stores nothing twice.
    """
    from headwater.client import SendError
    from headwater.harvest.core import Harvester
    from headwater.harvest.redshift import ExportError, export_files, read_export, read_texts
    from headwater.model.naming import database_namespace

    if follow:
        raise click.UsageError("--follow does not apply to an export file")
    endpoint = cluster if "://" in cluster else f"redshift://{cluster}"
    namespace, _db = database_namespace(endpoint)
    when = _since(since)
    status = 0
    with _client(url, store, token, project) as client:
        harvester = Harvester(
            client,
            source="redshift",
            namespace=namespace,
            dialect="redshift",
            progress=_progress("redshift-export", quiet),
            start_events=start_events,
        )
        try:
            full = read_texts(export_files(list(texts)))
            for path in export_files(list(files)):
                read_export(path, harvester, texts=full, database=default_database, since=when)
            harvester.flush()
        except (ExportError, OSError, ValueError) as exc:
            click.echo(f"harvest redshift-export: {exc}", err=True)
            status = 2
        except SendError as exc:
            click.echo(f"harvest redshift-export: the events were not delivered: {exc}", err=True)
            status = 2
        for line in harvester.summary.lines():
            click.echo(f"harvest redshift-export: {line}" if not line.startswith(" ") else line, err=True)
    sys.exit(status)


# --- logs --------------------------------------------------------------------------------------------------------------


@command.command("logs")
@click.argument("paths", nargs=-1, required=True)
@click.option(
    "--interval",
    default=0.5,
    show_default=True,
    type=click.FloatRange(0.05),
    help="Seconds between looks at the files with --follow.",
)
@_sink_options
def logs_command(
    paths: tuple[str, ...],
    interval: float,
    url: str | None,
    store: str | None,
    token: str | None,
    project: str | None,
    state_path: Path | None,
    follow: bool,
    quiet: bool,
) -> None:
    """Find OpenLineage events in log files ('-': standard input) and send each once.

    Airflow task logs of the console transport, the file transport's JSON lines, any line holding a complete event
    (after a logger's prefix or inside a JSON envelope). A folder means every file below it (Airflow's log tree;
    with --follow, new files as they appear), and its default state file stays the same as files are added. The
    state file remembers how far each file was read (rotation and truncation safe). Exit status 1 when events were rejected, 2 when they could not be delivered.
    """
    from headwater.client import SendError
    from headwater.harvest.checkpoint import Checkpoint
    from headwater.harvest.logs import LogHarvester

    files = [p if p == "-" else str(Path(p).resolve()) for p in paths]
    for p in files:
        if p != "-" and not Path(p).is_file() and not Path(p).is_dir() and not follow:
            raise click.BadParameter(f"{p} is not a file or a folder", param_hint="PATH")
    try:
        checkpoint = Checkpoint(_state(state_path, "logs", *sorted(files)) if [p for p in files if p != "-"] else None)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    stop = _Stop() if follow else None
    status = 0
    with _client(url, store, token, project) as client:
        progress = None if quiet else (lambda s: click.echo(f"harvest logs: {s.text()[0]}", err=True))
        harvester = LogHarvester(client, checkpoint, progress=progress)
        try:
            harvester.run(files, follow=follow, interval=interval, stop=stop or (lambda: True))
        except SendError as exc:
            click.echo(f"harvest logs: the events were not delivered: {exc}", err=True)
            status = 2
    summary = harvester.summary
    for line in summary.text():
        click.echo(f"harvest logs: {line}" if not line.startswith(" ") else line, err=True)
    if status == 0 and summary.rejected:
        status = 1
    sys.exit(status)
