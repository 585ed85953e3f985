"""Response models of Headwater's own API: what ``/openapi.json`` says each route answers.

The graph reads build their answers as plain dicts typed as records (``headwater.graph.answers``,
the shapes of docs/api.md) and the handlers encode those dicts themselves
(:func:`headwater.api.answers.json_answer`): these models are **the description only**, never used to
validate or re-encode an answer, so the bytes on the wire do not depend on them. The graph answers'
models ARE those records (re-exported here; pydantic reads a ``TypedDict`` as a model, with the
descriptions declared on it), except two deliberate narrowings (:class:`DatasetDetails`,
:class:`JobDetails`, held to their records by tests/api/test_answer_records.py). All are kept honest
on real answers by tests/api/test_api_openapi_models.py (the document's schemas) and
tests/catalog/test_route_models.py (every route of the app): every model forbids keys it does not
declare and requires every key it declares (a key that is always present but may be ``null`` is
``X | None`` without a default).

The UI's TypeScript types are generated from the document (ui/src/api/schema.d.ts, docs/ui.md),
so a class name here is a type name there. Marquez's paths (api/marquez.py) answer in Marquez's
own shapes and are not described here.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, RootModel

from headwater.graph import answers
from headwater.graph.answers import (
    ColumnLineageAnswer,
    CompareAnswer,
    DatasetKind,
    HistoryAnswer,
    ImpactAnswer,
    LineageAnswer,
    NamespacesAnswer,
    NodePage,
    RecentAnswer,
    Run,
    RunsAnswer,
    RunState,
    SearchAnswer,
    Time,
    api_shape,
)
from headwater.model.jsontypes import JSONObject

# the value vocabularies are the answer records' own (graph/answers.py)
EventKind = Literal["RUN", "DATASET", "JOB"]


class ApiModel(BaseModel):
    """Base of the documented shapes: no undeclared keys (``additionalProperties: false``)."""

    model_config = ConfigDict(extra="forbid")


# --- graph answers: the records of graph/answers.py, each declared there once ----------------------

# re-exported: the routes of api/graph.py name these as their response models
__all__ = [
    "ColumnLineageAnswer",
    "CompareAnswer",
    "HistoryAnswer",
    "ImpactAnswer",
    "LineageAnswer",
    "NamespacesAnswer",
    "NodePage",
    "RecentAnswer",
    "RunsAnswer",
    "SearchAnswer",
]


# The two deliberate narrowings of a record: GraphReader.node types a dataset's and a job's details with
# Node's ``type`` and ``kind``, and the document says what each one always holds. A TypedDict key is
# invariant for mypy (it could be written through the base type), hence the ignores; pydantic reads the
# subclass's annotation, so the schema is the narrower one.
@api_shape
class DatasetDetails(answers.DatasetDetails):
    """``GET /api/v1/graph/node`` for a dataset."""

    type: Literal["DATASET"]  # type: ignore[misc]
    kind: DatasetKind  # type: ignore[misc]


@api_shape
class JobDetails(answers.JobDetails):
    """``GET /api/v1/graph/node`` for a job."""

    type: Literal["JOB"]  # type: ignore[misc]
    kind: None  # type: ignore[misc]


class NodeDetails(RootModel[DatasetDetails | JobDetails | Run]):
    """``GET /api/v1/graph/node``: a dataset, a job, or a run (``run:<id>``)."""


# --- raw events -------------------------------------------------------------------------------


class ValidationWarning(ApiModel):
    """A schema problem of a leniently accepted event (setting `validation`): stored as sent, flagged."""

    path: str = Field(description="A JSON path into the event ($.inputs[0].inputFacets.dataQualityMetrics)")
    message: str


class EventSummary(ApiModel):
    """One stored event: what the log indexes about it, and the event itself."""

    id: str
    eventTime: Time
    receivedAt: Time
    kind: EventKind
    eventType: RunState | None = Field(description="The run event's eventType; null for dataset and job events")
    job: str | None = Field(description="job:<ns>:<name>")
    runId: str | None
    event: dict[str, Any] = Field(description="The OpenLineage event as received")
    warnings: list[ValidationWarning] = Field(
        description="What the event did not satisfy when it was accepted leniently; empty for a valid event"
    )


class EventPage(ApiModel):
    """``GET /api/v1/events``: newest first."""

    events: list[EventSummary]
    nextCursor: str | None = Field(description="Pass as cursor= for the next page; null on the last page")


# --- status -----------------------------------------------------------------------------------


class FailedEvent(ApiModel):
    """An acknowledged event the projector could not derive into the graph (it stays in the log)."""

    seq: int = Field(description="Its position in the event log")
    id: str = Field(description="The event's id (GET /api/v1/events/{id} answers it)")
    error: str = Field(description="Why it could not be derived (the last attempt)")


class ProjectionHealth(ApiModel):
    """Where the derived graph stands against the event log."""

    logPosition: int = Field(description="Newest event seq in the log")
    graphPosition: int = Field(description="Newest event seq the graph reflects")
    behind: int = Field(description="Events in the log the graph does not reflect yet (projection lag)")
    running: bool = Field(description="The background projector is running")
    failed: int = Field(
        description="Events recorded as failed to derive (retried at start and by `headwater db retry-failed`)"
    )
    failedEvents: list[FailedEvent] = Field(description="The oldest 100 failed events")


class RulesHealth(ApiModel):
    """Which rules of derivation the graph was derived by (docs/store.md, "Rules of derivation")."""

    graph: int | None = Field(
        description="The rules the graph was derived by (null: derived before they were recorded)"
    )
    current: int = Field(description="The rules this server derives by")
    rebuildNeeded: bool = Field(
        description="The graph was derived by other rules (or unknown ones): run `headwater db rebuild`"
    )


class ValidationHealth(ApiModel):
    """How events are validated, and how many were accepted with warnings."""

    mode: Literal["strict", "lenient"] = Field(description="The `validation` setting")
    eventsWithWarnings: int = Field(description="Events in the log accepted leniently with validation warnings")


class ClockHealth(ApiModel):
    """Producers' clocks, seen on the newest events: each event's `eventTime` against its arrival."""

    sample: int = Field(description="How many of the newest events the figures are taken over (at most 1,000)")
    aheadSeconds: float = Field(description="The most an event time is ahead of its arrival (0: none ahead)")
    behindSeconds: float = Field(description="The most an event time is behind its arrival (0: none behind)")
    skewedAhead: int = Field(description="Events of the sample more than 5 minutes ahead of their arrival")
    skewedBehind: int = Field(description="Events of the sample more than 5 minutes behind their arrival")


class StatusAnswer(ApiModel):
    """``GET /api/v1/status``: the server's health, for operators and monitoring."""

    status: Literal["ok", "degraded"] = Field(
        description="`degraded` when some event failed to derive, the projector is not running or the graph needs a "
        "rebuild (derived by other rules)"
    )
    version: str
    store: str = Field(description="The database kind: sqlite or postgresql")
    projection: ProjectionHealth
    rules: RulesHealth
    validation: ValidationHealth
    clock: ClockHealth = Field(
        description="How far producers' event times are from their arrival: a producer with a wrong clock shows here"
    )


# --- ingest -----------------------------------------------------------------------------------


class IngestAnswer(ApiModel):
    """``POST /api/v1/lineage``."""

    id: str = Field(description="The event's id (SHA-256 of its canonical JSON)")
    duplicate: bool = Field(description="The same event was stored before; nothing changed")
    warnings: list[ValidationWarning] = Field(
        description="Schema problems outside the event's core, accepted (validation = lenient) and kept with it"
    )


class BatchAnswer(ApiModel):
    """``POST /api/v1/lineage/batch``."""

    received: int
    stored: int
    duplicates: int
    ids: list[str] = Field(description="The event ids, in the order sent")
    warnings: list[ValidationWarning] = Field(
        description="Schema problems outside the events' core (paths $[i]...), accepted (validation = lenient)"
    )


# --- errors -----------------------------------------------------------------------------------


class ErrorDetail(ApiModel):
    path: str = Field(description="A JSON path into the body ($[3].eventTime) or the parameter's name")
    message: str


class ErrorInfo(ApiModel):
    code: str = Field(
        description="invalid_json, invalid_event, payload_too_large, unsupported_media_type, "
        "bad_encoding, not_found, invalid_parameter, unauthorized, forbidden, "
        "method_not_allowed, store_unavailable, internal_error, ..."
    )
    message: str
    details: list[ErrorDetail]


class ErrorBody(ApiModel):
    """Every 4xx/5xx answer."""

    error: ErrorInfo


def error_responses(*statuses: int, **descriptions: str) -> dict[int | str, JSONObject]:
    """``responses=`` of a router or route: the standard error body for ``statuses`` and for any other error.

    ``descriptions`` (``s400="..."``) replace the default description of a status. The ``default``
    entry also keeps FastAPI from documenting its own 422 validation body: a bad parameter answers
    400 ``invalid_parameter`` with :class:`ErrorBody`.
    """
    described = {
        400: "A bad parameter (invalid_parameter; details[].path names it)",
        401: "No or unknown token (when tokens are configured)",
        403: "A read token used to write",
        404: "No such node, run or event (not_found)",
        413: "Body too large (payload_too_large)",
        415: "Not JSON, or an unsupported Content-Encoding (unsupported_media_type)",
        422: "Not a valid OpenLineage event (invalid_event); details lists each problem with its JSON path",
        503: "The store cannot be reached (store_unavailable, with Retry-After); nothing was stored",
    }
    described.update({int(k.removeprefix("s")): v for k, v in descriptions.items()})
    out: dict[int | str, JSONObject] = {s: {"model": ErrorBody, "description": described[s]} for s in statuses}
    out["default"] = {"model": ErrorBody, "description": "Any other error, in the same shape"}
    return out
