"""``headwater crawl SOURCE``: catalog the tables of a folder, an fsspec URL or a database."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import click

from headwater.client import SendError, open_client
from headwater.crawl import CrawlResult, Limits, crawl, crawl_every, parse_interval
from headwater.model.jsontypes import JSONObject

_DEFAULTS = Limits()
# the whole-number options: (flag, default, smallest value, help)
_NUMBERS = (
    ("--table-level", 1, 0, "Folder depth below SOURCE that makes a table (deeper folders are partitions)."),
    ("--sample-bytes", _DEFAULTS.sample_bytes, 1024, "CSV/JSON: bytes read per file for inference."),
    ("--sample-rows", _DEFAULTS.sample_rows, 1, "CSV/JSON: rows inferred from per file."),
    ("--files-per-table", _DEFAULTS.files_per_table, 1, "New or changed files read per table and crawl."),
)


def _numbers(f: Callable[..., None]) -> Callable[..., None]:
    for flag, default, smallest, text in reversed(_NUMBERS):
        f = click.option(flag, default=default, show_default=True, type=click.IntRange(smallest), help=text)(f)
    return f


def _report(result: CrawlResult) -> None:
    s = result.summary
    click.echo(
        f"crawl {result.run_id} ({result.job}): {len(s.added)} added, {len(s.updated)} updated, "
        f"{len(s.unchanged)} unchanged, {len(s.removed)} removed, {len(s.failures)} skipped"
    )
    for item in s.failures:
        click.echo(f"  skipped {item.path}: {item.reason}", err=True)
    if result.error:
        click.echo(f"  failed: {result.error}", err=True)


def storage_options(pairs: tuple[str, ...]) -> JSONObject:
    """``key=value`` pairs → fsspec storage options; a value that reads as JSON (``true``, ``8``,
    ``{"region_name": "eu-west-1"}``) is taken as such, anything else as text."""
    options: JSONObject = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"{pair!r} is not key=value", param_hint="--storage-option")
        try:
            options[key.strip()] = json.loads(value)
        except ValueError:
            options[key.strip()] = value
    return options


@click.command("crawl")
@click.argument("source")
@click.option("--name", default=None, help="The crawler's job name (default: crawl:<source>).")
@click.option("--url", default=None, help="Headwater server to send the events to (http://host:port).")
@click.option(
    "--store",
    "store",
    default=None,
    help="Append to this store instead (sqlite:///path or postgresql://...), embedded.",
)
@click.option("--token", envvar="HEADWATER_TOKEN", default=None, help="Bearer token for --url (HEADWATER_TOKEN).")
@click.option(
    "--project",
    default=None,
    help="Catalog project the tables are crawled for (with --url and a member's token): they become its "
    "inventory assets, seen by no other project (docs/catalog.md).",
)
@click.option(
    "--database",
    "catalog_database",
    default="default",
    show_default=True,
    help="Catalog database the tables are registered in (catalog names <database>.<table>).",
)
@click.option("--every", default=None, help="Crawl again on this interval (30s, 15m, 1h) until interrupted.")
@click.option(
    "--state",
    "state_path",
    type=click.Path(path_type=Path),
    default=None,
    help="Re-crawl state file (default ~/.headwater/crawl/<crawler>.json).",
)
@click.option("--schema", "schemas", multiple=True, help="Database schemas to crawl (default: all but system).")
@click.option(
    "--storage-option",
    multiple=True,
    metavar="KEY=VALUE",
    help="fsspec option for a URL SOURCE, repeatable (s3fs: endpoint_url=http://..., anon=true, key=...).",
)
@_numbers
def command(
    source: str,
    name: str | None,
    url: str | None,
    store: str | None,
    token: str | None,
    project: str | None,
    catalog_database: str,
    every: str | None,
    state_path: Path | None,
    table_level: int,
    schemas: tuple[str, ...],
    storage_option: tuple[str, ...],
    sample_bytes: int,
    sample_rows: int,
    files_per_table: int,
) -> None:
    """Crawl SOURCE (a folder, s3://..., gs://..., or a database URL) and send its tables as lineage.

    Without --url or --store the events are printed as JSON lines. Exit status: 0 when nothing
    failed, 1 when files or schemas were skipped for a problem (reported), 2 when the crawl or the
    delivery of its events failed.
    """
    if url and store:
        raise click.UsageError("give --url or --store, not both")
    if project and not url:
        raise click.UsageError("--project needs --url: the server binds the crawl to the project")
    options = storage_options(storage_option)
    limits = Limits(sample_bytes=sample_bytes, sample_rows=sample_rows, files_per_table=files_per_table)
    status = {"worst": 0}

    def once() -> CrawlResult | None:
        from headwater.sql import view_lineage  # views' column lineage, read by the SQL lineage engine

        try:
            with open_client(url=url, database=store, token=token, project=project) as client:
                return crawl(
                    source,
                    client,
                    name=name,
                    catalog_database=catalog_database,
                    state_path=state_path,
                    limits=limits,
                    table_level=table_level,
                    schemas=schemas or None,
                    storage_options=options or None,
                    view_lineage=view_lineage,
                )
        except SendError as exc:
            click.echo(f"crawl of {source}: the events were not delivered: {exc}", err=True)
            status["worst"] = 2
            return None
        except ValueError as exc:
            raise click.ClickException(str(exc)) from None

    def record(result: CrawlResult | None) -> None:
        if result is None:
            return
        if url or store:
            _report(result)
        else:
            s = result.summary
            click.echo(
                f"# {len(s.added)} added, {len(s.updated)} updated, {len(s.unchanged)} unchanged, "
                f"{len(s.removed)} removed, {len(s.failures)} skipped",
                err=True,
            )
        status["worst"] = max(status["worst"], 2 if result.error else 0 if result.ok else 1)

    if every:
        try:
            interval = parse_interval(every)
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--every") from None
        crawl_every(interval, once, record)
    else:
        record(once())
    sys.exit(status["worst"])
