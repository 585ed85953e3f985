"""Marquez compatibility: Marquez's read paths answering in Marquez's shapes, its writes answered 501.

Tools written for Marquez (its web UI's API client, marquez-python, scripts using
``/api/v1/lineage?nodeId=``) keep working against Headwater. Each handler reads through the graph
read layer (``app_state(request).graph``, :class:`~headwater.graph.GraphReader`: the same reads, and the
same visibility, as the native API) and maps the answer to the Marquez shape with the pure functions of
:mod:`headwater.api.marquez_shapes`. No lineage rule lives here. docs/api.md ("Marquez compatibility")
lists every path and what it answers; Marquez's writes (its own metadata model: namespaces, sources,
datasets, jobs and runs created by PUT, tags, deletes) answer ``501 not_implemented`` naming what to
do instead, since Headwater's graph is derived from OpenLineage events only.

Why one module of ~700 lines: it is one concept, Marquez's REST surface, as one router; every handler
is a few lines over one graph read and one shape mapping (the mappings, the bulk, are already apart in
``marquez_shapes``), and the handlers share the paging, job-name and version helpers above them, so a split
by path would spread those helpers over modules without making any handler shorter.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, cast
from urllib.parse import unquote

from fastapi import APIRouter, Depends, Query, Request

from headwater.api.auth import require_read
from headwater.api.errors import ApiError, invalid_parameter, not_found
from headwater.api.freshness import read_barrier
from headwater.api.marquez_shapes import (
    RUN_STATES,
    column_lineage_of,
    marquez_job_name,
    marquez_version,
    same_version,
    to_marquez_column_lineage,
    to_marquez_dataset,
    to_marquez_dataset_version,
    to_marquez_job,
    to_marquez_job_version,
    to_marquez_lineage,
    to_marquez_namespace,
    to_marquez_run,
    to_marquez_source,
    to_marquez_upstream,
)
from headwater.api.models import error_responses
from headwater.api.params import node_ref, parse_time, require_types, search_text
from headwater.api.state import app_state
from headwater.graph import GraphReader, NodeNotFound
from headwater.graph.answers import (
    ColumnEdge,
    ColumnNode,
    DatasetHistoryVersion,
    JobDetails,
    NamespaceSummary,
    Node,
    Run,
    StatsBucket,
    Version,
)
from headwater.graph.stats import KINDS, buckets
from headwater.model.jsontypes import JSONMapping, JSONObject, JSONValue
from headwater.model.nodeid import NodeRef, parse_node_id
from headwater.model.times import parse_time as parse_iso

# Answers in Marquez's shapes (its spec/openapi.yml), documented as plain objects; errors in Headwater's body
router = APIRouter(
    prefix="/api/v1",
    tags=["Marquez compatibility"],
    dependencies=[Depends(require_read), Depends(read_barrier)],
    responses=error_responses(
        400,
        401,
        404,
        501,
        503,
        s501="A Marquez write Headwater does not take (not_implemented); the message says what to do",
    ),
)

_SEND_EVENTS = (
    "Headwater's graph is derived from OpenLineage events: send them to POST /api/v1/lineage "
    "(any OpenLineage client or integration)"
)
_NO_TAGS = (
    "Headwater keeps no Marquez tags; describe datasets and jobs with OpenLineage facets (documentation, "
    "ownership, tags) in the events sent to POST /api/v1/lineage"
)
_NO_DELETE = (
    "the event log is append-only and the graph derived from it; a dataset is dropped by an OpenLineage event "
    "with a lifecycleStateChange facet DROP sent to POST /api/v1/lineage"
)
_UUID_SUFFIX = re.compile(r"#[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\Z")


def not_implemented(what: str, instead: str) -> ApiError:
    return ApiError(501, "not_implemented", f"{what} is not implemented by Headwater: {instead}")


def _page(request: Request) -> tuple[int, int]:
    def number(key: str, default: int, low: int, high: int) -> int:
        raw = request.query_params.get(key)
        if raw is None or raw == "":
            return default
        if not raw.isdigit() or not low <= int(raw) <= high:
            raise invalid_parameter(key, f"must be a whole number from {low} to {high}, got {raw!r}")
        return int(raw)

    return number("limit", 100, 1, 1000), number("offset", 0, 0, 10_000_000)


# --- namespaces, datasets, jobs ---------------------------------------------------------------------


def _namespace_items(graph: GraphReader) -> list[NamespaceSummary]:
    return list(graph.namespaces().get("namespaces", []))


@router.get("/namespaces", summary="Marquez: list namespaces")
def namespaces(request: Request) -> JSONObject:
    limit, offset = _page(request)
    items = _namespace_items(app_state(request).graph)
    return {"namespaces": [to_marquez_namespace(n) for n in items[offset : offset + limit]], "totalCount": len(items)}


def _segments(request: Request) -> list[str]:
    """Path segments after ``/api/v1/namespaces/``, split on literal ``/`` *before* %-decoding,
    so namespaces and names holding ``/`` (``s3://bucket``, ``/data/x.csv``) work when encoded."""
    raw = request.scope.get("raw_path") or request.url.path.encode()
    text = raw.decode("latin-1").split("?", 1)[0]
    marker = "/api/v1/namespaces/"
    rest = text[text.index(marker) + len(marker) :] if marker in text else ""
    return [unquote(part) for part in rest.split("/")]


_SUFFIXES = {"datasets": ("versions",), "jobs": ("versions", "runs")}


def _split(parts: list[str]) -> tuple[str, str, str, str | None, str | None] | None:
    """(namespace, kind, name, suffix, version) for ``ns/kind/name[/suffix[/version]]``; an unencoded ``/``
    in the name is tolerated (the name is everything between the kind and a known suffix)."""
    if len(parts) < 3 or parts[1] not in _SUFFIXES:
        return None
    kind, rest = parts[1], parts[2:]
    suffixes = _SUFFIXES[kind]
    if len(rest) > 2 and rest[-2] == "versions":
        return parts[0], kind, "/".join(rest[:-2]), "versions", rest[-1]
    if len(rest) > 1 and rest[-1] in suffixes:
        return parts[0], kind, "/".join(rest[:-1]), rest[-1], None
    return parts[0], kind, "/".join(rest), None, None


def _full_dataset(graph: GraphReader, ref: NodeRef, node: JSONMapping | None = None) -> JSONObject:
    node = node if node is not None else graph.node(ref)
    upstream = graph.column_lineage(ref, direction="upstream", depth=1)
    return to_marquez_dataset(node, graph.dataset_facets(ref), column_lineage_of(upstream, ref.id))


HIERARCHY_DEPTH = 8  # levels of parents followed for a nested job's Marquez name


def _chains(graph: GraphReader, job_ids: list[str]) -> dict[str, list[str]]:
    """Each job id -> its ancestors' job ids, nearest first (the ``parent`` run facets, as the reader sees them)."""
    parent_of: dict[str, str] = {}
    frontier = set(job_ids)
    for _ in range(HIERARCHY_DEPTH):
        found = graph.job_parents(sorted(frontier - set(parent_of))) if frontier else {}
        parent_of.update(found)
        frontier = {p for p in found.values() if p not in parent_of}
        if not frontier:
            break
    chains: dict[str, list[str]] = {}
    for job in job_ids:
        chain: list[str] = []
        seen, current = {job}, job
        while current in parent_of and parent_of[current] not in seen and len(chain) < HIERARCHY_DEPTH:
            current = parent_of[current]
            seen.add(current)
            chain.append(current)
        chains[job] = chain
    return chains


def _names(graph: GraphReader, job_ids: list[str]) -> dict[str, list[str]]:
    """Each job id -> its ancestors' OpenLineage names, nearest first (what :func:`marquez_names` takes)."""
    return {job: [parse_node_id(a).name for a in chain] for job, chain in _chains(graph, job_ids).items()}


def _marquez_job(graph: GraphReader, node: JSONMapping) -> JSONObject:
    return to_marquez_job(node, _names(graph, [node["id"]])[node["id"]])


def _marquez_jobs(graph: GraphReader, items: Sequence[JSONMapping]) -> list[JSONObject]:
    names = _names(graph, [n["id"] for n in items])
    return [to_marquez_job(graph.node(NodeRef("job", n["namespace"], n["name"])), names[n["id"]]) for n in items]


def _job_node(graph: GraphReader, namespace: str, name: str) -> JobDetails:
    """A job by its OpenLineage name, or by its Marquez name (a nested job's ``dag.task.app.action``): the job
    named by a part of ``name`` after a dot whose Marquez name is ``name``."""
    try:
        return cast(JobDetails, graph.node(NodeRef("job", namespace, name)))
    except NodeNotFound:
        pass
    dot = name.find(".")
    while dot > 0:
        try:
            found = cast(JobDetails, graph.node(NodeRef("job", namespace, name[dot + 1 :])))
        except NodeNotFound:
            found = None
        if found is not None and _marquez_job(graph, found)["name"] == name:
            return found
        dot = name.find(".", dot + 1)
    raise not_found(f"no job {name!r} in namespace {namespace!r}")


def _made_by(graph: GraphReader, run_id: JSONValue) -> Run | None:
    if not isinstance(run_id, str):
        return None
    try:
        return graph.run(run_id)
    except NodeNotFound:
        return None


def _dataset_answer(
    graph: GraphReader, request: Request, split: tuple[str, str, str, str | None, str | None]
) -> JSONValue:
    namespace, _, name, suffix, version = split
    ref = NodeRef("dataset", namespace, name)
    if suffix is None:
        return _full_dataset(graph, ref)
    node = graph.node(ref)
    versions = list(graph.history(ref).get("versions", []))
    if version is not None:
        for item in versions:
            if same_version(version, item.get("version")):
                return to_marquez_dataset_version(node, item, _made_by(graph, item.get("runId")))
        raise not_found(f"dataset {name!r} in namespace {namespace!r} has no version {version!r}")
    limit, offset = _page(request)
    return {
        "totalCount": len(versions),
        "versions": [
            to_marquez_dataset_version(node, v, _made_by(graph, v.get("runId")))
            for v in versions[offset : offset + limit]
        ],
    }


def _job_versions(graph: GraphReader, job: JSONMapping) -> list[DatasetHistoryVersion | Version]:
    return list(graph.history(NodeRef("job", job["namespace"], job["name"])).get("versions", []))


def _version_at(versions: Sequence[JSONMapping], started: JSONValue) -> str | None:
    """The id of the job version in force when a run started."""
    if not isinstance(started, str):
        return None
    when = parse_iso(started)
    for item in versions:
        begins, ends = item.get("validFrom"), item.get("validTo")
        if isinstance(begins, str) and parse_iso(begins) <= when and (ends is None or when < parse_iso(ends)):
            return str(item["version"])
    return None


def _job_answer(graph: GraphReader, request: Request, split: tuple[str, str, str, str | None, str | None]) -> JSONValue:
    namespace, _, name, suffix, version = split
    job = _job_node(graph, namespace, name)
    chain = _names(graph, [job["id"]])[job["id"]]
    marquez_name = to_marquez_job(job, chain)["name"]
    if suffix is None:
        return to_marquez_job(job, chain)
    limit, offset = _page(request)
    ref = NodeRef("job", job["namespace"], job["name"])
    versions = _job_versions(graph, job)
    if suffix == "runs":
        answer = graph.runs(ref, limit=limit, offset=offset)
        histories: dict[str, Sequence[JSONMapping] | None] = {}  # the runs of one job share their datasets
        return {
            "totalCount": answer.get("total", 0),
            "runs": [
                to_marquez_run(
                    r,
                    _version_at(versions, r.get("startedAt")),
                    marquez_name,
                    _dataset_versions(graph, r, histories),
                )
                for r in answer.get("runs", [])
            ],
        }

    def shaped(item: JSONMapping) -> JSONObject:
        at = parse_iso(item["validFrom"]) if isinstance(item.get("validFrom"), str) else None
        return to_marquez_job_version(job, item, graph.node(ref, at=at), chain)

    if version is not None:
        for item in versions:
            if same_version(version, item.get("version")):
                return shaped(item)
        raise not_found(f"job {name!r} in namespace {namespace!r} has no version {version!r}")
    return {"totalCount": len(versions), "versions": [shaped(v) for v in versions[offset : offset + limit]]}


@router.get(
    "/namespaces/{path:path}",
    summary="Marquez: a namespace, its datasets and jobs, their versions and runs",
    description=(
        "Marquez's paths `/namespaces/{ns}`, `/namespaces/{ns}/datasets`, `/namespaces/{ns}/datasets/{name}`, "
        "`/namespaces/{ns}/datasets/{name}/versions[/{version}]`, `/namespaces/{ns}/jobs`, "
        "`/namespaces/{ns}/jobs/{name}`, `/namespaces/{ns}/jobs/{name}/versions[/{version}]`, "
        "`/namespaces/{ns}/jobs/{name}/runs`, with `limit` and `offset` on lists. Encode `/` inside a "
        "namespace or name as `%2F` (`/namespaces/s3:%2F%2Fbucket/datasets/data%2Fx.csv`). Versions are "
        "UUIDs (a Headwater version id is accepted too)."
    ),
)
def namespace_tree(request: Request, path: str) -> JSONObject:
    graph = app_state(request).graph
    parts = _segments(request)
    if len(parts) == 1 or (len(parts) == 2 and parts[1] == ""):
        for item in _namespace_items(graph):
            if item.get("name") == parts[0]:
                return to_marquez_namespace(item)
        raise not_found(f"no namespace {parts[0]!r}")
    limit, offset = _page(request)
    if len(parts) == 2 and parts[1] == "datasets":
        answer = graph.datasets(namespace=parts[0], limit=limit, offset=offset)
        return {
            "totalCount": answer.get("total", 0),
            "datasets": [_full_dataset(graph, NodeRef("dataset", n["namespace"], n["name"])) for n in answer["items"]],
        }
    if len(parts) == 2 and parts[1] == "jobs":
        answer = graph.jobs(namespace=parts[0], limit=limit, offset=offset)
        return {
            "totalCount": answer.get("total", 0),
            "jobs": _marquez_jobs(graph, answer["items"]),
        }
    split = _split(parts)
    if split is None or not split[2]:
        raise not_found(f"no such Marquez path /api/v1/namespaces/{path}")
    if split[1] == "datasets":
        return dict(_dataset_answer(graph, request, split))
    return dict(_job_answer(graph, request, split))


def _namespace_write(request: Request) -> ApiError:
    parts = _segments(request)
    method = request.method
    if "tags" in parts[2:]:
        return not_implemented(f"{method} of a tag", _NO_TAGS)
    if method == "DELETE":
        return not_implemented("DELETE of a Marquez namespace, dataset or job", _NO_DELETE)
    what = {1: "a namespace", 3: "a dataset or job"}.get(len(parts), "a run")
    return not_implemented(f"{method} of {what} (Marquez's own metadata model)", _SEND_EVENTS)


_WRITES = "Marquez's writes on namespaces, datasets, jobs, runs and tags: 501 naming the alternative"


@router.put("/namespaces/{path:path}", summary=_WRITES)
def namespace_put(request: Request, path: str) -> JSONObject:
    raise _namespace_write(request)


@router.post("/namespaces/{path:path}", summary=_WRITES)
def namespace_post(request: Request, path: str) -> JSONObject:
    raise _namespace_write(request)


@router.delete("/namespaces/{path:path}", summary=_WRITES)
def namespace_delete(request: Request, path: str) -> JSONObject:
    raise _namespace_write(request)


@router.get("/jobs", summary="Marquez: jobs of every namespace")
def all_jobs(
    request: Request,
    last_run_states: list[str] | None = Query(None, alias="lastRunStates", description="NEW, RUNNING, COMPLETED, ..."),
) -> JSONObject:
    graph = app_state(request).graph
    limit, offset = _page(request)
    wanted = {s.strip().upper() for s in last_run_states or [] if s.strip()}
    unknown = wanted - {"NEW", *RUN_STATES.values()}
    if unknown:
        raise invalid_parameter("lastRunStates", f"{sorted(unknown)} are not Marquez run states")
    if not wanted:
        answer = graph.jobs(limit=limit, offset=offset)
        jobs = _marquez_jobs(graph, answer["items"])
        return {"totalCount": answer.get("total", 0), "jobs": jobs}
    matching: list[Node] = []
    start = 0
    while True:  # the filter is on each job's latest run: every job is looked at
        answer = graph.jobs(limit=1000, offset=start)
        for n in answer["items"]:
            latest = n.get("latestRun")
            state = RUN_STATES.get(str(latest.get("state")), "NEW") if isinstance(latest, dict) else "NEW"
            if state in wanted:
                matching.append(n)
        start += 1000
        if start >= answer.get("total", 0):
            break
    chosen = matching[offset : offset + limit]
    return {
        "totalCount": len(matching),
        "jobs": _marquez_jobs(graph, chosen),
    }


# --- runs ----------------------------------------------------------------------------------------


def _run(graph: GraphReader, run_id: str) -> Run:
    try:
        return graph.run(run_id)
    except NodeNotFound:
        raise not_found(f"no run {run_id!r}") from None


@router.get("/jobs/runs/{run_id}", summary="Marquez: one run")
def run(request: Request, run_id: str) -> JSONObject:
    graph = app_state(request).graph
    found = _run(graph, run_id)
    job = graph.node(parse_node_id(found["job"]))
    version = _version_at(_job_versions(graph, job), found.get("startedAt"))
    shaped = to_marquez_run(found, version, _marquez_job(graph, job)["name"], _dataset_versions(graph, found))
    assert shaped is not None
    return shaped


def _dataset_versions(
    graph: GraphReader, found: JSONMapping, histories: dict[str, Sequence[JSONMapping] | None] | None = None
) -> dict[str, str]:
    """The version of each dataset a run read (in force when it started) or wrote (the one it made, else
    the one in force when it ended); ``histories``: dataset versions already read for this answer."""
    chosen: dict[str, str] = {}
    known = {} if histories is None else histories
    for key, when in (("inputs", found.get("startedAt")), ("outputs", found.get("endedAt") or found.get("startedAt"))):
        for dataset_id in found.get(key) or []:
            if dataset_id not in known:
                try:
                    known[dataset_id] = list(graph.history(parse_node_id(dataset_id)).get("versions", []))
                except NodeNotFound:
                    known[dataset_id] = None
            versions = known[dataset_id]
            if versions is None:
                continue
            made = [v for v in versions if key == "outputs" and v.get("runId") == found.get("runId")]
            picked = str(made[0]["version"]) if made else _version_at(versions, when)
            if picked is not None:
                chosen[dataset_id] = picked
    return chosen


@router.get("/jobs/runs/{run_id}/facets", summary="Marquez: a run's run or job facets")
def run_facets(
    request: Request, run_id: str, type_: str = Query("run", alias="type", description="run or job")
) -> JSONObject:
    graph = app_state(request).graph
    kind = type_.strip().lower()
    if kind not in ("run", "job"):
        raise invalid_parameter("type", f"{type_!r} is not run or job")
    found = _run(graph, run_id)
    if kind == "run":
        return {"runId": run_id, "facets": found.get("facets") or {}}
    return {"runId": run_id, "facets": graph.node(parse_node_id(found["job"])).get("facets") or {}}


@router.api_route(
    "/jobs/runs/{run_id}/{action}", methods=["POST"], summary="Marquez's run state changes: 501 naming the alternative"
)
def run_writes(run_id: str, action: str) -> JSONObject:
    raise not_implemented(
        f"POST /jobs/runs/{{id}}/{action}", _SEND_EVENTS + " with eventType START, COMPLETE, FAIL or ABORT"
    )


@router.get("/runlineage/upstream", summary="Marquez: the runs upstream of a run")
def run_lineage_upstream(
    request: Request, run_id: str = Query(..., alias="runId"), depth: int = Query(20, ge=0, le=100)
) -> JSONObject:
    graph = app_state(request).graph
    try:
        steps = graph.upstream_runs(run_id, depth=depth)
    except NodeNotFound:
        raise not_found(f"no run {run_id!r}") from None
    return to_marquez_upstream(steps)


# --- lineage, column lineage, search, events ---------------------------------------------------------


@router.get("/lineage", summary="Marquez: lineage graph around a node")
def lineage(
    request: Request,
    node_id: str = Query(..., alias="nodeId"),
    depth: int = Query(20, ge=0, le=100),
) -> JSONObject:
    state = app_state(request)
    ref = node_ref(_UUID_SUFFIX.sub("", node_id), datasets_known=state.datasets_known)
    assert ref is not None
    answer = state.graph.lineage(
        require_types(ref, ("dataset", "job", "datasetField")),
        direction="both",
        depth=depth,
        datasets_only=False,
        columns=False,
        at=None,
        max_nodes=state.settings.max_graph_nodes,
    )
    jobs = [n["id"] for n in answer.get("nodes") or [] if n.get("type") == "JOB"]
    return to_marquez_lineage(answer, _chains(state.graph, jobs))


@router.get("/column-lineage", summary="Marquez: column lineage around a dataset, a column or a job's outputs")
def column_lineage(
    request: Request,
    node_id: str = Query(..., alias="nodeId", description="dataset:, datasetField: or job: id (a #version is ignored)"),
    depth: int = Query(20, ge=1, le=100),
    with_downstream: bool = Query(False, alias="withDownstream"),
) -> JSONObject:
    state = app_state(request)
    ref = node_ref(_UUID_SUFFIX.sub("", node_id), datasets_known=state.datasets_known)
    assert ref is not None
    direction = "both" if with_downstream else "upstream"
    graph = state.graph
    if require_types(ref, ("dataset", "datasetField", "job")).type != "job":
        return to_marquez_column_lineage(graph.column_lineage(ref, direction=direction, depth=depth, at=None))
    nodes: dict[str, ColumnNode] = {}
    edges: dict[tuple[str, str], ColumnEdge] = {}
    for output in cast(JobDetails, graph.node(ref))["outputs"]:  # a job's column lineage: that of its outputs
        answer = graph.column_lineage(parse_node_id(output), direction=direction, depth=depth, at=None)
        nodes.update({n["id"]: n for n in answer.get("nodes") or []})
        edges.update({(e["source"], e["target"]): e for e in answer.get("edges") or []})
    return to_marquez_column_lineage({"nodes": list(nodes.values()), "edges": list(edges.values())})


def _day(value: str | None, name: str) -> str | None:
    if value is None or value == "":
        return None
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        raise invalid_parameter(name, f"expected a date YYYY-MM-DD, got {value!r}")
    return value


@router.get("/search", summary="Marquez: search datasets and jobs")
def search(
    request: Request,
    q: str = Query(..., min_length=1),
    filter: str | None = Query(None, description="DATASET or JOB"),  # noqa: A002 - Marquez's name
    sort: str = Query("NAME", description="NAME or UPDATE_AT"),
    limit: int = Query(10, ge=1, le=200),
    namespace: str | None = Query(None),
    before: str | None = Query(None, description="Only nodes updated before this day (YYYY-MM-DD)"),
    after: str | None = Query(None, description="Only nodes updated after this day (YYYY-MM-DD)"),
) -> JSONObject:
    types = ["dataset", "job"]
    if filter:
        wanted = filter.strip().lower()
        if wanted not in types:
            raise invalid_parameter("filter", f"{filter!r} is not DATASET or JOB")
        types = [wanted]
    order = sort.strip().upper()
    if order not in ("NAME", "UPDATE_AT"):
        raise invalid_parameter("sort", f"{sort!r} is not NAME or UPDATE_AT")
    until, since = _day(before, "before"), _day(after, "after")
    state = app_state(request)
    text = search_text(q, int(state.settings.max_search_length))
    filtered = bool(until or since)
    answer = state.graph.search(text, types=types, namespace=namespace or None, limit=200 if filtered else limit)
    results = [
        {
            "type": r.get("type"),
            "name": r.get("name"),
            "updatedAt": r.get("updatedAt"),
            "namespace": r.get("namespace"),
            "nodeId": r.get("id"),
        }
        for r in answer.get("results", [])
        if r.get("type") in ("DATASET", "JOB")
        and (not until or str(r.get("updatedAt") or "")[:10] < until)
        and (not since or str(r.get("updatedAt") or "")[:10] > since)
    ]
    if order == "NAME":
        results.sort(key=lambda r: (str(r["name"]), str(r["namespace"])))
    else:
        results.sort(key=lambda r: str(r["updatedAt"] or ""), reverse=True)
    results = results[:limit]
    return {"totalCount": len(results), "results": results}


@router.get("/events/lineage", summary="Marquez: raw lineage events")
def lineage_events(
    request: Request,
    before: str | None = Query(None, description="Events before this time"),
    after: str | None = Query(None, description="Events after this time"),
    sort_direction: str = Query("desc", alias="sortDirection", description="desc (newest first) or asc"),
    limit: int = Query(100, ge=1, le=1000),
    offset: int = Query(0, ge=0, le=100_000),
) -> JSONObject:
    direction = sort_direction.strip().lower()
    if direction not in ("asc", "desc"):
        raise invalid_parameter("sortDirection", f"{sort_direction!r} is not asc or desc")
    graph = app_state(request).graph  # the event log as the reader may see it (graph/visibility.py)
    since, until = parse_time(after, "after"), parse_time(before, "before")
    collected: list[Any] = []
    cursor: str | None = None
    exhausted = False
    # newest first, page by page; oldest first needs the window to its start (bounded by offset's limit)
    wanted = offset + limit if direction == "desc" else 100_000 + 1000
    while len(collected) < wanted:
        size = min(1000, wanted - len(collected))
        page, cursor = graph.events(since=since, until=until, node=None, limit=size, cursor=cursor)
        collected.extend(page)
        if not cursor or not page:
            exhausted = True
            break
    if direction == "asc":
        collected.reverse()
    chosen = collected[offset : offset + limit]
    counted = None if exhausted else graph.event_count(since=since, until=until)
    total = len(collected) if exhausted else (counted if counted is not None else len(collected) + 1)
    return {"events": [json.loads(e.raw) for e in chosen], "totalCount": total}


# --- sources, tags, stats -----------------------------------------------------------------------------


def _sources(graph: GraphReader) -> list[JSONObject]:
    return [to_marquez_source(n) for n in _namespace_items(graph) if n.get("datasets")]


@router.get("/sources", summary="Marquez: sources (Headwater: the namespaces that hold datasets)")
def sources(request: Request) -> JSONObject:
    limit, offset = _page(request)
    found = _sources(app_state(request).graph)
    return {"sources": found[offset : offset + limit], "totalCount": len(found)}


@router.get("/sources/{name:path}", summary="Marquez: one source (a namespace that holds datasets)")
def source(request: Request, name: str) -> JSONObject:
    for item in _sources(app_state(request).graph):
        if item["name"] == name:
            return item
    raise not_found(f"no source {name!r}")


@router.put("/sources/{name:path}", summary="Marquez: create a source: 501 naming the alternative")
def source_write(name: str) -> JSONObject:
    raise not_implemented("PUT /sources/{source}", "sources are the namespaces of datasets; " + _SEND_EVENTS)


@router.get("/tags", summary="Marquez: tags (Headwater keeps none)")
def tags(request: Request) -> JSONObject:
    _page(request)
    return {"tags": []}


@router.put("/tags/{name:path}", summary="Marquez: create a tag: 501 naming the alternative")
def tag_write(name: str) -> JSONObject:
    raise not_implemented("PUT /tags/{tag}", _NO_TAGS)


@router.get(
    "/stats/{kind}",
    summary="Marquez: lineage events, jobs, datasets or sources over the last day or week",
    response_model=list[JSONObject],  # Marquez's shape, documented as it was: the records are plain dicts
)
def statistics(
    request: Request,
    kind: str,
    period: str = Query(..., description="DAY (24 hours) or WEEK (7 days)"),
    timezone: str | None = Query(None, description="IANA zone of WEEK's days (e.g. Europe/Paris)"),
) -> list[StatsBucket]:
    if kind not in KINDS:
        raise not_found(f"no statistics of {kind!r}; there are {', '.join(KINDS)}")
    chosen = period.strip().upper()
    if chosen == "WEEK" and kind == "lineage-events" and not timezone:
        raise invalid_parameter("timezone", "a timezone is needed for period WEEK")
    try:
        intervals = buckets(chosen, timezone, datetime.now(UTC))
    except ValueError as exc:
        raise invalid_parameter("timezone" if chosen == "WEEK" else "period", str(exc)) from None
    return app_state(request).graph.stats(kind, intervals)


__all__ = ["marquez_job_name", "marquez_version", "router"]
