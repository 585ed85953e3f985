"""``headwater mcp``: Headwater's lineage tools for a local AI assistant, over stdio (docs/mcp.md)."""

from __future__ import annotations

import os

import click

from headwater.settings import SettingError, load_settings


@click.command("mcp")
@click.option("--db", "db", default=None, help="Store URL. Default: HEADWATER_DB or the data dir.")
@click.option(
    "--project", default=None, help="Read in this catalog project's context (as the Headwater-Project header)."
)
@click.option(
    "--ui-url", default="http://127.0.0.1:5000", show_default=True, help="Where the web UI is, for the nodes' links."
)
def command(db: str | None, project: str | None, ui_url: str) -> None:
    """Serve the MCP tools over stdio. The caller's token is HEADWATER_TOKEN (read or write token, or a catalog
    user's token): it decides what the assistant may see, as in the HTTP API."""
    from headwater.api.errors import ApiError
    from headwater.mcpserver import build_server, stdio_caller
    from headwater.store import InvalidStoreUrl, Store

    try:
        settings = load_settings({"db": db})
    except SettingError as exc:
        raise click.ClickException(str(exc)) from None
    try:
        store = Store.open(settings.db_url)
    except InvalidStoreUrl as exc:
        raise click.UsageError(str(exc)) from None
    with store:
        try:
            caller = stdio_caller(store, settings, os.environ.get("HEADWATER_TOKEN") or None, project, ui_url)
        except ApiError as exc:
            raise click.ClickException(f"HEADWATER_TOKEN: {exc.message}") from None
        build_server(caller).run("stdio")
