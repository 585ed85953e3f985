"""Marquez compatibility: Marquez's public read paths answering in Marquez's shapes.

Tools written for Marquez (its web UI's API client, marquez-python, scripts using
``/api/v1/lineage?nodeId=``) keep working against Headwater. Each handler calls GraphReader
(or the event log) and maps the Headwater answer to the Marquez shape with the pure
``to_marquez_*`` functions of :mod:`headwater.api.marquez_shapes`.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import unquote

from fastapi import APIRouter, Depends, Query, Request

from headwater.api.auth import require_read
from headwater.api.errors import invalid_parameter, not_found
from headwater.api.freshness import read_barrier
from headwater.api.marquez_shapes import (
    to_marquez_column_lineage,
    to_marquez_dataset,
    to_marquez_dataset_version,
    to_marquez_job,
    to_marquez_lineage,
    to_marquez_namespace,
    to_marquez_run,
)
from headwater.api.models import error_responses
from headwater.api.params import node_ref, parse_time, require_types, search_text
from headwater.api.state import app_state
from headwater.model.nodeid import NodeRef

# Answers in Marquez's shapes (its spec/openapi.yml), documented as plain objects; errors in Headwater's body
router = APIRouter(
    prefix="/api/v1",
    tags=["Marquez compatibility"],
    dependencies=[Depends(require_read), Depends(read_barrier)],
    responses=error_responses(400, 401, 404, 503),
)


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
    rest = text[text.index(marker) + len(marker) :] if marker in text else ""
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
        return {
            "totalCount": answer.get("total", 0),
            "datasets": [to_marquez_dataset(n) for n in answer.get("items", [])],
        }
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
    ref = node_ref(node_id, datasets_known=app_state(request).datasets_known)
    assert ref is not None
    state = app_state(request)
    answer = state.graph.lineage(
        require_types(ref, ("dataset", "job", "datasetField")),
        direction="both",
        depth=depth,
        datasets_only=False,
        columns=False,
        at=None,
        max_nodes=state.settings.max_graph_nodes,
    )
    return to_marquez_lineage(answer)


@router.get("/column-lineage", summary="Marquez: column lineage around a dataset or column")
def column_lineage(
    request: Request,
    node_id: str = Query(..., alias="nodeId"),
    depth: int = Query(20, ge=1, le=100),
    with_downstream: bool = Query(False, alias="withDownstream"),
) -> dict[str, Any]:
    ref = node_ref(node_id, datasets_known=app_state(request).datasets_known)
    assert ref is not None
    answer = app_state(request).graph.column_lineage(
        require_types(ref, ("dataset", "datasetField")),
        direction="both" if with_downstream else "upstream",
        depth=depth,
        at=None,
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
    state = app_state(request)
    answer = state.graph.search(
        search_text(q, int(state.settings.max_search_length)), types=types, namespace=None, limit=limit
    )
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
