"""The projector: keeps the derived graph tables equal to the pure derivation of the event log.

After new events are inserted (with their observations), every run, job and dataset they touch
is re-derived from *all* of its observations (sorted by event time, so arrival order does not
matter) and its derived rows are replaced. A run's job is re-derived after the run.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import sqlalchemy as sa

from headwater.store.canonical import dumps
from headwater.store.derive_datasets import (
    DatasetObservation,
    derive_dataset_versions,
    derive_field_spans,
)
from headwater.store.derive_jobs import JobSample, derive_column_edges, derive_edges, derive_job_versions
from headwater.store.derive_runs import RunObservation, derive_run, job_content
from headwater.store.eventlog import NewEvent, insert_observations
from headwater.store.observe import observe
from headwater.store.schema import (
    DERIVED_TABLES,
    column_edges,
    dataset_fields,
    dataset_versions,
    datasets,
    edges,
    events,
    job_versions,
    jobs,
    observations,
    runs,
)

CHUNK = 500
DATASET_ROLES = ("input", "output", "dataset")
JOB_ROLES = ("job", "jobevent")


def _chunks(items: Iterable[str], size: int = CHUNK) -> Iterator[list[str]]:
    ordered = sorted(set(items))
    for start in range(0, len(ordered), size):
        yield ordered[start:start + size]


def _load_observations(conn: sa.Connection, nodes: Sequence[str], roles: Sequence[str]) -> dict[str, list[sa.Row[Any]]]:
    found: dict[str, list[sa.Row[Any]]] = defaultdict(list)
    query = sa.select(observations.c.node, observations.c.role, observations.c.time, observations.c.event_id,
                      observations.c.data)
    for chunk in _chunks(nodes):
        for row in conn.execute(query.where(observations.c.node.in_(chunk), observations.c.role.in_(roles))):
            found[row.node].append(row)
    return found


def _json_row(row: dict[str, Any], json_columns: Sequence[str]) -> dict[str, Any]:
    return {k: (dumps(v) if k in json_columns else v) for k, v in row.items()}


def project_new_events(conn: sa.Connection, new: Sequence[NewEvent]) -> None:
    """Re-derive every node the new events touched."""
    run_nodes: set[str] = set()
    job_nodes: set[str] = set()
    dataset_nodes: set[str] = set()
    for n in new:
        for o in n.observations:
            if o.role == "run":
                run_nodes.add(o.node)
            elif o.role in JOB_ROLES:
                job_nodes.add(o.node)
            else:
                dataset_nodes.add(o.node)
    refresh(conn, run_nodes, job_nodes, dataset_nodes)


def refresh(conn: sa.Connection, run_nodes: set[str], job_nodes: set[str], dataset_nodes: set[str]) -> None:
    job_nodes = job_nodes | _refresh_runs(conn, run_nodes)
    _refresh_jobs(conn, job_nodes)
    _refresh_datasets(conn, dataset_nodes)


def _refresh_runs(conn: sa.Connection, run_nodes: set[str]) -> set[str]:
    """Re-derive runs; returns the jobs whose versions depend on them (old and new owner)."""
    touched_jobs: set[str] = set()
    found = _load_observations(conn, sorted(run_nodes), ("run",))
    rows: list[dict[str, Any]] = []
    for node, obs_rows in found.items():
        run_id = node[len("run:"):]
        run = derive_run(run_id, [RunObservation(r.time, r.event_id, json.loads(r.data)) for r in obs_rows])
        touched_jobs.add(run["job"])
        rows.append(_json_row(run, ("facets", "job_facets", "inputs", "outputs", "column_lineage")))
    ids = [r["run_id"] for r in rows]
    for chunk in _chunks(ids):
        touched_jobs.update(conn.scalars(sa.select(runs.c.job).where(runs.c.run_id.in_(chunk))))
        conn.execute(runs.delete().where(runs.c.run_id.in_(chunk)))
    if rows:
        conn.execute(runs.insert(), rows)
    return touched_jobs


def _refresh_jobs(conn: sa.Connection, job_nodes: set[str]) -> None:
    for chunk in _chunks(job_nodes):
        samples: dict[str, list[JobSample]] = defaultdict(list)
        last_run: dict[str, sa.Row[Any]] = {}
        names: dict[str, tuple[str, str]] = {}
        run_query = sa.select(runs).where(runs.c.job.in_(chunk)).order_by(runs.c.started_at, runs.c.run_id)
        for r in conn.execute(run_query):
            facets = json.loads(r.job_facets)
            content = job_content(json.loads(r.inputs), json.loads(r.outputs), facets, json.loads(r.column_lineage))
            samples[r.job].append(JobSample(r.started_at, r.run_id, r.run_id, content, facets))
            last_run[r.job] = r
        for node, obs_rows in _load_observations(conn, chunk, ("jobevent",)).items():
            for o in obs_rows:
                d = json.loads(o.data)
                content = job_content(d["inputs"], d["outputs"], d["jobFacets"], d["columnLineage"])
                samples[node].append(JobSample(o.time, f"event:{o.event_id}", None, content, d["jobFacets"]))
                names[node] = (d["jobNamespace"], d["jobName"])
        spans = {row.node: (row.first, row.last) for row in conn.execute(
            sa.select(observations.c.node, sa.func.min(observations.c.time).label("first"),
                      sa.func.max(observations.c.time).label("last"))
            .where(observations.c.node.in_(chunk), observations.c.role.in_(JOB_ROLES))
            .group_by(observations.c.node))}
        for row in conn.execute(sa.select(jobs.c.id, jobs.c.namespace, jobs.c.name).where(jobs.c.id.in_(chunk))):
            names[row.id] = (row.namespace, row.name)
        missing = [j for j in chunk if j not in names and j in spans]
        for node, obs_rows in _load_observations(conn, missing, ("job",)).items():
            d = json.loads(obs_rows[0].data)
            names[node] = (d["jobNamespace"], d["jobName"])
        for table in (jobs, job_versions, edges, column_edges):
            key = table.c.id if table is jobs else table.c.job
            conn.execute(table.delete().where(key.in_(chunk)))
        job_rows, version_rows, edge_rows, column_rows = [], [], [], []
        for job in chunk:
            if job not in spans:
                continue
            versions = derive_job_versions(job, samples.get(job, []))
            ordered = sorted(samples.get(job, []), key=lambda s: (s.time, s.key))
            namespace, name = names[job]
            run = last_run.get(job)
            job_rows.append({
                "id": job, "namespace": namespace, "name": name, "created_at": spans[job][0],
                "updated_at": spans[job][1], "facets": dumps(ordered[-1].facets if ordered else {}),
                "parent_job": run.parent_job if run is not None else None,
            })
            version_rows.extend(_json_row(v, ("inputs", "outputs", "facets", "column_lineage", "changes"))
                                for v in versions)
            edge_rows.extend(derive_edges(job, versions))
            column_rows.extend(_json_row(e, ("transformations",)) for e in derive_column_edges(job, versions))
        for table, rows in ((jobs, job_rows), (job_versions, version_rows), (edges, edge_rows),
                            (column_edges, column_rows)):
            if rows:
                conn.execute(table.insert(), rows)


def _refresh_datasets(conn: sa.Connection, dataset_nodes: set[str]) -> None:
    for chunk in _chunks(dataset_nodes):
        found = _load_observations(conn, chunk, DATASET_ROLES)
        for table in (datasets, dataset_versions, dataset_fields):
            key = table.c.id if table is datasets else table.c.dataset
            conn.execute(table.delete().where(key.in_(chunk)))
        ds_rows, version_rows, field_rows = [], [], []
        for node, obs_rows in found.items():
            parsed = [DatasetObservation(r.time, r.event_id, r.role, json.loads(r.data)) for r in obs_rows]
            versions = derive_dataset_versions(node, parsed)
            namespace, name = parsed[0].data["namespace"], parsed[0].data["name"]
            last = versions[-1]
            ds_rows.append({
                "id": node, "namespace": namespace, "name": name, "kind": last["kind"],
                "created_at": versions[0]["valid_from"], "updated_at": max(o.time for o in parsed),
                "deleted": last["deleted"],
            })
            version_rows.extend(_json_row(v, ("fields", "facets", "changes")) for v in versions)
            field_rows.extend(derive_field_spans(node, namespace, name, versions))
        for table, rows in ((datasets, ds_rows), (dataset_versions, version_rows), (dataset_fields, field_rows)):
            if rows:
                conn.execute(table.insert(), rows)


def rebuild_all(conn: sa.Connection, batch: int = 1000) -> int:
    """Drop every derived row and the observation index, then replay the whole event log."""
    for table in (*DERIVED_TABLES, observations):
        conn.execute(table.delete())
    count = 0
    last_seq = 0
    nodes: dict[str, set[str]] = {"run": set(), "job": set(), "dataset": set()}
    while True:
        rows = list(conn.execute(
            sa.select(events.c.seq, events.c.id, events.c.raw).where(events.c.seq > last_seq)
            .order_by(events.c.seq).limit(batch)))
        if not rows:
            break
        new = [NewEvent(r.seq, r.id, observe(json.loads(r.raw), r.id)) for r in rows]
        insert_observations(conn, new)
        for n in new:
            for o in n.observations:
                group = "run" if o.role == "run" else "job" if o.role in JOB_ROLES else "dataset"
                nodes[group].add(o.node)
        count += len(rows)
        last_seq = rows[-1].seq
    refresh(conn, nodes["run"], nodes["job"], nodes["dataset"])
    return count
