"""The lineage walk on the in-memory adjacency: node numbers instead of id texts, no SQL.

Contract: for a snapshot of :mod:`headwater.graph.adjacency`, :func:`levels` finds what ``lineage._bfs`` finds
over :class:`~headwater.graph.traverse.EdgeIndex` (where a hop may meet ``max_nodes``, in the same visiting order
— frontier and neighbours sorted by id text — so the same node is the one that meets it), and :func:`edges` and
:func:`more` answer what ``lineage._edges`` and ``lineage._more`` answer for the nodes found. Each node's
edges valid at ``t`` are read from its array once per answer (:class:`Edges`).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import compress
from operator import and_

from headwater.graph.adjacency import HEAD, OPEN, Snapshot
from headwater.graph.answers import GraphEdge

Ends = tuple[Sequence[int], Sequence[int]]  # (upstream ends, downstream ends) of one node at ``t``


class Edges:
    """The edges valid at ``t`` of the nodes asked about, by node number, read from ``snap`` once each."""

    def __init__(self, snap: Snapshot, t: int | None) -> None:
        self.snap = snap
        self.t = t
        self.name = snap.name
        self.jobs = snap.jobs
        self._ends: dict[int, Ends] = {}

    def number(self, node: str) -> int | None:
        n = self.snap.num.get(node)
        return None if n is None or n >= len(self.snap.adj) else n

    def ends(self, n: int) -> Ends:
        """One hop each way: upstream of a job the datasets it reads (INPUT), of a dataset the jobs writing it
        (OUTPUT); downstream the reverse."""
        found = self._ends.get(n)
        if found is not None:
            return found
        values = self.snap.adj[n]
        if values is None:
            found = self._ends[n] = ((), ())
            return found
        up, m, begun = values[0], values[1], values[2]
        t = self.t
        if begun != OPEN and (t is None or begun <= t):
            # the common case, now and at a past moment: every edge open and begun by then, so the array's two
            # runs of ends as they are (two slices in C: a Python loop per edge was most of a deep answer's walk)
            found = self._ends[n] = (values[HEAD : HEAD + up], values[HEAD + up : HEAD + m])
            return found
        ends = values[HEAD : HEAD + m]
        tos = values[HEAD + 2 * m :]
        if t is None:
            mask = list(map(OPEN.__eq__, tos))
        else:
            mask = list(map(and_, map(t.__ge__, values[HEAD + m : HEAD + 2 * m]), map(t.__lt__, tos)))
        found = self._ends[n] = (
            list(compress(ends[:up], mask[:up])),
            list(compress(ends[up:], mask[up:])),
        )
        return found


def levels(e: Edges, start: int, upstream: bool, depth: int, found: dict[int, int], max_nodes: int) -> bool:
    """Walk ``depth`` hops from ``start``, recording signed levels in ``found``; True when cut at ``max_nodes``.

    A hop that cannot reach ``max_nodes`` (the nodes found plus every end of its frontier stay within it) finds
    the same nodes at the same level in any order, so it is taken as set operations (in C); only a hop that may
    be cut walks in the order of ids, which decides the nodes kept."""
    key = e.name.__getitem__
    sign = -1 if upstream else 1
    side = 0 if upstream else 1
    ends_of = e.ends
    frontier = {start}
    for hop in range(1, depth + 1):
        if not frontier:
            break
        level = sign * hop
        reached = [ends_of(n)[side] for n in frontier]
        if len(found) + sum(map(len, reached)) <= max_nodes:
            nxt = set().union(*reached).difference(found)
            found.update(dict.fromkeys(nxt, level))
            frontier = nxt
            continue
        nxt = set()
        for n in sorted(frontier, key=key) if len(frontier) > 1 else frontier:
            ends = ends_of(n)[side]
            for m in sorted(set(ends), key=key) if len(ends) > 1 else ends:
                if m in found:
                    continue
                if len(found) >= max_nodes:
                    return True
                found[m] = level
                nxt.add(m)
        frontier = nxt
    return False


def edges(e: Edges, present: set[int]) -> list[GraphEdge]:
    """The INPUT and OUTPUT edges among ``present``, by job id, then dataset id."""
    name = e.name
    key = name.__getitem__
    within = present.__contains__
    out: list[GraphEdge] = []
    add = out.append
    ends_of = e.ends
    for j in sorted(filter(e.jobs.__getitem__, present), key=key):
        job = name[j]
        ins, outs = ends_of(j)  # a job's upstream ends are its inputs
        for ds in sorted(map(key, set(filter(within, ins)))):
            add({"id": f"{ds}->{job}", "source": ds, "target": job, "type": "INPUT", "via": []})
        for ds in sorted(map(key, set(filter(within, outs)))):
            add({"id": f"{job}->{ds}", "source": job, "target": ds, "type": "OUTPUT", "via": []})
    return out


def more(e: Edges, present: set[int]) -> tuple[set[int], set[int]]:
    """The nodes of ``present`` with an edge to a node outside it, upstream and downstream."""
    up: set[int] = set()
    down: set[int] = set()
    ends_of = e.ends
    within = present.issuperset
    for n in present:
        ups, downs = ends_of(n)
        if not within(ups):
            up.add(n)
        if not within(downs):
            down.add(n)
    return up, down
