"""``headwater impact check``: what a pull request's changes would break downstream (docs/impact.md).

Reads what a pull request holds into proposed changes (:mod:`headwater.model.changes`): SQL files (DDL and
changed scripts, through the SQL engine: :mod:`headwater.sql.changes`), two dbt manifests
(:mod:`headwater.cli._dbt_changes`), new schema files (:mod:`headwater.crawl.schemafile`) and change
documents (JSON, the API's shape); asks a Headwater server (``POST /api/v1/impact/check``, a read token
suffices) or an embedded store (``--db``) what they affect; prints the report as a table, Markdown (a
pull-request comment) or JSON. Exit status: 0 nothing at or above ``--fail-on``, 1 something is, 2 the
check could not run (bad usage, an unreadable file, the server unreachable or refusing).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import click

if TYPE_CHECKING:
    from headwater.graph.impactcheck import ImpactReport
    from headwater.model.changes import Change

_USAGE = 2


def _fail(message: str) -> NoReturn:
    click.echo(f"headwater impact check: {message}", err=True)
    sys.exit(_USAGE)


@click.group("impact")
def command() -> None:
    """Impact analysis for CI: what proposed changes would break downstream."""


def _dataset_arg(text: str) -> tuple[str, str]:
    """``dataset:<namespace>:<name>`` → (namespace, name)."""
    from headwater.model.nodeid import InvalidNodeId, parse_dataset_id

    try:
        ref = parse_dataset_id(text)
    except InvalidNodeId as exc:
        raise click.BadParameter(str(exc), param_hint="--schema") from None
    return ref.namespace, ref.name


def gather(
    *,
    sql_files: Sequence[str],
    dialect: str,
    namespace: str | None,
    default_database: str | None,
    default_schema: str | None,
    job: str | None,
    dbt: tuple[str, str] | None,
    schemas: Sequence[str],
    change_files: Sequence[str],
    url: str | None,
    token: str | None,
) -> list[Change]:
    """Every change the inputs propose, in the order given; ValueError naming the input that is wrong."""
    from headwater.cli._dbt_changes import manifest_changes
    from headwater.crawl.schemafile import read_schema_file
    from headwater.model.changes import NEW_SCHEMA, Change, changes_from_json

    changes: list[Change] = []
    if (sql_files or dbt) and not namespace:
        raise ValueError("--namespace is required with --sql and --dbt-before/--dbt-after (e.g. postgres://db:5432)")
    if sql_files:
        from headwater.sql import Catalog, get_dialect
        from headwater.sql.changes import script_changes

        d = get_dialect(dialect)
        providers = []
        if url:
            from headwater.client import dataset_fields

            def served(ns: str, name: str) -> list[tuple[str, str | None]] | None:
                return dataset_fields(str(url), ns, name, token=token)

            providers.append(served)
        catalog = Catalog(providers, namespace=str(namespace))
        for file in sql_files:
            text = sys.stdin.read() if file == "-" else Path(file).read_text(encoding="utf-8")
            changes += script_changes(
                text, dialect=d, namespace=str(namespace), default_database=default_database,
                default_schema=default_schema, catalog=catalog, job=job, origin=file,
            )  # fmt: skip
    if dbt:
        changes += manifest_changes(dbt[0], dbt[1], str(namespace))
    for spec in schemas:
        dataset, sep, file = spec.rpartition("=")
        if not sep:
            raise ValueError(f"--schema {spec!r}: give DATASET=FILE (dataset:<namespace>:<name>=path)")
        ns, name = _dataset_arg(dataset)
        changes.append(Change(NEW_SCHEMA, ns, name, fields=read_schema_file(file), origin=file))
    for file in change_files:
        doc = json.loads(Path(file).read_text(encoding="utf-8"))
        changes += changes_from_json(doc.get("changes") if isinstance(doc, dict) else doc, file)
    return changes


def run_check(
    changes: Sequence[Change],
    *,
    url: str | None,
    db: str | None,
    token: str | None,
    at: datetime | None,
    depth: int,
) -> ImpactReport:
    """The report, from the server at ``url`` or the store at ``db``; RuntimeError when it cannot be had."""
    from headwater.graph.impactcheck import report_from_json

    if url:
        import httpx

        body = {"changes": [c.to_json() for c in changes], "depth": depth}
        if at is not None:
            body["at"] = at.isoformat()
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        try:
            answer = httpx.post(f"{url.rstrip('/')}/api/v1/impact/check", json=body, headers=headers, timeout=120)
        except httpx.HTTPError as exc:
            raise RuntimeError(f"cannot reach {url}: {exc}") from None
        if answer.status_code != 200:
            raise RuntimeError(f"{url} answered {answer.status_code}: {answer.text[:2000]}")
        return report_from_json(answer.json())
    from headwater.graph import GraphReader
    from headwater.graph.classify import Policy
    from headwater.settings import load_settings
    from headwater.store import Store

    settings = load_settings({"db": db})
    policy = Policy.from_settings(str(settings.classify_rules), str(settings.classify_aggregation_stops))
    store = Store.open(settings.db_url)
    try:
        return GraphReader(store).impact_check(changes, at=at, depth=depth, policy=policy)
    finally:
        store.close()


@command.command("check")
@click.argument("files", nargs=-1)
@click.option("--sql", "sql_files", multiple=True, help="A SQL file: DDL and changed scripts (repeatable; '-': stdin)")
@click.option("--dialect", default="ansi", show_default=True, help="The SQL dialect (as headwater sql lineage)")
@click.option("--namespace", default=None, help="Dataset namespace of the SQL and dbt inputs, e.g. postgres://db:5432")
@click.option("--default-database", default=None, help="The database unqualified table names are in")
@click.option("--default-schema", default=None, help="The schema unqualified table names are in")
@click.option("--job", default=None, help="The graph's job a changed script is (job:<ns>:<name>); default: the writers")
@click.option("--dbt-before", default=None, help="dbt manifest.json of the base branch")
@click.option("--dbt-after", default=None, help="dbt manifest.json of the pull request")
@click.option("--schema", "schemas", multiple=True, help="DATASET=FILE: a dataset's new schema (Parquet, Avro, JSON)")
@click.option("--changes", "change_files", multiple=True, help="A JSON file of changes (the API's shape; repeatable)")
@click.option("--url", default=None, envvar="HEADWATER_URL", help="The Headwater server to ask")
@click.option("--db", default=None, help="Ask this store instead (sqlite:///path or postgresql://...)")
@click.option("--token", default=None, envvar="HEADWATER_TOKEN", help="Bearer token for --url (a read token does)")
@click.option("--at", "at_text", default=None, help="Check against the graph as of this moment (ISO 8601)")
@click.option("--depth", default=20, show_default=True, type=click.IntRange(1, 100), help="Column hops to follow")
@click.option("--format", "fmt", type=click.Choice(["table", "markdown", "json"]), default="table", show_default=True)
@click.option("--output", default=None, help="Also write the report in --format to this file (e.g. a PR comment)")
@click.option(
    "--fail-on", type=click.Choice(["breaking", "warning", "info"]), default="breaking", show_default=True,
    help="Exit 1 when anything is this severe or worse",
)  # fmt: skip
def check_command(
    files: tuple[str, ...],
    sql_files: tuple[str, ...],
    dialect: str,
    namespace: str | None,
    default_database: str | None,
    default_schema: str | None,
    job: str | None,
    dbt_before: str | None,
    dbt_after: str | None,
    schemas: tuple[str, ...],
    change_files: tuple[str, ...],
    url: str | None,
    db: str | None,
    token: str | None,
    at_text: str | None,
    depth: int,
    fmt: str,
    output: str | None,
    fail_on: str,
) -> None:
    """Check what the changes of a pull request would affect downstream; exit 1 when something breaks.

    FILES are SQL files, as --sql (so a pre-commit hook can hand over the staged files)."""
    from headwater.cli._impact_render import as_json, markdown, table
    from headwater.graph.impactcheck import at_least
    from headwater.model.times import InvalidTime, parse_time

    if url and db:
        _fail("give a server (--url) or a store (--db), not both")
    if bool(dbt_before) != bool(dbt_after):
        _fail("--dbt-before and --dbt-after go together")
    at = None
    if at_text:
        try:
            at = parse_time(at_text)
        except InvalidTime as exc:
            _fail(f"--at: {exc}")
    try:
        changes = gather(
            sql_files=(*files, *sql_files), dialect=dialect, namespace=namespace, default_database=default_database,
            default_schema=default_schema, job=job,
            dbt=(dbt_before, dbt_after) if dbt_before and dbt_after else None, schemas=schemas,
            change_files=change_files, url=url, token=token,
        )  # fmt: skip
    except (ValueError, OSError) as exc:
        _fail(str(exc))
    if not changes:
        _fail("no changes to check: give --sql, --dbt-before/--dbt-after, --schema or --changes")
    try:
        report = run_check(changes, url=url, db=db, token=token, at=at, depth=depth)
    except (RuntimeError, ValueError) as exc:
        _fail(str(exc))
    text = {"table": table, "markdown": markdown, "json": as_json}[fmt](report)
    click.echo(text, nl=not text.endswith("\n"))
    if output:
        Path(output).write_text(text, encoding="utf-8")
    sys.exit(1 if report.severity != "none" and at_least(report.severity, fail_on) else 0)
