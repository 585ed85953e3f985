"""``headwater sql lineage``: OpenLineage events (table and column lineage) from SQL scripts."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from headwater.sql import Provider


class _Printer:
    """One JSON line per event on stdout (``headwater.client.PrintClient``'s format, without importing httpx)."""

    def __enter__(self) -> _Printer:
        return self

    def __exit__(self, *exc: object) -> None:
        sys.stdout.flush()

    def send(self, events: Sequence[dict[str, Any]]) -> None:
        for event in events:
            sys.stdout.write(json.dumps(event, ensure_ascii=False) + "\n")
        sys.stdout.flush()


@click.group("sql")
def command() -> None:
    """SQL lineage: table and column lineage from SQL text."""


def _served(url: str, token: str | None) -> Provider:
    """The schemas a Headwater server knows, as a provider."""
    from headwater.client import dataset_fields

    def provider(namespace: str, name: str) -> Sequence[tuple[str, str | None]] | None:
        return dataset_fields(url, namespace, name, token=token)

    return provider


def _providers(schema_from: tuple[str, ...], token: str | None) -> tuple[list[Provider], dict[str, list[Any]]]:
    """``--schema-from``: a Headwater URL (its graph's schemas), a database URL (its information_schema), or a
    JSON file ``{"dataset name": ["col", ...] | [{"name":..., "type":...}]}``."""

    providers: list[Provider] = []
    tables: dict[str, list[Any]] = {}  # dataset name → column names or (name, type) pairs
    for source in schema_from:
        if source.startswith(("http://", "https://")):
            providers.append(_served(source, token))
        elif "://" in source:
            from headwater.harvest.schemas import database_provider

            providers.append(database_provider(source))
        else:
            doc = json.loads(Path(source).read_text())
            for name, cols in doc.items():
                tables[name] = [c if isinstance(c, str) else (c["name"], c.get("type")) for c in cols]
    return providers, tables


def _send(client: Any, events: list[dict[str, Any]]) -> int:
    """Sends ``events``: how many were sent."""
    if not events:
        return 0
    try:
        client.send(events)
    except Exception as exc:
        from headwater.client import SendError

        if isinstance(exc, SendError):
            raise click.ClickException(str(exc)) from None
        raise
    return len(events)


@command.command("lineage")
@click.argument("files", nargs=-1, required=True)
@click.option(
    "--dialect",
    default="ansi",
    show_default=True,
    help="ansi, postgres, redshift, mysql, mariadb, spark, hive, databricks, bigquery, snowflake, tsql, "
    "oracle, trino, duckdb, sqlite, teradata or any other sqlglot dialect (an unknown name: ansi, with a warning)",
)
@click.option(
    "--namespace",
    default=None,
    help="Dataset namespace, e.g. postgres://db.example:5432 (default: the dialect's system name)",
)
@click.option("--default-database", default=None, help="The database unqualified table names are in")
@click.option(
    "--default-schema",
    default=None,
    help="The schema unqualified table names are in (default: public for postgres/redshift, dbo for tsql)",
)
@click.option(
    "--schema-from",
    "schema_from",
    multiple=True,
    help="Where table schemas come from: a Headwater URL, a database URL, or a JSON file (repeatable)",
)
@click.option("--job-namespace", default=None, help="Job namespace (default: the dataset namespace)")
@click.option("--url", default=None, help="Post the events to this Headwater server instead of printing them")
@click.option("--token", default=None, envvar="HEADWATER_TOKEN", help="Bearer token for --url")
@click.option(
    "--project",
    default=None,
    help="Catalog project the events are sent for (with --url and a member's token): the tables the statements "
    "write become its inventory (docs/catalog.md).",
)
def lineage_command(
    files: tuple[str, ...],
    dialect: str,
    namespace: str | None,
    default_database: str | None,
    default_schema: str | None,
    schema_from: tuple[str, ...],
    job_namespace: str | None,
    url: str | None,
    token: str | None,
    project: str | None,
) -> None:
    """Print one OpenLineage event (JSON, COMPLETE) per statement that writes, in order; '-' reads stdin.

    Statements that cannot be read are reported on stderr (file, statement number, position), get an event with
    an extractionError facet, and make the exit status 2; the other statements are still processed.
    """
    from headwater.sql import Catalog, get_dialect, stream_events

    d = get_dialect(dialect)
    if d.warning:  # an unknown name is read as ANSI, said once
        click.echo(f"warning: {d.warning}", err=True)
    ns = namespace or d.system
    providers, tables = _providers(schema_from, token)
    catalog = Catalog(providers, tables, namespace=ns)
    failed = 0
    client: Any = _Printer()  # without --url: JSON lines, as the client's printer writes them
    if url or project:  # the HTTP client (httpx) only when events are sent: a one-statement call stays fast
        from headwater.client import open_client

        try:
            client = open_client(url=url, token=token, project=project)
        except ValueError as exc:
            raise click.UsageError(str(exc)) from None
    # events go out as the script is read (printed one by one, sent in batches): a long script is never all in
    # memory, records, trees and events
    batch = 1 if url is None and project is None else 500
    with client:
        for file in files:
            text = sys.stdin.read() if file == "-" else Path(file).read_text()
            pending: list[dict[str, Any]] = []
            sent = 0
            streamed = stream_events(
                text,
                dialect=d,
                namespace=ns,
                default_database=default_database,
                default_schema=default_schema,
                catalog=catalog,
                job_namespace=job_namespace,
            )
            for r, event in streamed:
                where = f"{file}: statement {r.statement.index + 1} (line {r.statement.line}, column {r.statement.col})"
                if r.skipped:  # not a failure, but never silent
                    click.echo(f"{where}: {r.skipped}", err=True)
                if r.error:
                    failed += 1
                    click.echo(f"{where}: {r.error}", err=True)
                if event is not None:
                    pending.append(event)
                if len(pending) >= batch:
                    sent += _send(client, pending)
                    pending = []
            sent += _send(client, pending)
            if url:
                click.echo(f"{file}: {sent} events sent to {url}", err=True)
    if failed:
        sys.exit(2)
