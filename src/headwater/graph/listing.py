"""Lists: namespaces, datasets, jobs, recently updated nodes (current state).

``exclude``: node ids left out as if they did not exist (the nodes hidden from the reader,
graph/visibility.py): counts, pages and totals are of the others.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Literal

import sqlalchemy as sa

from headwater.graph.answers import NamespacesAnswer, NamespaceSummary, Node, NodePage, RecentAnswer
from headwater.graph.common import dataset_nodes, job_nodes
from headwater.model.nodeid import DATASET, JOB
from headwater.model.times import iso
from headwater.store.schema import dataset_fields, datasets, jobs

NONE: frozenset[str] = frozenset()


def _visible(table: sa.Table, exclude: Collection[str]) -> sa.ColumnElement[bool]:
    return sa.true() if not exclude else table.c.id.not_in(sorted(exclude))


def hidden_field_count(conn: sa.Connection, dataset_ids: Collection[str]) -> int:
    """How many current fields the datasets have (what a search may have to skip)."""
    if not dataset_ids:
        return 0
    query = sa.select(sa.func.count()).where(
        dataset_fields.c.dataset.in_(sorted(dataset_ids)), dataset_fields.c.valid_to.is_(None)
    )
    return int(conn.scalar(query) or 0)


def namespaces(conn: sa.Connection, *, exclude: Collection[str] = NONE) -> NamespacesAnswer:
    found: dict[str, dict[str, int]] = {}  # namespace -> datasets, jobs, updatedAt (epoch microseconds)
    for key, table in (("datasets", datasets), ("jobs", jobs)):
        query = (
            sa.select(table.c.namespace, sa.func.count().label("n"), sa.func.max(table.c.updated_at).label("u"))
            .where(_visible(table, exclude))
            .group_by(table.c.namespace)
        )
        for r in conn.execute(query):
            item = found.setdefault(r.namespace, {"datasets": 0, "jobs": 0, "updatedAt": r.u})
            item[key] = r.n
            item["updatedAt"] = max(item["updatedAt"], r.u)
    summaries: list[NamespaceSummary] = [
        {"name": name, "datasets": v["datasets"], "jobs": v["jobs"], "updatedAt": iso(v["updatedAt"])}
        for name, v in sorted(found.items())
    ]
    return {"namespaces": summaries}


def _page(
    conn: sa.Connection, table: sa.Table, namespace: str | None, limit: int, offset: int, exclude: Collection[str]
) -> tuple[list[str], int]:
    if limit < 1 or offset < 0:
        raise ValueError(f"limit must be at least 1 and offset at least 0, got limit={limit}, offset={offset}")
    cond = sa.true() if namespace is None else table.c.namespace == namespace
    cond = sa.and_(cond, _visible(table, exclude))
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


# a listing's kind → its table, and how its nodes are read
_LISTED: dict[str, tuple[sa.Table, Callable[[sa.Connection, list[str], int | None], dict[str, Node]]]] = {
    "dataset": (datasets, dataset_nodes),
    "job": (jobs, job_nodes),
}


def node_list(
    conn: sa.Connection,
    kind: Literal["dataset", "job"],
    *,
    namespace: str | None = None,
    limit: int = 100,
    offset: int = 0,
    exclude: Collection[str] = NONE,
) -> NodePage:
    """One page of the datasets or jobs (``kind``) in name order, and how many there are in all."""
    table, nodes = _LISTED[kind]
    ids, total = _page(conn, table, namespace, limit, offset, exclude)
    found = nodes(conn, ids, None)
    return {"items": [found[i] for i in ids if i in found], "total": total}


def recent(conn: sa.Connection, *, limit: int = 20, exclude: Collection[str] = NONE) -> RecentAnswer:
    if limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")
    newest: list[tuple[int, str]] = []
    for table in (datasets, jobs):
        newest.extend(
            (r.updated_at, r.id)
            for r in conn.execute(
                sa.select(table.c.id, table.c.updated_at)
                .where(_visible(table, exclude))
                .order_by(table.c.updated_at.desc(), table.c.id)
                .limit(limit)
            )
        )
    newest.sort(key=lambda item: (-item[0], item[1]))
    ids = [i for _, i in newest[:limit]]
    found = dataset_nodes(conn, [i for i in ids if i.startswith(DATASET)], None)
    found.update(job_nodes(conn, [i for i in ids if i.startswith(JOB)], None))
    return {"items": [found[i] for i in ids if i in found]}
