"""Response models of Headwater's own API: what ``/openapi.json`` says each route answers.

The graph reads build their answers as plain dicts typed as records (``headwater.graph.answers``,
the shapes of docs/api.md) and the handlers encode those dicts themselves
(:func:`headwater.api.answers.json_answer`): these models are **the description only**, never used to
validate or re-encode an answer, so the bytes on the wire do not depend on them. Each graph model is
held equal to its record of the same name, field by field (tests/api/test_answer_records.py), and
kept honest on real answers by tests/api/test_api_openapi_models.py (the document's schemas) and
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

from headwater.graph.answers import DatasetKind, EdgeType, ItemType, NodeType, RunState, Time, VersionChange
from headwater.model.jsontypes import Facets, JSONObject

# the value vocabularies are the answer records' own (graph/answers.py)
EventKind = Literal["RUN", "DATASET", "JOB"]


class ApiModel(BaseModel):
    """Base of the documented shapes: no undeclared keys (``additionalProperties: false``)."""

    model_config = ConfigDict(extra="forbid")


# --- nodes ------------------------------------------------------------------------------------


class SchemaField(ApiModel):
    """A column of a dataset's schema facet; ``fields`` holds the nested columns of a struct."""

    name: str
    type: str | None
    description: str | None
    fields: list[SchemaField]


class JobType(ApiModel):
    """The job's ``jobType`` facet."""

    integration: str | None
    processingType: str | None
    jobType: str | None


class LatestRun(ApiModel):
    """The job's latest run (as of ``at``); ``RUNNING`` when it had not ended by then."""

    runId: str
    state: RunState
    startedAt: Time
    endedAt: Time | None
    durationMs: int | None


class Node(ApiModel):
    """A dataset or a job (docs/api.md, "Node"). Datasets have ``kind`` and ``fields``; jobs have
    ``jobType`` and ``latestRun`` (``kind`` null, ``fields`` empty). A ``RESTRICTED`` node (hidden from the
    reader by the catalog) has the id ``dataset:restricted://hidden:<n>`` or ``job:restricted://hidden:<n>``,
    empty ``namespace``, ``name`` and ``fields`` and a null ``updatedAt``."""

    id: str = Field(description="dataset:<ns>:<name> or job:<ns>:<name>")
    type: NodeType
    namespace: str
    name: str
    kind: DatasetKind | None
    fields: list[SchemaField]
    jobType: JobType | None
    latestRun: LatestRun | None
    updatedAt: Time | None = Field(description="Null only for a RESTRICTED node")
    deleted: bool


class GraphNode(Node):
    """A node of a graph answer: its place relative to the root and whether edges go beyond the answer."""

    level: int = Field(description="Hops from the root; negative = upstream")
    hasMoreUpstream: bool
    hasMoreDownstream: bool
    children: list[str] | None = Field(None, description="collapseJobs=true: the child jobs this parent job stands for")


class GraphEdge(ApiModel):
    """``INPUT`` dataset → job, ``OUTPUT`` job → dataset, ``DERIVED`` dataset → dataset (datasetsOnly; ``via`` lists the
    jobs). With collapseJobs, ``via`` of an edge lifted to a parent job lists the child jobs it stands for."""

    id: str
    source: str
    target: str
    type: EdgeType
    via: list[str]


class Transformation(ApiModel):
    """How a column edge's target is made from its source (the columnLineage facet)."""

    type: str = Field(description="DIRECT | INDIRECT")
    subtype: str | None = Field(description="IDENTITY, TRANSFORMATION, AGGREGATION, JOIN, FILTER, GROUP_BY, ...")
    description: str | None
    masking: bool


class ColumnEdge(ApiModel):
    """A column-level edge; a ``target`` that is a dataset id is a dataset-level (INDIRECT) dependency."""

    source: str = Field(description="datasetField:<ns>:<name>:<field>")
    target: str = Field(description="datasetField:... or dataset:...")
    job: str
    transformations: list[Transformation]


# --- graph answers ----------------------------------------------------------------------------


class LineageAnswer(ApiModel):
    """``GET /api/v1/graph/lineage``."""

    root: str
    at: Time | None
    depth: int
    truncated: bool
    nodes: list[GraphNode]
    edges: list[GraphEdge]
    columnEdges: list[ColumnEdge] = Field(description="Empty unless columns=true")


class ColumnNode(ApiModel):
    """One column of a column-lineage answer."""

    id: str = Field(description="datasetField:<ns>:<name>:<field>")
    dataset: str
    namespace: str
    name: str
    field: str
    type: str | None
    level: int


class ColumnLineageAnswer(ApiModel):
    """``GET /api/v1/graph/column-lineage``."""

    root: str
    at: Time | None
    nodes: list[ColumnNode]
    edges: list[ColumnEdge]
    truncated: bool


class ImpactItem(ApiModel):
    """Something downstream of the root, with the path that reaches it (root first)."""

    id: str
    type: ItemType
    namespace: str = Field(description="For a field: its dataset's")
    name: str = Field(description="For a field: its dataset's")
    field: str | None
    depth: int
    path: list[str]


class ImpactSummary(ApiModel):
    datasets: int
    jobs: int
    fields: int


class ImpactAnswer(ApiModel):
    """``GET /api/v1/graph/impact`` (``format=json``)."""

    root: str
    at: Time | None
    truncated: bool
    items: list[ImpactItem]
    summary: ImpactSummary


class Version(ApiModel):
    """A version of a dataset or job, valid over ``[validFrom, validTo)`` in event time."""

    version: str
    validFrom: Time
    validTo: Time | None
    runId: str | None
    fields: list[SchemaField] = Field(description="Datasets: the schema of this version; jobs: empty")
    facets: Facets
    changes: list[VersionChange]
    inputs: list[str] | None = Field(None, description="Jobs: the datasets this version reads (ids); datasets: null")
    outputs: list[str] | None = Field(None, description="Jobs: the datasets this version writes (ids); datasets: null")


class DatasetDetails(Node):
    """``GET /api/v1/graph/node`` for a dataset."""

    type: Literal["DATASET"]
    kind: DatasetKind
    facets: Facets
    currentVersion: Version
    producers: list[str]
    consumers: list[str]
    createdAt: Time


class JobDetails(Node):
    """``GET /api/v1/graph/node`` for a job."""

    type: Literal["JOB"]
    kind: None
    facets: Facets
    currentVersion: Version
    inputs: list[str]
    outputs: list[str]
    parent: str | None
    children: list[str] = Field(description="Jobs whose parent (at the asked moment) is this job")
    createdAt: Time


class Run(ApiModel):
    """A run of a job (never versioned: a fact)."""

    runId: str
    job: str
    state: RunState
    startedAt: Time
    endedAt: Time | None
    durationMs: int | None
    errorMessage: str | None
    stackTrace: str | None
    parentRunId: str | None
    parentJob: str | None
    facets: Facets
    inputs: list[str]
    outputs: list[str]


class NodeDetails(RootModel[DatasetDetails | JobDetails | Run]):
    """``GET /api/v1/graph/node``: a dataset, a job, or a run (``run:<id>``)."""


class FieldAdded(ApiModel):
    field: str = Field(description="Dotted for nested fields (``address.city``)")
    type: str | None
    nullable: bool | None = Field(description="From the ``headwater_columns`` facet; null when not reported")


class FieldTypeChange(ApiModel):
    field: str
    fromType: str | None
    toType: str | None


class FieldNullabilityChange(ApiModel):
    field: str
    fromNullable: bool
    toNullable: bool


class SchemaChanges(ApiModel):
    """What a dataset version's schema changed versus the version before it."""

    added: list[FieldAdded]
    removed: list[FieldAdded]
    typeChanged: list[FieldTypeChange]
    nullabilityChanged: list[FieldNullabilityChange]


class MadeBy(ApiModel):
    """The run whose event made a version (a crawler run, a Spark run, a SQL statement...) and its job."""

    runId: str
    job: str
    jobNamespace: str
    jobName: str
    jobType: str | None
    state: RunState
    startedAt: Time
    endedAt: Time | None


class DatasetHistoryVersion(Version):
    """A dataset's version in its history: the schema diff with the version before and the run that made it."""

    schemaChanges: SchemaChanges | None = Field(description="Null for the first (oldest) version")
    madeBy: MadeBy | None = Field(description="Null when no run made it (a DatasetEvent) or the run is unknown")


class HistoryAnswer(ApiModel):
    """``GET /api/v1/graph/history``: newest first (datasets: with schema diffs and the runs that made them)."""

    versions: list[DatasetHistoryVersion | Version]


class RunsAnswer(ApiModel):
    """``GET /api/v1/graph/runs``: newest first; ``total`` counts every run, not just this page."""

    runs: list[Run]
    total: int


class SearchResult(ApiModel):
    id: str
    type: ItemType
    namespace: str
    name: str
    field: str | None
    kind: DatasetKind | None = Field(description="The dataset's kind (a field's: its dataset's); null for jobs")
    updatedAt: Time


class SearchAnswer(ApiModel):
    """``GET /api/v1/graph/search``: best matches first."""

    results: list[SearchResult]


class ColumnRef(ApiModel):
    dataset: str
    field: str
    type: str | None


class ColumnTypeChange(ApiModel):
    dataset: str
    field: str
    fromType: str | None
    toType: str | None


class NodeChanges(ApiModel):
    added: list[GraphNode]
    removed: list[GraphNode]


class EdgeChanges(ApiModel):
    added: list[GraphEdge]
    removed: list[GraphEdge]


class ColumnChanges(ApiModel):
    added: list[ColumnRef]
    removed: list[ColumnRef]
    changed: list[ColumnTypeChange]


class ColumnEdgeChanges(ApiModel):
    added: list[ColumnEdge]
    removed: list[ColumnEdge]


class CompareAnswer(ApiModel):
    """``GET /api/v1/graph/compare``: what changed around the node between ``from`` and ``to``."""

    from_: Time = Field(alias="from")
    to: Time
    root: str
    nodes: NodeChanges
    edges: EdgeChanges
    columns: ColumnChanges
    columnEdges: ColumnEdgeChanges


class NamespaceSummary(ApiModel):
    name: str
    datasets: int
    jobs: int
    updatedAt: Time


class NamespacesAnswer(ApiModel):
    """``GET /api/v1/graph/namespaces``."""

    namespaces: list[NamespaceSummary]


class NodePage(ApiModel):
    """``GET /api/v1/graph/datasets`` and ``/jobs``: one page; ``total`` counts them all."""

    items: list[Node]
    total: int


class RecentAnswer(ApiModel):
    """``GET /api/v1/graph/recent``: most recently updated first."""

    items: list[Node]


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
        description="`degraded` when some event failed to derive or the projector is not running"
    )
    version: str
    store: str = Field(description="The database kind: sqlite or postgresql")
    projection: ProjectionHealth
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
