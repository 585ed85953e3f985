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
@click.option("--db", "db", default=None, help="Store URL (sqlite:///path or postgresql://...). Default: HEADWATER_DB or the data dir.")
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
@click.option("--db", "db", default=None, help="Store URL (sqlite:///path or postgresql://...). Default: HEADWATER_DB or the data dir.")
def rebuild_command(db: str | None) -> None:
    """Re-derive the whole lineage graph from the event log."""
    try:
        store = Store.open(_url(db))
    except InvalidStoreUrl as exc:
        raise click.UsageError(str(exc)) from None
    with store:
        count = store.rebuild()
    click.echo(f"graph rebuilt from {count} events")
