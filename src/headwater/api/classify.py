"""Classifications along the lineage (``/api/v1/classify``, docs/classify.md): which datasets, columns and
jobs carry a tag, declared or inherited along column lineage, with paths and where the tag stopped.

Answers obey the catalog's visibility policy (GraphReader leaves out what the reader may not see). The
classification settings (``classify_rules``, ``classify_aggregation_stops``) are read into a
:class:`~headwater.graph.classify.Policy` per request: a bad setting answers 500 naming it.
"""

from __future__ import annotations

import csv
import io
from dataclasses import asdict
from typing import Literal

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import Response

from headwater.api.answers import json_answer
from headwater.api.auth import require_read
from headwater.api.errors import ApiError
from headwater.api.freshness import read_barrier
from headwater.api.graph import AT, as_of, node_param
from headwater.api.models import ApiModel, ErrorBody, error_responses
from headwater.api.params import require_types
from headwater.api.state import app_state
from headwater.graph.classify import ClassificationReport, Policy, PolicyError
from headwater.model.nodeid import NodeRef
from headwater.settings import Settings

router = APIRouter(
    prefix="/api/v1/classify",
    tags=["Classify"],
    dependencies=[Depends(require_read), Depends(read_barrier)],
    responses=error_responses(400, 401, 503),
)

CSV_COLUMNS = ("tag", "type", "id", "field", "inherited", "sources", "origin", "hops", "path", "transformations")


def classify_policy(settings: Settings) -> Policy:
    try:
        return Policy.from_settings(str(settings.classify_rules), str(settings.classify_aggregation_stops))
    except PolicyError as exc:
        raise ApiError(500, "bad_setting", str(exc)) from None


class TagSourceOut(ApiModel):
    kind: str
    detail: str


class TaggedColumnOut(ApiModel):
    id: str
    dataset: str
    field: str
    tag: str
    inherited: bool
    sources: list[TagSourceOut]
    origin: str | None
    path: list[str]
    transformations: list[str]
    hops: int


class TaggedNodeOut(ApiModel):
    id: str
    type: Literal["DATASET", "JOB"]
    tag: str
    sources: list[TagSourceOut]
    columns: list[str]
    inherited: bool


class TagStopOut(ApiModel):
    column: str
    job: str
    tag: str
    reason: Literal["masked", "aggregated"]
    transformation: str
    origin: str
    path: list[str]


class ClassificationAnswer(ApiModel):
    """``GET /api/v1/classify/report``."""

    tag: str | None
    at: str | None
    datasets: list[TaggedNodeOut]
    columns: list[TaggedColumnOut]
    jobs: list[TaggedNodeOut]
    stops: list[TagStopOut]
    truncated: bool


def report_csv(found: ClassificationReport) -> str:
    """One row per tagged dataset, job and column (datasets first), the path joined with ' > ', then one row per
    stop (type STOP: the column the tag did not reach, why in ``sources``)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for node in [*found.datasets, *found.jobs]:
        sources = "; ".join(f"{s.kind}: {s.detail}" for s in node.sources)
        writer.writerow([node.tag, node.type, node.id, "", node.inherited, sources, "", "", "", ""])
    for c in found.columns:
        sources = "; ".join(f"{s.kind}: {s.detail}" for s in c.sources)
        writer.writerow(
            [c.tag, "FIELD", c.id, c.field, c.inherited, sources, c.origin or "", c.hops, " > ".join(c.path),
             " > ".join(c.transformations)]
        )  # fmt: skip
    for s in found.stops:
        writer.writerow(
            [s.tag, "STOP", s.column, "", "", f"{s.reason}: {s.transformation} in {s.job}", s.origin, "",
             " > ".join(s.path), s.transformation]
        )  # fmt: skip
    return out.getvalue()


@router.get(
    "/report",
    summary="Every dataset, column and job carrying a tag, declared or inherited along column lineage",
    response_model=ClassificationAnswer,
    responses={200: {"content": {"text/csv": {"schema": {"type": "string"}}}, "description": "JSON or CSV"}},
)
def classification_report(
    request: Request,
    tag: str | None = Query(None, min_length=1, max_length=200, description="The tag (default: every tag)"),
    at: str | None = AT,
    format: Literal["json", "csv"] = Query("json"),  # noqa: A002 - the API's parameter name
) -> Response:
    state = app_state(request)
    found = state.graph.classification(classify_policy(state.settings), tag=tag, at=as_of(request, at, "at"))
    if format == "csv":
        return Response(
            report_csv(found),
            media_type="text/csv; charset=utf-8",
            headers={"Content-Disposition": 'attachment; filename="classification.csv"'},
        )
    return json_answer(asdict(found))


@router.get(
    "/node",
    summary="The tags of one dataset and its columns, declared and inherited, with paths",
    response_model=ClassificationAnswer,
    responses={404: {"model": ErrorBody, "description": "No such dataset (not_found)"}},
)
def dataset_tags(request: Request, node: NodeRef = Depends(node_param), at: str | None = AT) -> Response:
    require_types(node, ("dataset",))
    state = app_state(request)
    found = state.graph.dataset_tags(node, classify_policy(state.settings), at=as_of(request, at, "at"))
    return json_answer(asdict(found))
