"""Node details (dataset, job, run) and a job's runs."""

from __future__ import annotations

import json
from collections.abc import Collection
from datetime import datetime

import sqlalchemy as sa

from headwater.graph import hierarchy
from headwater.graph.answers import DatasetDetails, JobDetails, NodeDetails, Run, RunsAnswer
from headwater.graph.common import (
    NodeNotFound,
    is_absent,
    micros,
    require_node,
    root_ref,
    valid_at,
    version_shape,
)
from headwater.graph.traverse import incidence
from headwater.model.jsontypes import JSONValue
from headwater.model.nodeid import NodeRef
from headwater.model.times import iso
from headwater.store.parts import read_column
from headwater.store.schema import dataset_versions, datasets, events, job_versions, jobs, observations, runs
from headwater.store.types import Column, Row


def run_shape(row: Row, facets: JSONValue) -> Run:
    """A ``runs`` row as answered, with its facets read back (``parts.read_column``: they may be a stored part)."""
    return {
        "runId": row.run_id,
        "job": row.job,
        "state": row.state,
        "startedAt": iso(row.started_at),
        "endedAt": iso(row.ended_at),
        "durationMs": None if row.ended_at is None else (row.ended_at - row.started_at) // 1000,
        "errorMessage": row.error_message,
        "stackTrace": row.stack_trace,
        "parentRunId": row.parent_run_id,
        "parentJob": row.parent_job,
        "facets": facets,
        "inputs": json.loads(row.inputs),
        "outputs": json.loads(row.outputs),
    }


def run(conn: sa.Connection, run_id: str) -> Run:
    row = conn.execute(sa.select(runs).where(runs.c.run_id == run_id)).first()
    if row is None or is_absent(row.job):
        raise NodeNotFound(f"run {run_id!r} not found")
    return run_shape(row, read_column(conn, row.facets, json.loads))


def _current_version(conn: sa.Connection, table: sa.Table, key: Column, node_id: str, t: int | None) -> Row:
    """The node's version valid at ``t`` (the caller has checked that the node exists then)."""
    return conn.execute(sa.select(table).where(key == node_id, valid_at(table, t))).one()


def node(conn: sa.Connection, ref: NodeRef, *, at: datetime | None = None) -> NodeDetails:
    if ref.type == "run":
        return run(conn, ref.name)
    t = micros(at)
    ref = root_ref(ref)
    shape = require_node(conn, ref, t)
    if ref.type == "dataset":
        version = _current_version(conn, dataset_versions, dataset_versions.c.dataset, ref.id, t)
        inc = incidence(conn, datasets=[ref.id], t=t)
        created: int = conn.execute(sa.select(datasets.c.created_at).where(datasets.c.id == ref.id)).scalar_one()
        dataset: DatasetDetails = {
            **shape,
            "facets": json.loads(version.facets),
            "currentVersion": version_shape(version, is_job=False),
            "producers": sorted(inc.producers.get(ref.id, ())),
            "consumers": sorted(inc.consumers.get(ref.id, ())),
            "createdAt": iso(created),
        }
        return dataset
    version = _current_version(conn, job_versions, job_versions.c.job, ref.id, t)
    row = conn.execute(sa.select(jobs).where(jobs.c.id == ref.id)).one()
    facets = json.loads(row.facets if t is None else version.facets)
    parent = row.parent_job
    if t is not None:
        parent = conn.scalar(
            sa.select(runs.c.parent_job)
            .where(runs.c.job == ref.id, runs.c.started_at <= t)
            .order_by(runs.c.started_at.desc(), runs.c.run_id.desc())
            .limit(1)
        )
    job: JobDetails = {
        **shape,
        "facets": facets,
        "currentVersion": version_shape(version, is_job=True),
        "inputs": json.loads(version.inputs),
        "outputs": json.loads(version.outputs),
        "parent": parent,
        "children": hierarchy.children(conn, ref.id, t),
        "createdAt": iso(row.created_at),
    }
    return job


def runs_of(
    conn: sa.Connection, ref: NodeRef, *, limit: int = 50, offset: int = 0, exclude_jobs: Collection[str] = ()
) -> RunsAnswer:
    """Runs of a job, or the runs that read or wrote a dataset; newest first (none of ``exclude_jobs``)."""
    if limit < 1 or offset < 0:
        raise ValueError(f"limit must be at least 1 and offset at least 0, got limit={limit}, offset={offset}")
    ref = root_ref(ref)
    if ref.type == "run":
        return {"runs": [run(conn, ref.name)], "total": 1}
    require_node(conn, ref, None)
    if ref.type == "job":
        cond: sa.ColumnElement[bool] = runs.c.job == ref.id
    else:
        touched = sa.select(events.c.run_id).where(
            events.c.seq.in_(
                sa.select(observations.c.event_seq).where(
                    observations.c.node == ref.id, observations.c.role.in_(("input", "output"))
                )
            )
        )
        cond = runs.c.run_id.in_(touched)
    if exclude_jobs:
        cond = sa.and_(cond, runs.c.job.not_in(sorted(exclude_jobs)))
    total = conn.scalar(sa.select(sa.func.count()).select_from(runs).where(cond)) or 0
    rows = conn.execute(
        sa.select(runs).where(cond).order_by(runs.c.started_at.desc(), runs.c.run_id.desc()).limit(limit).offset(offset)
    )
    return {"runs": [run_shape(r, read_column(conn, r.facets, json.loads)) for r in rows], "total": total}
