"""A lineage answer as the JSON bytes the HTTP route sends, assembled from node shapes kept as bytes.

Contract: :func:`lineage_json` answers exactly ``orjson.dumps`` of what :func:`headwater.graph.lineage.lineage`
answers for the same question (the visibility policy's :class:`~headwater.graph.visibility.Redactor` applied
as :meth:`~headwater.graph.visibility.Redactor.lineage` does: every node of the answer passes it), byte for byte
(tests/graph/test_adjacency.py compares the two on generated graphs, SQLite and PostgreSQL), or ``None`` when
it does not answer that question (the adjacency not built or behind this reader, ``datasetsOnly``,
``collapseJobs``, a root without edges, a value orjson cannot encode): the caller then takes the dict path.

Why: a deep answer holds up to ``max_graph_nodes`` nodes; building a dict per node, decoding kept shapes and
encoding them all again cost more than the walk. Here each node is its kept bytes plus its level and flags:

- now: the whole shape of now (:class:`~headwater.graph.fragments.NowNodes`), read for every node right
  after the adjacency's build, and read from the store again (then kept) after its node was observed anew;
- at a past moment: graph/pastshapes.py — which version is valid then, ``updatedAt``, ``deleted`` and
  ``latestRun`` from the records kept beside the adjacency (graph/asof.py: no SQL per node), the version-bound
  part of the shape (names, kind, fields, job type) kept by version
  (:class:`~headwater.graph.fragments.VersionShapes`) or cut from the shape of now of an open version.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import cast

import orjson
import sqlalchemy as sa

from headwater.graph import walk
from headwater.graph.adjacency import Adjacency, Snapshot
from headwater.graph.answers import GraphNode
from headwater.graph.common import micros, nodes_for, require_exists
from headwater.graph.lineage import check_walk, column_edges_among, resolve_root
from headwater.graph.pastshapes import Unencodable, dumps, past_shapes
from headwater.graph.visibility import Redactor
from headwater.model.nodeid import DATASET, NodeRef
from headwater.model.times import iso

_FLAG = (b"false", b"true")


def lineage_json(
    conn: sa.Connection,
    node: NodeRef,
    *,
    adjacency: Adjacency,
    policy: Redactor | None = None,
    direction: str = "both",
    depth: int = 2,
    datasets_only: bool = False,
    columns: bool = False,
    at: datetime | None = None,
    max_nodes: int = 5000,
    collapse_jobs: bool = False,
) -> bytes | None:
    """The answer of :func:`headwater.graph.lineage.lineage` (same options) as JSON bytes, or None (see the
    module docstring). ``policy``: the viewer's redactor when it hides something (the root is checked by the
    caller, as for the dict path)."""
    check_walk(direction, depth)
    if datasets_only or collapse_jobs:
        return None
    t = micros(at)
    root = resolve_root(conn, node)
    require_exists(conn, root, t)
    snap = adjacency.view(conn)
    if snap is None:
        return None
    e = walk.Edges(snap, t)
    r = e.number(root.id)
    if r is None:
        return None
    found = {r: 0}
    truncated = False
    for d in ("upstream", "downstream"):
        if direction in (d, "both"):
            truncated |= walk.levels(e, r, d == "upstream", depth, found, max_nodes)
    name = snap.name
    numbers = {name[n]: n for n in found}
    try:
        shapes = (
            _now_shapes(conn, numbers, adjacency, snap) if t is None else past_shapes(conn, numbers, t, adjacency, snap)
        )
        # the nodes that exist (at ``t``): every node found, or those with a shape
        nums = set(found) if len(shapes) == len(found) else {numbers[i] for i in shapes}
        up, down = walk.more(e, nums)
        # each node: its shape (open), then its level, flags and the comma after it — one of a few texts
        parts: list[bytes] = []
        tails: dict[tuple[int, bool, bool], bytes] = {}
        hides = None if policy is None else policy.hidden.hides
        for n in _by_level_and_id(nums, found, name):
            node_id = name[n]
            if hides is not None and hides(node_id):
                assert policy is not None
                # a restricted node: only its place in the graph is shown (Redactor.node reads no more)
                place = {"id": node_id, "level": found[n], "hasMoreUpstream": n in up, "hasMoreDownstream": n in down}
                parts += (orjson.dumps(policy.node(cast(GraphNode, place))), b",")
                continue
            key = (found[n], n in up, n in down)
            tail = tails.get(key)
            if tail is None:
                tail = tails[key] = b',"level":%d,"hasMoreUpstream":%b,"hasMoreDownstream":%b},' % (
                    key[0],
                    _FLAG[key[1]],
                    _FLAG[key[2]],
                )
            parts += (shapes[node_id], tail)
        if parts:
            parts[-1] = parts[-1][:-1]  # no comma after the last node
        column_edges = column_edges_among(conn, {n for n in shapes if n.startswith(DATASET)}, t) if columns else []
        edge_list = walk.edges(e, nums)  # dicts and one orjson call: cheaper than writing each edge's bytes
        if policy is not None:
            edge_list = policy.edges(edge_list)
            column_edges = policy.column_edges(column_edges, keep_restricted=False)
        head = orjson.dumps({"root": node.id, "at": iso(t), "depth": depth, "truncated": truncated})
        return b"".join(
            (
                head[:-1],
                b',"nodes":[',
                *parts,
                b'],"edges":',
                orjson.dumps(edge_list),
                b',"columnEdges":',
                orjson.dumps(column_edges),
                b"}",
            )
        )
    except (Unencodable, orjson.JSONEncodeError):
        return None


def _by_level_and_id(nums: set[int], found: dict[int, int], name: list[str]) -> list[int]:
    """``nums`` ordered as the answer lists its nodes: by level, then id (levels are few: one sort by id per
    level instead of a key tuple per node)."""
    levels: dict[int, list[int]] = {}
    for n in nums:
        levels.setdefault(found[n], []).append(n)
    key = name.__getitem__
    return [n for level in sorted(levels) for n in sorted(levels[level], key=key)]


def _open(shape: bytes) -> bytes:
    """A node's JSON object without its closing brace (the answer adds level and flags)."""
    return shape[:-1]


def _now_shapes(conn: sa.Connection, ids: Iterable[str], adjacency: Adjacency, snap: Snapshot) -> dict[str, bytes]:
    """Each node's shape of now, open (see :func:`_open`): kept, or read from the store (and kept)."""
    shapes, missing = adjacency.now_nodes.get_many_bytes(ids, snap.seq, open_=True)
    if missing:
        read = nodes_for(conn, missing, None)
        encoded = adjacency.now_nodes.put(read, snap.seq)
        for node_id, node in read.items():
            found = encoded.get(node_id)
            shapes[node_id] = _open(found if found is not None else dumps(node))
    return shapes
