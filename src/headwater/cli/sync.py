"""``headwater sync graph``: keep a graph database current with the lineage graph (docs/graph-export.md)."""

from __future__ import annotations

import os

import click

from headwater.settings import load_settings


@click.group("sync")
def command() -> None:
    """Keep other tools current with Headwater's graph."""


@command.command("graph")
@click.option(
    "--to", "to", required=True, help="bolt://host:7687 (Neo4j, Memgraph, FalkorDB) or https://<neptune>:8182."
)
@click.option("--user", default=None, help="Bolt user [env HEADWATER_GRAPH_USER].")
@click.option("--database", default=None, help="Bolt database name (default: the server's).")
@click.option("--iam", is_flag=True, help="Neptune: sign requests with SigV4 (IAM database authentication).")
@click.option("--region", default=None, help="Neptune: the AWS region for --iam (default: AWS_REGION).")
@click.option(
    "--name", default="headwater", show_default=True, help="Which sync position in the target (one per store)."
)
@click.option(
    "--batch", default=500, show_default=True, type=click.IntRange(1, 100_000), help="Elements per statement."
)
@click.option("--db", "db", default=None, help="Store URL. Default: HEADWATER_DB or the data dir.")
def graph_command(
    to: str,
    user: str | None,
    database: str | None,
    iam: bool,
    region: str | None,
    name: str,
    batch: int,
    db: str | None,
) -> None:
    """Send what changed since the last sync (everything the first time); safe to re-run or to kill.

    The Bolt password is read from HEADWATER_GRAPH_PASSWORD (never from the command line)."""
    from rich.progress import Progress

    from headwater.graphdb.sync import SyncError, open_target, sync
    from headwater.store import InvalidStoreUrl, Store

    try:
        target = open_target(
            to,
            user=user or os.environ.get("HEADWATER_GRAPH_USER"),
            password=os.environ.get("HEADWATER_GRAPH_PASSWORD"),
            database=database,
            iam=iam,
            region=region,
        )
    except SyncError as exc:
        raise click.UsageError(str(exc)) from None
    try:
        store = Store.open(load_settings({"db": db}).db_url)
    except InvalidStoreUrl as exc:
        target.close()
        raise click.UsageError(str(exc)) from None
    try:
        with store, Progress(transient=True) as bar:
            task = bar.add_task("syncing", total=None)
            result = sync(
                store,
                target,
                name=name,
                batch=batch,
                progress=lambda done, total: bar.update(task, completed=done, total=total),
            )
    except SyncError as exc:
        raise click.ClickException(str(exc)) from None
    finally:
        target.close()
    if result.from_seq == result.to_seq:
        click.echo(f"already current at log position {result.to_seq}")
    else:
        click.echo(
            f"synced log positions {result.from_seq}..{result.to_seq}: {result.vertices} vertices, "
            f"{result.edges} edges sent, {result.removed} stale edges removed"
        )
