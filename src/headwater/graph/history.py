"""The version history of a dataset or job, newest first.

A dataset's versions also say what changed versus the version before (``schemaChanges``: columns
added, removed, type changed, nullability changed; ``null`` for the first version) and which run
made each one (``madeBy``: the run, its job and its state; ``null`` when no run is known, e.g. a
DatasetEvent). The diff is computed here, from the stored fields of consecutive versions (nested
fields by dotted name); nullability comes from the ``headwater_columns`` facet producers such as
the crawler send (``{"columns": {"a.b": {"nullable": bool, ...}}}``), so columns without it never
show a nullability change.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import sqlalchemy as sa

from headwater.graph.answers import (
    DatasetHistoryVersion,
    HistoryAnswer,
    MadeBy,
    SchemaChanges,
    SchemaField,
    Version,
)
from headwater.graph.common import NodeNotFound, is_absent, root_ref, version_shape
from headwater.model.jsontypes import Facets
from headwater.model.nodeid import NodeRef, parse_node_id
from headwater.model.times import iso
from headwater.store.parts import read_column
from headwater.store.schema import dataset_versions, job_versions, runs

COLUMNS_FACET = "headwater_columns"


def history(conn: sa.Connection, ref: NodeRef) -> HistoryAnswer:
    ref = root_ref(ref)
    if ref.type == "dataset":
        table, key, is_job = dataset_versions, dataset_versions.c.dataset, False
    elif ref.type == "job":
        table, key, is_job = job_versions, job_versions.c.job, True
    else:
        raise NodeNotFound(f"history is kept for datasets and jobs, not for {ref.id!r}")
    rows = list(conn.execute(sa.select(table).where(key == ref.id).order_by(table.c.valid_from.desc())))
    if not rows or is_absent(ref.id):
        raise NodeNotFound(f"{ref.type} {ref.id!r} not found")
    versions = [version_shape(r, is_job=is_job) for r in rows]
    if is_job:
        return {"versions": list(versions)}
    made_by = _runs(conn, {r.run_id for r in rows if r.run_id})
    described: list[DatasetHistoryVersion | Version] = []
    for i, version in enumerate(versions):
        older = versions[i + 1] if i + 1 < len(versions) else None
        run_id = version["runId"]
        described.append(
            {
                **version,
                "schemaChanges": None if older is None else schema_changes(older, version),
                "madeBy": made_by.get(run_id) if run_id else None,
            }
        )
    return {"versions": described}


def _flat(fields: Sequence[SchemaField], prefix: str = "") -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for f in fields:
        name = f"{prefix}{f['name']}"
        out.setdefault(name, f.get("type"))
        for sub, type_ in _flat(f.get("fields") or [], f"{name}.").items():
            out.setdefault(sub, type_)
    return out


def _nullability(facets: Facets) -> dict[str, bool]:
    facet = facets.get(COLUMNS_FACET)
    columns = facet.get("columns") if isinstance(facet, Mapping) else None
    if not isinstance(columns, Mapping):
        return {}
    return {
        str(k): bool(v["nullable"])
        for k, v in columns.items()
        if isinstance(v, Mapping) and isinstance(v.get("nullable"), bool)
    }


def schema_changes(older: Version, newer: Version) -> SchemaChanges:
    """What ``newer``'s schema changed versus ``older``'s (both version shapes), columns in schema order."""
    before, after = _flat(older["fields"]), _flat(newer["fields"])
    null_before, null_after = _nullability(older["facets"]), _nullability(newer["facets"])
    return {
        "added": [{"field": f, "type": t, "nullable": null_after.get(f)} for f, t in after.items() if f not in before],
        "removed": [
            {"field": f, "type": t, "nullable": null_before.get(f)} for f, t in before.items() if f not in after
        ],
        "typeChanged": [
            {"field": f, "fromType": before[f], "toType": t} for f, t in after.items() if f in before and before[f] != t
        ],
        "nullabilityChanged": [
            {"field": f, "fromNullable": null_before[f], "toNullable": null_after[f]}
            for f in after
            if f in before and f in null_before and f in null_after and null_before[f] != null_after[f]
        ],
    }


def _runs(conn: sa.Connection, run_ids: set[str]) -> dict[str, MadeBy]:
    if not run_ids:
        return {}
    query = sa.select(
        runs.c.run_id, runs.c.job, runs.c.state, runs.c.started_at, runs.c.ended_at, runs.c.job_facets
    ).where(runs.c.run_id.in_(sorted(run_ids)))
    found: dict[str, MadeBy] = {}
    for row in conn.execute(query):
        job = parse_node_id(row.job)
        job_type = (read_column(conn, row.job_facets) or {}).get("jobType") or {}
        found[row.run_id] = {
            "runId": row.run_id,
            "job": row.job,
            "jobNamespace": job.namespace,
            "jobName": job.name,
            "jobType": job_type.get("jobType") if isinstance(job_type, Mapping) else None,
            "state": row.state,
            "startedAt": iso(row.started_at),
            "endedAt": iso(row.ended_at),
        }
    return found
