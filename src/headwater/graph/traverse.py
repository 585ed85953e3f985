"""Traversal: the one breadth-first walk every graph question uses, and one-hop neighbour queries on
the dataset/job graph, valid at a time (one indexed query per call).

:func:`breadth_first` walks level by level; each question says how one level expands (which
edges leave the frontier, in which order) and what reaching a node means to it (record a level, a
path, an edge; stop at the node limit). Lineage, datasets-only lineage, column lineage and both
impact walks are this one loop.

:class:`EdgeIndex` remembers, for one answer, the edges of every node it has read: a BFS reads
each node's edges once, and the answer's edge list and ``hasMore*`` flags reuse them instead of
asking again (only the nodes of the last level are new to it). Given a snapshot of the in-memory
adjacency (:mod:`headwater.graph.adjacency`), it reads the edges from there instead of the store: the same
rows, so the same answers.
"""

from __future__ import annotations

import enum
from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar, cast

import sqlalchemy as sa

from headwater.graph.common import InQuery, select_in, valid_at
from headwater.model.nodeid import DATASET, JOB
from headwater.store.schema import edges

if TYPE_CHECKING:
    from headwater.graph.adjacency import Snapshot

N = TypeVar("N", bound=Hashable)
E = TypeVar("E")  # what a question keeps of an edge (a row, nothing)


class Reached(enum.Enum):
    """What reaching a node through one edge meant to the question."""

    NEW = "new"  # first reached: it joins the next level
    SEEN = "seen"  # known already (or no node at the edge's end): nothing more to walk
    STOP = "stop"  # the answer is full (node limit): the walk ends, truncated


def breadth_first(
    start: Iterable[N],
    expand: Callable[[set[N]], Iterable[tuple[N, N | None, E]]],
    depth: int,
    reach: Callable[[N, N | None, E, int], Reached],
) -> bool:
    """Walk at most ``depth`` levels out from ``start``; True when ``reach`` stopped the walk (truncated).

    ``expand(frontier)`` yields the edges leaving one level as ``(from, to, edge)`` in the order they
    are to be visited (``to`` may be None: an edge to no node, e.g. to a whole dataset);
    ``reach(from, to, edge, hop)`` records what the question keeps and says whether ``to`` is new.
    """
    frontier = set(start)
    for hop in range(1, depth + 1):
        if not frontier:
            break
        nxt: set[N] = set()
        for src, dst, edge in expand(frontier):
            verdict = reach(src, dst, edge, hop)
            if verdict is Reached.STOP:
                return True
            if verdict is Reached.NEW:
                nxt.add(dst)  # type: ignore[arg-type]  # NEW is only said of a node
        frontier = nxt
    return False


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

    def __init__(self, conn: sa.Connection, t: int | None, adjacency: Snapshot | None = None) -> None:
        self.conn = conn
        self.t = t
        self._snap = adjacency  # the edges in memory, current for ``conn`` (None: read the store)
        self.inc = Incidence()
        self._loaded: set[str] = set()
        self._queries: dict[str, InQuery] = {}  # by end ("job", "dataset"): compiled once per answer

    def _query(self, end: str) -> InQuery:
        if end not in self._queries:
            self._queries[end] = InQuery(self.conn, _edge_query(self.t), edges.c[end])
        return self._queries[end]

    def load(self, nodes: Iterable[str]) -> Incidence:
        missing = set(nodes) - self._loaded
        if missing:
            jobs = [n for n in missing if n.startswith(JOB)]
            datasets = [n for n in missing if n.startswith(DATASET)]
            inc = self.inc
            inputs, outputs, consumers, producers = inc.inputs, inc.outputs, inc.consumers, inc.producers
            if self._snap is not None:
                self._load_from_memory(self._snap, jobs, datasets)
                self._loaded |= missing
                return inc
            for end, ids in (("job", jobs), ("dataset", datasets)):
                if not ids:
                    continue
                rows = cast("list[tuple[str, str, str]]", self._query(end).rows(ids))
                for job, dataset, direction in rows:  # Incidence.add, inlined
                    if direction == "INPUT":
                        inputs[job].add(dataset)
                        consumers[dataset].add(job)
                    else:
                        outputs[job].add(dataset)
                        producers[dataset].add(job)
            self._loaded |= missing
        return self.inc

    def _load_from_memory(self, snap: Snapshot, jobs: list[str], datasets: list[str]) -> None:
        """What :meth:`load` reads from the store, read from the adjacency (0 = INPUT, 1 = OUTPUT)."""
        inc, t = self.inc, self.t
        inputs, outputs, consumers, producers = inc.inputs, inc.outputs, inc.consumers, inc.producers

        def add(job: str, dataset: str, flag: int) -> None:
            if flag:
                outputs[job].add(dataset)
                producers[dataset].add(job)
            else:
                inputs[job].add(dataset)
                consumers[dataset].add(job)

        for job in jobs:
            for dataset, flag in snap.incident(job, t):
                add(job, dataset, flag)
        for dataset in datasets:
            for job, flag in snap.incident(dataset, t):
                add(job, dataset, flag)

    def neighbours(self, nodes: Iterable[str], direction: str) -> dict[str, set[str]]:
        """One hop ``upstream`` or ``downstream`` from datasets and jobs: node -> neighbour ids."""
        nodes = set(nodes)
        inc = self.load(nodes)
        out: dict[str, set[str]] = {}
        up = direction == "upstream"
        for n in nodes:
            if n.startswith(JOB):
                out[n] = set(inc.inputs.get(n, ())) if up else set(inc.outputs.get(n, ()))
            elif n.startswith(DATASET):
                out[n] = set(inc.producers.get(n, ())) if up else set(inc.consumers.get(n, ()))
        return out


def neighbours(conn: sa.Connection, nodes: Iterable[str], direction: str, t: int | None) -> dict[str, set[str]]:
    """One hop ``upstream`` or ``downstream`` from datasets and jobs: node -> neighbour ids."""
    return EdgeIndex(conn, t).neighbours(nodes, direction)
