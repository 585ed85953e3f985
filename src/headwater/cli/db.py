"""``headwater db``: migrate the store and re-derive the graph from the event log."""

from __future__ import annotations

import click

from headwater.settings import load_settings
from headwater.store import InvalidStoreUrl, Store
from headwater.store.engine import create_store_engine
from headwater.store.migrate import current_revision, head_revision, upgrade


def _url(db: str | None) -> str:
    return load_settings({"db": db}).db_url


@click.group("db")
def command() -> None:
    """Manage the store: schema migrations and graph rebuilds."""


@command.command("upgrade")
@click.option(
    "--db",
    "db",
    default=None,
    help="Store URL (sqlite:///path or postgresql://...). Default: HEADWATER_DB or the data dir.",
)
def upgrade_command(db: str | None) -> None:
    """Migrate the store's schema to the newest version."""
    url = _url(db)
    try:
        engine = create_store_engine(url)
    except InvalidStoreUrl as exc:
        raise click.UsageError(str(exc)) from None
    try:
        before = current_revision(engine)
        upgrade(engine)
        after = current_revision(engine)
    finally:
        engine.dispose()
    if before == after:
        click.echo(f"store is at the newest schema ({after})")
    else:
        click.echo(f"store migrated from {before or 'empty'} to {after} (newest: {head_revision()})")


@command.command("rebuild")
@click.option(
    "--db",
    "db",
    default=None,
    help="Store URL (sqlite:///path or postgresql://...). Default: HEADWATER_DB or the data dir.",
)
def rebuild_command(db: str | None) -> None:
    """Re-derive the whole lineage graph from the event log."""
    try:
        store = Store.open(_url(db))
    except InvalidStoreUrl as exc:
        raise click.UsageError(str(exc)) from None
    with store:
        count = store.rebuild()
    click.echo(f"graph rebuilt from {count} events")


@command.command("retry-failed")
@click.option(
    "--db",
    "db",
    default=None,
    help="Store URL (sqlite:///path or postgresql://...). Default: HEADWATER_DB or the data dir.",
)
def retry_failed_command(db: str | None) -> None:
    """Derive again the events the projector recorded as failed (after upgrading to a fixed version).

    The events stay in the log either way; GET /api/v1/status lists the ones still failing.
    Exits with code 1 when some still fail.
    """
    try:
        store = Store.open(_url(db), retry_failed=False)
    except InvalidStoreUrl as exc:
        raise click.UsageError(str(exc)) from None
    with store:
        store.catch_up()
        fixed, still = store.retry_failed()
    click.echo(f"{fixed} failed event(s) derived now; {len(still)} still failing")
    for failed in still[:20]:
        click.echo(f"  event {failed['id']} (seq {failed['seq']}): {failed['error'][:300]}")
    if still:
        raise SystemExit(1)


@command.command("status")
@click.option(
    "--db",
    "db",
    default=None,
    help="Store URL (sqlite:///path or postgresql://...). Default: HEADWATER_DB or the data dir.",
)
def status_command(db: str | None) -> None:
    """Projection lag and the events that could not be derived (what GET /api/v1/status answers)."""
    try:
        store = Store.open(_url(db), retry_failed=False)
    except InvalidStoreUrl as exc:
        raise click.UsageError(str(exc)) from None
    with store:
        health = store.projection_status()
    click.echo(
        f"log position {health.position.log}, graph position {health.position.graph} "
        f"({health.position.behind} behind); {health.failed} event(s) failed to derive"
    )
    for failed in health.failed_events[:20]:
        click.echo(f"  event {failed['id']} (seq {failed['seq']}): {failed['error'][:300]}")
