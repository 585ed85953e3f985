"""One page of a dataset's or job's versions, filtered and paged in the database (not in memory).

The versions of a node with ``validFrom`` in ``[since, until]`` (microseconds, either bound optional),
ordered by ``(validFrom, version id)`` ascending or descending, starting after a key of the page
before, at most ``limit`` of them. ``side`` keeps only the versions that had a neighbour on that side
while they were current, looked at where the node's details look (at the version's start and at its
last microsecond; an open version: now): for a dataset an edge valid then (``UPSTREAM``: a job
writing it, ``DOWNSTREAM``: a job reading it), for a job the version's own inputs or outputs.
One query per page, whatever the number of versions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import sqlalchemy as sa

from headwater.graph.common import NodeNotFound, require_node, root_ref
from headwater.model.jsontext import loads_text
from headwater.model.nodeid import NodeRef
from headwater.store.schema import dataset_versions, datasets, edges, job_versions, jobs

Side = Literal["UPSTREAM", "DOWNSTREAM"]
_TABLES = {"dataset": (dataset_versions, datasets), "job": (job_versions, jobs)}  # versions, nodes
_EMPTY_LIST = "[]"  # how the store writes an empty list of datasets (compact JSON)


@dataclass(frozen=True)
class NodeVersion:
    """One version of a dataset or job."""

    version: str  # the version id
    valid_from: int  # microseconds since the epoch
    facets: dict[str, Any]


@dataclass(frozen=True)
class VersionPage:
    """A page of versions; ``more``: versions follow the last one."""

    created_at: int | None  # when the node was first seen, microseconds since the epoch
    versions: list[NodeVersion]
    more: bool


def _edge_at(dataset: sa.ColumnElement[str], direction: str, t: sa.ColumnElement[int]) -> sa.Exists:
    """An edge of ``dataset`` in ``direction`` valid at the instant ``t`` (a column expression)."""
    return sa.exists().where(
        edges.c.dataset == dataset,
        edges.c.direction == direction,
        edges.c.valid_from <= t,
        sa.or_(edges.c.valid_to.is_(None), edges.c.valid_to > t),
    )


def _open_edge(dataset: sa.ColumnElement[str], direction: str) -> sa.Exists:
    return sa.exists().where(edges.c.dataset == dataset, edges.c.direction == direction, edges.c.valid_to.is_(None))


def version_page(
    conn: sa.Connection,
    ref: NodeRef,
    *,
    since: int | None,
    until: int | None,
    side: Side | None,
    descending: bool,
    after: tuple[int, str] | None,
    limit: int,
) -> VersionPage:
    ref = root_ref(ref)
    if ref.type not in _TABLES:
        raise NodeNotFound(f"history is kept for datasets and jobs, not for {ref.id!r}")
    require_node(conn, ref, None)  # a node that is gone, or hidden from the reader, is not found
    table, node_table = _TABLES[ref.type]
    key = table.c[ref.type]
    query = sa.select(table.c.id, table.c.valid_from, table.c.facets).where(key == ref.id)
    if since is not None:
        query = query.where(table.c.valid_from >= since)
    if until is not None:
        query = query.where(table.c.valid_from <= until)
    if side is not None and ref.type == "job":
        query = query.where((job_versions.c.inputs if side == "UPSTREAM" else job_versions.c.outputs) != _EMPTY_LIST)
    elif side is not None:
        direction = "OUTPUT" if side == "UPSTREAM" else "INPUT"  # a producer writes it, a consumer reads it
        start = _edge_at(key, direction, table.c.valid_from)
        last = sa.or_(
            sa.and_(table.c.valid_to.is_(None), _open_edge(key, direction)),
            sa.and_(table.c.valid_to.is_not(None), _edge_at(key, direction, table.c.valid_to - 1)),
        )
        query = query.where(sa.or_(start, last))
    order = (table.c.valid_from, table.c.id)
    if after is not None:
        query = query.where(sa.tuple_(*order) < after if descending else sa.tuple_(*order) > after)
    query = query.order_by(*(c.desc() if descending else c.asc() for c in order)).limit(limit + 1)
    rows = list(conn.execute(query))
    created = conn.scalar(sa.select(node_table.c.created_at).where(node_table.c.id == ref.id))
    versions = [NodeVersion(r.id, int(r.valid_from), loads_text(r.facets)) for r in rows[:limit]]
    return VersionPage(None if created is None else int(created), versions, len(rows) > limit)
