"""Marquez compatibility: Marquez's public read paths answering in Marquez's shapes.

Tools written for Marquez (its web UI's API client, marquez-python, scripts using
``/api/v1/lineage?nodeId=``) keep working against Headwater. Each handler calls GraphReader
(or the event log) and maps the Headwater answer to the Marquez shape with the pure
``to_marquez_*`` functions below (shapes from Marquez's ``spec/openapi.yml``). Fields Headwater
does not track (owners, tags, descriptions of namespaces) answer empty values, as Marquez
does for events that do not carry them.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import unquote

from fastapi import APIRouter, Depends, Query, Request

from headwater.api.auth import require_read
from headwater.api.errors import invalid_parameter, not_found
from headwater.api.params import node_ref, parse_time, require_types
from headwater.api.state import app_state
from headwater.graph.nodeid import NodeRef, parse_node_id

router = APIRouter(prefix="/api/v1", tags=["Marquez compatibility"], dependencies=[Depends(require_read)])

RUN_STATES = {
    "START": "RUNNING", "RUNNING": "RUNNING", "COMPLETE": "COMPLETED",
    "FAIL": "FAILED", "ABORT": "ABORTED", "OTHER": "RUNNING",
}
_STREAMING = ("stream", "kafka", "kinesis", "pubsub")


def _dataset_id(node_id: str) -> dict[str, str]:
    ref = parse_node_id(node_id)
    return {"namespace": ref.namespace, "name": ref.name}


def _fields(node: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {"name": f.get("name"), "type": f.get("type"), "tags": [], "description": f.get("description")}
        for f in node.get("fields") or []
    ]


def _dataset_type(node: dict[str, Any]) -> str:
    kind = str(node.get("kind") or "").lower()
    return "STREAM" if kind in _STREAMING else "DB_TABLE"


def _version_id(version: Any) -> str | None:
    if isinstance(version, dict):
        value = version.get("version")
        return None if value is None else str(value)
    return None


def to_marquez_run(run: dict[str, Any] | None) -> dict[str, Any] | None:
    """Headwater Run -> Marquez Run."""
    if not run:
        return None
    job = run.get("job")
    job_ref = parse_node_id(job) if isinstance(job, str) else None
    return {
        "id": run.get("runId"),
        "createdAt": run.get("startedAt") or run.get("endedAt"),
        "updatedAt": run.get("endedAt") or run.get("startedAt"),
        "nominalStartTime": None,
        "nominalEndTime": None,
        "state": RUN_STATES.get(str(run.get("state")), "NEW"),
        "startedAt": run.get("startedAt"),
        "endedAt": run.get("endedAt"),
        "durationMs": run.get("durationMs"),
        "args": {},
        "jobVersion": (
            {"namespace": job_ref.namespace, "name": job_ref.name, "version": None} if job_ref else None
        ),
        "inputDatasetVersions": [
            {"datasetVersionId": {**_dataset_id(i), "version": None}, "facets": {}} for i in run.get("inputs") or []
        ],
        "outputDatasetVersions": [
            {"datasetVersionId": {**_dataset_id(o), "version": None}, "facets": {}} for o in run.get("outputs") or []
        ],
        "context": {},
        "facets": run.get("facets") or {},
    }


def to_marquez_dataset(node: dict[str, Any]) -> dict[str, Any]:
    """Headwater dataset Node (or node details) -> Marquez Dataset."""
    facets = node.get("facets") or {}
    lifecycle = facets.get("lifecycleStateChange") if isinstance(facets, dict) else None
    documentation = facets.get("documentation") if isinstance(facets, dict) else None
    return {
        "id": {"namespace": node.get("namespace"), "name": node.get("name")},
        "type": _dataset_type(node),
        "name": node.get("name"),
        "physicalName": node.get("name"),
        "createdAt": node.get("createdAt") or node.get("updatedAt"),
        "updatedAt": node.get("updatedAt"),
        "namespace": node.get("namespace"),
        "sourceName": node.get("namespace"),
        "fields": _fields(node),
        "tags": [],
        "lastModifiedAt": node.get("updatedAt"),
        "lastLifecycleState": lifecycle.get("lifecycleStateChange") if isinstance(lifecycle, dict) else None,
        "description": documentation.get("description") if isinstance(documentation, dict) else None,
        "facets": facets,
        "currentVersion": _version_id(node.get("currentVersion")),
        "columnLineage": None,
        "deleted": bool(node.get("deleted")),
    }


def to_marquez_job(node: dict[str, Any]) -> dict[str, Any]:
    """Headwater job Node (or node details) -> Marquez Job."""
    job_type = node.get("jobType") or {}
    processing = str(job_type.get("processingType") or "BATCH").upper()
    facets = node.get("facets") or {}
    location = facets.get("sourceCodeLocation") if isinstance(facets, dict) else None
    documentation = facets.get("documentation") if isinstance(facets, dict) else None
    parent = node.get("parent")
    latest = node.get("latestRun")
    return {
        "id": {"namespace": node.get("namespace"), "name": node.get("name")},
        "type": "STREAM" if processing == "STREAMING" else "BATCH",
        "name": node.get("name"),
        "simpleName": str(node.get("name") or "").rsplit(".", 1)[-1],
        "parentJobName": parse_node_id(parent).name if isinstance(parent, str) else None,
        "createdAt": node.get("createdAt") or node.get("updatedAt"),
        "updatedAt": node.get("updatedAt"),
        "namespace": node.get("namespace"),
        "inputs": [_dataset_id(i) for i in node.get("inputs") or []],
        "outputs": [_dataset_id(o) for o in node.get("outputs") or []],
        "location": location.get("url") if isinstance(location, dict) else None,
        "description": documentation.get("description") if isinstance(documentation, dict) else None,
        "latestRun": to_marquez_run({**latest, "job": node.get("id")}) if isinstance(latest, dict) else None,
        "facets": facets,
        "currentVersion": _version_id(node.get("currentVersion")),
        "tags": [],
        "labels": [],
    }


def to_marquez_dataset_version(node: dict[str, Any], version: dict[str, Any]) -> dict[str, Any]:
    """One Headwater Version of a dataset -> Marquez DatasetVersion."""
    run_id = version.get("runId")
    return {
        "id": {"namespace": node.get("namespace"), "name": node.get("name"), "version": version.get("version")},
        "type": _dataset_type(node),
        "name": node.get("name"),
        "physicalName": node.get("name"),
        "createdAt": version.get("validFrom"),
        "version": version.get("version"),
        "namespace": node.get("namespace"),
        "sourceName": node.get("namespace"),
        "fields": _fields(version),
        "tags": [],
        "lifecycleState": None,
        "description": None,
        "createdByRun": {"id": run_id} if run_id else None,
        "facets": version.get("facets") or {},
    }


def to_marquez_lineage(answer: dict[str, Any]) -> dict[str, Any]:
    """Headwater lineage answer -> Marquez LineageGraph ``{"graph": [GraphNode]}``."""
    in_edges: dict[str, list[dict[str, str]]] = {}
    out_edges: dict[str, list[dict[str, str]]] = {}
    for edge in answer.get("edges") or []:
        pair = {"origin": edge["source"], "destination": edge["target"]}
        out_edges.setdefault(edge["source"], []).append(pair)
        in_edges.setdefault(edge["target"], []).append(pair)
    graph = []
    for node in answer.get("nodes") or []:
        is_job = node.get("type") == "JOB"
        if is_job and "inputs" not in node:  # graph nodes carry no inputs/outputs: take them from the edges
            node = {
                **node,
                "inputs": sorted(e["origin"] for e in in_edges.get(node["id"], [])),
                "outputs": sorted(e["destination"] for e in out_edges.get(node["id"], [])),
            }
        data = to_marquez_job(node) if is_job else to_marquez_dataset(node)
        graph.append({
            "id": node["id"],
            "type": "JOB" if is_job else "DATASET",
            "data": data,
            "inEdges": in_edges.get(node["id"], []),
            "outEdges": out_edges.get(node["id"], []),
        })
    return {"graph": graph}


def to_marquez_column_lineage(answer: dict[str, Any]) -> dict[str, Any]:
    """Headwater column-lineage answer -> Marquez column lineage ``{"graph": [...]}`` of DATASET_FIELD nodes."""
    inputs: dict[str, list[dict[str, Any]]] = {}
    in_edges: dict[str, list[dict[str, str]]] = {}
    out_edges: dict[str, list[dict[str, str]]] = {}
    for edge in answer.get("edges") or []:
        source, target = edge.get("source"), edge.get("target")
        if not (isinstance(source, str) and isinstance(target, str)) or not target.startswith("datasetField:"):
            continue  # dataset-level dependencies have no column node in Marquez's graph
        src = parse_node_id(source)
        transformations = edge.get("transformations") or []
        first = transformations[0] if transformations else {}
        inputs.setdefault(target, []).append({
            "namespace": src.namespace, "dataset": src.name, "datasetVersion": None, "field": src.field,
            "transformationDescription": first.get("description"), "transformationType": first.get("type"),
            "transformations": transformations,
        })
        pair = {"origin": source, "destination": target}
        out_edges.setdefault(source, []).append(pair)
        in_edges.setdefault(target, []).append(pair)
    graph = []
    for node in answer.get("nodes") or []:
        node_id = node["id"]
        own = inputs.get(node_id, [])
        graph.append({
            "id": node_id,
            "type": "DATASET_FIELD",
            "data": {
                "namespace": node.get("namespace"), "dataset": node.get("name"), "datasetVersion": None,
                "field": node.get("field"), "fieldType": node.get("type"),
                "transformationDescription": own[0]["transformationDescription"] if own else None,
                "transformationType": own[0]["transformationType"] if own else None,
                "inputFields": own,
            },
            "inEdges": in_edges.get(node_id, []),
            "outEdges": out_edges.get(node_id, []),
        })
    return {"graph": graph}


def to_marquez_namespace(item: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": item.get("name"), "createdAt": item.get("createdAt") or item.get("updatedAt"),
        "updatedAt": item.get("updatedAt"), "ownerName": "", "description": None, "isHidden": False,
    }


# --- routes -------------------------------------------------------------------------------------


def _namespace_items(request: Request) -> list[dict[str, Any]]:
    return list(app_state(request).graph.namespaces().get("namespaces", []))


@router.get("/namespaces", summary="Marquez: list namespaces")
def namespaces(request: Request) -> dict[str, Any]:
    return {"namespaces": [to_marquez_namespace(n) for n in _namespace_items(request)]}


def _segments(request: Request) -> list[str]:
    """Path segments after ``/api/v1/namespaces/``, split on literal ``/`` *before* %-decoding,
    so namespaces and names holding ``/`` (``s3://bucket``, ``/data/x.csv``) work when encoded."""
    raw = request.scope.get("raw_path") or request.url.path.encode()
    text = raw.decode("latin-1").split("?", 1)[0]
    marker = "/api/v1/namespaces/"
    rest = text[text.index(marker) + len(marker):] if marker in text else ""
    return [unquote(part) for part in rest.split("/")]


def _split(parts: list[str], kinds: tuple[str, ...]) -> tuple[str, str, str, str | None] | None:
    """(namespace, kind, name, suffix) for ``ns/kind/name[/suffix]``; an unencoded ``/`` in the
    name is tolerated (the name is everything between kind and the known suffix)."""
    if len(parts) < 3 or parts[1] not in kinds:
        return None
    suffixes = {"datasets": "versions", "jobs": "runs"}
    name_parts, suffix = parts[2:], None
    if len(name_parts) > 1 and name_parts[-1] == suffixes[parts[1]]:
        name_parts, suffix = name_parts[:-1], name_parts[-1]
    return parts[0], parts[1], "/".join(name_parts), suffix


def _page(request: Request) -> tuple[int, int]:
    def number(key: str, default: int, low: int, high: int) -> int:
        raw = request.query_params.get(key)
        if raw is None or raw == "":
            return default
        if not raw.isdigit() or not low <= int(raw) <= high:
            raise invalid_parameter(key, f"must be a whole number from {low} to {high}, got {raw!r}")
        return int(raw)

    return number("limit", 100, 1, 1000), number("offset", 0, 0, 10_000_000)


@router.get(
    "/namespaces/{path:path}",
    summary="Marquez: a namespace, its datasets and jobs",
    description=(
        "Marquez's paths `/namespaces/{ns}`, `/namespaces/{ns}/datasets`, `/namespaces/{ns}/datasets/{name}`, "
        "`/namespaces/{ns}/datasets/{name}/versions`, `/namespaces/{ns}/jobs`, `/namespaces/{ns}/jobs/{name}`, "
        "`/namespaces/{ns}/jobs/{name}/runs`, with `limit` and `offset` on lists. Encode `/` inside a "
        "namespace or name as `%2F` (`/namespaces/s3:%2F%2Fbucket/datasets/data%2Fx.csv`)."
    ),
)
def namespace_tree(request: Request, path: str) -> dict[str, Any]:
    graph = app_state(request).graph
    parts = _segments(request)
    limit, offset = _page(request)
    if len(parts) == 1 or (len(parts) == 2 and parts[1] == ""):
        for item in _namespace_items(request):
            if item.get("name") == parts[0]:
                return to_marquez_namespace(item)
        raise not_found(f"no namespace {parts[0]!r}")
    if len(parts) == 2 and parts[1] == "datasets":
        answer = graph.datasets(namespace=parts[0], limit=limit, offset=offset)
        return {"totalCount": answer.get("total", 0), "datasets": [to_marquez_dataset(n) for n in answer.get("items", [])]}
    if len(parts) == 2 and parts[1] == "jobs":
        answer = graph.jobs(namespace=parts[0], limit=limit, offset=offset)
        return {"totalCount": answer.get("total", 0), "jobs": [to_marquez_job(n) for n in answer.get("items", [])]}
    split = _split(parts, ("datasets", "jobs"))
    if split is None or not split[2]:
        raise not_found(f"no such Marquez path /api/v1/namespaces/{path}")
    namespace, kind, name, suffix = split
    if kind == "datasets":
        ref = NodeRef("dataset", namespace, name)
        node = graph.node(ref)
        if suffix is None:
            return to_marquez_dataset(node)
        versions = list(graph.history(ref).get("versions", []))
        return {
            "totalCount": len(versions),
            "versions": [to_marquez_dataset_version(node, v) for v in versions[offset : offset + limit]],
        }
    ref = NodeRef("job", namespace, name)
    if suffix is None:
        return to_marquez_job(graph.node(ref))
    answer = graph.runs(ref, limit=limit, offset=offset)
    return {"totalCount": answer.get("total", 0), "runs": [to_marquez_run(r) for r in answer.get("runs", [])]}


@router.get("/jobs/runs/{run_id}", summary="Marquez: one run")
def run(request: Request, run_id: str) -> dict[str, Any]:
    found = to_marquez_run(app_state(request).graph.run(run_id))
    if found is None:
        raise not_found(f"no run {run_id!r}")
    return found


@router.get("/lineage", summary="Marquez: lineage graph around a node")
def lineage(
    request: Request,
    node_id: str = Query(..., alias="nodeId"),
    depth: int = Query(20, ge=0, le=100),
) -> dict[str, Any]:
    ref = node_ref(node_id)
    assert ref is not None
    state = app_state(request)
    answer = state.graph.lineage(
        require_types(ref, ("dataset", "job", "datasetField")), direction="both", depth=depth,
        datasets_only=False, columns=False, at=None, max_nodes=state.settings.max_graph_nodes,
    )
    return to_marquez_lineage(answer)


@router.get("/column-lineage", summary="Marquez: column lineage around a dataset or column")
def column_lineage(
    request: Request,
    node_id: str = Query(..., alias="nodeId"),
    depth: int = Query(20, ge=1, le=100),
    with_downstream: bool = Query(False, alias="withDownstream"),
) -> dict[str, Any]:
    ref = node_ref(node_id)
    assert ref is not None
    answer = app_state(request).graph.column_lineage(
        require_types(ref, ("dataset", "datasetField")),
        direction="both" if with_downstream else "upstream", depth=depth, at=None,
    )
    return to_marquez_column_lineage(answer)


@router.get("/search", summary="Marquez: search datasets and jobs")
def search(
    request: Request,
    q: str = Query(..., min_length=1),
    filter: str | None = Query(None, description="DATASET or JOB"),  # noqa: A002 - Marquez's name
    limit: int = Query(10, ge=1, le=200),
) -> dict[str, Any]:
    types = ["dataset", "job"]
    if filter:
        wanted = filter.strip().lower()
        if wanted not in types:
            raise invalid_parameter("filter", f"{filter!r} is not DATASET or JOB")
        types = [wanted]
    answer = app_state(request).graph.search(q, types=types, namespace=None, limit=limit)
    results = [
        {"type": r.get("type"), "name": r.get("name"), "updatedAt": r.get("updatedAt"),
         "namespace": r.get("namespace"), "nodeId": r.get("id")}
        for r in answer.get("results", [])
        if r.get("type") in ("DATASET", "JOB")
    ]
    return {"totalCount": len(results), "results": results}


@router.get("/events/lineage", summary="Marquez: raw lineage events, newest first")
def lineage_events(
    request: Request,
    before: str | None = Query(None, description="Events before this time"),
    after: str | None = Query(None, description="Events after this time"),
    limit: int = Query(100, ge=1, le=1000),
    offset: int = Query(0, ge=0, le=100_000),
) -> dict[str, Any]:
    store = app_state(request).store
    since, until = parse_time(after, "after"), parse_time(before, "before")
    collected: list[Any] = []
    cursor: str | None = None
    while len(collected) < offset + limit:
        page, cursor = store.list_events(since=since, until=until, node=None, limit=1000, cursor=cursor)
        collected.extend(page)
        if not cursor or not page:
            break
    chosen = collected[offset : offset + limit]
    return {"events": [json.loads(e.raw) for e in chosen], "totalCount": len(collected)}
