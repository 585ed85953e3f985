"""Graph reads: lineage, column lineage, impact, details, history, search, compare, lists.

:class:`GraphReader` answers in the shapes of docs/api.md ("Graph reads"), as plain JSON-able
dicts. Every read can look at the past (``at=``): rows carry validity intervals
``[valid_from, valid_to)`` on the event-time axis. One module per question.

Every answer, and every read of the event log, passes the catalog's visibility policy
(:mod:`~headwater.graph.visibility`) for the reader's :class:`Viewer`: ``GraphReader(source)`` reads as
an admin (everything), ``reader.viewing(viewer)`` as that viewer. The API binds each request's viewer.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Protocol, Unpack, cast

import sqlalchemy as sa

from headwater.graph import (
    classify,
    columns,
    compare,
    details,
    facets,
    hierarchy,
    history,
    impact,
    impactcheck,
    lineage,
    lineage_bytes,
    listing,
    quality,
    runlineage,
    search,
    stats,
    version_pages,
)
from headwater.graph.adjacency import Adjacency
from headwater.graph.answers import (
    ColumnLineageAnswer,
    CompareAnswer,
    DatasetDetails,
    HistoryAnswer,
    ImpactAnswer,
    JobDetails,
    LineageAnswer,
    NamespacesAnswer,
    NodeDetails,
    NodePage,
    RecentAnswer,
    Run,
    RunsAnswer,
    SearchAnswer,
    StatsBucket,
    UpstreamStep,
)
from headwater.graph.common import NodeNotFound, absent, require_node
from headwater.graph.lineage import LineageOptions, TraversalOptions
from headwater.graph.visibility import ADMIN, ANONYMOUS, NOTHING, Hidden, Redactor, Viewer, hidden_for
from headwater.model.changes import Change
from headwater.model.jsontypes import Facets
from headwater.model.nodeid import NodeRef
from headwater.model.times import to_micros
from headwater.store import eventlog
from headwater.store.eventlog import EventQuery
from headwater.store.schema import datasets as datasets_table
from headwater.store.types import StoredEvent

__all__ = ["ADMIN", "ANONYMOUS", "GraphReader", "NodeNotFound", "ReadSource", "Viewer"]


class ReadSource(Protocol):
    """Where graph answers read from: :class:`headwater.store.Store` is one.

    ``read_connection`` gives a connection that sees the derived graph caught up with the log
    (the store's read barrier) and, on PostgreSQL, one snapshot for all the queries of an answer.
    """

    def read_connection(self) -> sa.Connection: ...


def _redact_details(policy: Redactor, answer: NodeDetails) -> NodeDetails:
    """A dataset's, job's or run's details as ``policy`` shows them (each shape kept as its own type)."""
    if "runId" in answer:
        return policy.details(cast(Run, answer))
    if answer["type"] == "JOB":
        return policy.details(cast(JobDetails, answer))
    return policy.details(cast(DatasetDetails, answer))


class GraphReader:
    """Read-only questions on the derived graph; thread-safe (one connection per call).

    ``GraphReader(store)``: every answer opens one connection through ``source.read_connection()``.
    ``viewer`` (default: an admin) is who reads; :meth:`viewing` gives the same reader for another viewer.
    ``adjacency``: the source's edges held in memory (graph/adjacency.py), which lineage walks when built.
    """

    def __init__(
        self, source: ReadSource, viewer: Viewer | Callable[[], Viewer] = ADMIN, adjacency: Adjacency | None = None
    ) -> None:
        self._source = source
        self._viewer = viewer
        self._adjacency = adjacency

    @property
    def viewer(self) -> Viewer:
        """Who reads (a callable given as ``viewer`` is asked at each answer: the API's request principal)."""
        return self._viewer if isinstance(self._viewer, Viewer) else self._viewer()

    def viewing(self, viewer: Viewer | Callable[[], Viewer]) -> GraphReader:
        """This reader, answering as ``viewer`` sees the graph."""
        return GraphReader(self._source, viewer, self._adjacency)

    def _connect(self) -> sa.Connection:
        return self._source.read_connection()

    def _policy(self, conn: sa.Connection) -> Redactor:
        """The viewer's redactor for one answer (hidden nodes read in the answer's own connection)."""
        viewer = self.viewer
        return Redactor(NOTHING if viewer.admin else hidden_for(conn, viewer))

    def _root(self, conn: sa.Connection, node: NodeRef, at: datetime | None) -> tuple[Redactor, int | None]:
        """The viewer's redactor and the moment of a question about ``node``, which must exist then and be
        visible (a hidden root fails exactly as a missing one)."""
        redactor = self._policy(conn)
        t = None if at is None else to_micros(at)
        with absent(redactor.hidden.hides):
            require_node(conn, node, t)
        redactor.check_root(node)
        return redactor, t

    def hidden(self) -> Hidden:
        """The nodes hidden from this reader's viewer (now)."""
        with self._connect() as conn:
            return self._policy(conn).hidden

    def lineage(self, node: NodeRef, **options: Unpack[LineageOptions]) -> LineageAnswer:
        """:func:`headwater.graph.lineage.lineage` (its options and defaults) as this reader's viewer sees it."""
        with self._connect() as conn:
            policy = self._policy(conn)
            with absent(policy.hidden.hides):
                answer = lineage.lineage(conn, node, adjacency=self._adjacency, **options)
            if not policy.hidden:
                return answer
            policy.check_root(node)
            return policy.lineage(answer)

    def lineage_json(self, node: NodeRef, **options: Unpack[LineageOptions]) -> bytes | LineageAnswer:
        """:meth:`lineage` as the JSON bytes ``orjson`` writes for it, assembled from node shapes kept as bytes
        (graph/lineage_bytes.py); the answer itself where that path does not answer the question (no
        in-memory adjacency, ``datasets_only``, ``collapse_jobs``, ...): the caller encodes it."""
        if self._adjacency is not None:
            with self._connect() as conn:
                policy = self._policy(conn)
                with absent(policy.hidden.hides):
                    body = lineage_bytes.lineage_json(
                        conn, node, adjacency=self._adjacency, policy=policy if policy.hidden else None, **options
                    )
                if body is not None:
                    if policy.hidden:
                        policy.check_root(node)
                    return body
        return self.lineage(node, **options)

    def column_lineage(self, node: NodeRef, **options: Unpack[TraversalOptions]) -> ColumnLineageAnswer:
        """:func:`headwater.graph.columns.column_lineage` (its options and defaults) as this reader's viewer sees it."""
        with self._connect() as conn:
            policy = self._policy(conn)
            with absent(policy.hidden.hides):
                answer = columns.column_lineage(conn, node, **options)
            policy.check_root(node)
            return policy.column_lineage(answer) if policy.hidden else answer

    def impact(
        self, node: NodeRef, *, depth: int = 20, at: datetime | None = None, max_nodes: int = 5000
    ) -> ImpactAnswer:
        with self._connect() as conn:
            policy = self._policy(conn)
            with absent(policy.hidden.hides):
                answer = impact.impact(conn, node, depth=depth, at=at, max_nodes=max_nodes)
            policy.check_root(node)
            return policy.impact(answer) if policy.hidden else answer

    def impact_check(
        self,
        changes: Sequence[Change],
        *,
        at: datetime | None = None,
        depth: int = 20,
        max_nodes: int = 5000,
        policy: classify.Policy | None = None,
    ) -> impactcheck.ImpactReport:
        """What proposed changes affect downstream (graph/impactcheck.py); a changed dataset hidden from the
        viewer is answered as one the graph does not hold, hidden items as restricted nodes."""
        with self._connect() as conn:
            redactor = self._policy(conn)
            report = impactcheck.check(
                conn, changes, t=None if at is None else to_micros(at), depth=depth, max_nodes=max_nodes,
                hidden=redactor.hidden.hides, policy=policy,
            )  # fmt: skip
            return impactcheck.redact(report, redactor) if redactor.hidden else report

    def classification(
        self, policy: classify.Policy, *, tag: str | None = None, at: datetime | None = None, max_nodes: int = 50_000
    ) -> classify.ClassificationReport:
        """Every dataset, column and job carrying ``tag`` (graph/classify.py), without what the viewer may not
        see: hidden nodes are left out, hidden nodes on paths are restricted ids."""
        with self._connect() as conn:
            redactor = self._policy(conn)
            found = classify.report(conn, policy, tag=tag, t=None if at is None else to_micros(at), max_nodes=max_nodes)
            return classify.redact(found, redactor) if redactor.hidden else found

    def dataset_tags(
        self, node: NodeRef, policy: classify.Policy, *, at: datetime | None = None
    ) -> classify.ClassificationReport:
        """The tags of one dataset and its columns, declared and inherited (graph/classify.py)."""
        with self._connect() as conn:
            redactor, t = self._root(conn, node, at)
            found = classify.dataset_report(conn, policy, node.id, t)
            return classify.redact(found, redactor) if redactor.hidden else found

    def quality(
        self, node: NodeRef, *, at: datetime | None = None, depth: int = 20, max_nodes: int = 5000
    ) -> quality.QualityAnswer:
        """A dataset's latest data-quality results and the failing datasets upstream of it (graph/quality.py)."""
        with self._connect() as conn:
            redactor, t = self._root(conn, node, at)
            answer = quality.quality(conn, node.id, t, depth=depth, max_nodes=max_nodes)
            return quality.redact(answer, redactor) if redactor.hidden else answer

    def node(self, node: NodeRef, *, at: datetime | None = None) -> NodeDetails:
        with self._connect() as conn:
            policy = self._policy(conn)
            if node.type == "run":
                return self._run(conn, policy, node.name)
            with absent(policy.hidden.hides):
                answer = details.node(conn, node, at=at)
            policy.check_root(node)
            if not policy.hidden:
                return answer
            return _redact_details(policy, answer)

    def dataset(self, node: NodeRef, *, at: datetime | None = None) -> DatasetDetails:
        """A dataset's details (:meth:`node` of a dataset or one of its fields); NodeNotFound for another kind."""
        if node.type not in ("dataset", "datasetField"):
            raise NodeNotFound(f"{node.id!r} is not a dataset")
        return cast(DatasetDetails, self.node(node, at=at))

    def history(self, node: NodeRef) -> HistoryAnswer:
        with self._connect() as conn:
            policy = self._policy(conn)
            with absent(policy.hidden.hides):
                answer = history.history(conn, node)
            policy.check_root(node)
            if not policy.hidden:
                return answer
            return {**answer, "versions": [policy.version(v) for v in answer["versions"]]}

    def version_page(
        self,
        node: NodeRef,
        *,
        since: int | None = None,
        until: int | None = None,
        side: version_pages.Side | None = None,
        descending: bool = True,
        after: tuple[int, str] | None = None,
        limit: int = 50,
    ) -> version_pages.VersionPage:
        """One page of a dataset's or job's versions, paged in the database (:mod:`~headwater.graph.version_pages`)."""
        with self._connect() as conn:
            policy = self._policy(conn)
            with absent(policy.hidden.hides):
                page = version_pages.version_page(
                    conn, node, since=since, until=until, side=side, descending=descending, after=after, limit=limit
                )
            policy.check_root(node)
            if not policy.hidden:
                return page
            versions = [replace(v, facets=policy.facets(v.facets)) for v in page.versions]
            return replace(page, versions=versions)

    def runs(self, node: NodeRef, *, limit: int = 50, offset: int = 0) -> RunsAnswer:
        with self._connect() as conn:
            policy = self._policy(conn)
            if node.type == "run":
                return {"runs": [self._run(conn, policy, node.name)], "total": 1}
            with absent(policy.hidden.hides):
                answer = details.runs_of(conn, node, limit=limit, offset=offset, exclude_jobs=policy.hidden.jobs)
            policy.check_root(node)
            if not policy.hidden:
                return answer
            return {**answer, "runs": [policy.details(r) for r in answer["runs"]]}

    def run(self, run_id: str) -> Run:
        with self._connect() as conn:
            return self._run(conn, self._policy(conn), run_id)

    @staticmethod
    def _run(conn: sa.Connection, policy: Redactor, run_id: str) -> Run:
        with absent(policy.hidden.hides):  # a run of a hidden job: as a run that does not exist
            answer = details.run(conn, run_id)
        return policy.details(answer) if policy.hidden else answer

    def search(
        self,
        q: str,
        *,
        types: Sequence[str] = ("dataset", "job", "field"),
        namespace: str | None = None,
        limit: int = 20,
    ) -> SearchAnswer:
        with self._connect() as conn:
            policy = self._policy(conn)
            if not policy.hidden:
                return search.search(conn, q, types=types, namespace=namespace, limit=limit)
            # ask for more until a full page of visible results comes back (at most as many more as could be hidden)
            most = limit + listing.hidden_field_count(conn, policy.hidden.datasets) + len(policy.hidden.ids)
            ask = min(limit * 2, most)
            while True:
                answer = search.search(conn, q, types=types, namespace=namespace, limit=ask)
                visible = [r for r in answer["results"] if not policy.hidden.hides(r["id"])]
                if len(visible) >= limit or len(answer["results"]) < ask or ask >= most:
                    return {**answer, "results": visible[:limit]}
                ask = min(ask * 4, most)

    def compare(
        self, node: NodeRef, *, t_from: datetime, t_to: datetime, direction: str = "both", depth: int = 2
    ) -> CompareAnswer:
        with self._connect() as conn:
            policy = self._policy(conn)
            with absent(policy.hidden.hides):
                answer = compare.compare(conn, node, t_from=t_from, t_to=t_to, direction=direction, depth=depth)
            policy.check_root(node)
            return policy.compare(answer) if policy.hidden else answer

    def namespaces(self) -> NamespacesAnswer:
        with self._connect() as conn:
            return listing.namespaces(conn, exclude=self._policy(conn).hidden.ids)

    def datasets(self, *, namespace: str | None = None, limit: int = 100, offset: int = 0) -> NodePage:
        with self._connect() as conn:
            hidden = self._policy(conn).hidden.datasets
            return listing.node_list(conn, "dataset", namespace=namespace, limit=limit, offset=offset, exclude=hidden)

    def jobs(self, *, namespace: str | None = None, limit: int = 100, offset: int = 0) -> NodePage:
        with self._connect() as conn:
            hidden = self._policy(conn).hidden.jobs
            return listing.node_list(conn, "job", namespace=namespace, limit=limit, offset=offset, exclude=hidden)

    def datasets_known(self, ids: Sequence[str]) -> set[str]:
        """Which of these dataset ids the graph holds, as the viewer sees it (a hidden dataset is not held)."""
        with self._connect() as conn:
            hidden = self._policy(conn).hidden
            found = set(conn.scalars(sa.select(datasets_table.c.id).where(datasets_table.c.id.in_(list(ids)))))
        return {d for d in found if not hidden.hides(d)}

    def recent(self, *, limit: int = 20) -> RecentAnswer:
        with self._connect() as conn:
            return listing.recent(conn, limit=limit, exclude=self._policy(conn).hidden.ids)

    # --- the event log, through the same policy --------------------------------------------------

    def events(self, **query: Unpack[EventQuery]) -> tuple[list[StoredEvent], str | None]:
        """Raw events newest first (the store's cursor paging, :func:`headwater.store.eventlog.list_events`),
        without those naming a hidden node: a page may hold fewer than ``limit`` events while ``nextCursor``
        says more follow. ``node`` hidden: no events."""
        node = query.get("node")
        with self._connect() as conn:
            policy = self._policy(conn)
            if node is not None and (policy.hidden.hides(node.id) or policy.hidden.hides(node.dataset.id)):
                return [], None  # as for a node that does not exist: no events
            found, next_cursor = eventlog.list_events(conn, **query)
            if policy.hidden:
                found = [e for e in found if not policy.event_hidden(json.loads(e.raw))]
            return found, next_cursor

    def event_count(self, *, since: datetime | None = None, until: datetime | None = None) -> int | None:
        """How many events :meth:`events` would give in all for this window; None when nodes are hidden from
        the viewer (the count would need every event read)."""
        with self._connect() as conn:
            if self._policy(conn).hidden:
                return None
            return eventlog.count_events(
                conn,
                since=None if since is None else to_micros(since),
                until=None if until is None else to_micros(until),
            )

    def visible_events(self, raws: Sequence[str]) -> list[bool]:
        """For raw event texts read elsewhere (a protocol's own event table): which the viewer may see."""
        with self._connect() as conn:
            policy = self._policy(conn)
        if not policy.hidden:
            return [True] * len(raws)
        return [not policy.event_hidden(json.loads(raw)) for raw in raws]

    def event(self, event_id: str) -> StoredEvent | None:
        """One raw event as stored; None when there is none or it names a node hidden from the viewer."""
        with self._connect() as conn:
            policy = self._policy(conn)
            found = eventlog.get_event(conn, event_id)
            if found is not None and policy.hidden and policy.event_hidden(json.loads(found.raw)):
                return None
            return found

    def dataset_facets(self, node: NodeRef) -> Facets:
        """The facets of a dataset as its newest event sent them (graph/facets.py; ``{}`` when none)."""
        with self._connect() as conn:
            policy = self._policy(conn)
            if policy.hidden.hides(node.id):
                return {}  # as for a dataset that does not exist
            found = facets.latest_dataset_facets(conn, node)
            return policy.facets(found) if policy.hidden else found

    def stats(self, kind: str, intervals: list[tuple[datetime, datetime]]) -> list[StatsBucket]:
        """Counts per interval: lineage events by type, or jobs, datasets, sources existing (graph/stats.py)."""
        with self._connect() as conn:
            return stats.stats(conn, kind, intervals, hidden=self._policy(conn).hidden.ids)

    def upstream_runs(self, run_id: str, *, depth: int = 20) -> list[UpstreamStep]:
        """A run and the runs that produced what it read, upstream to ``depth`` (graph/runlineage.py)."""
        with self._connect() as conn:
            policy = self._policy(conn)
            steps = runlineage.upstream_runs(conn, run_id, depth)
            if not policy.hidden:
                return steps
            hidden_runs = {s["run"]["runId"] for s in steps if policy.hidden.hides(s["run"]["job"])}
            if run_id in hidden_runs:
                raise NodeNotFound(f"run {run_id!r} not found")
            return [
                {
                    "run": policy.details(step["run"]),
                    "inputs": [
                        {
                            "dataset": policy.id(i["dataset"]),
                            "producedByRunId": None if i["producedByRunId"] in hidden_runs else i["producedByRunId"],
                        }
                        for i in step["inputs"]
                    ],
                }
                for step in steps
                if step["run"]["runId"] not in hidden_runs
            ]

    def job_parents(self, job_ids: Sequence[str]) -> dict[str, str]:
        """The parent job (``parent`` run facet of the latest run) of each of ``job_ids`` that has one."""
        with self._connect() as conn:
            policy = self._policy(conn)
            found = hierarchy.parents(conn, job_ids, None)
            if not policy.hidden:
                return found
            return {job: parent for job, parent in found.items() if not policy.hidden.hides(parent)}
