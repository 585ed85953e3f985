"""``headwater classify report``: every dataset, column and job carrying a tag, with paths (docs/classify.md)."""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import NoReturn

import click


def _fail(message: str) -> NoReturn:
    click.echo(f"headwater classify: {message}", err=True)
    sys.exit(2)


@click.group("classify")
def command() -> None:
    """Classifications (tags) along column lineage."""


@command.command("report")
@click.option("--tag", default=None, help="The tag, e.g. PII (default: every tag)")
@click.option("--url", default=None, envvar="HEADWATER_URL", help="The Headwater server to ask")
@click.option("--db", default=None, help="Ask this store instead (sqlite:///path or postgresql://...)")
@click.option("--token", default=None, envvar="HEADWATER_TOKEN", help="Bearer token for --url")
@click.option("--at", "at_text", default=None, help="As of this moment (ISO 8601)")
@click.option("--format", "fmt", type=click.Choice(["json", "csv"]), default="json", show_default=True)
@click.option("--output", default=None, help="Write to this file instead of standard output")
def report_command(
    tag: str | None,
    url: str | None,
    db: str | None,
    token: str | None,
    at_text: str | None,
    fmt: str,
    output: str | None,
) -> None:
    """List every dataset, column and job carrying --tag: declared, or inherited along DIRECT column lineage
    (with the path from the column it comes from), and where it stopped (masked, aggregated)."""
    if url and db:
        _fail("give a server (--url) or a store (--db), not both")
    if url:
        import httpx

        params = {k: v for k, v in (("tag", tag), ("at", at_text), ("format", fmt)) if v}
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        try:
            answer = httpx.get(f"{url.rstrip('/')}/api/v1/classify/report", params=params, headers=headers, timeout=300)
        except httpx.HTTPError as exc:
            _fail(f"cannot reach {url}: {exc}")
        if answer.status_code != 200:
            _fail(f"{url} answered {answer.status_code}: {answer.text[:2000]}")
        text = answer.text if fmt == "csv" else json.dumps(answer.json(), indent=2) + "\n"
    else:
        from headwater.api.classify import report_csv
        from headwater.graph import GraphReader
        from headwater.graph.classify import Policy, PolicyError
        from headwater.model.times import InvalidTime, parse_time
        from headwater.settings import load_settings
        from headwater.store import Store

        settings = load_settings({"db": db})
        try:
            policy = Policy.from_settings(str(settings.classify_rules), str(settings.classify_aggregation_stops))
            at = parse_time(at_text) if at_text else None
        except (PolicyError, InvalidTime) as exc:
            _fail(str(exc))
        store = Store.open(settings.db_url)
        try:
            found = GraphReader(store).classification(policy, tag=tag, at=at)
        finally:
            store.close()
        text = report_csv(found) if fmt == "csv" else json.dumps(asdict(found), indent=2) + "\n"
    if output:
        Path(output).write_text(text, encoding="utf-8")
    else:
        click.echo(text, nl=False)
