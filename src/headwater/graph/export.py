"""The derived graph as property-graph elements: vertices and edges with validity intervals, for graph databases.

Contract: :func:`elements` reads the derived tables through a read connection (the store's read barrier,
as every graph read) and yields :class:`Vertex` and :class:`Edge` records; it never writes. The model
(docs/graph-export.md):

- vertices ``Dataset``, ``Column``, ``Job``, ``Run``; the id of each is Headwater's node id
  (``dataset:…``, ``datasetField:…``, ``job:…``, ``run:…``);
- edges in the direction data flows: ``READ_BY`` (Dataset → Job), ``WRITES`` (Job → Dataset),
  ``HAS_COLUMN`` (Dataset → Column, one per interval the column had one type), ``FLOWS_TO`` (Column →
  Column, or Column → Dataset for a dataset-level INDIRECT dependency; one per transformation, with its
  job, type, subtype, description and masking), ``PARENT_OF`` (Job → Job, Run → Run) and ``RUN_OF``
  (Run → Job);
- every element has ``valid_from``/``valid_to`` (event-time microseconds, ``None`` = open): an element
  exists at ``t`` when ``valid_from <= t`` and (``valid_to`` is None or ``t < valid_to``), as in the store.

:class:`Scope` chooses the part of the graph: all of it, the datasets and jobs of a namespace (with their
direct neighbours, so lineage that leaves the namespace keeps its first hop), everything connected to one
node upstream and downstream (at any time), or — for an incremental sync — the nodes an event touched
(:func:`touched_since`) with every edge that has one end among them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import sqlalchemy as sa

from headwater.graph.common import chunks, field_id
from headwater.model.jsontext import loads_text
from headwater.model.nodeid import DATASET, JOB, RUN, NodeRef, parse_node_id, run_node_id
from headwater.store import fields as field_ids
from headwater.store import schema
from headwater.store.types import Row, Select
from headwater.store.watermark import projected_seq

PropValue = str | int | float | bool | None

# Vertex and edge labels.
DATASET_LABEL, COLUMN_LABEL, JOB_LABEL, RUN_LABEL = "Dataset", "Column", "Job", "Run"
READ_BY, WRITES, HAS_COLUMN, FLOWS_TO, PARENT_OF, RUN_OF = (
    "READ_BY",
    "WRITES",
    "HAS_COLUMN",
    "FLOWS_TO",
    "PARENT_OF",
    "RUN_OF",
)
VERTEX_LABELS = (DATASET_LABEL, COLUMN_LABEL, JOB_LABEL, RUN_LABEL)
EDGE_LABELS = (READ_BY, WRITES, HAS_COLUMN, FLOWS_TO, PARENT_OF, RUN_OF)

# Every property's one type (Neptune's CSV type names); the formats write typed headers from it.
PROPERTY_TYPES: dict[str, str] = {
    "namespace": "String",
    "name": "String",
    "kind": "String",
    "deleted": "Bool",
    "dataset": "String",
    "field": "String",
    "type": "String",
    "runId": "String",
    "job": "String",
    "state": "String",
    "transformationType": "String",
    "subtype": "String",
    "description": "String",
    "masking": "Bool",
}


@dataclass(frozen=True)
class Vertex:
    id: str
    label: str
    valid_from: int | None
    valid_to: int | None
    props: dict[str, PropValue] = field(default_factory=dict)


@dataclass(frozen=True)
class Edge:
    id: str
    label: str
    source: str
    target: str
    valid_from: int | None
    valid_to: int | None
    props: dict[str, PropValue] = field(default_factory=dict)


Element = Vertex | Edge


@dataclass(frozen=True)
class Scope:
    """Which datasets and jobs to export (``None``: all of them) and whether edges need both ends in it.

    ``incident``: an edge is exported when one end is in the scope (an incremental sync: the other end is
    in the target already); otherwise only edges between exported vertices."""

    datasets: frozenset[str] | None = None
    jobs: frozenset[str] | None = None
    runs: frozenset[str] = frozenset()
    incident: bool = False

    @property
    def everything(self) -> bool:
        return self.datasets is None and self.jobs is None


EVERYTHING = Scope()


def _rows(conn: sa.Connection, query: Select, column: sa.ColumnElement[str], ids: Iterable[str] | None) -> list[Row]:  # fmt: skip
    """``query`` for every row (ids None) or for the rows whose ``column`` is one of ``ids`` (chunked)."""
    if ids is None:
        return list(conn.execute(query))
    out: list[Row] = []
    for chunk in chunks(ids):
        out.extend(conn.execute(query.where(column.in_(chunk))))
    return out


def namespace_scope(conn: sa.Connection, namespace: str) -> Scope:
    """The datasets and jobs of ``namespace`` and their direct neighbours (at any time)."""
    ds = set(conn.scalars(sa.select(schema.datasets.c.id).where(schema.datasets.c.namespace == namespace)))
    jb = set(conn.scalars(sa.select(schema.jobs.c.id).where(schema.jobs.c.namespace == namespace)))
    for row in _rows(conn, sa.select(schema.edges.c.job, schema.edges.c.dataset), schema.edges.c.job, jb):
        ds.add(str(row.dataset))
    for row in _rows(conn, sa.select(schema.edges.c.job, schema.edges.c.dataset), schema.edges.c.dataset, ds):
        jb.add(str(row.job))
    return Scope(frozenset(ds), frozenset(jb))


def reachable_scope(conn: sa.Connection, node: NodeRef) -> Scope:
    """Everything upstream and downstream of ``node`` (a dataset, a field's dataset, a job or a run's job)
    through edges valid at any time. :class:`LookupError` when the node is not in the graph."""
    root = node.dataset if node.type == "datasetField" else node
    if root.type == "run":
        job = conn.scalar(sa.select(schema.runs.c.job).where(schema.runs.c.run_id == root.name))
        if job is None:
            raise LookupError(f"run {root.name!r} not found")
        root = parse_node_id(str(job))
    table, key = (schema.datasets, schema.datasets.c.id) if root.type == "dataset" else (schema.jobs, schema.jobs.c.id)
    if conn.scalar(sa.select(sa.func.count()).select_from(table).where(key == root.id)) == 0:
        raise LookupError(f"{root.type} {root.id!r} not found")
    found: set[str] = {root.id}
    # upstream: dataset <-WRITES- job <-READ_BY- dataset ...; downstream the other way
    for toward_inputs in (True, False):
        frontier = {root.id}
        seen = {root.id}
        while frontier:
            ds_front = {n for n in frontier if n.startswith(DATASET)}
            job_front = {n for n in frontier if n.startswith(JOB)}
            nxt: set[str] = set()
            ds_dir, job_dir = ("OUTPUT", "INPUT") if toward_inputs else ("INPUT", "OUTPUT")
            query = sa.select(schema.edges.c.job, schema.edges.c.dataset)
            for row in _rows(conn, query.where(schema.edges.c.direction == ds_dir), schema.edges.c.dataset, ds_front):
                nxt.add(str(row.job))
            for row in _rows(conn, query.where(schema.edges.c.direction == job_dir), schema.edges.c.job, job_front):
                nxt.add(str(row.dataset))
            frontier = nxt - seen
            seen |= frontier
        found |= seen
    return Scope(frozenset(n for n in found if n.startswith(DATASET)), frozenset(n for n in found if n.startswith(JOB)))


def head(conn: sa.Connection) -> int:
    """The log position the derived graph of this connection reflects (every event up to it is projected)."""
    return projected_seq(conn)


def touched_since(conn: sa.Connection, seq: int, until: int) -> Scope:
    """The datasets, jobs and runs that events after log position ``seq`` up to ``until`` said anything of
    (their derived rows may have changed), as an incident scope; a run's job is in it too."""
    nodes = set(
        conn.scalars(
            sa.select(schema.observations.c.node)
            .where(schema.observations.c.event_seq > seq, schema.observations.c.event_seq <= until)
            .distinct()
        )
    )
    run_ids = frozenset(parse_node_id(n).name for n in nodes if n.startswith(RUN))
    jb = {n for n in nodes if n.startswith(JOB)}
    for row in _rows(conn, sa.select(schema.runs.c.job), schema.runs.c.run_id, run_ids):
        jb.add(str(row.job))
    return Scope(frozenset(n for n in nodes if n.startswith(DATASET)), frozenset(jb), run_ids, incident=True)


def _span(rows: Iterable[tuple[int, int | None]]) -> tuple[int | None, int | None]:
    """The interval covering ``(valid_from, valid_to)`` pairs: earliest start, latest end (None if one is open)."""
    starts, ends, open_ = [], [], False
    for start, end in rows:
        starts.append(start)
        if end is None:
            open_ = True
        else:
            ends.append(end)
    return (min(starts) if starts else None, None if open_ or not ends else max(ends))


def elements(conn: sa.Connection, scope: Scope = EVERYTHING) -> Iterator[Element]:
    """The vertices, then the edges, of ``scope`` (see the module docstring); read only."""
    ds_ids = scope.datasets
    job_ids = scope.jobs
    every = scope.everything

    # datasets: one vertex each, valid from the first version; closed when the newest version deletes it
    versions: dict[str, list[Row]] = {}
    for row in _rows(
        conn,
        sa.select(
            schema.dataset_versions.c.dataset,
            schema.dataset_versions.c.valid_from,
            schema.dataset_versions.c.valid_to,
            schema.dataset_versions.c.deleted,
        ),
        schema.dataset_versions.c.dataset,
        ds_ids,
    ):
        versions.setdefault(str(row.dataset), []).append(row)
    exported_ds: set[str] = set()
    for row in _rows(conn, sa.select(schema.datasets), schema.datasets.c.id, ds_ids):
        rows = sorted(versions.get(row.id, []), key=lambda v: int(v.valid_from))
        start = int(rows[0].valid_from) if rows else int(row.created_at)
        end = int(rows[-1].valid_from) if rows and rows[-1].deleted else None
        exported_ds.add(row.id)
        yield Vertex(
            row.id,
            DATASET_LABEL,
            start,
            end,
            {"namespace": row.namespace, "name": row.name, "kind": row.kind, "deleted": bool(row.deleted)},
        )

    # columns: from the schema versions and from the ends of column edges
    field_rows = _rows(conn, sa.select(schema.dataset_fields), schema.dataset_fields.c.dataset, ds_ids)
    col_edges = _column_edges(conn, scope)
    spans: dict[tuple[str, str], list[tuple[int, int | None]]] = {}
    types: dict[tuple[str, str], tuple[int, str | None]] = {}
    for f in field_rows:
        key = (str(f.dataset), str(f.field))
        spans.setdefault(key, []).append((int(f.valid_from), f.valid_to))
        if key not in types or int(f.valid_from) >= types[key][0]:
            types[key] = (int(f.valid_from), f.type)
    for e in col_edges:
        ends = [(str(e.src_dataset), str(e.src_field))]
        if e.dst_field:
            ends.append((str(e.dst_dataset), str(e.dst_field)))
        for key in ends:
            if every or key[0] in exported_ds:
                spans.setdefault(key, []).append((int(e.valid_from), e.valid_to))
    exported_cols: set[str] = set()
    for (ds, name), intervals in sorted(spans.items()):
        ref = parse_node_id(ds)
        first, last = _span(intervals)
        col = field_id(ds, name)
        exported_cols.add(col)
        yield Vertex(
            col,
            COLUMN_LABEL,
            first,
            last,
            {
                "namespace": ref.namespace,
                "name": ref.name,
                "field": name,
                "dataset": ds,
                "type": types.get((ds, name), (0, None))[1],
            },
        )

    # jobs: valid from the first version
    job_starts: dict[str, int] = {}
    for row in _rows(
        conn,
        sa.select(schema.job_versions.c.job, sa.func.min(schema.job_versions.c.valid_from).label("start")).group_by(
            schema.job_versions.c.job
        ),
        schema.job_versions.c.job,
        job_ids,
    ):
        job_starts[str(row.job)] = int(row.start)
    job_rows = _rows(conn, sa.select(schema.jobs), schema.jobs.c.id, job_ids)
    exported_jobs: set[str] = set()
    for row in job_rows:
        exported_jobs.add(row.id)
        yield Vertex(
            row.id,
            JOB_LABEL,
            job_starts.get(row.id, int(row.created_at)),
            None,
            {"namespace": row.namespace, "name": row.name},
        )

    # runs: facts, valid while they ran
    run_query = sa.select(
        schema.runs.c.run_id,
        schema.runs.c.job,
        schema.runs.c.state,
        schema.runs.c.started_at,
        schema.runs.c.ended_at,
        schema.runs.c.parent_run_id,
    )
    run_rows = {str(r.run_id): r for r in _rows(conn, run_query, schema.runs.c.job, job_ids)}
    for r in _rows(conn, run_query, schema.runs.c.run_id, scope.runs):
        run_rows[str(r.run_id)] = r
    for run_id in sorted(run_rows):
        r = run_rows[run_id]
        yield Vertex(
            run_node_id(run_id),
            RUN_LABEL,
            int(r.started_at),
            None if r.ended_at is None else int(r.ended_at),
            {"runId": run_id, "job": r.job, "state": r.state},
        )

    def keep(a: str, b: str, a_known: set[str], b_known: set[str]) -> bool:
        if every:
            return True
        return (a in a_known or b in b_known) if scope.incident else (a in a_known and b in b_known)

    # dataset <-> job edges
    edge_query = sa.select(schema.edges)
    edge_rows = {
        (r.job, r.dataset, r.direction, r.valid_from): r for r in _rows(conn, edge_query, schema.edges.c.job, job_ids)
    }
    if not every and scope.incident:
        for r in _rows(conn, edge_query, schema.edges.c.dataset, ds_ids):
            edge_rows[(r.job, r.dataset, r.direction, r.valid_from)] = r
    for edge_key in sorted(edge_rows, key=repr):
        r = edge_rows[edge_key]
        if not keep(str(r.job), str(r.dataset), exported_jobs, exported_ds):
            continue
        if r.direction == "INPUT":
            label, src, dst = READ_BY, str(r.dataset), str(r.job)
        else:
            label, src, dst = WRITES, str(r.job), str(r.dataset)
        yield Edge(f"{label}|{src}|{dst}|{r.valid_from}", label, src, dst, int(r.valid_from), r.valid_to)

    # dataset -> column, one per interval of the column's type
    for f in sorted(field_rows, key=lambda f: (f.dataset, f.field, f.valid_from)):
        col = field_id(str(f.dataset), str(f.field))
        yield Edge(
            f"{HAS_COLUMN}|{col}|{f.valid_from}",
            HAS_COLUMN,
            str(f.dataset),
            col,
            int(f.valid_from),
            f.valid_to,
            {"type": f.type},
        )

    # column -> column (or dataset): one edge per transformation
    for e in col_edges:
        src = field_id(str(e.src_dataset), str(e.src_field))
        dst = field_id(str(e.dst_dataset), str(e.dst_field)) if e.dst_field else str(e.dst_dataset)
        if (
            not every
            and not scope.incident
            and not (src in exported_cols and (dst in exported_cols or dst in exported_ds))
        ):
            continue
        transformations = loads_text(str(e.transformations)) or [{}]
        for i, t in enumerate(transformations):
            yield Edge(
                f"{FLOWS_TO}|{src}|{dst}|{e.job}|{e.valid_from}|{i}",
                FLOWS_TO,
                src,
                dst,
                int(e.valid_from),
                e.valid_to,
                {
                    "job": str(e.job),
                    "transformationType": t.get("type"),
                    "subtype": t.get("subtype"),
                    "description": t.get("description"),
                    "masking": bool(t.get("masking", False)),
                },
            )

    # hierarchy: job -> child job (the newest parent facet), run -> child run, run -> its job
    for row in job_rows:
        if row.parent_job and keep(str(row.parent_job), row.id, exported_jobs, exported_jobs):
            start = job_starts.get(row.id, int(row.created_at))
            yield Edge(f"{PARENT_OF}|{row.parent_job}|{row.id}", PARENT_OF, str(row.parent_job), row.id, start, None)
    for run_id in sorted(run_rows):
        r = run_rows[run_id]
        node = run_node_id(run_id)
        started = int(r.started_at)
        yield Edge(f"{RUN_OF}|{node}", RUN_OF, node, str(r.job), started, None)
        if r.parent_run_id and (every or scope.incident or str(r.parent_run_id) in run_rows):
            parent = run_node_id(str(r.parent_run_id))
            yield Edge(f"{PARENT_OF}|{parent}|{node}", PARENT_OF, parent, node, started, None)


def _column_edges(conn: sa.Connection, scope: Scope) -> list[Row]:
    query = field_ids.edge_select()
    if scope.everything:
        rows = list(conn.execute(query))
    else:
        found = {tuple(r): r for r in _rows(conn, query, schema.column_edges.c.job, scope.jobs)}
        if scope.incident:
            for col in (field_ids.SRC_DATASET, field_ids.DST_DATASET):
                for r in _rows(conn, query, col, scope.datasets):
                    found[tuple(r)] = r
        rows = list(found.values())
    return sorted(rows, key=lambda r: (r.src_dataset, r.src_field, r.dst_dataset, r.dst_field, r.job, r.valid_from))
