"""The version history of a dataset or job, newest first."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from headwater.graph.common import NodeNotFound, root_ref, version_shape
from headwater.model.nodeid import NodeRef
from headwater.store.schema import dataset_versions, job_versions


def history(conn: sa.Connection, ref: NodeRef) -> dict[str, Any]:
    ref = root_ref(ref)
    if ref.type == "dataset":
        table, key, is_job = dataset_versions, dataset_versions.c.dataset, False
    elif ref.type == "job":
        table, key, is_job = job_versions, job_versions.c.job, True
    else:
        raise NodeNotFound(f"history is kept for datasets and jobs, not for {ref.id!r}")
    rows = list(conn.execute(sa.select(table).where(key == ref.id).order_by(table.c.valid_from.desc())))
    if not rows:
        raise NodeNotFound(f"{ref.type} {ref.id!r} not found")
    return {"versions": [version_shape(r, is_job=is_job) for r in rows]}
