"""Headwater's native graph reads (``/api/v1/graph/*``): thin handlers over ``GraphReader``.

Each handler parses and checks its parameters (400 ``invalid_parameter`` with a message naming
the parameter), calls one GraphReader method and returns its answer unchanged (the shapes of
docs/api.md). Handlers are plain ``def``: FastAPI runs them in the threadpool, so blocking
store queries never block the event loop.

Every answer is encoded by :func:`~headwater.api.answers.json_answer` with orjson, in the handler:
the same bytes FastAPI's own encoding writes (tests/api/test_api_graph_json.py), without
validating and re-encoding every value of a multi-MB answer (lineage, column lineage, impact,
compare: up to ``max_graph_nodes`` nodes) in Python; lineage's answer mostly comes as those bytes already,
assembled from node shapes kept as bytes (graph/lineage_bytes.py). ``response_model`` names the answer's model
(:mod:`headwater.api.models`) for ``/openapi.json`` only: a returned ``Response`` is passed through.
"""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime
from typing import Literal

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import Response

from headwater.api.answers import json_answer
from headwater.api.auth import require_read
from headwater.api.errors import ApiError, invalid_parameter, not_found
from headwater.api.freshness import read_barrier
from headwater.api.models import (
    ColumnLineageAnswer,
    CompareAnswer,
    HistoryAnswer,
    ImpactAnswer,
    LineageAnswer,
    NamespacesAnswer,
    NodeDetails,
    NodePage,
    RecentAnswer,
    RunsAnswer,
    SearchAnswer,
    error_responses,
)
from headwater.api.params import csv_list, node_ref, parse_time, require_types, search_text
from headwater.api.state import app_state
from headwater.graph import answers
from headwater.model.nodeid import NodeRef
from headwater.model.times import iso, to_micros
from headwater.store import HistoryPruned

MAX_OFFSET = 10_000_000  # paging offsets past this answer 400 (a 64-bit SQL OFFSET, and no list is that long)

router = APIRouter(
    prefix="/api/v1/graph",
    tags=["Graph"],
    dependencies=[Depends(require_read), Depends(read_barrier)],
    responses=error_responses(400, 401, 404, 503),
)

__all__ = ["json_answer", "router"]

Direction = Literal["both", "upstream", "downstream"]
AT = Query(None, description="Answer as of this moment (ISO 8601 or epoch milliseconds); default now")


def node_param(
    request: Request,
    node_id: str | None = Query(
        None,
        alias="nodeId",
        description="dataset:<ns>:<name>, job:<ns>:<name>, datasetField:<ns>:<name>:<field> or run:<runId>",
    ),
    type_: str | None = Query(None, alias="type", description="Instead of nodeId: dataset, job, datasetField or run"),
    namespace: str | None = Query(None, description="Instead of nodeId: the namespace"),
    name: str | None = Query(None, description="Instead of nodeId: the name (the runId for a run)"),
    field: str | None = Query(None, description="Instead of nodeId: the column of a datasetField"),
) -> NodeRef:
    ref = node_ref(node_id, type_, namespace, name, field, datasets_known=app_state(request).datasets_known)
    assert ref is not None
    return ref


def _as_of(request: Request, value: str | None, name: str) -> datetime | None:
    """A moment to read the graph as of; before the pruned history (``headwater db prune``): 410 history_pruned."""
    at = parse_time(value, name)
    try:
        app_state(request).store.check_as_of(at)
    except HistoryPruned as exc:
        raise ApiError(410, "history_pruned", f"{name}: {exc}", [{"path": name, "message": str(exc)}]) from None
    return at


as_of = _as_of  # the same check for the routes of other families (api/impact.py)


@router.get("/lineage", summary="The lineage graph around a node", response_model=LineageAnswer)
def lineage(
    request: Request,
    node: NodeRef = Depends(node_param),
    direction: Direction = Query("both"),
    depth: int = Query(2, ge=0, le=50, description="Hops from the root (dataset hops with datasetsOnly)"),
    datasets_only: bool = Query(False, alias="datasetsOnly"),
    columns: bool = Query(False, description="Add columnEdges among the datasets of the answer"),
    at: str | None = AT,
    collapse_jobs: bool = Query(
        False,
        alias="collapseJobs",
        description=(
            "Show child jobs (an Airflow DAG's tasks, a Spark application's actions) as their top parent job: "
            "edges lifted to the parent, each listing in via the child jobs it stands for"
        ),
    ),
) -> Response:
    require_types(node, ("dataset", "job", "datasetField"))
    state = app_state(request)
    answer = state.graph.lineage_json(
        node,
        direction=direction,
        depth=depth,
        datasets_only=datasets_only,
        columns=columns,
        at=_as_of(request, at, "at"),
        max_nodes=state.settings.max_graph_nodes,
        collapse_jobs=collapse_jobs,
    )
    if isinstance(answer, bytes):  # assembled from kept byte fragments: the bytes json_answer would write
        return Response(answer, media_type="application/json")
    return json_answer(answer)


@router.get(
    "/column-lineage",
    summary="Column-level lineage of one column or of all columns of a dataset",
    response_model=ColumnLineageAnswer,
)
def column_lineage(
    request: Request,
    node: NodeRef = Depends(node_param),
    direction: Direction = Query("both"),
    depth: int = Query(10, ge=1, le=100),
    at: str | None = AT,
) -> Response:
    require_types(node, ("datasetField", "dataset"))
    state = app_state(request)
    return json_answer(
        state.graph.column_lineage(
            node,
            direction=direction,
            depth=depth,
            at=_as_of(request, at, "at"),
            max_nodes=state.settings.max_graph_nodes,
        )
    )


IMPACT_CSV_COLUMNS = ("depth", "type", "id", "namespace", "name", "field", "path")


def impact_csv(answer: answers.ImpactAnswer) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(IMPACT_CSV_COLUMNS)
    for item in answer["items"]:
        row: dict[str, object] = {**item, "path": " > ".join(item["path"])}
        writer.writerow(["" if row.get(c) is None else row.get(c) for c in IMPACT_CSV_COLUMNS])
    return out.getvalue()


@router.get(
    "/impact",
    summary="Everything downstream of a dataset or a column",
    response_model=ImpactAnswer,
    responses={
        200: {
            "content": {"text/csv": {"schema": {"type": "string"}}},
            "description": "JSON, or with format=csv the columns depth,type,id,namespace,name,field,path",
        }
    },
)
def impact(
    request: Request,
    node: NodeRef = Depends(node_param),
    depth: int = Query(20, ge=1, le=100),
    at: str | None = AT,
    format: Literal["json", "csv"] = Query("json"),  # noqa: A002 - the API's parameter name
) -> Response:
    require_types(node, ("dataset", "datasetField"))
    state = app_state(request)
    answer = state.graph.impact(
        node, depth=depth, at=_as_of(request, at, "at"), max_nodes=state.settings.max_graph_nodes
    )
    if format == "csv":
        filename = f"impact-{node.name.rsplit('/', 1)[-1] or 'node'}.csv".replace('"', "")
        return Response(
            impact_csv(answer),
            media_type="text/csv; charset=utf-8",
            headers={"Content-Disposition": f'attachment; filename="{filename}"'},
        )
    return json_answer(answer)


@router.get("/node", summary="Details of a dataset, job or run", response_model=NodeDetails)
def node_details(request: Request, node: NodeRef = Depends(node_param), at: str | None = AT) -> Response:
    graph = app_state(request).graph
    if node.type == "run":
        run = graph.run(node.name)
        if run is None:
            raise not_found(f"no run {node.name!r}")
        return json_answer(run)
    if node.type == "datasetField":
        node = node.dataset
    return json_answer(graph.node(node, at=_as_of(request, at, "at")))


@router.get("/history", summary="Versions of a dataset or job, newest first", response_model=HistoryAnswer)
def history(request: Request, node: NodeRef = Depends(node_param)) -> Response:
    require_types(node, ("dataset", "job"))
    return json_answer(app_state(request).graph.history(node))


@router.get("/runs", summary="Runs of a job, newest first", response_model=RunsAnswer)
def runs(
    request: Request,
    node: NodeRef = Depends(node_param),
    limit: int = Query(50, ge=1, le=1000),
    offset: int = Query(0, ge=0, le=MAX_OFFSET),
) -> Response:
    require_types(node, ("job",))
    return json_answer(app_state(request).graph.runs(node, limit=limit, offset=offset))


SEARCH_TYPES = ("dataset", "job", "field")


@router.get("/search", summary="Find datasets, jobs and fields by name", response_model=SearchAnswer)
def search(
    request: Request,
    q: str = Query(..., min_length=1, description="Case-insensitive substring of a name"),
    type_: str | None = Query(None, alias="type", description="Comma-separated: dataset,job,field"),
    namespace: str | None = Query(None),
    limit: int = Query(20, ge=1, le=200),
) -> Response:
    types = csv_list(type_, "type", SEARCH_TYPES) or list(SEARCH_TYPES)
    state = app_state(request)
    q = search_text(q, int(state.settings.max_search_length))
    return json_answer(state.graph.search(q, types=types, namespace=namespace, limit=limit))


@router.get("/compare", summary="What changed around a node between two moments", response_model=CompareAnswer)
def compare(
    request: Request,
    node: NodeRef = Depends(node_param),
    t_from: str = Query(..., alias="from", description="Earlier moment (ISO 8601 or epoch ms)"),
    t_to: str | None = Query(None, alias="to", description="Later moment; default now"),
    direction: Direction = Query("both"),
    depth: int = Query(2, ge=0, le=50),
) -> Response:
    require_types(node, ("dataset", "job", "datasetField"))
    start = _as_of(request, t_from, "from")
    if start is None:
        raise invalid_parameter("from", "an earlier moment is required (ISO 8601 or epoch ms)")
    end = _as_of(request, t_to, "to") or datetime.now(UTC)
    if start > end:
        to_text = iso(to_micros(end)) if t_to else f"now, {iso(to_micros(end))}"
        raise invalid_parameter(
            "from", f"{iso(to_micros(start))} is later than to ({to_text}): give the earlier moment as from"
        )
    return json_answer(app_state(request).graph.compare(node, t_from=start, t_to=end, direction=direction, depth=depth))


@router.get("/namespaces", summary="Namespaces with their dataset and job counts", response_model=NamespacesAnswer)
def namespaces(request: Request) -> Response:
    return json_answer(app_state(request).graph.namespaces())


@router.get("/datasets", summary="Datasets, optionally of one namespace", response_model=NodePage)
def datasets(
    request: Request,
    namespace: str | None = Query(None),
    limit: int = Query(100, ge=1, le=1000),
    offset: int = Query(0, ge=0, le=MAX_OFFSET),
) -> Response:
    return json_answer(app_state(request).graph.datasets(namespace=namespace, limit=limit, offset=offset))


@router.get("/jobs", summary="Jobs, optionally of one namespace", response_model=NodePage)
def jobs(
    request: Request,
    namespace: str | None = Query(None),
    limit: int = Query(100, ge=1, le=1000),
    offset: int = Query(0, ge=0, le=MAX_OFFSET),
) -> Response:
    return json_answer(app_state(request).graph.jobs(namespace=namespace, limit=limit, offset=offset))


@router.get("/recent", summary="Most recently updated datasets and jobs", response_model=RecentAnswer)
def recent(request: Request, limit: int = Query(20, ge=1, le=200)) -> Response:
    return json_answer(app_state(request).graph.recent(limit=limit))
