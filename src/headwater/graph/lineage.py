"""The lineage graph around a node: BFS over datasets and jobs, one query per level."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from typing import TypedDict

import sqlalchemy as sa

from headwater.graph import hierarchy, walk
from headwater.graph.adjacency import Adjacency, Snapshot
from headwater.graph.answers import ColumnEdge, GraphEdge, GraphNode, LineageAnswer, Node
from headwater.graph.common import (
    NodeNotFound,
    column_edge_shape,
    is_absent,
    micros,
    nodes_for,
    require_exists,
    root_ref,
    select_in,
    valid_at,
)
from headwater.graph.traverse import EdgeIndex, Reached, breadth_first
from headwater.model.nodeid import DATASET, JOB, NodeRef
from headwater.model.times import iso
from headwater.store import fields as field_ids
from headwater.store.schema import column_edges, jobs, runs

DIRECTIONS = ("both", "upstream", "downstream")


def check_direction(direction: str) -> None:
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {', '.join(DIRECTIONS)}, got {direction!r}")


def check_walk(direction: str, depth: int) -> None:
    """The checks of a lineage walk's options, for every way of answering it."""
    check_direction(direction)
    if depth < 0:
        raise ValueError(f"depth must be 0 or more, got {depth}")


def _resolve_root(conn: sa.Connection, node: NodeRef) -> NodeRef:
    root = root_ref(node)
    if root.type == "run":
        job = conn.execute(
            sa.select(jobs.c.id, jobs.c.namespace, jobs.c.name)
            .join(runs, runs.c.job == jobs.c.id)
            .where(runs.c.run_id == root.name)
        ).first()
        if job is None or is_absent(job.id):
            raise NodeNotFound(f"run {root.name!r} not found")
        return NodeRef("job", job.namespace, job.name)
    return root


resolve_root = _resolve_root  # the same root for graph/lineage_bytes.py


def _record_levels(
    levels: dict[str, int], direction: str, max_nodes: int
) -> Callable[[str, str | None, object, int], Reached]:
    """A node's level is its signed hop count (upstream negative); the walk stops at ``max_nodes``."""
    sign = -1 if direction == "upstream" else 1

    def reach(_src: str, node: str | None, _edge: object, hop: int) -> Reached:
        if node is None or node in levels:
            return Reached.SEEN
        if len(levels) >= max_nodes:
            return Reached.STOP
        levels[node] = sign * hop
        return Reached.NEW

    return reach


def _bfs(index: EdgeIndex, start: set[str], direction: str, depth: int, levels: dict[str, int], max_nodes: int) -> bool:
    """Walk ``depth`` hops; record levels; returns True when cut by ``max_nodes``."""

    def expand(frontier: set[str]) -> Iterator[tuple[str, str, None]]:
        found = index.neighbours(frontier, direction)
        for node in sorted(frontier):
            for n in sorted(found.get(node, ())):
                yield node, n, None

    return breadth_first(start, expand, depth, _record_levels(levels, direction, max_nodes))


def _datasets_only_bfs(
    index: EdgeIndex, start: set[str], direction: str, depth: int, levels: dict[str, int], max_nodes: int
) -> bool:
    """As :func:`_bfs`, one level = dataset -> job -> dataset (the jobs are not recorded)."""

    def expand(frontier: set[str]) -> Iterator[tuple[str, str, None]]:
        via_jobs = index.neighbours(frontier, direction)
        jobs: set[str] = set().union(*via_jobs.values()) if via_jobs else set()
        found = index.neighbours(jobs, direction)
        for job in sorted(jobs):
            for n in sorted(found.get(job, ())):
                yield job, n, None

    return breadth_first(start, expand, depth, _record_levels(levels, direction, max_nodes))


def _column_edges_among(conn: sa.Connection, datasets: set[str], t: int | None) -> list[ColumnEdge]:
    query = field_ids.edge_select().where(valid_at(column_edges, t))
    rows = select_in(conn, query, field_ids.SRC_DATASET, datasets)
    shaped = [column_edge_shape(r) for r in rows if r.dst_dataset in datasets]
    return sorted(shaped, key=lambda e: (e["source"], e["target"], e["job"]))


column_edges_among = _column_edges_among  # the same column edges for graph/lineage_bytes.py


class TraversalOptions(TypedDict, total=False):
    """The options :func:`lineage` and :func:`headwater.graph.columns.column_lineage` both take (each function's
    defaults apply to those left out), for those who pass them on."""

    direction: str
    depth: int
    at: datetime | None
    max_nodes: int


class LineageOptions(TraversalOptions, total=False):
    """The options of :func:`lineage`: a traversal's, and what it shows."""

    datasets_only: bool
    columns: bool
    collapse_jobs: bool


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
    collapse_jobs: bool = False,
    adjacency: Adjacency | None = None,
) -> LineageAnswer:
    """The graph around ``node``; ``collapse_jobs`` shows child jobs as their top parent (graph/hierarchy.py).

    ``adjacency``: the edges in memory (graph/adjacency.py), read instead of the store when built."""
    check_walk(direction, depth)
    t = micros(at)
    root = _resolve_root(conn, node)
    require_exists(conn, root, t)
    levels: dict[str, int] = {}
    truncated = False
    snap = None if adjacency is None else adjacency.view(conn)
    index = EdgeIndex(conn, t, snap)
    numbered: walk.Edges | None = None  # the walk on node numbers (in memory, not datasets-only)
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
    elif snap is not None:
        numbered = walk.Edges(snap, t)
        r = numbered.number(root.id)
        if r is None:  # no edges at all
            levels[root.id] = 0
        else:
            found = {r: 0}
            for d in ("upstream", "downstream"):
                if direction in (d, "both"):
                    truncated |= walk.levels(numbered, r, d == "upstream", depth, found, max_nodes)
            levels = {snap.name[n]: level for n, level in found.items()}
    else:
        levels[root.id] = 0
        for d in ("upstream", "downstream"):
            if direction in (d, "both"):
                truncated |= _bfs(index, {root.id}, d, depth, levels, max_nodes)
    nodes = nodes_for(conn, levels, t) if adjacency is None else _kept_nodes(conn, levels, t, adjacency, snap)
    present = set(nodes)
    if numbered is not None:
        nums = {n for n in (numbered.number(i) for i in present) if n is not None}
        edge_list = walk.edges(numbered, nums)
        up, down = walk.more(numbered, nums)
        more_up, more_down = {numbered.name[n] for n in up}, {numbered.name[n] for n in down}
    else:
        edge_list = _derived_edges(index, present) if datasets_only else _edges(index, present)
        more_up, more_down = _more(index, present, datasets_only)
    out_nodes: list[GraphNode] = [
        {
            **nodes[node_id],  # type: ignore[typeddict-item]  # ``children``: only when jobs are collapsed
            "level": levels[node_id],
            "hasMoreUpstream": node_id in more_up,
            "hasMoreDownstream": node_id in more_down,
        }
        for node_id in sorted(present, key=lambda n: (levels[n], n))
    ]
    answer: LineageAnswer = {
        "root": node.id,
        "at": iso(t),
        "depth": depth,
        "truncated": truncated,
        "nodes": out_nodes,
        "edges": edge_list,
        "columnEdges": [],
    }
    if columns:
        answer["columnEdges"] = _column_edges_among(conn, {n for n in present if n.startswith(DATASET)}, t)
    if collapse_jobs:
        answer = hierarchy.collapse(conn, answer, t)
    return answer


def _kept_nodes(
    conn: sa.Connection, ids: Iterable[str], t: int | None, adjacency: Adjacency, snap: Snapshot | None
) -> dict[str, Node]:
    """:func:`nodes_for` from what the server process keeps (graph/fragments.py): shapes of now at the
    adjacency's watermark as they are; the others read from the store (and kept when of now)."""
    nodes: dict[str, Node] = {}
    wanted = list(ids)
    keep = t is None and snap is not None
    if keep:
        assert snap is not None
        nodes, wanted = adjacency.now_nodes.get_many(wanted, snap.seq)
    read = nodes_for(conn, wanted, t)
    if keep:
        assert snap is not None
        adjacency.now_nodes.put(read, snap.seq)
    nodes.update(read)
    return nodes


def _edges(index: EdgeIndex, present: set[str]) -> list[GraphEdge]:
    jobs = {n for n in present if n.startswith(JOB)}
    inc = index.load(jobs)
    out: list[GraphEdge] = []
    for job in sorted(jobs):
        for ds in sorted(inc.inputs.get(job, ())):
            if ds in present:
                out.append({"id": f"{ds}->{job}", "source": ds, "target": job, "type": "INPUT", "via": []})
        for ds in sorted(inc.outputs.get(job, ())):
            if ds in present:
                out.append({"id": f"{job}->{ds}", "source": job, "target": ds, "type": "OUTPUT", "via": []})
    return out


def _derived_edges(index: EdgeIndex, present: set[str]) -> list[GraphEdge]:
    datasets = {n for n in present if n.startswith(DATASET)}
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
    datasets = {n for n in present if n.startswith(DATASET)}
    jobs = {n for n in present if n.startswith(JOB)}
    inc = index.load(present)
    empty: frozenset[str] = frozenset()
    if datasets_only:
        all_jobs = set().union(*(inc.producers.get(d, empty) | inc.consumers.get(d, empty) for d in datasets))
        inc = index.load(all_jobs)
        inputs, outputs = inc.inputs, inc.outputs
        for ds in datasets:
            # a neighbour dataset outside the answer (the dataset itself does not count)
            if any(not present.issuperset(inputs.get(j, empty)) for j in inc.producers.get(ds, empty)):
                up.add(ds)
            if any(not present.issuperset(outputs.get(j, empty)) for j in inc.consumers.get(ds, empty)):
                down.add(ds)
        return up, down
    producers, consumers = inc.producers, inc.consumers
    for ds in datasets:
        if not present.issuperset(producers.get(ds, empty)):
            up.add(ds)
        if not present.issuperset(consumers.get(ds, empty)):
            down.add(ds)
    for job in jobs:
        if not present.issuperset(inc.inputs.get(job, empty)):
            up.add(job)
        if not present.issuperset(inc.outputs.get(job, empty)):
            down.add(job)
    return up, down
