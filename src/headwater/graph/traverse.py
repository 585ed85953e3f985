"""One-hop neighbour queries on the dataset/job graph, valid at a time (one indexed query per call)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

import sqlalchemy as sa

from headwater.graph.common import select_in, valid_at
from headwater.store.schema import edges


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


def incidence(conn: sa.Connection, *, jobs: Iterable[str] = (), datasets: Iterable[str] = (),
              t: int | None) -> Incidence:
    """Every edge valid at ``t`` that touches one of ``jobs`` or ``datasets``."""
    inc = Incidence()
    query = sa.select(edges.c.job, edges.c.dataset, edges.c.direction).where(valid_at(edges, t))
    for row in select_in(conn, query, edges.c.job, jobs):
        inc.add(row.job, row.dataset, row.direction)
    for row in select_in(conn, query, edges.c.dataset, datasets):
        inc.add(row.job, row.dataset, row.direction)
    return inc


def neighbours(conn: sa.Connection, nodes: Iterable[str], direction: str, t: int | None) -> dict[str, set[str]]:
    """One hop ``upstream`` or ``downstream`` from datasets and jobs: node -> neighbour ids."""
    nodes = set(nodes)
    jobs = {n for n in nodes if n.startswith("job:")}
    datasets = {n for n in nodes if n.startswith("dataset:")}
    inc = incidence(conn, jobs=jobs, datasets=datasets, t=t)
    out: dict[str, set[str]] = {}
    for n in jobs:
        out[n] = set(inc.inputs.get(n, ())) if direction == "upstream" else set(inc.outputs.get(n, ()))
    for n in datasets:
        out[n] = set(inc.producers.get(n, ())) if direction == "upstream" else set(inc.consumers.get(n, ()))
    return out
