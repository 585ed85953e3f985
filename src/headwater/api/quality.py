"""Data quality along the graph (``/api/v1/quality``, docs/classify.md "Data quality"): a dataset's latest
assertion, test and metric results, and the failing datasets upstream of it with the path to each."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any, Literal

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import Response

from headwater.api.answers import json_answer
from headwater.api.auth import require_read
from headwater.api.freshness import read_barrier
from headwater.api.graph import AT, as_of, node_param
from headwater.api.models import ApiModel, error_responses
from headwater.api.params import require_types
from headwater.api.state import app_state
from headwater.model.nodeid import NodeRef

router = APIRouter(
    prefix="/api/v1/quality",
    tags=["Quality"],
    dependencies=[Depends(require_read), Depends(read_barrier)],
    responses=error_responses(400, 401, 404, 503),
)

Status = Literal["failing", "warning", "passing", "unknown"]


class AssertionOut(ApiModel):
    name: str
    type: str | None
    column: str | None
    success: bool | None
    severity: str | None
    expected: str | None
    actual: str | None
    description: str | None
    source: Literal["assertion", "test"]
    time: str
    run: str | None


class ColumnMetricsOut(ApiModel):
    column: str
    metrics: dict[str, Any]


class MetricsOut(ApiModel):
    time: str
    run: str | None
    row_count: int | None
    bytes: int | None
    columns: list[ColumnMetricsOut]


class RunResultOut(ApiModel):
    job: str
    run: str
    state: str
    time: str


class HistoryPointOut(ApiModel):
    time: str
    run: str | None
    passed: int
    failed: int


class DatasetQualityOut(ApiModel):
    dataset: str
    at: str | None
    status: Status
    assertions: list[AssertionOut]
    metrics: MetricsOut | None
    runs: list[RunResultOut]
    history: list[HistoryPointOut]


class UpstreamIssueOut(ApiModel):
    cause: str
    status: Status
    reasons: list[str]
    depth: int
    path: list[str]


class QualityAnswerOut(ApiModel):
    """``GET /api/v1/quality``."""

    quality: DatasetQualityOut
    flagged: bool
    upstream: list[UpstreamIssueOut]
    truncated: bool


@router.get(
    "", summary="A dataset's latest data-quality results and the failing datasets upstream of it",
    response_model=QualityAnswerOut,
)  # fmt: skip
def dataset_quality(
    request: Request,
    node: NodeRef = Depends(node_param),
    at: str | None = AT,
    depth: int = Query(20, ge=1, le=100, description="Dataset hops upstream to look for issues"),
) -> Response:
    require_types(node, ("dataset",))
    state = app_state(request)
    answer = state.graph.quality(
        node, at=as_of(request, at, "at"), depth=depth, max_nodes=state.settings.max_graph_nodes
    )
    return json_answer(asdict(answer))
