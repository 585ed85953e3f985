"""Lists: namespaces, datasets, jobs, recently updated nodes (current state)."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from headwater.graph.common import dataset_nodes, job_nodes
from headwater.model.nodeid import DATASET, JOB
from headwater.model.times import iso
from headwater.store.schema import datasets, jobs


def namespaces(conn: sa.Connection) -> dict[str, Any]:
    found: dict[str, dict[str, Any]] = {}
    for key, table in (("datasets", datasets), ("jobs", jobs)):
        query = sa.select(
            table.c.namespace, sa.func.count().label("n"), sa.func.max(table.c.updated_at).label("u")
        ).group_by(table.c.namespace)
        for r in conn.execute(query):
            item = found.setdefault(r.namespace, {"name": r.namespace, "datasets": 0, "jobs": 0, "updatedAt": r.u})
            item[key] = r.n
            item["updatedAt"] = max(item["updatedAt"], r.u)
    return {"namespaces": [{**v, "updatedAt": iso(v["updatedAt"])} for _, v in sorted(found.items())]}


def _page(
    conn: sa.Connection, table: sa.Table, namespace: str | None, limit: int, offset: int
) -> tuple[list[str], int]:
    if limit < 1 or offset < 0:
        raise ValueError(f"limit must be at least 1 and offset at least 0, got limit={limit}, offset={offset}")
    cond = sa.true() if namespace is None else table.c.namespace == namespace
    total = conn.scalar(sa.select(sa.func.count()).select_from(table).where(cond)) or 0
    ids = list(
        conn.scalars(
            sa.select(table.c.id)
            .where(cond)
            .order_by(table.c.namespace, table.c.name, table.c.id)
            .limit(limit)
            .offset(offset)
        )
    )
    return ids, total


def dataset_list(
    conn: sa.Connection, *, namespace: str | None = None, limit: int = 100, offset: int = 0
) -> dict[str, Any]:
    ids, total = _page(conn, datasets, namespace, limit, offset)
    found = dataset_nodes(conn, ids, None)
    return {"items": [found[i] for i in ids if i in found], "total": total}


def job_list(conn: sa.Connection, *, namespace: str | None = None, limit: int = 100, offset: int = 0) -> dict[str, Any]:
    ids, total = _page(conn, jobs, namespace, limit, offset)
    found = job_nodes(conn, ids, None)
    return {"items": [found[i] for i in ids if i in found], "total": total}


def recent(conn: sa.Connection, *, limit: int = 20) -> dict[str, Any]:
    if limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")
    newest: list[tuple[int, str]] = []
    for table in (datasets, jobs):
        newest.extend(
            (r.updated_at, r.id)
            for r in conn.execute(
                sa.select(table.c.id, table.c.updated_at).order_by(table.c.updated_at.desc(), table.c.id).limit(limit)
            )
        )
    newest.sort(key=lambda item: (-item[0], item[1]))
    ids = [i for _, i in newest[:limit]]
    found = dataset_nodes(conn, [i for i in ids if i.startswith(DATASET)], None)
    found.update(job_nodes(conn, [i for i in ids if i.startswith(JOB)], None))
    return {"items": [found[i] for i in ids if i in found]}
