"""Column-level lineage: BFS over column edges (``columnLineage`` facets), one query per level."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

import sqlalchemy as sa

from headwater.graph.answers import ColumnEdge, ColumnLineageAnswer, ColumnNode
from headwater.graph.common import (
    NodeNotFound,
    column_edge_shape,
    field_id,
    micros,
    require_exists,
    select_in,
    split_dataset_id,
    valid_at,
)
from headwater.graph.lineage import check_direction
from headwater.graph.traverse import Reached, breadth_first
from headwater.model.jsontext import loads_text
from headwater.model.nodeid import NodeRef
from headwater.model.times import iso
from headwater.store import fields as field_ids
from headwater.store.derive_datasets import flatten_fields
from headwater.store.schema import column_edges, dataset_fields, dataset_versions, datasets
from headwater.store.types import Row

Field = tuple[str, str]  # (dataset id, field name)


def dataset_field_types(conn: sa.Connection, dataset_ids: Iterable[str], t: int | None) -> dict[Field, str | None]:
    query = sa.select(dataset_fields.c.dataset, dataset_fields.c.field, dataset_fields.c.type).where(
        valid_at(dataset_fields, t)
    )
    return {(r.dataset, r.field): r.type for r in select_in(conn, query, dataset_fields.c.dataset, dataset_ids)}


def root_fields(conn: sa.Connection, node: NodeRef, t: int | None) -> set[Field]:
    """The columns a column-lineage question starts from (a field, or every column of a dataset)."""
    ds = node.dataset.id
    require_exists(conn, node.dataset, t)
    if node.type == "datasetField":
        assert node.field is not None
        require_field(conn, ds, node.field, t)
        return {(ds, node.field)}
    if node.type != "dataset":
        raise ValueError(f"column lineage needs a dataset or datasetField node, got {node.id!r}")
    fields = {f for f in dataset_field_types(conn, [ds], t)}
    for end, dataset, name in (
        ("src", field_ids.SRC_DATASET, field_ids.SRC_FIELD),
        ("dst", field_ids.DST_DATASET, field_ids.DST_FIELD),
    ):
        query = sa.select(name.label("field")).select_from(field_ids.JOINED).where(valid_at(column_edges, t))
        for r in select_in(conn, query, dataset, [ds]):
            if end == "src" or r.field:
                fields.add((ds, r.field))
    return fields


def require_field(conn: sa.Connection, dataset: str, field: str, t: int | None) -> None:
    """:class:`NodeNotFound` unless ``dataset`` has the column ``field`` at ``t``: in its schema (a nested field by
    its dotted path), named by a column edge valid then (a column only column lineage tells of), or in the last
    schema of a dataset dropped then (its node shows it). A column question about a column that is not there (a
    typo, a column renamed or dropped since) must not answer "nothing depends on it"."""
    in_schema = sa.select(dataset_fields.c.field).where(
        dataset_fields.c.dataset == dataset, dataset_fields.c.field == field, valid_at(dataset_fields, t)
    )
    if conn.execute(in_schema.limit(1)).first() is not None:
        return
    (key,) = field_ids.ids_of([(dataset, field)])
    for end in (field_ids.SRC_ID, field_ids.DST_ID):
        named = sa.select(end).where(end == key, valid_at(column_edges, t))
        if conn.execute(named.limit(1)).first() is not None:
            return
    dropped = sa.select(dataset_versions.c.fields).where(
        dataset_versions.c.dataset == dataset, dataset_versions.c.deleted.is_(True), valid_at(dataset_versions, t)
    )
    shown = conn.execute(dropped.limit(1)).scalar()  # a dropped dataset's node still shows its last schema
    if shown is not None and any(name == field for name, _ in flatten_fields(loads_text(shown))):
        return
    when = "now" if t is None else f"at {iso(t)}"
    raise NodeNotFound(
        f"dataset {dataset!r} has no column {field!r} {when} (neither in its schema nor in column lineage)"
    )


def column_step(
    conn: sa.Connection, frontier: set[Field], direction: str, t: int | None
) -> list[tuple[Field, Field | None, Row]]:
    """One hop: ``(from_field, to_field_or_None_for_a_whole_dataset, edge_row)``.

    Upstream follows edges into the field and the dataset-level (INDIRECT) dependencies of its
    dataset; downstream follows edges out of the field.
    """
    query = field_ids.edge_select().where(valid_at(column_edges, t))
    ds_ids = {d for d, _ in frontier}
    out: list[tuple[Field, Field | None, Row]] = []
    # Looked up by the ends' ids (the edges' own indexes), in the order of the ends' texts: the fields of the
    # frontier, and upstream each frontier dataset as a whole (its INDIRECT dependencies).
    if direction == "upstream":
        ends = field_ids.ids_of([*frontier, *((d, "") for d in ds_ids)])
        rows = sorted(select_in(conn, query, field_ids.DST_ID, ends), key=lambda r: (r.dst_dataset, r.dst_field))
        for r in rows:
            targets = [(r.dst_dataset, r.dst_field)] if r.dst_field else [f for f in frontier if f[0] == r.dst_dataset]
            for target in targets:
                if target in frontier:
                    out.append((target, (r.src_dataset, r.src_field), r))
    else:
        rows = select_in(conn, query, field_ids.SRC_ID, field_ids.ids_of(frontier))
        for r in sorted(rows, key=lambda r: (r.src_dataset, r.src_field)):
            src = (r.src_dataset, r.src_field)
            if src in frontier:
                out.append((src, (r.dst_dataset, r.dst_field) if r.dst_field else None, r))
    return out


def column_lineage(
    conn: sa.Connection,
    node: NodeRef,
    *,
    direction: str = "both",
    depth: int = 10,
    at: datetime | None = None,
    max_nodes: int = 5000,
) -> ColumnLineageAnswer:
    check_direction(direction)
    if node.type not in ("dataset", "datasetField"):
        raise NodeNotFound(f"column lineage needs a dataset or datasetField node, got {node.id!r}")
    t = micros(at)
    start = root_fields(conn, node, t)
    levels: dict[Field, int] = {f: 0 for f in start}
    edges: dict[tuple[str, str, str], ColumnEdge] = {}
    truncated = False
    for d in ("upstream", "downstream"):
        if direction not in (d, "both") or truncated:
            continue
        sign = -1 if d == "upstream" else 1

        def expand(frontier: set[Field], d: str = d) -> list[tuple[Field, Field | None, Row]]:
            return column_step(conn, frontier, d, t)

        def reach(_src: Field, other: Field | None, row: Row, hop: int, sign: int = sign) -> Reached:
            new = other is not None and other not in levels
            if new:
                if len(levels) >= max_nodes:
                    return Reached.STOP
                levels[other] = sign * hop  # type: ignore[index]  # new implies a field
            shaped = column_edge_shape(row)  # an edge whose ends are both in the answer
            edges[(shaped["source"], shaped["target"], shaped["job"])] = shaped
            return Reached.NEW if new else Reached.SEEN

        truncated = breadth_first(start, expand, depth, reach)
    types = dataset_field_types(conn, {d for d, _ in levels}, t)
    names = {
        r.id: (r.namespace, r.name)
        for r in select_in(
            conn, sa.select(datasets.c.id, datasets.c.namespace, datasets.c.name), datasets.c.id, {d for d, _ in levels}
        )
    }
    nodes: list[ColumnNode] = []
    for (ds, f), level in sorted(levels.items(), key=lambda item: (item[1], item[0])):
        namespace, name = names.get(ds) or split_dataset_id(ds)
        nodes.append(
            {
                "id": field_id(ds, f),
                "dataset": ds,
                "namespace": namespace,
                "name": name,
                "field": f,
                "type": types.get((ds, f)),
                "level": level,
            }
        )
    return {
        "root": node.id,
        "at": iso(t),
        "nodes": nodes,
        "edges": [edges[k] for k in sorted(edges)],
        "truncated": truncated,
    }
