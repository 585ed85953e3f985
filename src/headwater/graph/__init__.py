"""Graph reads: lineage, column lineage, impact, details, history, search, compare, lists.

:class:`GraphReader` answers in the shapes of docs/api.md ("Graph reads"), as plain JSON-able
dicts. Every read can look at the past (``at=``): rows carry validity intervals
``[valid_from, valid_to)`` on the event-time axis. One module per question.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Protocol

import sqlalchemy as sa

from headwater.graph import (
    columns,
    compare,
    details,
    facets,
    history,
    impact,
    lineage,
    listing,
    runlineage,
    search,
    stats,
)
from headwater.graph.common import NodeNotFound
from headwater.model.nodeid import NodeRef

__all__ = ["GraphReader", "NodeNotFound", "ReadSource"]


class ReadSource(Protocol):
    """Where graph answers read from: :class:`headwater.store.Store` is one.

    ``read_connection`` gives a connection that sees the derived graph caught up with the log
    (the store's read barrier) and, on PostgreSQL, one snapshot for all the queries of an answer.
    """

    def read_connection(self) -> sa.Connection: ...


class GraphReader:
    """Read-only questions on the derived graph; thread-safe (one connection per call).

    ``GraphReader(store)``: every answer opens one connection through ``source.read_connection()``.
    """

    def __init__(self, source: ReadSource) -> None:
        self._source = source

    def _connect(self) -> sa.Connection:
        return self._source.read_connection()

    def lineage(
        self,
        node: NodeRef,
        *,
        direction: str = "both",
        depth: int = 2,
        datasets_only: bool = False,
        columns: bool = False,
        at: datetime | None = None,
        max_nodes: int = 5000,
        collapse_jobs: bool = False,
    ) -> dict[str, Any]:
        with self._connect() as conn:
            return lineage.lineage(
                conn,
                node,
                direction=direction,
                depth=depth,
                datasets_only=datasets_only,
                columns=columns,
                at=at,
                max_nodes=max_nodes,
                collapse_jobs=collapse_jobs,
            )

    def column_lineage(
        self,
        node: NodeRef,
        *,
        direction: str = "both",
        depth: int = 10,
        at: datetime | None = None,
        max_nodes: int = 5000,
    ) -> dict[str, Any]:
        with self._connect() as conn:
            return columns.column_lineage(conn, node, direction=direction, depth=depth, at=at, max_nodes=max_nodes)

    def impact(
        self, node: NodeRef, *, depth: int = 20, at: datetime | None = None, max_nodes: int = 5000
    ) -> dict[str, Any]:
        with self._connect() as conn:
            return impact.impact(conn, node, depth=depth, at=at, max_nodes=max_nodes)

    def node(self, node: NodeRef, *, at: datetime | None = None) -> dict[str, Any]:
        with self._connect() as conn:
            return details.node(conn, node, at=at)

    def history(self, node: NodeRef) -> dict[str, Any]:
        with self._connect() as conn:
            return history.history(conn, node)

    def runs(self, node: NodeRef, *, limit: int = 50, offset: int = 0) -> dict[str, Any]:
        with self._connect() as conn:
            return details.runs_of(conn, node, limit=limit, offset=offset)

    def run(self, run_id: str) -> dict[str, Any]:
        with self._connect() as conn:
            return details.run(conn, run_id)

    def search(
        self,
        q: str,
        *,
        types: Sequence[str] = ("dataset", "job", "field"),
        namespace: str | None = None,
        limit: int = 20,
    ) -> dict[str, Any]:
        with self._connect() as conn:
            return search.search(conn, q, types=types, namespace=namespace, limit=limit)

    def compare(
        self, node: NodeRef, *, t_from: datetime, t_to: datetime, direction: str = "both", depth: int = 2
    ) -> dict[str, Any]:
        with self._connect() as conn:
            return compare.compare(conn, node, t_from=t_from, t_to=t_to, direction=direction, depth=depth)

    def namespaces(self) -> dict[str, Any]:
        with self._connect() as conn:
            return listing.namespaces(conn)

    def datasets(self, *, namespace: str | None = None, limit: int = 100, offset: int = 0) -> dict[str, Any]:
        with self._connect() as conn:
            return listing.dataset_list(conn, namespace=namespace, limit=limit, offset=offset)

    def jobs(self, *, namespace: str | None = None, limit: int = 100, offset: int = 0) -> dict[str, Any]:
        with self._connect() as conn:
            return listing.job_list(conn, namespace=namespace, limit=limit, offset=offset)

    def recent(self, *, limit: int = 20) -> dict[str, Any]:
        with self._connect() as conn:
            return listing.recent(conn, limit=limit)

    def dataset_facets(self, node: NodeRef) -> dict[str, Any]:
        """The facets of a dataset as its newest event sent them (graph/facets.py; ``{}`` when none)."""
        with self._connect() as conn:
            return facets.latest_dataset_facets(conn, node)

    def stats(self, kind: str, intervals: list[tuple[datetime, datetime]]) -> list[dict[str, Any]]:
        """Counts per interval: lineage events by type, or jobs, datasets, sources existing (graph/stats.py)."""
        with self._connect() as conn:
            return stats.stats(conn, kind, intervals)

    def upstream_runs(self, run_id: str, *, depth: int = 20) -> list[dict[str, Any]]:
        """A run and the runs that produced what it read, upstream to ``depth`` (graph/runlineage.py)."""
        with self._connect() as conn:
            return runlineage.upstream_runs(conn, run_id, depth)
