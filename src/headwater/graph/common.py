"""Shared pieces of the graph reads: as-of filters, chunked IN queries, node shapes."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime
from typing import Any, TypeVar, cast

import sqlalchemy as sa

from headwater.graph.answers import ColumnEdge, JobType, LatestRun, Node, RunState, Transformation, Version
from headwater.model.jsontext import loads_text
from headwater.model.jsontypes import JSONMapping
from headwater.model.nodeid import DATASET, JOB, NodeRef, field_node_id, parse_node_id
from headwater.model.times import iso, to_micros
from headwater.store.schema import dataset_versions, datasets, job_versions, jobs, runs
from headwater.store.types import Column, Row, Select

CHUNK = 500


class NodeNotFound(LookupError):
    """The node does not exist (at the requested time); the message names it."""


_ABSENT: ContextVar[Callable[[str], bool] | None] = ContextVar("headwater_absent_nodes", default=None)


@contextmanager
def absent(hides: Callable[[str], bool]) -> Iterator[None]:
    """Within this block the nodes ``hides`` names do not exist for the existence checks of a question's root
    (:func:`require_node`, history, a run's job): the visibility policy's hidden roots then fail exactly where,
    and with the message that, a node that does not exist fails."""
    token = _ABSENT.set(hides)
    try:
        yield
    finally:
        _ABSENT.reset(token)


def is_absent(node_id: str) -> bool:
    """Whether ``node_id`` is to be answered as a node that does not exist (see :func:`absent`)."""
    hides = _ABSENT.get()
    return hides is not None and hides(node_id)


def micros(at: datetime | None) -> int | None:
    return None if at is None else to_micros(at)


def valid_at(table: sa.Table, t: int | None) -> sa.ColumnElement[bool]:
    """Rows valid at ``t`` (``None`` = now: the open rows)."""
    if t is None:
        return table.c.valid_to.is_(None)
    return sa.and_(table.c.valid_from <= t, sa.or_(table.c.valid_to.is_(None), table.c.valid_to > t))


Key = TypeVar("Key", str, int)  # what an IN list holds: node ids, or the store's integer ids (field ids)


def chunks(items: Iterable[Key], size: int = CHUNK) -> Iterator[list[Key]]:
    ordered = sorted(set(items))
    for start in range(0, len(ordered), size):
        yield ordered[start : start + size]


_IN = "hw_in_values"
# Where the IN list goes in the compiled SQL: a literal of our own (public API: literal_column), found
# in the compiled text and replaced by each chunk's placeholders. No SQLAlchemy-internal marker is read.
_IN_MARK = "hw_in_list_placeholder__"
SMALL = 16  # chunks with fewer values take SQLAlchemy's own (cached) path
_PLACEHOLDERS = {"qmark": "?", "format": "%s"}


class InQuery:
    """``query`` with ``column IN (...)``, compiled once, run for any values in chunks of :data:`CHUNK`.

    The same SQL SQLAlchemy would send (compiled for the connection's dialect), without its
    per-value work: SQLAlchemy coerces each value of an ``in_()`` list into a bound literal and
    expands it again at execution (about 4 ms per chunk of 500 ids, a quarter of a big lineage
    answer). Here the statement is compiled once with a marker literal where the list goes
    (``column IN (hw_in_list_placeholder__)``) and the placeholder list of each chunk size is written
    in its place (qmark ``?`` for SQLite, ``%(name)s`` for psycopg); only public SQLAlchemy API is used
    (``literal_column``, ``compile``, ``Compiled.string``/``params``/``positiontup``).
    Values must be plain ``str``/``int`` (node ids), as must the query's other parameters. Chunks
    of fewer than :data:`SMALL` values (most hops of a small answer) go SQLAlchemy's usual way,
    whose compiled-statement cache makes them cheaper than compiling here.
    """

    def __init__(self, conn: sa.Connection, query: Select, column: Column) -> None:
        self._conn = conn
        self._query = query
        self._column = column
        self._compiled = False
        self._direct = False  # compiled into head + placeholders + tail

    def _compile(self) -> None:
        """Compile once, on the first chunk of :data:`SMALL` values or more (compiling costs ~0.2 ms:
        more than SQLAlchemy's own cached path for a handful of ids)."""
        self._compiled = True
        conn = self._conn
        stmt = self._query.where(self._column.in_([sa.literal_column(_IN_MARK)]))
        # render_postcompile: an IN list of the query's own (a tuple of roles) is written as placeholders now,
        # not left as the marker SQLAlchemy expands only when it executes the statement itself
        compiled = stmt.compile(dialect=conn.dialect, compile_kwargs={"render_postcompile": True})
        self._style = conn.dialect.paramstyle
        if self._style not in ("qmark", "format", "pyformat") or compiled.string.count(_IN_MARK) != 1:
            return  # SQLAlchemy's usual path for every chunk
        head, tail = compiled.string.split(_IN_MARK)
        params = compiled.params
        if self._style == "pyformat":
            self._named = dict(params)
        else:
            order = list(compiled.positiontup or ())
            if len(order) != len(params):
                return
            before = head.count(_PLACEHOLDERS[self._style])  # the query's own parameters before the list
            self._before = tuple(params[k] for k in order[:before])
            self._after = tuple(params[k] for k in order[before:])
        self._head, self._tail = head, tail
        self._direct = True

    @property
    def direct(self) -> bool:
        """Whether chunks of :data:`SMALL` values or more run the once-compiled SQL (compiled on first use)."""
        if not self._compiled:
            self._compile()
        return self._direct

    def _run(self, chunk: list[Key]) -> Sequence[Row]:
        n = len(chunk)
        if n >= SMALL and not self._compiled:
            self._compile()
        if n < SMALL or not self._direct:
            return self._conn.execute(self._query.where(self._column.in_(chunk))).all()
        if self._style == "pyformat":
            marks = ", ".join([f"%({_IN}_{i})s" for i in range(n)])
            params: Any = {**self._named, **{f"{_IN}_{i}": v for i, v in enumerate(chunk)}}
        else:
            marks = ", ".join([_PLACEHOLDERS[self._style]] * n)
            params = (*self._before, *chunk, *self._after)
        return self._conn.exec_driver_sql(f"{self._head}{marks}{self._tail}", params).all()

    def rows(self, values: Iterable[Key]) -> list[Row]:
        """Rows of ``column IN values`` (sorted, deduplicated, chunked: one query per chunk)."""
        rows: list[Row] = []
        for chunk in chunks(values):
            rows.extend(self._run(chunk))
        return rows


def select_in(conn: sa.Connection, query: Select, column: Column, values: Iterable[Key]) -> list[Row]:
    """Run ``query`` with ``column IN values``, in chunks (one query per chunk)."""
    values = sorted(set(values))
    if not values:
        return []
    return InQuery(conn, query, column).rows(values)


def field_id(dataset_id: str, field: str) -> str:
    """``dataset:<ns>:<name>`` + field → ``datasetField:<ns>:<name>:<field>``."""
    return field_node_id(dataset_id, field)


def split_dataset_id(dataset_id: str) -> tuple[str, str]:
    ref = parse_node_id(dataset_id)
    return ref.namespace, ref.name


def root_ref(node: NodeRef) -> NodeRef:
    """The graph root for a node: a field's dataset, otherwise the node itself."""
    return node.dataset if node.type == "datasetField" else node


def _latest_runs(conn: sa.Connection, job_ids: Sequence[str], t: int | None) -> dict[str, Row]:
    """Each job's run with the latest start (at ``t``); ties: the greatest run id."""
    newest = runs.alias("newest")
    started = sa.select(sa.func.max(newest.c.started_at)).where(newest.c.job == runs.c.job)
    query = sa.select(runs.c.job, runs.c.run_id, runs.c.state, runs.c.started_at, runs.c.ended_at)
    if t is not None:
        started = started.where(newest.c.started_at <= t)
        query = query.where(runs.c.started_at <= t)
    query = query.where(runs.c.started_at == started.scalar_subquery()).order_by(runs.c.run_id)
    return {row.job: row for row in select_in(conn, query, runs.c.job, job_ids)}


latest_runs = _latest_runs  # the same question for graph/quality.py


def run_summary(row: Row, t: int | None) -> LatestRun:
    ended = row.ended_at if t is None or (row.ended_at is not None and row.ended_at <= t) else None
    state: RunState = row.state if ended is not None or row.state not in ("COMPLETE", "FAIL", "ABORT") else "RUNNING"
    return {
        "runId": row.run_id,
        "state": state,
        "startedAt": iso(row.started_at),
        "endedAt": iso(ended),
        "durationMs": None if ended is None else (ended - row.started_at) // 1000,
    }


def job_type(facets: JSONMapping) -> JobType | None:
    jt = facets.get("jobType")
    if not isinstance(jt, Mapping):
        return None
    return {
        "integration": jt.get("integration"),
        "processingType": jt.get("processingType"),
        "jobType": jt.get("jobType"),
    }


def _node_rows(
    conn: sa.Connection,
    base: sa.Table,
    versions: sa.Table,
    key: Column,
    columns: Sequence[Column],
    ids: Sequence[str],
    t: int | None,
    lenient: bool,
) -> dict[str, Row]:
    """``base`` joined with its version valid at ``t``, by id (one query per chunk of ids).

    ``lenient``: an id with no version valid at ``t`` (known from a valid edge but first observed
    a little later, e.g. at the run's end) gets its first version.
    """
    query = sa.select(base.c.id, *columns).join(versions, key == base.c.id)
    found = {r.id: r for r in select_in(conn, query.where(valid_at(versions, t)), key, ids)}
    missing = [i for i in ids if i not in found]
    if lenient and missing and t is not None:
        for r in select_in(conn, query.order_by(versions.c.valid_from.desc()), key, missing):
            found[r.id] = r  # the last row of an id is its earliest version
    return found


node_rows = _node_rows  # the same version rows for graph/lineage_bytes.py


def dataset_nodes(conn: sa.Connection, ids: Iterable[str], t: int | None, *, lenient: bool = True) -> dict[str, Node]:
    """Node dicts (docs/api.md) of datasets as of ``t``; datasets unknown at ``t`` are left out.

    Equal stored ``fields`` texts are decoded once per call: nodes may share the decoded list
    (answers are read-only).
    """
    wanted = sorted(set(ids))
    dv = dataset_versions
    rows = _node_rows(
        conn,
        datasets,
        dv,
        dv.c.dataset,
        (
            datasets.c.namespace,
            datasets.c.name,
            datasets.c.updated_at,
            dv.c.valid_from,
            dv.c.kind,
            dv.c.fields,
            dv.c.deleted,
        ),
        wanted,
        t,
        lenient,
    )
    decoded: dict[str, Any] = {}
    out: dict[str, Node] = {}
    for ds_id in wanted:
        row = rows.get(ds_id)
        if row is None:
            continue
        updated = row.updated_at if t is None or row.updated_at <= t else max(row.valid_from, min(t, row.updated_at))
        fields = decoded.get(row.fields, decoded)
        if fields is decoded:
            fields = decoded[row.fields] = loads_text(row.fields)
        out[ds_id] = {
            "id": ds_id,
            "type": "DATASET",
            "namespace": row.namespace,
            "name": row.name,
            "kind": row.kind,
            "fields": fields,
            "jobType": None,
            "latestRun": None,
            "updatedAt": iso(updated),
            "deleted": bool(row.deleted),
        }
    return out


def job_nodes(conn: sa.Connection, ids: Iterable[str], t: int | None, *, lenient: bool = True) -> dict[str, Node]:
    """Node dicts of jobs as of ``t``; jobs unknown at ``t`` are left out (``jobType`` shared by equal facets)."""
    wanted = sorted(set(ids))
    jv = job_versions
    columns: list[Column] = [jobs.c.namespace, jobs.c.name, jobs.c.updated_at, jv.c.valid_from]
    columns.append(jobs.c.facets if t is None else jv.c.facets.label("version_facets"))
    rows = _node_rows(conn, jobs, jv, jv.c.job, columns, wanted, t, lenient)
    latest = _latest_runs(conn, wanted, t)
    types: dict[str, JobType | None] = {}
    out: dict[str, Node] = {}
    for job_id in wanted:
        row = rows.get(job_id)
        if row is None:
            continue
        text = row.facets if t is None else row.version_facets
        if text in types:
            jt = types[text]
        else:
            jt = types[text] = job_type(loads_text(text))
        run = latest.get(job_id)
        updated = row.updated_at if t is None else max(row.valid_from, min(t, row.updated_at))
        out[job_id] = {
            "id": job_id,
            "type": "JOB",
            "namespace": row.namespace,
            "name": row.name,
            "kind": None,
            "fields": [],
            "jobType": jt,
            "latestRun": None if run is None else run_summary(run, t),
            "updatedAt": iso(updated),
            "deleted": False,
        }
    return out


def nodes_for(conn: sa.Connection, ids: Iterable[str], t: int | None, *, lenient: bool = True) -> dict[str, Node]:
    ids = set(ids)
    found = dataset_nodes(conn, [i for i in ids if i.startswith(DATASET)], t, lenient=lenient)
    found.update(job_nodes(conn, [i for i in ids if i.startswith(JOB)], t, lenient=lenient))
    return found


def node_names(conn: sa.Connection, ids: Iterable[str], t: int | None) -> dict[str, tuple[str, str]]:
    """``(namespace, name)`` of the datasets and jobs among ``ids`` that :func:`nodes_for` would return."""
    ids = set(ids)
    out: dict[str, tuple[str, str]] = {}
    for base, versions, key, prefix in (
        (datasets, dataset_versions, dataset_versions.c.dataset, DATASET),
        (jobs, job_versions, job_versions.c.job, JOB),
    ):
        wanted = sorted(i for i in ids if i.startswith(prefix))
        rows = _node_rows(conn, base, versions, key, (base.c.namespace, base.c.name), wanted, t, lenient=True)
        out.update({i: (r.namespace, r.name) for i, r in rows.items()})
    return out


def require_node(conn: sa.Connection, node: NodeRef, t: int | None) -> Node:
    """The Node of a dataset or job at ``t``, or :class:`NodeNotFound`."""
    found = nodes_for(conn, [node.id], t, lenient=False)
    if node.id not in found or is_absent(node.id):
        raise _not_found(node, t)
    return found[node.id]


def _not_found(node: NodeRef, t: int | None) -> NodeNotFound:
    when = "" if t is None else f" at {iso(t)}"
    return NodeNotFound(f"{node.type} {node.id!r} not found{when}")


def require_exists(conn: sa.Connection, node: NodeRef, t: int | None) -> None:
    """:func:`require_node`'s check without reading the node's shape (one query on its versions): for answers
    that read the shapes elsewhere."""
    node_id = node.id
    if node_id.startswith(DATASET):
        found = _node_rows(conn, datasets, dataset_versions, dataset_versions.c.dataset, (), [node_id], t, False)
    elif node_id.startswith(JOB):
        found = _node_rows(conn, jobs, job_versions, job_versions.c.job, (), [node_id], t, False)
    else:
        found = {}
    if node_id not in found or is_absent(node_id):
        raise _not_found(node, t)


def version_shape(row: Row, *, is_job: bool) -> Version:
    shape: Version = {
        "version": row.id,
        "validFrom": iso(row.valid_from),
        "validTo": iso(row.valid_to),
        "runId": row.run_id,
        "fields": [] if is_job else loads_text(row.fields),
        "facets": loads_text(row.facets),
        "changes": loads_text(row.changes),
    }
    if is_job:  # what this job version reads and writes (dataset ids)
        shape["inputs"] = loads_text(row.inputs)
        shape["outputs"] = loads_text(row.outputs)
    return shape


def column_edge_shape(row: Row) -> ColumnEdge:
    target = field_id(row.dst_dataset, row.dst_field) if row.dst_field else row.dst_dataset
    return {
        "source": field_id(row.src_dataset, row.src_field),
        "target": target,
        "job": row.job,
        "transformations": cast(list[Transformation], loads_text(row.transformations)),
    }
