"""Lineage put to work (``/api/v1/impact``): the impact check of proposed changes (docs/impact.md).

``POST /api/v1/impact/check`` takes changes (:mod:`headwater.model.changes`: what a pull request's DDL,
scripts, dbt manifests or schema files would change; ``headwater impact check`` reads those files and
sends them here) and answers :class:`~headwater.graph.impactcheck.ImpactReport` as the caller's principal
may see it (a read token suffices: nothing is stored). The request's shape is documented by the pydantic
models below and checked by :func:`~headwater.model.changes.changes_from_json` (400 naming the path).
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any, Literal

from fastapi import APIRouter, Body, Depends, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from headwater.api.answers import json_answer
from headwater.api.auth import require_read
from headwater.api.classify import classify_policy
from headwater.api.errors import invalid_parameter
from headwater.api.freshness import read_barrier
from headwater.api.graph import as_of
from headwater.api.models import ApiModel, error_responses
from headwater.api.state import app_state
from headwater.model.changes import KINDS, changes_from_json

router = APIRouter(
    prefix="/api/v1/impact",
    tags=["Impact"],
    dependencies=[Depends(require_read), Depends(read_barrier)],
    responses=error_responses(400, 401, 404, 503),
)

MAX_CHANGES = 2000
Severity = Literal["info", "warning", "breaking"]


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class SourceColumnIn(_In):
    namespace: str
    name: str
    field: str
    type: Literal["DIRECT", "INDIRECT"] = "DIRECT"
    subtype: str = "IDENTITY"
    masking: bool = False


class ProposedColumnIn(_In):
    name: str
    sources: list[SourceColumnIn] = []


class SchemaFieldIn(_In):
    name: str
    type: str | None = None


class ChangeIn(_In):
    """One proposed change (docs/impact.md, "Changes")."""

    kind: Literal[KINDS]  # type: ignore[valid-type]  # the tuple of kinds is the Literal's values
    namespace: str
    name: str
    column: str | None = Field(None, description="drop_column, rename_column, retype_column")
    new_name: str | None = Field(None, alias="newName", description="rename_column")
    new_type: str | None = Field(None, alias="newType", description="retype_column")
    fields: list[SchemaFieldIn] | None = Field(None, description="new_schema: the dataset's whole new schema")
    columns: list[ProposedColumnIn] | None = Field(
        None, description="new_lineage: the columns written and their sources"
    )
    job: str | None = Field(None, description="new_lineage: the graph's job (job:<ns>:<name>) the script is")
    replaces: bool = Field(False, description="new_lineage: the statement defines the whole dataset")
    origin: str = Field("", description="Where the change was read (file:line), echoed in the report")
    notes: list[str] = []


class ImpactCheckRequest(_In):
    changes: list[ChangeIn] = Field(max_length=MAX_CHANGES)
    at: str | None = Field(None, description="Check against the graph as of this moment (default now)")
    depth: int = Field(20, ge=1, le=100, description="Column hops to follow downstream")


class AffectedItem(ApiModel):
    id: str
    type: Literal["FIELD", "DATASET", "JOB", "RESTRICTED"]
    namespace: str
    name: str
    field: str | None
    severity: Severity
    effect: Literal["DIRECT", "INDIRECT", "READS", "MAY_READ", "WRITTEN", "TAGGED"]
    reason: str
    change: int
    depth: int
    path: list[str]
    transformations: list[str]
    project: str | None
    owners: list[str]
    subscribers: list[str]
    published: bool


class ValuesChangeOut(ApiModel):
    column: str
    before: list[str]
    after: list[str]


class ChangeResultOut(ApiModel):
    index: int
    change: dict[str, Any]
    found: bool
    severity: Literal["none", "info", "warning", "breaking"]
    gone: list[str]
    retyped: list[str]
    values: list[ValuesChangeOut]
    added: list[str]
    notes: list[str]


class ImpactReportOut(ApiModel):
    """``POST /api/v1/impact/check``."""

    at: str | None
    severity: Literal["none", "info", "warning", "breaking"]
    changes: list[ChangeResultOut]
    items: list[AffectedItem]
    published: list[str]
    summary: dict[str, int]
    truncated: bool


@router.post(
    "/check",
    summary="What proposed changes would affect downstream (a CI gate's question)",
    response_model=ImpactReportOut,
)
def impact_check(request: Request, body: ImpactCheckRequest = Body(...)) -> Response:
    try:
        changes = changes_from_json([c.model_dump(by_alias=True, exclude_none=True) for c in body.changes])
    except ValueError as exc:
        raise invalid_parameter("changes", str(exc).removeprefix("changes")) from None
    state = app_state(request)
    report = state.graph.impact_check(
        changes,
        at=as_of(request, body.at, "at"),
        depth=body.depth,
        max_nodes=state.settings.max_graph_nodes,
        policy=classify_policy(state.settings),
    )
    return json_answer(asdict(report))
