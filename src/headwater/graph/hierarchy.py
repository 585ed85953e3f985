"""Job hierarchy: parents and children of jobs, and the lineage graph with child jobs collapsed.

Producers nest jobs: an Airflow DAG runs tasks (and a task its SQL statements), a Spark application
runs actions, a dbt run builds models. The nesting comes from the ``parent`` run facet (the
``parent_job`` of each run). A job's parent at a moment is the parent of its latest run started by
then (its current parent when no moment is asked for).

Collapsing is a read-time view of the graph, not a second copy of it: every job of an answer is
replaced by its top ancestor (the parent of its parent ..., at most :data:`MAX_DEPTH` levels up);
edges are lifted to the ancestor and merged, each listing in ``via`` the child jobs it stands for;
the ancestor's node lists the ``children`` it stands for in this answer. A job whose ancestor is not
a known node stays as it is.
"""

from __future__ import annotations

from collections.abc import Iterable

import sqlalchemy as sa

from headwater.graph.answers import EdgeType, GraphNode, LineageAnswer
from headwater.graph.common import nodes_for, select_in
from headwater.model.nodeid import JOB
from headwater.store.schema import jobs, runs
from headwater.store.types import Select

MAX_DEPTH = 8  # levels of nesting followed up (DAG → task → query → ... is three)


def parents(conn: sa.Connection, job_ids: Iterable[str], t: int | None) -> dict[str, str]:
    """The parent job of each of ``job_ids`` that has one (at ``t``: the parent of its latest run by then)."""
    wanted = sorted(set(job_ids))
    if not wanted:
        return {}
    if t is None:
        query: Select = sa.select(jobs.c.id, jobs.c.parent_job).where(jobs.c.parent_job.is_not(None))
        return {r.id: r.parent_job for r in select_in(conn, query, jobs.c.id, wanted)}
    latest: dict[str, tuple[int, str, str | None]] = {}
    at_t: Select = sa.select(runs.c.job, runs.c.started_at, runs.c.run_id, runs.c.parent_job).where(
        runs.c.started_at <= t
    )
    for r in select_in(conn, at_t, runs.c.job, wanted):
        key = (r.started_at, r.run_id, r.parent_job)
        if r.job not in latest or key[:2] > latest[r.job][:2]:
            latest[r.job] = key
    return {job: parent for job, (_s, _r, parent) in latest.items() if parent}


def ancestors(conn: sa.Connection, job_ids: Iterable[str], t: int | None) -> dict[str, str]:
    """Each of ``job_ids`` → its top ancestor (itself when it has no parent); cycles stop where they close."""
    top = {j: j for j in job_ids}
    parent_of: dict[str, str] = {}
    frontier = set(top)
    for _ in range(MAX_DEPTH):
        found = parents(conn, frontier - set(parent_of), t)
        parent_of.update(found)
        frontier = {p for p in found.values() if p not in parent_of}
        if not frontier:
            break
    for job in top:
        seen = {job}
        current = job
        while current in parent_of and parent_of[current] not in seen and len(seen) <= MAX_DEPTH:
            current = parent_of[current]
            seen.add(current)
        top[job] = current
    return top


def children(conn: sa.Connection, job_id: str, t: int | None) -> list[str]:
    """The jobs whose parent (at ``t``) is ``job_id``."""
    if t is None:
        return sorted(conn.scalars(sa.select(jobs.c.id).where(jobs.c.parent_job == job_id)))
    candidates = set(conn.scalars(sa.select(runs.c.job).where(runs.c.parent_job == job_id, runs.c.started_at <= t)))
    return sorted(j for j, p in parents(conn, candidates, t).items() if p == job_id)


def collapse(conn: sa.Connection, answer: LineageAnswer, t: int | None) -> LineageAnswer:
    """A lineage answer with every job shown as its top ancestor (see the module docstring)."""
    present = [n["id"] for n in answer["nodes"] if n["id"].startswith(JOB)]
    via_jobs = {j for e in answer["edges"] for j in e["via"]}
    top = ancestors(conn, {*present, *via_jobs}, t)
    known = nodes_for(conn, {a: 0 for a in set(top.values()) - set(present)}, t)
    top = {j: a if a == j or a in known or a in present else j for j, a in top.items()}
    if all(a == j for j, a in top.items()):
        return answer
    by_id = {n["id"]: n for n in answer["nodes"]}
    merged: dict[str, GraphNode] = {}
    members: dict[str, set[str]] = {}
    for node in answer["nodes"]:
        target = top.get(node["id"], node["id"])
        if target not in merged:
            found = by_id.get(target)
            if found is None:
                base: GraphNode = {
                    **known[target],  # type: ignore[typeddict-item]  # ``children``: set below
                    "level": node["level"],
                    "hasMoreUpstream": False,
                    "hasMoreDownstream": False,
                }
                merged[target] = base
            else:
                merged[target] = {**found}
        item = merged[target]
        item["level"] = _nearer(item["level"], node["level"])
        item["hasMoreUpstream"] = bool(item["hasMoreUpstream"] or node["hasMoreUpstream"])
        item["hasMoreDownstream"] = bool(item["hasMoreDownstream"] or node["hasMoreDownstream"])
        if target != node["id"]:
            members.setdefault(target, set()).add(node["id"])
    for parent, kids in members.items():
        merged[parent]["children"] = sorted(kids)
    edges: dict[tuple[str, str, EdgeType], set[str]] = {}
    for e in answer["edges"]:
        source, target = top.get(e["source"], e["source"]), top.get(e["target"], e["target"])
        lifted = {j for j in (e["source"], e["target"]) if top.get(j, j) != j}
        via = {top.get(j, j) for j in e["via"]} if e["type"] == "DERIVED" else {*e["via"], *lifted}
        edges.setdefault((source, target, e["type"]), set()).update(via)
    return {
        **answer,
        "nodes": sorted(merged.values(), key=lambda n: (n["level"], n["id"])),
        "edges": [
            {"id": f"{s}->{d}", "source": s, "target": d, "type": kind, "via": sorted(via)}
            for (s, d, kind), via in sorted(edges.items())
        ],
    }


def _nearer(a: int, b: int) -> int:
    """The level nearer the root (ties: the upstream one)."""
    return min(a, b, key=lambda level: (abs(level), level))
