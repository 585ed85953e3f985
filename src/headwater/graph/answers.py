"""The graph's answers as typed records: the shapes of docs/api.md ("Graph reads"), declared once.

Each :class:`~headwater.graph.GraphReader` answer is one of these ``TypedDict`` records: plain dicts
at run time (no cost, and the bytes the API writes are those dicts encoded), checked by mypy where
they are built and read. The API's response models (``headwater.api.models``) describe the same
shapes for OpenAPI; tests/api/test_answer_records.py holds each model equal to its record field by
field (names, requiredness and JSON schema), so the two cannot drift apart.

Keys are the API's (camelCase). A key whose value may be absent is ``X | None`` (always present);
``NotRequired`` marks the few keys only some answers carry.
"""

from __future__ import annotations

from typing import Literal, NotRequired

# typing_extensions' TypedDict: pydantic reads these records (tests, the API's schema checks) and on Python
# 3.11 it needs this one to see NotRequired keys and the records' own annotations
from typing_extensions import TypedDict

from headwater.model.jsontypes import Facets

NodeType = Literal["DATASET", "JOB", "RESTRICTED"]
"""RESTRICTED: a node the reader may not see, on a path it may (docs/catalog.md, "Visibility"): no name, no columns."""
DatasetKind = Literal["file", "table", "jdbc", "stream", "other"]
RunState = Literal["START", "RUNNING", "COMPLETE", "FAIL", "ABORT", "OTHER"]
ItemType = Literal["DATASET", "JOB", "FIELD"]
EdgeType = Literal["INPUT", "OUTPUT", "DERIVED"]
VersionChange = Literal["created", "schema", "facets", "dropped", "inputs", "outputs", "sql", "columnLineage"]
Time = str
"""ISO 8601 with a zone, e.g. ``2026-11-22T05:10:10.123Z``."""

# --- nodes ------------------------------------------------------------------------------------


class SchemaField(TypedDict):
    name: str
    type: str | None
    description: str | None
    fields: list[SchemaField]


class JobType(TypedDict):
    integration: str | None
    processingType: str | None
    jobType: str | None


class LatestRun(TypedDict):
    runId: str
    state: RunState
    startedAt: Time
    endedAt: Time | None
    durationMs: int | None


class Node(TypedDict):
    id: str
    type: NodeType
    namespace: str
    name: str
    kind: DatasetKind | None
    fields: list[SchemaField]
    jobType: JobType | None
    latestRun: LatestRun | None
    updatedAt: Time | None
    deleted: bool


class GraphNode(Node):
    level: int
    hasMoreUpstream: bool
    hasMoreDownstream: bool
    children: NotRequired[list[str] | None]


class GraphEdge(TypedDict):
    id: str
    source: str
    target: str
    type: EdgeType
    via: list[str]


class Transformation(TypedDict):
    type: str
    subtype: str | None
    description: str | None
    masking: bool


class ColumnEdge(TypedDict):
    source: str
    target: str
    job: str
    transformations: list[Transformation]


# --- graph answers ----------------------------------------------------------------------------


class LineageAnswer(TypedDict):
    root: str
    at: Time | None
    depth: int
    truncated: bool
    nodes: list[GraphNode]
    edges: list[GraphEdge]
    columnEdges: list[ColumnEdge]


class ColumnNode(TypedDict):
    id: str
    dataset: str
    namespace: str
    name: str
    field: str
    type: str | None
    level: int


class ColumnLineageAnswer(TypedDict):
    root: str
    at: Time | None
    nodes: list[ColumnNode]
    edges: list[ColumnEdge]
    truncated: bool


class ImpactItem(TypedDict):
    id: str
    type: ItemType
    namespace: str
    name: str
    field: str | None
    depth: int
    path: list[str]


class ImpactSummary(TypedDict):
    datasets: int
    jobs: int
    fields: int


class ImpactAnswer(TypedDict):
    root: str
    at: Time | None
    truncated: bool
    items: list[ImpactItem]
    summary: ImpactSummary


class Version(TypedDict):
    version: str
    validFrom: Time
    validTo: Time | None
    runId: str | None
    fields: list[SchemaField]
    facets: Facets
    changes: list[VersionChange]
    inputs: NotRequired[list[str] | None]
    outputs: NotRequired[list[str] | None]


class DatasetDetails(Node):
    facets: Facets
    currentVersion: Version
    producers: list[str]
    consumers: list[str]
    createdAt: Time


class JobDetails(Node):
    facets: Facets
    currentVersion: Version
    inputs: list[str]
    outputs: list[str]
    parent: str | None
    children: list[str]
    createdAt: Time


class Run(TypedDict):
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


NodeDetails = DatasetDetails | JobDetails | Run


class FieldAdded(TypedDict):
    field: str
    type: str | None
    nullable: bool | None


class FieldTypeChange(TypedDict):
    field: str
    fromType: str | None
    toType: str | None


class FieldNullabilityChange(TypedDict):
    field: str
    fromNullable: bool
    toNullable: bool


class SchemaChanges(TypedDict):
    added: list[FieldAdded]
    removed: list[FieldAdded]
    typeChanged: list[FieldTypeChange]
    nullabilityChanged: list[FieldNullabilityChange]


class MadeBy(TypedDict):
    runId: str
    job: str
    jobNamespace: str
    jobName: str
    jobType: str | None
    state: RunState
    startedAt: Time
    endedAt: Time | None


class DatasetHistoryVersion(Version):
    schemaChanges: SchemaChanges | None
    madeBy: MadeBy | None


class HistoryAnswer(TypedDict):
    versions: list[DatasetHistoryVersion | Version]


class RunsAnswer(TypedDict):
    runs: list[Run]
    total: int


class SearchResult(TypedDict):
    id: str
    type: ItemType
    namespace: str
    name: str
    field: str | None
    kind: DatasetKind | None
    updatedAt: Time


class SearchAnswer(TypedDict):
    results: list[SearchResult]


class ColumnRef(TypedDict):
    dataset: str
    field: str
    type: str | None


class ColumnTypeChange(TypedDict):
    dataset: str
    field: str
    fromType: str | None
    toType: str | None


class NodeChanges(TypedDict):
    added: list[GraphNode]
    removed: list[GraphNode]


class EdgeChanges(TypedDict):
    added: list[GraphEdge]
    removed: list[GraphEdge]


class ColumnChanges(TypedDict):
    added: list[ColumnRef]
    removed: list[ColumnRef]
    changed: list[ColumnTypeChange]


class ColumnEdgeChanges(TypedDict):
    added: list[ColumnEdge]
    removed: list[ColumnEdge]


# ``from`` is a Python keyword: the functional form declares the key as the API writes it.
CompareAnswer = TypedDict(
    "CompareAnswer",
    {
        "from": Time,
        "to": Time,
        "root": str,
        "nodes": NodeChanges,
        "edges": EdgeChanges,
        "columns": ColumnChanges,
        "columnEdges": ColumnEdgeChanges,
    },
)


class NamespaceSummary(TypedDict):
    name: str
    datasets: int
    jobs: int
    updatedAt: Time


class NamespacesAnswer(TypedDict):
    namespaces: list[NamespaceSummary]


class NodePage(TypedDict):
    items: list[Node]
    total: int


class RecentAnswer(TypedDict):
    items: list[Node]


# --- answers of Marquez's paths and the run graph (not described by the API's own models) ----------


class StatsBucket(TypedDict):
    """One interval of ``GET /api/v1/stats/{kind}`` (Marquez's shape): ``count`` of jobs, datasets or sources
    existing, or for ``lineage-events`` the events of each type in it."""

    startInterval: Time
    endInterval: Time
    count: NotRequired[int]
    fail: NotRequired[int]
    start: NotRequired[int]
    complete: NotRequired[int]
    abort: NotRequired[int]


class UpstreamInput(TypedDict):
    dataset: str
    producedByRunId: str | None


class UpstreamStep(TypedDict):
    """A run and what it read, each input with the run that produced it (graph/runlineage.py)."""

    run: Run
    inputs: list[UpstreamInput]
