"""``headwater export graph``: the lineage graph as files a graph database loads (docs/graph-export.md)."""

from __future__ import annotations

from pathlib import Path

import click

from headwater.settings import load_settings


@click.group("export")
def command() -> None:
    """Export Headwater's data to other tools."""


@command.command("graph")
@click.option(
    "--format",
    "format_",
    type=click.Choice(["neptune-opencypher", "neptune-gremlin", "graphml", "cypher"]),
    default="neptune-opencypher",
    show_default=True,
    help="Neptune bulk-load CSV (openCypher or Gremlin), GraphML, or idempotent Cypher statements.",
)
@click.option("--out", "out", required=True, type=click.Path(file_okay=False, path_type=Path), help="Folder to write.")
@click.option("--namespace", default=None, help="Only the datasets and jobs of this namespace (and their neighbours).")
@click.option(
    "--node", default=None, help="Only what is upstream or downstream of this node id (dataset:..., job:...)."
)
@click.option("--db", "db", default=None, help="Store URL. Default: HEADWATER_DB or the data dir.")
def graph_command(format_: str, out: Path, namespace: str | None, node: str | None, db: str | None) -> None:
    """Write the graph (datasets, columns, jobs, runs and their edges, with validFrom/validTo) as files."""
    from headwater.graph.export import EVERYTHING, elements, namespace_scope, reachable_scope
    from headwater.graphdb.formats import split, write
    from headwater.model.nodeid import InvalidNodeId, parse_node_id
    from headwater.store import InvalidStoreUrl, Store

    if namespace is not None and node is not None:
        raise click.UsageError("give --namespace or --node, not both")
    ref = None
    if node is not None:
        try:
            ref = parse_node_id(node)
        except InvalidNodeId as exc:
            raise click.BadParameter(str(exc), param_hint="--node") from None
    try:
        store = Store.open(load_settings({"db": db}).db_url)
    except InvalidStoreUrl as exc:
        raise click.UsageError(str(exc)) from None
    with store, store.read_connection() as conn:
        if ref is not None:
            try:
                scope = reachable_scope(conn, ref)
            except LookupError as exc:
                raise click.BadParameter(str(exc), param_hint="--node") from None
        elif namespace is not None:
            scope = namespace_scope(conn, namespace)
            if not scope.datasets and not scope.jobs:
                raise click.BadParameter(f"no dataset or job in namespace {namespace!r}", param_hint="--namespace")
        else:
            scope = EVERYTHING
        found = list(elements(conn, scope))
    paths = write(format_, found, out)
    vertices, edges = split(found)
    click.echo(f"{len(vertices)} vertices, {len(edges)} edges ({format_}): " + ", ".join(str(p) for p in paths))
