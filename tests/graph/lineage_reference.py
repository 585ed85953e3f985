"""A frozen copy of the lineage read as it was before the speed work of session 10 (commit e4be9a2).

tests/graph/test_lineage_equivalence.py compares the answers of ``headwater.graph.lineage`` with
this reference, byte for byte (JSON, sorted keys). Do not "fix" or speed this file up: it is the
definition of the expected answers (``graph/lineage.py``, ``traverse.py`` and ``common.py`` of that
commit, concatenated, imports merged).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa

from headwater.model.jsontext import loads_text
from headwater.model.nodeid import NodeRef, parse_node_id
from headwater.model.times import iso as _slow_iso
from headwater.model.times import iso as _store_iso
from headwater.model.times import to_micros
from headwater.store.schema import column_edges, dataset_versions, datasets, edges, job_versions, jobs, runs

CHUNK = 500
_EPOCH = datetime(1970, 1, 1)


def iso(micros: int | None) -> str | None:
    """:func:`headwater.model.times.iso` (same text), about twice as fast: answers format thousands of times."""
    if micros is None:
        return None
    if micros < 0:
        return _slow_iso(micros)
    value = _EPOCH + timedelta(microseconds=micros)
    if not value.microsecond:
        return value.isoformat(timespec="seconds") + "Z"
    return value.isoformat(timespec="microseconds" if value.microsecond % 1000 else "milliseconds") + "Z"


class NodeNotFound(LookupError):
    """The node does not exist (at the requested time); the message names it."""


def micros(at: datetime | None) -> int | None:
    return None if at is None else to_micros(at)


def valid_at(table: sa.Table, t: int | None) -> sa.ColumnElement[bool]:
    """Rows valid at ``t`` (``None`` = now: the open rows)."""
    if t is None:
        return table.c.valid_to.is_(None)
    return sa.and_(table.c.valid_from <= t, sa.or_(table.c.valid_to.is_(None), table.c.valid_to > t))


def chunks(items: Iterable[str], size: int = CHUNK) -> Iterator[list[str]]:
    ordered = sorted(set(items))
    for start in range(0, len(ordered), size):
        yield ordered[start : start + size]


def select_in(
    conn: sa.Connection, query: sa.Select[Any], column: sa.ColumnElement[Any], values: Iterable[str]
) -> list[sa.Row[Any]]:
    """Run ``query`` with ``column IN values``, in chunks (one query per chunk)."""
    rows: list[sa.Row[Any]] = []
    for chunk in chunks(values):
        rows.extend(conn.execute(query.where(column.in_(chunk))).all())
    return rows


def field_id(dataset_id: str, field: str) -> str:
    """``dataset:<ns>:<name>`` + field → ``datasetField:<ns>:<name>:<field>``."""
    return f"datasetField:{dataset_id[len('dataset:') :]}:{field}"


def split_dataset_id(dataset_id: str) -> tuple[str, str]:
    ref = parse_node_id(dataset_id)
    return ref.namespace, ref.name


def root_ref(node: NodeRef) -> NodeRef:
    """The graph root for a node: a field's dataset, otherwise the node itself."""
    return node.dataset if node.type == "datasetField" else node


def _latest_runs(conn: sa.Connection, job_ids: Sequence[str], t: int | None) -> dict[str, sa.Row[Any]]:
    latest: dict[str, sa.Row[Any]] = {}
    query = sa.select(runs.c.job, runs.c.run_id, runs.c.state, runs.c.started_at, runs.c.ended_at)
    if t is not None:
        query = query.where(runs.c.started_at <= t)
    for chunk in chunks(job_ids):
        newest = sa.select(runs.c.job, sa.func.max(runs.c.started_at).label("started")).where(runs.c.job.in_(chunk))
        if t is not None:
            newest = newest.where(runs.c.started_at <= t)
        sub = newest.group_by(runs.c.job).subquery()
        rows = conn.execute(
            query.join(sub, sa.and_(sub.c.job == runs.c.job, sub.c.started == runs.c.started_at)).order_by(
                runs.c.run_id
            )
        )
        for row in rows:
            latest[row.job] = row
    return latest


def run_summary(row: Any, t: int | None) -> dict[str, Any]:
    ended = row.ended_at if t is None or (row.ended_at is not None and row.ended_at <= t) else None
    state = row.state if ended is not None or row.state not in ("COMPLETE", "FAIL", "ABORT") else "RUNNING"
    return {
        "runId": row.run_id,
        "state": state,
        "startedAt": iso(row.started_at),
        "endedAt": iso(ended),
        "durationMs": None if ended is None else (ended - row.started_at) // 1000,
    }


def _versions_at(
    conn: sa.Connection,
    table: sa.Table,
    key: sa.ColumnElement[Any],
    ids: Sequence[str],
    t: int | None,
    lenient: bool,
    columns: Sequence[str],
) -> dict[str, sa.Row[Any]]:
    """The version of each id valid at ``t`` (only ``columns`` of it: node shapes skip the big JSON ones)."""
    wanted = [table.c[c] for c in dict.fromkeys([key.name, "valid_from", *columns])]
    query = sa.select(*wanted)
    found = {getattr(r, key.name): r for r in select_in(conn, query.where(valid_at(table, t)), key, ids)}
    missing = [i for i in ids if i not in found]
    if lenient and missing and t is not None:
        # Known from a valid edge but first observed a little later (e.g. at the run's end):
        # show its first version.
        rows = select_in(conn, query.order_by(table.c.valid_from.desc()), key, missing)
        for r in rows:
            found[getattr(r, key.name)] = r
    return found


def job_type(facets: Mapping[str, Any]) -> dict[str, Any] | None:
    jt = facets.get("jobType")
    if not isinstance(jt, Mapping):
        return None
    return {
        "integration": jt.get("integration"),
        "processingType": jt.get("processingType"),
        "jobType": jt.get("jobType"),
    }


def dataset_nodes(
    conn: sa.Connection, ids: Iterable[str], t: int | None, *, lenient: bool = True
) -> dict[str, dict[str, Any]]:
    """Node dicts (docs/api.md) of datasets as of ``t``; datasets unknown at ``t`` are left out."""
    wanted = sorted(set(ids))
    base = {r.id: r for r in select_in(conn, sa.select(datasets), datasets.c.id, wanted)}
    versions = _versions_at(
        conn, dataset_versions, dataset_versions.c.dataset, wanted, t, lenient, ("kind", "fields", "deleted")
    )
    out: dict[str, dict[str, Any]] = {}
    for ds_id in wanted:
        row, version = base.get(ds_id), versions.get(ds_id)
        if row is None or version is None:
            continue
        updated = (
            row.updated_at if t is None or row.updated_at <= t else max(version.valid_from, min(t, row.updated_at))
        )
        out[ds_id] = {
            "id": ds_id,
            "type": "DATASET",
            "namespace": row.namespace,
            "name": row.name,
            "kind": version.kind,
            "fields": loads_text(version.fields),
            "jobType": None,
            "latestRun": None,
            "updatedAt": iso(updated),
            "deleted": bool(version.deleted),
        }
    return out


def job_nodes(
    conn: sa.Connection, ids: Iterable[str], t: int | None, *, lenient: bool = True
) -> dict[str, dict[str, Any]]:
    """Node dicts of jobs as of ``t``; jobs unknown at ``t`` are left out."""
    wanted = sorted(set(ids))
    base = {r.id: r for r in select_in(conn, sa.select(jobs), jobs.c.id, wanted)}
    versions = _versions_at(
        conn, job_versions, job_versions.c.job, wanted, t, lenient, () if t is None else ("facets",)
    )
    latest = _latest_runs(conn, wanted, t)
    out: dict[str, dict[str, Any]] = {}
    for job_id in wanted:
        row, version = base.get(job_id), versions.get(job_id)
        if row is None or version is None:
            continue
        facets = loads_text(row.facets if t is None else version.facets)
        run = latest.get(job_id)
        updated = row.updated_at if t is None else max(version.valid_from, min(t, row.updated_at))
        out[job_id] = {
            "id": job_id,
            "type": "JOB",
            "namespace": row.namespace,
            "name": row.name,
            "kind": None,
            "fields": [],
            "jobType": job_type(facets),
            "latestRun": None if run is None else run_summary(run, t),
            "updatedAt": iso(updated),
            "deleted": False,
        }
    return out


def nodes_for(
    conn: sa.Connection, ids: Iterable[str], t: int | None, *, lenient: bool = True
) -> dict[str, dict[str, Any]]:
    ids = set(ids)
    found = dataset_nodes(conn, [i for i in ids if i.startswith("dataset:")], t, lenient=lenient)
    found.update(job_nodes(conn, [i for i in ids if i.startswith("job:")], t, lenient=lenient))
    return found


def node_names(conn: sa.Connection, ids: Iterable[str], t: int | None) -> dict[str, tuple[str, str]]:
    """``(namespace, name)`` of the datasets and jobs among ``ids`` that :func:`nodes_for` would return."""
    ids = set(ids)
    out: dict[str, tuple[str, str]] = {}
    for base_table, table, key, prefix in (
        (datasets, dataset_versions, dataset_versions.c.dataset, "dataset:"),
        (jobs, job_versions, job_versions.c.job, "job:"),
    ):
        wanted = sorted(i for i in ids if i.startswith(prefix))
        base = {
            r.id: (r.namespace, r.name)
            for r in select_in(
                conn, sa.select(base_table.c.id, base_table.c.namespace, base_table.c.name), base_table.c.id, wanted
            )
        }
        versions = _versions_at(conn, table, key, wanted, t, True, ())
        out.update({i: base[i] for i in wanted if i in base and i in versions})
    return out


def require_node(conn: sa.Connection, node: NodeRef, t: int | None) -> dict[str, Any]:
    """The Node of a dataset or job at ``t``, or :class:`NodeNotFound`."""
    found = nodes_for(conn, [node.id], t, lenient=False)
    if node.id not in found:
        when = "" if t is None else f" at {iso(t)}"
        raise NodeNotFound(f"{node.type} {node.id!r} not found{when}")
    return found[node.id]


def version_shape(row: Any, *, is_job: bool) -> dict[str, Any]:
    return {
        "version": row.id,
        "validFrom": iso(row.valid_from),
        "validTo": iso(row.valid_to),
        "runId": row.run_id,
        "fields": [] if is_job else json.loads(row.fields),
        "facets": json.loads(row.facets),
        "changes": json.loads(row.changes),
    }


def column_edge_shape(row: Any) -> dict[str, Any]:
    target = field_id(row.dst_dataset, row.dst_field) if row.dst_field else row.dst_dataset
    return {
        "source": field_id(row.src_dataset, row.src_field),
        "target": target,
        "job": row.job,
        "transformations": loads_text(row.transformations),
    }


# ---- traverse.py ----


@dataclass
class Incidence:
    """Edges touching a set of nodes: ``inputs[job]`` (datasets read) and ``outputs[job]`` (written)."""

    inputs: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    outputs: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    consumers: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))  # dataset -> jobs reading it
    producers: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))  # dataset -> jobs writing it

    def add(self, job: str, dataset: str, direction: str) -> None:
        if direction == "INPUT":
            self.inputs[job].add(dataset)
            self.consumers[dataset].add(job)
        else:
            self.outputs[job].add(dataset)
            self.producers[dataset].add(job)


def _edge_query(t: int | None) -> sa.Select[tuple[str, str, str]]:
    return sa.select(edges.c.job, edges.c.dataset, edges.c.direction).where(valid_at(edges, t))


def incidence(
    conn: sa.Connection, *, jobs: Iterable[str] = (), datasets: Iterable[str] = (), t: int | None
) -> Incidence:
    """Every edge valid at ``t`` that touches one of ``jobs`` or ``datasets``."""
    inc = Incidence()
    query = _edge_query(t)
    for row in select_in(conn, query, edges.c.job, jobs):
        inc.add(row.job, row.dataset, row.direction)
    for row in select_in(conn, query, edges.c.dataset, datasets):
        inc.add(row.job, row.dataset, row.direction)
    return inc


class EdgeIndex:
    """The edges valid at ``t`` around the nodes asked about so far (read once per node).

    ``inc`` holds *at least* every edge touching a loaded node (it may hold more: an edge read
    through its other end), so ``inc.inputs[j]``/``outputs[j]`` of a loaded job and
    ``inc.producers[d]``/``consumers[d]`` of a loaded dataset are complete.
    """

    def __init__(self, conn: sa.Connection, t: int | None) -> None:
        self.conn = conn
        self.t = t
        self.inc = Incidence()
        self._loaded: set[str] = set()

    def load(self, nodes: Iterable[str]) -> Incidence:
        missing = set(nodes) - self._loaded
        if missing:
            query = _edge_query(self.t)
            jobs = [n for n in missing if n.startswith("job:")]
            datasets = [n for n in missing if n.startswith("dataset:")]
            for row in select_in(self.conn, query, edges.c.job, jobs):
                self.inc.add(row.job, row.dataset, row.direction)
            for row in select_in(self.conn, query, edges.c.dataset, datasets):
                self.inc.add(row.job, row.dataset, row.direction)
            self._loaded |= missing
        return self.inc

    def neighbours(self, nodes: Iterable[str], direction: str) -> dict[str, set[str]]:
        """One hop ``upstream`` or ``downstream`` from datasets and jobs: node -> neighbour ids."""
        nodes = set(nodes)
        inc = self.load(nodes)
        out: dict[str, set[str]] = {}
        up = direction == "upstream"
        for n in nodes:
            if n.startswith("job:"):
                out[n] = set(inc.inputs.get(n, ())) if up else set(inc.outputs.get(n, ()))
            elif n.startswith("dataset:"):
                out[n] = set(inc.producers.get(n, ())) if up else set(inc.consumers.get(n, ()))
        return out


def neighbours(conn: sa.Connection, nodes: Iterable[str], direction: str, t: int | None) -> dict[str, set[str]]:
    """One hop ``upstream`` or ``downstream`` from datasets and jobs: node -> neighbour ids."""
    return EdgeIndex(conn, t).neighbours(nodes, direction)


# ---- lineage.py ----

DIRECTIONS = ("both", "upstream", "downstream")


def check_direction(direction: str) -> None:
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {', '.join(DIRECTIONS)}, got {direction!r}")


def _resolve_root(conn: sa.Connection, node: NodeRef) -> NodeRef:
    root = root_ref(node)
    if root.type == "run":
        job = conn.execute(
            sa.select(jobs.c.namespace, jobs.c.name)
            .join(runs, runs.c.job == jobs.c.id)
            .where(runs.c.run_id == root.name)
        ).first()
        if job is None:
            raise NodeNotFound(f"run {root.name!r} not found")
        return NodeRef("job", job.namespace, job.name)
    return root


def _bfs(index: EdgeIndex, start: set[str], direction: str, depth: int, levels: dict[str, int], max_nodes: int) -> bool:
    """Walk ``depth`` hops; record levels; returns True when cut by ``max_nodes``."""
    sign = -1 if direction == "upstream" else 1
    frontier = set(start)
    for hop in range(1, depth + 1):
        if not frontier:
            break
        found = index.neighbours(frontier, direction)
        nxt: set[str] = set()
        for node in sorted(frontier):
            for n in sorted(found.get(node, ())):
                if n in levels:
                    continue
                if len(levels) >= max_nodes:
                    return True
                levels[n] = sign * hop
                nxt.add(n)
        frontier = nxt
    return False


def _datasets_only_bfs(
    index: EdgeIndex, start: set[str], direction: str, depth: int, levels: dict[str, int], max_nodes: int
) -> bool:
    sign = -1 if direction == "upstream" else 1
    frontier = set(start)
    for hop in range(1, depth + 1):
        if not frontier:
            break
        via_jobs = index.neighbours(frontier, direction)
        jobs = set().union(*via_jobs.values()) if via_jobs else set()
        found = index.neighbours(jobs, direction)
        nxt: set[str] = set()
        for job in sorted(jobs):
            for n in sorted(found.get(job, ())):
                if n in levels:
                    continue
                if len(levels) >= max_nodes:
                    return True
                levels[n] = sign * hop
                nxt.add(n)
        frontier = nxt
    return False


def _column_edges_among(conn: sa.Connection, datasets: set[str], t: int | None) -> list[dict[str, Any]]:
    query = sa.select(column_edges).where(valid_at(column_edges, t))
    rows = select_in(conn, query, column_edges.c.src_dataset, datasets)
    shaped = [column_edge_shape(r) for r in rows if r.dst_dataset in datasets]
    return sorted(shaped, key=lambda e: (e["source"], e["target"], e["job"]))


def lineage(
    conn: sa.Connection,
    node: NodeRef,
    *,
    direction: str = "both",
    depth: int = 2,
    datasets_only: bool = False,
    columns: bool = False,
    at: datetime | None = None,
    max_nodes: int = 5000,
) -> dict[str, Any]:
    check_direction(direction)
    if depth < 0:
        raise ValueError(f"depth must be 0 or more, got {depth}")
    t = micros(at)
    root = _resolve_root(conn, node)
    require_node(conn, root, t)
    levels: dict[str, int] = {}
    truncated = False
    index = EdgeIndex(conn, t)
    if datasets_only:
        if root.type == "job":
            inc = index.load([root.id])
            start = set(inc.outputs.get(root.id, ())) or set(inc.inputs.get(root.id, ()))
        else:
            start = {root.id}
        for ds in start:
            levels[ds] = 0
        for d in ("upstream", "downstream"):
            if direction in (d, "both"):
                truncated |= _datasets_only_bfs(index, start, d, depth, levels, max_nodes)
    else:
        levels[root.id] = 0
        for d in ("upstream", "downstream"):
            if direction in (d, "both"):
                truncated |= _bfs(index, {root.id}, d, depth, levels, max_nodes)
    nodes = nodes_for(conn, levels, t)
    present = set(nodes)
    edge_list = _derived_edges(index, present) if datasets_only else _edges(index, present)
    more_up, more_down = _more(index, present, datasets_only)
    out_nodes = []
    for node_id in sorted(present, key=lambda n: (levels[n], n)):
        item = dict(nodes[node_id])
        item["level"] = levels[node_id]
        item["hasMoreUpstream"] = node_id in more_up
        item["hasMoreDownstream"] = node_id in more_down
        out_nodes.append(item)
    answer: dict[str, Any] = {
        "root": node.id,
        "at": _store_iso(t),
        "depth": depth,
        "truncated": truncated,
        "nodes": out_nodes,
        "edges": edge_list,
        "columnEdges": [],
    }
    if columns:
        answer["columnEdges"] = _column_edges_among(conn, {n for n in present if n.startswith("dataset:")}, t)
    return answer


def _edges(index: EdgeIndex, present: set[str]) -> list[dict[str, Any]]:
    jobs = {n for n in present if n.startswith("job:")}
    inc = index.load(jobs)
    out: list[dict[str, Any]] = []
    for job in sorted(jobs):
        for ds in sorted(inc.inputs.get(job, ())):
            if ds in present:
                out.append({"id": f"{ds}->{job}", "source": ds, "target": job, "type": "INPUT", "via": []})
        for ds in sorted(inc.outputs.get(job, ())):
            if ds in present:
                out.append({"id": f"{job}->{ds}", "source": job, "target": ds, "type": "OUTPUT", "via": []})
    return out


def _derived_edges(index: EdgeIndex, present: set[str]) -> list[dict[str, Any]]:
    datasets = {n for n in present if n.startswith("dataset:")}
    inc = index.load(datasets)
    via: dict[tuple[str, str], set[str]] = {}
    for i in sorted(datasets):
        for job in inc.consumers.get(i, ()):
            for o in inc.outputs.get(job, ()):
                if i != o and o in present:
                    via.setdefault((i, o), set()).add(job)
    return [
        {"id": f"{i}->{o}", "source": i, "target": o, "type": "DERIVED", "via": sorted(jobs)}
        for (i, o), jobs in sorted(via.items())
    ]


def _more(index: EdgeIndex, present: set[str], datasets_only: bool) -> tuple[set[str], set[str]]:
    """Nodes of the answer with edges to nodes outside it, upstream and downstream."""
    up: set[str] = set()
    down: set[str] = set()
    datasets = {n for n in present if n.startswith("dataset:")}
    jobs = {n for n in present if n.startswith("job:")}
    inc = index.load(present)
    if datasets_only:
        all_jobs = set().union(*(inc.producers.get(d, set()) | inc.consumers.get(d, set()) for d in datasets))
        inc = index.load(all_jobs)
        for ds in datasets:
            ups = set().union(*(inc.inputs.get(j, set()) for j in inc.producers.get(ds, ())))
            downs = set().union(*(inc.outputs.get(j, set()) for j in inc.consumers.get(ds, ())))
            if ups - present - {ds}:
                up.add(ds)
            if downs - present - {ds}:
                down.add(ds)
        return up, down
    for ds in datasets:
        if inc.producers.get(ds, set()) - present:
            up.add(ds)
        if inc.consumers.get(ds, set()) - present:
            down.add(ds)
    for job in jobs:
        if inc.inputs.get(job, set()) - present:
            up.add(job)
        if inc.outputs.get(job, set()) - present:
            down.add(job)
    return up, down
