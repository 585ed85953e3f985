"""Impact analysis: everything downstream of a dataset or a column, with the path to each item."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

import sqlalchemy as sa

from headwater.graph.answers import ImpactAnswer, ImpactItem, ImpactSummary, ItemType
from headwater.graph.columns import Field, column_step, root_fields
from headwater.graph.common import (
    NodeNotFound,
    field_id,
    micros,
    node_names,
    require_exists,
    select_in,
    split_dataset_id,
)
from headwater.graph.traverse import EdgeIndex, Reached, breadth_first
from headwater.model.nodeid import DATASET, NodeRef
from headwater.model.times import iso
from headwater.store.schema import datasets
from headwater.store.types import Row


def _dataset_paths(
    conn: sa.Connection, root: str, depth: int, t: int | None, max_nodes: int
) -> tuple[dict[str, list[str]], bool]:
    paths: dict[str, list[str]] = {root: [root]}
    index = EdgeIndex(conn, t)

    def expand(frontier: set[str]) -> Iterator[tuple[str, str, None]]:
        found = index.neighbours(frontier, "downstream")
        for node in sorted(frontier):
            for n in sorted(found.get(node, ())):
                yield node, n, None

    def reach(src: str, node: str | None, _edge: None, _hop: int) -> Reached:
        if node is None or node in paths:
            return Reached.SEEN
        if len(paths) > max_nodes:
            return Reached.STOP
        paths[node] = [*paths[src], node]
        return Reached.NEW

    return paths, breadth_first({root}, expand, depth, reach)


def _field_paths(
    conn: sa.Connection, start: set[Field], root_id: str, depth: int, t: int | None, max_nodes: int
) -> tuple[dict[Field, list[str]], dict[str, list[str]], dict[str, list[str]], bool]:
    """Downstream columns: path per field (root, job, field, job, field ...), per job and per dataset."""
    fields: dict[Field, list[str]] = {f: [root_id] for f in start}
    jobs: dict[str, list[str]] = {}
    whole: dict[str, list[str]] = {}

    def expand(frontier: set[Field]) -> list[tuple[Field, Field | None, Row]]:
        return sorted(column_step(conn, frontier, "downstream", t), key=lambda s: repr(s[:2]))

    def reach(src: Field, other: Field | None, row: Row, _hop: int) -> Reached:
        via = [*fields[src], row.job]
        jobs.setdefault(row.job, via)
        if other is None:
            whole.setdefault(row.dst_dataset, [*via, row.dst_dataset])
            return Reached.SEEN
        if other in fields:
            return Reached.SEEN
        if len(fields) + len(jobs) > max_nodes:
            return Reached.STOP
        fields[other] = [*via, field_id(*other)]
        return Reached.NEW

    # A column hop is two steps of a path (the job, then the column): enough hops for a job at an odd depth.
    truncated = breadth_first(start, expand, (depth + 1) // 2, reach)
    if truncated:
        return fields, jobs, whole, True
    for f in start:
        fields.pop(f, None)
    return fields, jobs, whole, False


def impact(
    conn: sa.Connection, node: NodeRef, *, depth: int = 20, at: datetime | None = None, max_nodes: int = 5000
) -> ImpactAnswer:
    if node.type not in ("dataset", "datasetField"):
        raise NodeNotFound(f"impact needs a dataset or datasetField node, got {node.id!r}")
    t = micros(at)
    require_exists(conn, node.dataset, t)
    items: dict[str, ImpactItem] = {}
    truncated = False

    def add(item_id: str, type_: ItemType, path: list[str], ds: str | None = None, field: str | None = None) -> None:
        if item_id == node.id or len(path) - 1 > depth:  # every item within depth steps of its path
            return
        if item_id in items and len(items[item_id]["path"]) <= len(path):
            return
        namespace, name = names[ds or item_id]  # every item's dataset or job is named below
        items[item_id] = {
            "id": item_id,
            "type": type_,
            "namespace": namespace,
            "name": name,
            "field": field,
            "depth": len(path) - 1,
            "path": path,
        }

    start = root_fields(conn, node, t)
    fields, field_jobs, whole, cut = _field_paths(conn, start, node.id, depth, t, max_nodes)
    truncated |= cut
    if node.type == "dataset":
        paths, cut = _dataset_paths(conn, node.id, depth, t, max_nodes)
        truncated |= cut
    else:
        paths = {}
        for f, path in fields.items():
            paths.setdefault(f[0], [*path[:-1], f[0]])
        for ds, path in whole.items():
            paths.setdefault(ds, path)
        paths.update({j: p for j, p in field_jobs.items() if j not in paths})
    known = node_names(conn, [p for p in paths if p != node.id], t)
    names: dict[str, tuple[str, str]] = dict(known)
    missing = {f[0] for f in fields} - set(names)
    for r in select_in(conn, sa.select(datasets.c.id, datasets.c.namespace, datasets.c.name), datasets.c.id, missing):
        names[r.id] = (r.namespace, r.name)
    for ds in {f[0] for f in fields} - set(names):
        names[ds] = split_dataset_id(ds)
    for item_id, path in paths.items():
        if item_id in known:
            add(item_id, "DATASET" if item_id.startswith(DATASET) else "JOB", path)
    for (ds, column), path in fields.items():
        add(field_id(ds, column), "FIELD", path, ds=ds, field=column)
    ordered = sorted(items.values(), key=lambda i: (i["depth"], i["type"], i["id"]))
    summary: ImpactSummary = {
        "datasets": sum(i["type"] == "DATASET" for i in ordered),
        "jobs": sum(i["type"] == "JOB" for i in ordered),
        "fields": sum(i["type"] == "FIELD" for i in ordered),
    }
    return {"root": node.id, "at": iso(t), "truncated": truncated, "items": ordered, "summary": summary}
