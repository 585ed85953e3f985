"""Who may see which node: the catalog's visibility policy, applied by :class:`~headwater.graph.GraphReader`
to every answer (docs/catalog.md, "Visibility").

The catalog (``headwater.catalog``) records in ``catalog_nodes`` every graph node it answers for: an
asset's *source* dataset (its inventory node) and *aliases* (the same table under another name, e.g. a
crawl's storage location), its *published* node and *publish_job*, a subscription's *target* node and
*subscribe_job*. A :class:`Viewer` (an admin, or the projects a reader is a member of) gets the set of
nodes hidden from it (:func:`hidden_for`):

- an admin, and a member of the asset's project, see every node of the asset;
- anyone else never sees a source or alias node; sees the published node and its publish job while the
  asset is published; sees a subscription's target and its job only as a member of the consumer project;
- a job that reads or writes a hidden dataset (an edge or a column edge, at any time) is hidden too (its
  name, facets, SQL and runs describe the hidden tables), unless the catalog made it (the rules above);
- every other node (no asset: not cataloged) is visible, as before the catalog existed.

:class:`Redactor` rewrites one answer for that set: a hidden root is "not found" (the same answer as a
node that does not exist), a hidden node on a path is an opaque restricted node (:data:`RESTRICTED_NAMESPACE`, numbered per
answer, no name, no columns), lists and searches leave hidden nodes out, and the columns, runs, events
and facets of hidden nodes are never shown. Every read of the graph and of the event log goes through
it (GraphReader), so an endpoint cannot forget it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TypeVar, cast

import sqlalchemy as sa

from headwater.graph.answers import (
    ColumnEdge,
    ColumnLineageAnswer,
    ColumnNode,
    CompareAnswer,
    DatasetDetails,
    DatasetHistoryVersion,
    GraphEdge,
    ImpactAnswer,
    ImpactItem,
    ImpactSummary,
    JobDetails,
    LineageAnswer,
    Node,
    Run,
    Version,
)
from headwater.graph.common import NodeNotFound
from headwater.model.catalog_roles import ALIAS, PUBLISH_JOB, PUBLISHED, SOURCE
from headwater.model.jsontypes import JSONValue
from headwater.model.nodeid import DATASET, FIELD, JOB, NodeRef, dataset_of_prefix, field_prefix, format_node_id
from headwater.store import fields as field_ids
from headwater.store.schema import (
    catalog_assets,
    catalog_audit,
    catalog_nodes,
    catalog_subscriptions,
    edges,
)
from headwater.store.watermark import projected_seq

RESTRICTED = "RESTRICTED"
RESTRICTED_NAMESPACE = "restricted://hidden"
"""Restricted nodes are ``dataset:restricted://hidden:<n>`` and ``job:restricted://hidden:<n>``: valid node ids
(every consumer of ids, Marquez's shapes included, reads them), numbered per answer, naming nothing."""


@dataclass(frozen=True)
class Viewer:
    """Who reads. ``admin`` sees everything; otherwise ``projects`` are the projects whose inventory
    (and subscription targets) the reader may see. ``Viewer()`` is the anonymous reader."""

    admin: bool = False
    projects: frozenset[str] = field(default_factory=frozenset)


ANONYMOUS = Viewer()
ADMIN = Viewer(admin=True)


def sees_project(viewer: Viewer, project: str) -> bool:
    """Whether ``viewer`` sees ``project``'s inventory (and its subscriptions, source runs, audit)."""
    return viewer.admin or project in viewer.projects


class Hidden:
    """The dataset and job ids hidden from one viewer."""

    def __init__(self, datasets: Iterable[str] = (), jobs: Iterable[str] = ()) -> None:
        self.datasets = frozenset(datasets)
        self.jobs = frozenset(jobs)
        self.ids = self.datasets | self.jobs
        self._field_prefixes = tuple(field_prefix(d) for d in self.datasets)

    def __bool__(self) -> bool:
        return bool(self.ids)

    def hides(self, node_id: str) -> bool:
        """A hidden dataset or job, or a field of a hidden dataset."""
        if node_id in self.ids:
            return True
        return bool(self._field_prefixes) and node_id.startswith(FIELD) and node_id.startswith(self._field_prefixes)

    def dataset_of_field(self, field_id: str) -> str | None:
        """The hidden dataset a field id belongs to (None when it is not of a hidden dataset)."""
        for prefix in self._field_prefixes:
            if field_id.startswith(prefix):
                return dataset_of_prefix(prefix)
        return None


NOTHING = Hidden()


_CACHE: dict[tuple[str, Viewer, tuple[int, int], int], Hidden] = {}
_CACHE_SIZE = 256
_CACHE_LOCK = threading.Lock()


def hidden_for(conn: sa.Connection, viewer: Viewer) -> Hidden:
    """The nodes ``viewer`` may not see (see the module docstring); nothing to read for an admin.

    Kept per database and viewer until the catalog or the graph changes: the key holds the newest audit
    entry (every catalog change that shows or hides a node writes one, or appends an event) and the
    projection's watermark (new edges may make a job touch a hidden dataset), both read with one indexed
    ``max`` each — so several servers on one database agree, and a change is seen by the next answer."""
    if viewer.admin:
        return NOTHING
    newest = conn.execute(
        sa.select(catalog_audit.c.seq, catalog_audit.c.at).order_by(catalog_audit.c.seq.desc()).limit(1)
    ).first()
    key = (
        conn.engine.url.render_as_string(hide_password=True),
        viewer,
        (0, 0) if newest is None else (int(newest.seq), int(newest.at)),  # the time too: a re-made database
        projected_seq(conn),
    )
    with _CACHE_LOCK:
        found = _CACHE.get(key)
    if found is not None:
        return found
    hidden = _compute(conn, viewer)
    with _CACHE_LOCK:
        if len(_CACHE) >= _CACHE_SIZE:
            _CACHE.clear()
        _CACHE[key] = hidden
    return hidden


def _compute(conn: sa.Connection, viewer: Viewer) -> Hidden:
    rows = conn.execute(
        sa.select(
            catalog_nodes.c.node,
            catalog_nodes.c.role,
            catalog_assets.c.project,
            catalog_assets.c.state,
            catalog_subscriptions.c.project.label("consumer"),
        )
        .join(catalog_assets, catalog_assets.c.id == catalog_nodes.c.asset)
        .outerjoin(catalog_subscriptions, catalog_subscriptions.c.id == catalog_nodes.c.subscription)
    ).all()
    if not rows:
        return NOTHING
    hidden: set[str] = set()
    made_by_catalog: set[str] = set()
    for row in rows:
        made_by_catalog.add(row.node)
        if row.project in viewer.projects:
            continue
        if row.role in (SOURCE, ALIAS):
            hidden.add(row.node)
        elif row.role in (PUBLISHED, PUBLISH_JOB):
            if row.state != "published":
                hidden.add(row.node)
        elif row.consumer not in viewer.projects:  # target, subscribe_job
            hidden.add(row.node)
    datasets = {n for n in hidden if n.startswith(DATASET)}
    jobs = {n for n in hidden if n.startswith(JOB)}
    if datasets:
        ordered = sorted(datasets)
        for start in range(0, len(ordered), 500):
            chunk = ordered[start : start + 500]
            jobs.update(conn.scalars(sa.select(edges.c.job).where(edges.c.dataset.in_(chunk)).distinct()))
            for end in (field_ids.SRC_DATASET, field_ids.DST_DATASET):
                jobs.update(conn.scalars(field_ids.edge_select("job").where(end.in_(chunk)).distinct()))
        jobs -= made_by_catalog - hidden  # the catalog's own visible jobs follow their own rule
    return Hidden(datasets, jobs)


def not_found(node: NodeRef) -> NodeNotFound:
    """The answer for a hidden node: the same as for a node that does not exist."""
    return NodeNotFound(f"{node.type} {node.id!r} not found")


N = TypeVar("N", bound=Node)  # a node, or a node of a graph answer (with its level)
D = TypeVar("D", DatasetDetails, JobDetails, Run)
V = TypeVar("V", Version, DatasetHistoryVersion)


class Redactor:
    """Rewrites answers for one viewer's :class:`Hidden` set; restricted ids are numbered per
    answer (one per hidden dataset or job: a hidden dataset's columns are its one restricted node)."""

    def __init__(self, hidden: Hidden) -> None:
        self.hidden = hidden
        self._aliases: dict[str, str] = {}

    def alias(self, node_id: str) -> str:
        key = (self.hidden.dataset_of_field(node_id) or node_id) if node_id.startswith(FIELD) else node_id
        if key not in self._aliases:
            kind = JOB if key.startswith(JOB) else DATASET
            self._aliases[key] = f"{kind}{RESTRICTED_NAMESPACE}:{len(self._aliases) + 1}"
        return self._aliases[key]

    def id(self, node_id: str) -> str:
        return self.alias(node_id) if self.hidden.hides(node_id) else node_id

    def ids(self, node_ids: Iterable[str]) -> list[str]:
        return sorted({self.id(i) for i in node_ids})

    def check_root(self, node: NodeRef) -> None:
        if self.hidden.hides(node.id) or self.hidden.hides(node.dataset.id):
            raise not_found(node)

    def node(self, item: N) -> N:
        """A Node (docs/api.md) as the viewer may see it: itself, or an opaque restricted node (keeping the
        keys of its place in a graph answer: level, hasMore*, children)."""
        if not self.hidden.hides(item["id"]):
            return cast(N, dict(item))
        given = cast(dict[str, object], item)
        out: dict[str, object] = {
            "id": self.alias(item["id"]),
            "type": RESTRICTED,
            "namespace": "",
            "name": "",
            "kind": None,
            "fields": [],
            "jobType": None,
            "latestRun": None,
            "updatedAt": None,
            "deleted": False,
        }
        for key in ("level", "hasMoreUpstream", "hasMoreDownstream"):
            if key in given:
                out[key] = given[key]
        if "children" in given:
            out["children"] = self.ids(cast(list[str] | None, given["children"]) or [])
        return cast(N, out)

    def facets(self, value: JSONValue) -> JSONValue:
        """Facets (any JSON) with every ``{namespace, name}`` of a hidden node and every hidden id replaced."""
        if isinstance(value, Mapping):
            ns, name = value.get("namespace"), value.get("name")
            if isinstance(ns, str) and isinstance(name, str):
                for prefix in (DATASET, JOB):
                    if self.hidden.hides(f"{prefix}{ns}:{name}"):
                        alias = self.alias(f"{prefix}{ns}:{name}")
                        return {"namespace": RESTRICTED_NAMESPACE, "name": alias.rsplit(":", 1)[1]}
            return {k: self.facets(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.facets(v) for v in value]
        if isinstance(value, str) and self.hidden.hides(value):
            return self.alias(value)
        return value

    def event_hidden(self, event: JSONValue) -> bool:
        """Whether a raw event (parsed JSON) names a hidden dataset or job anywhere (job, inputs, outputs,
        column lineage, symlinks, parent facet ...)."""
        if isinstance(event, Mapping):
            ns, name = event.get("namespace"), event.get("name")
            ids = self.hidden.ids
            if (
                isinstance(ns, str)
                and isinstance(name, str)
                and (format_node_id("dataset", ns, name) in ids or format_node_id("job", ns, name) in ids)
            ):
                return True
            return any(self.event_hidden(v) for v in event.values())
        if isinstance(event, list):
            return any(self.event_hidden(v) for v in event)
        return False

    # --- one method per answer shape -------------------------------------------------------------

    def edge(self, e: GraphEdge) -> GraphEdge:
        source, target = self.id(e["source"]), self.id(e["target"])
        return {**e, "id": f"{source}->{target}", "source": source, "target": target, "via": self.ids(e["via"])}

    def edges(self, items: Iterable[GraphEdge]) -> list[GraphEdge]:
        seen: dict[tuple[str, str, str], GraphEdge] = {}
        for e in items:
            shaped = self.edge(e)
            key = (shaped["source"], shaped["target"], shaped["type"])
            if key in seen:
                seen[key]["via"] = sorted({*seen[key]["via"], *shaped["via"]})
            else:
                seen[key] = shaped
        return list(seen.values())

    def column_edges(self, items: Iterable[ColumnEdge], *, keep_restricted: bool) -> list[ColumnEdge]:
        """Column edges: ends in hidden datasets become their restricted node (``keep_restricted``) or the
        edge is left out; a hidden job is its restricted id."""
        out: dict[tuple[str, str, str], ColumnEdge] = {}
        for e in items:
            hides_end = self.hidden.hides(e["source"]) or self.hidden.hides(e["target"])
            if hides_end and not keep_restricted:
                continue
            shaped: ColumnEdge = {
                **e,
                "source": self.id(e["source"]),
                "target": self.id(e["target"]),
                "job": self.id(e["job"]),
            }
            if hides_end:
                shaped["transformations"] = []
            out.setdefault((shaped["source"], shaped["target"], shaped["job"]), shaped)
        return list(out.values())

    def lineage(self, answer: LineageAnswer) -> LineageAnswer:
        nodes = [self.node(n) for n in answer["nodes"]]
        return {
            **answer,
            "nodes": nodes,
            "edges": self.edges(answer["edges"]),
            "columnEdges": self.column_edges(answer["columnEdges"], keep_restricted=False),
        }

    def column_lineage(self, answer: ColumnLineageAnswer) -> ColumnLineageAnswer:
        nodes: dict[str, ColumnNode] = {}
        for n in answer["nodes"]:
            if not self.hidden.hides(n["id"]):
                nodes[n["id"]] = n
                continue
            alias = self.alias(n["id"])
            known = nodes.get(alias)
            if known is None or abs(n["level"]) < abs(known["level"]):
                nodes[alias] = {
                    "id": alias,
                    "dataset": alias,
                    "namespace": "",
                    "name": "",
                    "field": "",
                    "type": None,
                    "level": n["level"],
                }
        return {
            **answer,
            "nodes": list(nodes.values()),
            "edges": self.column_edges(answer["edges"], keep_restricted=True),
        }

    def impact(self, answer: ImpactAnswer) -> ImpactAnswer:
        items: list[ImpactItem] = []
        for item in answer["items"]:
            if self.hidden.hides(item["id"]):
                continue
            items.append({**item, "path": [self.id(p) for p in item["path"]]})
        summary: ImpactSummary = {
            "datasets": sum(i["type"] == "DATASET" for i in items),
            "jobs": sum(i["type"] == "JOB" for i in items),
            "fields": sum(i["type"] == "FIELD" for i in items),
        }
        return {**answer, "items": items, "summary": summary}

    def details(self, answer: D) -> D:
        """A dataset's, job's or run's details (the node itself is visible)."""
        out = cast(dict[str, JSONValue], dict(answer))
        for key in ("producers", "consumers", "inputs", "outputs", "children"):
            if key in out and isinstance(out[key], list):
                out[key] = self.ids(out[key])
        for key in ("parent", "parentJob"):
            if isinstance(out.get(key), str):
                out[key] = self.id(out[key])
        if "facets" in out:
            out["facets"] = self.facets(out["facets"])
        if isinstance(out.get("currentVersion"), Mapping):
            out["currentVersion"] = self.version(out["currentVersion"])
        return cast(D, out)

    def version(self, version: V) -> V:
        out = cast(dict[str, JSONValue], {**version, "facets": self.facets(version["facets"])})
        for key in ("inputs", "outputs"):  # a job version's datasets
            if isinstance(out.get(key), list):
                out[key] = self.ids(out[key])
        made_by = out.get("madeBy")
        if isinstance(made_by, Mapping) and self.hidden.hides(str(made_by.get("job"))):
            out["madeBy"] = None
            out["runId"] = None
        return cast(V, out)

    def compare(self, answer: CompareAnswer) -> CompareAnswer:
        hides = self.hidden.hides
        nodes, edges, cols, col_edges = answer["nodes"], answer["edges"], answer["columns"], answer["columnEdges"]
        return {
            **answer,
            "nodes": {
                "added": [self.node(n) for n in nodes["added"]],
                "removed": [self.node(n) for n in nodes["removed"]],
                "dropped": [self.node(n) for n in nodes["dropped"]],
                "restored": [self.node(n) for n in nodes["restored"]],
            },
            "edges": {"added": self.edges(edges["added"]), "removed": self.edges(edges["removed"])},
            "columns": {
                "added": [c for c in cols["added"] if not hides(c["dataset"])],
                "removed": [c for c in cols["removed"] if not hides(c["dataset"])],
                "changed": [c for c in cols["changed"] if not hides(c["dataset"])],
            },
            "columnEdges": {
                "added": self.column_edges(col_edges["added"], keep_restricted=False),
                "removed": self.column_edges(col_edges["removed"], keep_restricted=False),
            },
        }
