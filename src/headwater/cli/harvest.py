"""``headwater harvest``: lineage from what databases executed (query history, logs) and from log files."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from dataclasses import dataclass, fields
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

import click

from headwater.harvest.loop import state_file

if TYPE_CHECKING:
    from headwater.client import LineageClient
    from headwater.harvest.checkpoint import Checkpoint
    from headwater.harvest.loop import Outcome, StatementReader

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


@dataclass(frozen=True)
class _Sink:
    """Where the events go and how the harvest runs (the options every subcommand shares)."""

    url: str | None
    store: str | None
    token: str | None
    project: str | None
    state_path: Path | None
    follow: bool
    quiet: bool


@dataclass(frozen=True)
class _Analysis:
    """How executions become events (the query-history subcommands' options)."""

    interval: float = 30.0
    schemas: bool = True
    start_events: bool = True


def _sink_options(f: Callable[..., None]) -> Callable[..., None]:
    """The shared options, handed to the command as one ``sink`` (and ``analysis`` when it takes them)."""
    names = [field.name for field in fields(_Sink)]

    @functools.wraps(f)
    def command(**kwargs: object) -> None:
        sink = _Sink(**{name: kwargs.pop(name) for name in names})  # type: ignore[arg-type]
        if "schemas" in kwargs or "start_events" in kwargs:
            given = {k: kwargs.pop(k) for k in ("interval", "schemas", "start_events") if k in kwargs}
            kwargs["analysis"] = _Analysis(**given)  # type: ignore[arg-type]
        f(sink=sink, **kwargs)

    for option in reversed(_SINKS):
        command = option(command)
    return command


def _since(value: str | None) -> datetime | None:
    if not value:
        return None
    from headwater.harvest.core import parse_time

    try:
        return parse_time(value)
    except ValueError:
        raise click.BadParameter(f"{value!r} is not a time (2026-11-24T10:00:00Z)", param_hint="--since") from None


def _client(sink: _Sink) -> LineageClient:
    from headwater.client import open_client

    if sink.url and sink.store:
        raise click.UsageError("give --url or --store, not both")
    try:
        return open_client(url=sink.url, database=sink.store, token=sink.token, project=sink.project)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None


def _checkpoint(path: Path | None) -> Checkpoint:
    from headwater.harvest.checkpoint import Checkpoint

    try:
        return Checkpoint(path)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None


def _progress(name: str, quiet: bool) -> Callable[[str], None] | None:
    return None if quiet else (lambda line: click.echo(f"harvest {name}: {line}", err=True))


def _report(name: str, outcome: Outcome) -> None:
    """The outcome on stderr, then exit with its status."""
    if outcome.problem is not None:
        click.echo(f"harvest {name}: {outcome.problem}", err=True)
    for line in outcome.summary:
        click.echo(f"harvest {name}: {line}" if not line.startswith(" ") else line, err=True)
    sys.exit(outcome.status)


def _harvest_queries(
    reader: StatementReader,
    *,
    namespace: str,
    dsn: str | None,
    sink: _Sink,
    state: Path | None,
    analysis: _Analysis,
    interval: float | None = None,
) -> None:
    from headwater.harvest.loop import QueryHistory, Stop, run

    checkpoint = _checkpoint(state)
    stop = Stop() if sink.follow else None
    with _client(sink) as client:
        source = QueryHistory(
            reader,
            client,
            namespace=namespace,
            checkpoint=checkpoint,
            dsn=dsn,
            schemas=analysis.schemas,
            start_events=analysis.start_events,
            progress=_progress(reader.name, sink.quiet),
        )
        outcome = run(source, follow=sink.follow, interval=interval or analysis.interval, stop=stop)
    _report(reader.name, outcome)


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
    analysis: _Analysis,
    sink: _Sink,
) -> None:
    """Harvest the statements a PostgreSQL server executed: one job per distinct statement, a run per execution.

    Without --url or --store the events are printed as JSON lines. The checkpoint (--state) remembers what was
    harvested, so each execution is sent once. Exit status 2 when the database cannot be read or the events
    cannot be delivered.
    """
    from headwater.harvest import postgres
    from headwater.model.naming import database_namespace

    when = _since(since)
    namespace, _db = database_namespace(dsn)
    server = dsn.split("@")[-1]
    if csvlogs:
        reader = postgres.CsvLogReader([str(Path(p).resolve()) for p in csvlogs], since=when)
        state = state_file(sink.state_path, "csvlog", server, *sorted(csvlogs))
        interval = min(analysis.interval, 2.0) if sink.follow else analysis.interval  # a log is looked at often
        _harvest_queries(
            reader, namespace=namespace, dsn=dsn, sink=sink, state=state, analysis=analysis, interval=interval
        )
        return
    if when is not None:
        click.echo("harvest postgres: --since is ignored with pg_stat_statements (it keeps no times)", err=True)
    state = state_file(sink.state_path, "postgres", server)
    _harvest_queries(postgres.StatStatements(), namespace=namespace, dsn=dsn, sink=sink, state=state, analysis=analysis)


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
    analysis: _Analysis,
    sink: _Sink,
) -> None:
    """Harvest the statements a MariaDB/MySQL server executed (performance_schema or the general log table)."""
    from headwater.harvest import mysql
    from headwater.model.naming import database_namespace

    namespace, default_db = database_namespace(dsn)
    reader = mysql.History(source, mysql.Scope(default_db, only_database, _since(since)))
    state = state_file(sink.state_path, "mysql", dsn.split("@")[-1], source)
    _harvest_queries(reader, namespace=namespace, dsn=dsn, sink=sink, state=state, analysis=analysis)


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
    analysis: _Analysis,
    sink: _Sink,
) -> None:
    """Harvest an export of Redshift's SYS_QUERY_HISTORY (CSV, JSON lines, or aws redshift-data JSON).

    Every query maps to the same events on every harvest (run id from the query id and start time): harvesting the
    same export twice stores nothing twice.
    """
    from headwater.harvest.redshift import Export
    from headwater.model.naming import database_namespace

    if sink.follow:
        raise click.UsageError("--follow does not apply to an export file")
    endpoint = cluster if "://" in cluster else f"redshift://{cluster}"
    namespace, _db = database_namespace(endpoint)
    reader = Export(list(files), texts=list(texts), default_database=default_database, since=_since(since))
    # the same query always maps to the same events: no state to remember
    _harvest_queries(reader, namespace=namespace, dsn=None, sink=sink, state=None, analysis=analysis)


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
    sink: _Sink,
) -> None:
    """Find OpenLineage events in log files ('-': standard input) and send each once.

    Airflow task logs of the console transport, the file transport's JSON lines, any line holding a complete event
    (after a logger's prefix or inside a JSON envelope). A folder means every file below it (Airflow's log tree;
    with --follow, new files as they appear), and its default state file stays the same as files are added. The
    state file remembers how far each file was read (rotation and truncation safe). Exit status 1 when events were rejected, 2 when they could not be delivered.
    """
    from headwater.harvest.logs import LogFiles
    from headwater.harvest.loop import Stop, run

    files = [p if p == "-" else str(Path(p).resolve()) for p in paths]
    for p in files:
        if p != "-" and not Path(p).is_file() and not Path(p).is_dir() and not sink.follow:
            raise click.BadParameter(f"{p} is not a file or a folder", param_hint="PATH")
    named = [p for p in files if p != "-"]
    checkpoint = _checkpoint(state_file(sink.state_path, "logs", *sorted(files)) if named else None)
    stop = Stop() if sink.follow else None
    with _client(sink) as client:
        source = LogFiles(files, client, checkpoint, progress=_progress("logs", sink.quiet))
        outcome = run(source, follow=sink.follow, interval=interval, stop=stop)
    _report("logs", outcome)
