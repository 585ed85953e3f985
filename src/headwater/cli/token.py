"""``headwater token``: create, list and revoke the server's managed tokens (catalog/tokens.py) — on the store's
database, so every server on it honours a change at its next request, without a restart."""

from __future__ import annotations

import json
import os
import re
from datetime import timedelta

import click
import sqlalchemy as sa

from headwater.catalog.errors import CatalogError
from headwater.catalog.tokens import create_token, list_tokens, revoke_token, writing
from headwater.model.times import InvalidTime, iso, now_micros, parse_time, to_micros
from headwater.settings import load_settings
from headwater.store import InvalidStoreUrl
from headwater.store.engine import create_store_engine
from headwater.store.migrate import upgrade

_DB_HELP = "Store URL (sqlite:///path or postgresql://...). Default: HEADWATER_DB or the data dir."
_DURATION = re.compile(r"^(\d{1,6})([hdw])$")
_UNITS = {"h": timedelta(hours=1), "d": timedelta(days=1), "w": timedelta(weeks=1)}


def _expiry(text: str | None) -> int | None:
    """``--expires``: a duration from now (``12h``, ``90d``, ``2w``) or an ISO 8601 time; microseconds."""
    if text is None:
        return None
    found = _DURATION.match(text.strip())
    if found:
        return now_micros() + int(int(found.group(1)) * _UNITS[found.group(2)].total_seconds() * 1_000_000)
    try:
        return to_micros(parse_time(text))
    except InvalidTime:
        raise click.BadParameter(f"{text!r}: give a duration (12h, 90d, 2w) or an ISO 8601 time") from None


def _actor() -> str:
    return f"cli:{os.environ.get('USER') or 'unknown'}"


def _engine(db: str | None) -> sa.Engine:
    try:
        engine = create_store_engine(load_settings({"db": db}).db_url)
    except InvalidStoreUrl as exc:
        raise click.UsageError(str(exc)) from None
    upgrade(engine)
    return engine


@click.group("token")
def command() -> None:
    """Manage the server's tokens: create, list, revoke (no restart; the settings' tokens keep working)."""


@command.command("create")
@click.option("--name", required=True, help="Where the token is used (a producer, a dashboard).")
@click.option("--kind", type=click.Choice(["write", "read"]), default="write", show_default=True)
@click.option("--project", default=None, help="Bind what this write token sends to a catalog project.")
@click.option("--expires", default=None, help="A duration from now (12h, 90d, 2w) or an ISO 8601 time.")
@click.option("--db", "db", default=None, help=_DB_HELP)
def create_command(name: str, kind: str, project: str | None, expires: str | None, db: str | None) -> None:
    """Create a token; its text is printed once (only its SHA-256 is kept)."""
    engine = _engine(db)
    try:
        with writing(engine) as conn, conn.begin():
            text, record = create_token(
                conn, name=name, kind=kind, actor=_actor(), project=project, expires_at=_expiry(expires)
            )
    except CatalogError as exc:
        raise click.ClickException(exc.message) from None
    finally:
        engine.dispose()
    click.echo(f"token {record.id} ({record.kind}{', project ' + record.project if record.project else ''})")
    click.echo(f"expires: {iso(record.expires_at) if record.expires_at is not None else 'never'}")
    click.echo("the token (shown once; send it as 'Authorization: Bearer <token>'):")
    click.echo(text)


@command.command("list")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per token.")
@click.option("--db", "db", default=None, help=_DB_HELP)
def list_command(as_json: bool, db: str | None) -> None:
    """The managed tokens: id, name, kind, project, created, expires, last used, revoked."""
    engine = _engine(db)
    try:
        with engine.connect() as conn:
            records = list_tokens(conn)
    finally:
        engine.dispose()
    now = now_micros()
    for r in records:
        if as_json:
            click.echo(json.dumps({**r.as_dict(), "valid": r.valid(now)}))
            continue
        state = "revoked" if r.revoked_at is not None else ("expired" if not r.valid(now) else "valid")
        shown = r.as_dict()
        click.echo(
            f"{r.id}  {state:7}  {r.kind:5}  {r.name}  project={r.project or '-'}  created={shown['createdAt']}  "
            f"expires={shown['expiresAt'] or 'never'}  last-used={shown['lastUsedAt'] or 'never'}"
        )
    if not records and not as_json:
        click.echo("no managed tokens (headwater token create makes one)")


@command.command("revoke")
@click.argument("token_id")
@click.option("--db", "db", default=None, help=_DB_HELP)
def revoke_command(token_id: str, db: str | None) -> None:
    """Revoke a token by its id: refused from the next request on, on every server of the store."""
    engine = _engine(db)
    try:
        with writing(engine) as conn, conn.begin():
            record = revoke_token(conn, token_id, actor=_actor())
    except CatalogError as exc:
        raise click.ClickException(exc.message) from None
    finally:
        engine.dispose()
    click.echo(f"token {record.id} ({record.name}) revoked at {iso(record.revoked_at or now_micros())}")
