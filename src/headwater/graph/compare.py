"""Compare the lineage around a node at two moments: nodes, edges, columns, column edges."""

from __future__ import annotations

from datetime import datetime
from typing import TypedDict

import sqlalchemy as sa

from headwater.graph.answers import (
    ColumnEdge,
    ColumnRef,
    ColumnTypeChange,
    CompareAnswer,
    GraphEdge,
    GraphNode,
)
from headwater.graph.columns import dataset_field_types
from headwater.graph.common import NodeNotFound, micros
from headwater.graph.lineage import lineage
from headwater.model.nodeid import DATASET, NodeRef
from headwater.model.times import iso, to_micros


class _Graph(TypedDict):
    """What a comparison reads of a lineage answer (none of it when the node did not exist then)."""

    nodes: list[GraphNode]
    edges: list[GraphEdge]
    columnEdges: list[ColumnEdge]


def _graph(conn: sa.Connection, node: NodeRef, at: datetime, direction: str, depth: int) -> _Graph:
    try:
        return lineage(conn, node, direction=direction, depth=depth, columns=True, at=at)
    except NodeNotFound:
        return {"nodes": [], "edges": [], "columnEdges": []}


def compare(
    conn: sa.Connection, node: NodeRef, *, t_from: datetime, t_to: datetime, direction: str = "both", depth: int = 2
) -> CompareAnswer:
    before = _graph(conn, node, t_from, direction, depth)
    after = _graph(conn, node, t_to, direction, depth)
    if not before["nodes"] and not after["nodes"]:
        raise NodeNotFound(f"{node.id!r} exists neither at {iso(micros(t_from))} nor at {iso(micros(t_to))}")
    nodes_b = {n["id"]: n for n in before["nodes"]}
    nodes_a = {n["id"]: n for n in after["nodes"]}
    kept = set(nodes_b) & set(nodes_a)
    edges_b = {(e["id"], e["type"]): e for e in before["edges"]}
    edges_a = {(e["id"], e["type"]): e for e in after["edges"]}

    def col_key(e: ColumnEdge) -> tuple[str, str, str, str]:
        return (e["source"], e["target"], e["job"], repr(e["transformations"]))

    cols_b = {col_key(e): e for e in before["columnEdges"]}
    cols_a = {col_key(e): e for e in after["columnEdges"]}
    ds_ids = {i for i in {*nodes_b, *nodes_a} if i.startswith(DATASET)}
    fields_b = dataset_field_types(conn, [d for d in ds_ids if d in nodes_b], micros(t_from))
    fields_a = dataset_field_types(conn, [d for d in ds_ids if d in nodes_a], micros(t_to))
    both = {d for d in ds_ids if d in nodes_b and d in nodes_a}
    added: list[ColumnRef] = [
        {"dataset": d, "field": f, "type": fields_a[(d, f)]}
        for d, f in sorted(fields_a)
        if d in both and (d, f) not in fields_b
    ]
    removed: list[ColumnRef] = [
        {"dataset": d, "field": f, "type": fields_b[(d, f)]}
        for d, f in sorted(fields_b)
        if d in both and (d, f) not in fields_a
    ]
    changed: list[ColumnTypeChange] = [
        {"dataset": d, "field": f, "fromType": fields_b[(d, f)], "toType": fields_a[(d, f)]}
        for d, f in sorted(fields_a)
        if (d, f) in fields_b and fields_a[(d, f)] != fields_b[(d, f)]
    ]
    return {
        "from": iso(to_micros(t_from)),
        "to": iso(to_micros(t_to)),
        "root": node.id,
        "nodes": {
            "added": [nodes_a[i] for i in sorted(set(nodes_a) - set(nodes_b))],
            "removed": [nodes_b[i] for i in sorted(set(nodes_b) - set(nodes_a))],
            "dropped": [nodes_a[i] for i in sorted(kept) if nodes_a[i]["deleted"] and not nodes_b[i]["deleted"]],
            "restored": [nodes_a[i] for i in sorted(kept) if nodes_b[i]["deleted"] and not nodes_a[i]["deleted"]],
        },
        "edges": {
            "added": [edges_a[k] for k in sorted(set(edges_a) - set(edges_b))],
            "removed": [edges_b[k] for k in sorted(set(edges_b) - set(edges_a))],
        },
        "columns": {"added": added, "removed": removed, "changed": changed},
        "columnEdges": {
            "added": [cols_a[k] for k in sorted(set(cols_a) - set(cols_b))],
            "removed": [cols_b[k] for k in sorted(set(cols_b) - set(cols_a))],
        },
    }
