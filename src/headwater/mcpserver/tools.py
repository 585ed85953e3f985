"""The MCP tools' work: plain functions of a :class:`Caller` (run in a worker thread), one per tool.

Contract: each ``do_*`` function answers one tool of :mod:`headwater.mcpserver` from the caller's
:class:`~headwater.graph.GraphReader` (what the caller may see) as a :data:`ToolAnswer`, the JSON object
docs/mcp.md describes: a summary first, then one page of items (``limit``/``offset``, ``page.nextOffset``),
every node with its web UI link (``url``). A bad argument raises :class:`ToolError` naming it. Nothing is
written: SQL lineage runs the SQL engine on the text given, the impact check reads proposed changes.
About 600 lines as one module: ten tools, each one function shaping one graph answer, sharing the paging,
link and argument helpers at the top.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeAlias, TypedDict, TypeVar, cast
from urllib.parse import urlencode

from mcp.server.fastmcp.exceptions import ToolError

from headwater.graph import GraphReader
from headwater.graph.answers import ImpactItem, Transformation
from headwater.graph.classify import Policy, PolicyError, TagSource
from headwater.graph.visibility import RESTRICTED_NAMESPACE
from headwater.model.changes import Change, changes_from_json
from headwater.model.jsontypes import JSONMapping
from headwater.model.nodeid import (
    DATASET,
    FIELD,
    RUN,
    InvalidNodeId,
    NodeRef,
    field_prefix,
    format_node_id,
    node_kind,
    parse_node_id,
)
from headwater.model.times import InvalidTime, parse_time
from headwater.settings import Settings

MAX_CHANGES = 2000  # as the API's impact check

ToolAnswer: TypeAlias = dict[str, Any]
"""The JSON object a tool answers (its shape: docs/mcp.md). FastMCP derives each tool's output schema from
its return annotation: the answers are documented as open objects, as they always were."""

T = TypeVar("T")


class _Reached(ImpactItem):
    """An impact item and the root (of the roots asked about) it was reached from."""

    reached_from: str


class Paging(TypedDict):
    offset: int
    limit: int
    total: int
    nextOffset: int | None


@dataclass(frozen=True)
class Caller:
    """Who calls one tool: the graph they may see and where the web UI is."""

    graph: GraphReader
    ui: str
    settings: Settings

    def classify_policy(self) -> Policy:
        """The classification settings, read as the API reads them (a bad setting is named)."""
        try:
            return Policy.from_settings(
                str(self.settings.classify_rules), str(self.settings.classify_aggregation_stops)
            )
        except PolicyError as exc:
            raise ToolError(f"server setting {exc}") from None


def ui_link(ui: str, node_id: str) -> str:
    """The web UI page of a node (route ``/asset``): a column opens its dataset with the column selected."""
    base = ui.rstrip("/")
    if node_id.startswith(FIELD):
        ref = parse_node_id(node_id)
        dataset = ref.dataset.id
        return f"{base}/asset?{urlencode([('node', dataset), ('cols', dataset), ('col', node_id)])}"
    if node_id.startswith(RUN):
        return f"{base}/asset?{urlencode([('node', node_id)])}"
    return f"{base}/asset?{urlencode([('node', node_id)])}"


def _node(text: str) -> NodeRef:
    try:
        return parse_node_id(text)
    except InvalidNodeId as exc:
        raise ToolError(f"node: {exc}") from None


def _time(name: str, text: str | None) -> datetime | None:
    if text is None or text == "":
        return None
    try:
        return parse_time(text)
    except InvalidTime as exc:
        raise ToolError(f"{name}: {exc}") from None


def _page(items: Sequence[T], limit: int, offset: int) -> tuple[list[T], Paging]:
    if limit < 1 or offset < 0:
        raise ToolError("limit must be at least 1 and offset at least 0")
    page = list(items[offset : offset + limit])
    nxt = offset + limit if offset + limit < len(items) else None
    return page, {"offset": offset, "limit": limit, "total": len(items), "nextOffset": nxt}


def _short(ui: str, n: Mapping[str, object], *keys: str) -> dict[str, object]:
    out = {"id": n["id"], **{k: n.get(k) for k in keys if n.get(k) is not None}}
    out["url"] = ui_link(ui, str(n["id"]))
    return out


# --- the tools' work: plain functions of a Caller (run in a worker thread) ------------------------------


def do_search(c: Caller, query: str, types: list[str] | None, limit: int) -> ToolAnswer:
    if not query.strip():
        raise ToolError("query: give a few characters of a dataset, job or column name")
    wanted = tuple(types or ("dataset", "job", "field"))
    bad = [t for t in wanted if t not in ("dataset", "job", "field")]
    if bad:
        raise ToolError(f"types: {bad} are not among dataset, job, field")
    found = c.graph.search(query, types=wanted, limit=min(limit, 100))["results"]
    return {
        "summary": f"{len(found)} match(es) for {query!r}",
        "results": [_short(c.ui, r, "type", "namespace", "name", "field", "kind") for r in found],
    }


def do_lineage(c: Caller, node: str, direction: str, depth: int, at: str | None, limit: int, offset: int) -> ToolAnswer:
    ref = _node(node)
    if direction not in ("upstream", "downstream", "both"):
        raise ToolError("direction: upstream, downstream or both")
    answer = c.graph.lineage(ref, direction=direction, depth=min(depth, 20), at=_time("at", at))
    nodes = sorted((n for n in answer["nodes"] if n["level"] != 0), key=lambda n: (abs(n["level"]), n["id"]))
    page, paging = _page(nodes, limit, offset)
    up = [n for n in nodes if n["level"] < 0]
    down = [n for n in nodes if n["level"] > 0]
    shown = {n["id"] for n in page} | {ref.dataset.id if ref.type == "datasetField" else ref.id}
    return {
        "root": _short(c.ui, {"id": answer["root"]}),
        "at": answer["at"],
        "summary": {
            "upstream": {
                "datasets": sum(n["type"] == "DATASET" for n in up),
                "jobs": sum(n["type"] == "JOB" for n in up),
            },
            "downstream": {
                "datasets": sum(n["type"] == "DATASET" for n in down),
                "jobs": sum(n["type"] == "JOB" for n in down),
            },
            "truncated": answer["truncated"],
        },
        "nodes": [_short(c.ui, n, "type", "namespace", "name", "level") for n in page],
        "edges": [
            f"{e['source']} -> {e['target']}" for e in answer["edges"] if e["source"] in shown and e["target"] in shown
        ],
        "page": paging,
    }


def do_column_path(
    c: Caller, column: str, direction: str, depth: int, at: str | None, limit: int, offset: int
) -> ToolAnswer:
    ref = _node(column)
    if ref.type != "datasetField":
        raise ToolError("column: a datasetField:<namespace>:<name>:<column> id (search with types=['field'])")
    if direction not in ("upstream", "downstream", "both"):
        raise ToolError("direction: upstream, downstream or both")
    answer = c.graph.column_lineage(ref, direction=direction, depth=min(depth, 20), at=_time("at", at))
    nodes = sorted((n for n in answer["nodes"] if n["id"] != ref.id), key=lambda n: (abs(n["level"]), n["id"]))
    page, paging = _page(nodes, limit, offset)
    shown = {n["id"] for n in page} | {ref.id}
    return {
        "root": _short(c.ui, {"id": ref.id}),
        "at": answer["at"],
        "summary": {
            "upstreamColumns": sum(n["level"] < 0 for n in nodes),
            "downstreamColumns": sum(n["level"] > 0 for n in nodes),
            "truncated": answer["truncated"],
        },
        "columns": [_short(c.ui, n, "dataset", "field", "type", "level") for n in page],
        "edges": [
            {"source": e["source"], "target": e["target"], "job": e["job"], "transformations": e["transformations"]}
            for e in answer["edges"]
            if e["source"] in shown or e["target"] in shown
        ],
        "page": paging,
    }


def _transformation_text(t: Transformation) -> str:
    text = "/".join(x for x in (t.get("type"), t.get("subtype")) if x)
    return text + (" (masking)" if t.get("masking") else "")


def do_impact(
    c: Caller, node: str, columns: list[str] | None, depth: int, at: str | None, limit: int, offset: int
) -> ToolAnswer:
    ref = _node(node)
    if ref.type not in ("dataset", "datasetField"):
        raise ToolError("node: a dataset or a column id")
    when = _time("at", at)
    if columns:
        if ref.type != "dataset":
            raise ToolError("columns: give the dataset as node and the column names as columns")
        roots = [NodeRef("datasetField", ref.namespace, ref.name, name) for name in dict.fromkeys(columns)]
    else:
        roots = [ref]
    graph = c.graph
    items: dict[str, _Reached] = {}
    edges: dict[tuple[str, str, str], list[Transformation]] = {}
    truncated = False
    for root in roots:
        answer = graph.impact(root, depth=min(depth, 40), at=when)
        truncated |= answer["truncated"]
        for e in graph.column_lineage(root, direction="downstream", depth=min(depth, 40), at=when)["edges"]:
            edges[(e["source"], e["target"], e["job"])] = e["transformations"]
        for item in answer["items"]:
            known = items.get(item["id"])
            if known is None or known["depth"] > item["depth"]:
                items[item["id"]] = {**item, "reached_from": root.id}
    affected_columns: list[dict[str, Any]] = []  # each a column of the answer (docs/mcp.md)
    for item in sorted((i for i in items.values() if i["type"] == "FIELD"), key=lambda i: (i["depth"], i["id"])):
        path = item["path"]
        steps: list[dict[str, Any]] = []
        for i in range(0, len(path) - 2, 2):
            src, job, dst = path[i], path[i + 1], path[i + 2]
            found = edges.get((src, dst, job))
            if found is None and src.startswith(DATASET):  # a whole dataset's impact starts at its columns
                prefix = field_prefix(src)
                sources = sorted(k[0] for k in edges if k[1] == dst and k[2] == job and k[0].startswith(prefix))
                if sources:
                    src, found = sources[0], edges[(sources[0], dst, job)]
            steps.append(
                {"from": src, "job": job, "to": dst, "transformations": [_transformation_text(t) for t in found or []]}
            )
        affected_columns.append(
            {
                "id": item["id"],
                "dataset": parse_node_id(item["id"]).dataset.id,
                "field": item["field"],
                "depth": item["depth"],
                "from": item["reached_from"],
                "path": steps,
                "masking": any("(masking)" in t for s in steps for t in s["transformations"]),
                "url": ui_link(c.ui, item["id"]),
            }
        )
    others = sorted((i for i in items.values() if i["type"] != "FIELD"), key=lambda i: (i["depth"], i["id"]))
    by_dataset: dict[str, int] = {}
    kinds: dict[str, int] = {}
    for col in affected_columns:
        by_dataset[col["dataset"]] = by_dataset.get(col["dataset"], 0) + 1
        last = col["path"][-1]["transformations"] if col["path"] else []
        for t in last or ["unknown"]:
            kinds[t] = kinds.get(t, 0) + 1
    page, paging = _page(affected_columns, limit, offset)
    return {
        "roots": [r.id for r in roots],
        "at": None if when is None else at,
        "summary": {
            "datasets": sum(i["type"] == "DATASET" for i in others),
            "jobs": sum(i["type"] == "JOB" for i in others),
            "columns": len(affected_columns),
            "columnsPerDataset": by_dataset,
            "lastTransformations": kinds,
            "truncated": truncated,
        },
        "datasetsAndJobs": [
            {"id": i["id"], "type": i["type"], "depth": i["depth"], "url": ui_link(c.ui, i["id"])} for i in others
        ],
        "columns": page,
        "page": paging,
    }


def do_history(c: Caller, node: str, limit: int, offset: int) -> ToolAnswer:
    ref = _node(node)
    versions = c.graph.history(ref)["versions"]
    page, paging = _page(versions, limit, offset)
    return {
        "node": _short(c.ui, {"id": ref.id}),
        "summary": f"{len(versions)} version(s), newest first",
        "versions": [
            {
                "validFrom": v["validFrom"],
                "validTo": v["validTo"],
                "changes": v.get("changes", []),
                "runId": v.get("runId"),
                "columns": [f["name"] for f in v.get("fields", [])] if "fields" in v else None,
                "inputs": v.get("inputs"),
                "outputs": v.get("outputs"),
            }
            for v in page
        ],
        "page": paging,
    }


def do_diff(c: Caller, node: str, from_time: str, to_time: str, direction: str, depth: int) -> ToolAnswer:
    ref = _node(node)
    t_from, t_to = _time("from_time", from_time), _time("to_time", to_time)
    if t_from is None or t_to is None:
        raise ToolError("from_time and to_time: two ISO 8601 moments")
    answer = c.graph.compare(ref, t_from=t_from, t_to=t_to, direction=direction, depth=min(depth, 10))

    nodes, edges, column_edges = answer["nodes"], answer["edges"], answer["columnEdges"]
    parts = {
        part: cast(Mapping[str, Sequence[object]], answer[part])
        for part in ("nodes", "edges", "columns", "columnEdges")
    }
    return {
        "root": _short(c.ui, {"id": answer["root"]}),
        "from": answer["from"],
        "to": answer["to"],
        "summary": {part: {k: len(v) for k, v in changes.items()} for part, changes in parts.items()},
        "nodes": {k: [_short(c.ui, n, "type") for n in nodes[k]] for k in ("added", "removed", "dropped", "restored")},
        "edges": {k: [e["id"] for e in edges[k]] for k in ("added", "removed")},
        "columns": answer["columns"],
        "columnEdges": {k: [f"{e['source']} -> {e['target']}" for e in column_edges[k]] for k in ("added", "removed")},
    }


def do_sql_lineage(sql: str, dialect: str, namespace: str | None, default_schema: str | None) -> ToolAnswer:
    from headwater.sql import DIALECTS, script_events

    if dialect not in DIALECTS:
        raise ToolError(f"dialect: one of {', '.join(sorted(DIALECTS))}")
    events = script_events(sql, dialect=dialect, namespace=namespace, default_schema=default_schema)
    statements = []
    for event in events:
        outputs = []
        for out in event.get("outputs", []):
            fields = out.get("facets", {}).get("columnLineage", {}).get("fields", {})
            outputs.append(
                {
                    "dataset": format_node_id("dataset", out["namespace"], out["name"]),
                    "columns": {
                        name: [
                            {
                                "from": f"{i['namespace']}:{i['name']}:{i['field']}",
                                "transformations": [_transformation_text(t) for t in i.get("transformations", [])],
                            }
                            for i in spec.get("inputFields", [])
                        ]
                        for name, spec in fields.items()
                    },
                }
            )
        error = event.get("run", {}).get("facets", {}).get("errorMessage", {}).get("message")
        statements.append(
            {
                "job": event["job"]["name"],
                "inputs": [format_node_id("dataset", i["namespace"], i["name"]) for i in event.get("inputs", [])],
                "outputs": outputs,
                **({"error": error} if error else {}),
            }
        )
    return {
        "summary": f"{len(statements)} statement(s) that write or could not be read; nothing stored",
        "statements": statements,
    }


def proposed_changes(
    changes: Sequence[JSONMapping] | None,
    sql: str | None,
    dialect: str,
    namespace: str | None,
    default_database: str | None,
    default_schema: str | None,
    job: str | None,
) -> list[Change]:
    """The proposed changes of one impact check: the API's JSON documents, then those the SQL script proposes."""
    try:
        found = changes_from_json(changes or [])
    except ValueError as exc:
        raise ToolError(str(exc)) from None
    if sql is not None and sql.strip():
        from headwater.sql import DIALECTS
        from headwater.sql.changes import script_changes

        if dialect not in DIALECTS:
            raise ToolError(f"dialect: one of {', '.join(sorted(DIALECTS))}")
        if not namespace:
            raise ToolError("namespace: the namespace of the script's tables (e.g. postgres://host:5432) is required")
        if job is not None and node_kind(job) != "job":
            raise ToolError(f"job: a job node id (job:<namespace>:<name>), got {job!r}")
        # ScriptError is a ValueError naming the statement's line: the tool answers it as an error
        found += script_changes(
            sql, dialect=dialect, namespace=namespace, default_database=default_database,
            default_schema=default_schema, job=job, origin="sql",
        )  # fmt: skip
    if not found:
        raise ToolError("give changes (the API's JSON documents) or sql (DDL or a changed script)")
    if len(found) > MAX_CHANGES:
        raise ToolError(f"at most {MAX_CHANGES} changes in one check, got {len(found)}")
    return found


def do_impact_check(
    c: Caller, proposed: list[Change], depth: int, at: str | None, limit: int, offset: int
) -> ToolAnswer:
    """The impact check of ``proposed`` (:func:`proposed_changes` reads them from the tool's arguments)."""
    report = c.graph.impact_check(
        proposed, at=_time("at", at), depth=max(1, min(depth, 100)), max_nodes=int(c.settings.max_graph_nodes),
        policy=c.classify_policy(),
    )  # fmt: skip
    page, paging = _page(report.items, limit, offset)
    tell: dict[str | None, dict[str, Any]] = {}
    for item in report.items:
        if item.project is None:
            continue
        who = tell.setdefault(item.project, {"project": item.project, "owners": [], "subscribers": [], "datasets": []})
        who["owners"] = sorted({*who["owners"], *item.owners})
        who["subscribers"] = sorted({*who["subscribers"], *item.subscribers})
        dataset = parse_node_id(item.id).dataset.id if item.type == "FIELD" else item.id
        if item.type != "JOB" and dataset not in who["datasets"]:
            who["datasets"].append(dataset)
    return {
        "severity": report.severity,
        "at": report.at,
        "summary": {**report.summary, "truncated": report.truncated},
        "changes": [
            {
                "index": r.index,
                "kind": r.change["kind"],
                "dataset": _short(c.ui, {"id": format_node_id("dataset", r.change["namespace"], r.change["name"])}),
                "found": r.found,
                "severity": r.severity,
                "gone": r.gone,
                "retyped": r.retyped,
                "values": [{"column": v.column, "before": v.before, "after": v.after} for v in r.values],
                "added": r.added,
                "notes": r.notes,
                **({"origin": r.change["origin"]} if r.change.get("origin") else {}),
            }
            for r in report.changes
        ],
        "published": [_short(c.ui, {"id": p}) for p in report.published],
        "whoToTell": sorted(tell.values(), key=lambda w: str(w["project"])),
        "items": [
            {
                "id": i.id,
                "type": i.type,
                "severity": i.severity,
                "effect": i.effect,
                "reason": i.reason,
                "change": i.change,
                "depth": i.depth,
                "path": i.path,
                "transformations": i.transformations,
                "project": i.project,
                "owners": i.owners,
                "subscribers": i.subscribers,
                "published": i.published,
                **({"url": ui_link(c.ui, i.id)} if not _restricted(i.id) else {}),
            }
            for i in page
        ],
        "page": paging,
    }


def _restricted(node_id: str) -> bool:
    """A node the caller may not see, as the visibility policy names it (no UI page to link)."""
    return f":{RESTRICTED_NAMESPACE}:" in node_id


def _sources(sources: Sequence[TagSource]) -> list[str]:
    return [f"{s.kind}: {s.detail}" if s.detail else s.kind for s in sources]


def do_classification(
    c: Caller, tag: str | None, dataset: str | None, at: str | None, limit: int, offset: int
) -> ToolAnswer:
    policy, when = c.classify_policy(), _time("at", at)
    if dataset:
        ref = _node(dataset)
        if ref.type != "dataset":
            raise ToolError("dataset: a dataset id (dataset:<namespace>:<name>)")
        found = c.graph.dataset_tags(ref, policy, at=when)
        if tag:  # one dataset's report holds every tag: keep the one asked for (tags match case-insensitively)
            want = tag.lower()
            found.datasets = [n for n in found.datasets if n.tag.lower() == want]
            found.columns = [col for col in found.columns if col.tag.lower() == want]
            found.stops = [s for s in found.stops if s.tag.lower() == want]
    else:
        found = c.graph.classification(policy, tag=tag or None, at=when)
    tags: dict[str, dict[str, int]] = {}

    def count(t: str, key: str) -> None:
        per = tags.setdefault(t, {"datasets": 0, "declaredColumns": 0, "inheritedColumns": 0, "jobs": 0, "stops": 0})
        per[key] += 1

    for n in found.datasets:
        count(n.tag, "datasets")
    for n in found.jobs:
        count(n.tag, "jobs")
    for col in found.columns:
        count(col.tag, "inheritedColumns" if col.inherited else "declaredColumns")
    for s in found.stops:
        count(s.tag, "stops")
    columns, paging = _page(found.columns, limit, offset)
    stops, stop_paging = _page(found.stops, limit, offset)
    return {
        "tag": found.tag if not dataset else tag,
        "at": found.at,
        "summary": {"tags": dict(sorted(tags.items())), "truncated": found.truncated},
        "datasets": [
            {
                "id": n.id,
                "tag": n.tag,
                "sources": _sources(n.sources),
                "columns": n.columns,
                "inherited": n.inherited,
                "url": ui_link(c.ui, n.id),
            }
            for n in found.datasets
        ],
        "jobs": [
            {"id": n.id, "tag": n.tag, "sources": _sources(n.sources), "url": ui_link(c.ui, n.id)} for n in found.jobs
        ],
        "columns": [
            {
                "id": col.id,
                "tag": col.tag,
                "inherited": col.inherited,
                "sources": _sources(col.sources),
                "origin": col.origin,
                "hops": col.hops,
                "path": col.path,
                "transformations": col.transformations,
                "url": ui_link(c.ui, col.id),
            }
            for col in columns
        ],
        "stops": [
            {
                "column": s.column,
                "tag": s.tag,
                "reason": s.reason,
                "job": s.job,
                "transformation": s.transformation,
                "origin": s.origin,
                "path": s.path,
                "url": ui_link(c.ui, s.column),
            }
            for s in stops
        ],
        "page": paging,
        "stopsPage": stop_paging,
    }


def do_quality(c: Caller, dataset: str, at: str | None, depth: int, limit: int) -> ToolAnswer:
    ref = _node(dataset)
    if ref.type != "dataset":
        raise ToolError("dataset: a dataset id (dataset:<namespace>:<name>)")
    answer = c.graph.quality(ref, at=_time("at", at), depth=max(1, min(depth, 40)), max_nodes=int(c.settings.max_graph_nodes))  # fmt: skip
    q = answer.quality
    failed = [a for a in q.assertions if a.success is False]
    assertions, paging = _page(q.assertions, limit, 0)  # failed first
    return {
        "dataset": _short(c.ui, {"id": q.dataset}),
        "at": q.at,
        "summary": {
            "status": q.status,
            "assertions": len(q.assertions),
            "failed": len(failed),
            "upstreamFailing": sum(i.status == "failing" for i in answer.upstream),
            "upstreamWarning": sum(i.status == "warning" for i in answer.upstream),
            "flagged": answer.flagged,
            "truncated": answer.truncated,
        },
        "assertions": [
            {
                "name": a.name,
                "type": a.type,
                "column": a.column,
                "success": a.success,
                "severity": a.severity,
                "expected": a.expected,
                "actual": a.actual,
                "source": a.source,
                "time": a.time,
            }
            for a in assertions
        ],
        "page": paging,
        "metrics": None
        if q.metrics is None
        else {"time": q.metrics.time, "rowCount": q.metrics.row_count, "bytes": q.metrics.bytes},
        "latestRuns": [
            {"job": _short(c.ui, {"id": r.job}), "run": r.run, "state": r.state, "time": r.time} for r in q.runs
        ],
        "upstream": [
            {
                "cause": i.cause,
                "status": i.status,
                "reasons": i.reasons,
                "depth": i.depth,
                "path": i.path,
                **({"url": ui_link(c.ui, i.cause)} if not _restricted(i.cause) else {}),
            }
            for i in answer.upstream[:limit]
        ],
    }
