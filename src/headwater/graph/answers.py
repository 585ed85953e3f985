"""The graph's answers as typed records: the shapes of docs/api.md ("Graph reads"), declared once.

Each :class:`~headwater.graph.GraphReader` answer is one of these ``TypedDict`` records: plain dicts
at run time (no cost, and the bytes the API writes are those dicts encoded), checked by mypy where
they are built and read. The same records are the API's response models (``headwater.api.models``
re-exports them; pydantic reads a ``TypedDict`` as a model): a record's docstring is its schema's
description in ``/openapi.json``, ``Annotated[T, Field(description=...)]`` a key's, and
:data:`api_shape` closes it (``additionalProperties: false``), so each key is declared here only.

Keys are the API's (camelCase). A key whose value may be absent is ``X | None`` (always present);
``NotRequired`` marks the few keys only some answers carry.
"""

from __future__ import annotations

from typing import Annotated, Literal, NotRequired

# pydantic only as annotations read when the API builds its schema: nothing here validates at run time
from pydantic import ConfigDict, Field, with_config

# typing_extensions' TypedDict: pydantic reads these records (the API's schema, tests) and on Python
# 3.11 it needs this one to see NotRequired keys and the records' own annotations
from typing_extensions import TypedDict

from headwater.model.jsontypes import Facets

api_shape = with_config(ConfigDict(extra="forbid"))
"""Decorates each record the API documents: pydantic's schema of it forbids undeclared keys."""

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


@api_shape
class SchemaField(TypedDict):
    """A column of a dataset's schema facet; ``fields`` holds the nested columns of a struct."""

    name: str
    type: str | None
    description: str | None
    fields: list[SchemaField]


@api_shape
class JobType(TypedDict):
    """The job's ``jobType`` facet."""

    integration: str | None
    processingType: str | None
    jobType: str | None


@api_shape
class LatestRun(TypedDict):
    """The job's latest run (as of ``at``); ``RUNNING`` when it had not ended by then."""

    runId: str
    state: RunState
    startedAt: Time
    endedAt: Time | None
    durationMs: int | None


@api_shape
class Node(TypedDict):
    """A dataset or a job (docs/api.md, "Node"). Datasets have ``kind`` and ``fields``; jobs have
    ``jobType`` and ``latestRun`` (``kind`` null, ``fields`` empty). A ``RESTRICTED`` node (hidden from the
    reader by the catalog) has the id ``dataset:restricted://hidden:<n>`` or ``job:restricted://hidden:<n>``,
    empty ``namespace``, ``name`` and ``fields`` and a null ``updatedAt``."""

    id: Annotated[str, Field(description="dataset:<ns>:<name> or job:<ns>:<name>")]
    type: NodeType
    namespace: str
    name: str
    kind: DatasetKind | None
    fields: list[SchemaField]
    jobType: JobType | None
    latestRun: LatestRun | None
    updatedAt: Annotated[Time | None, Field(description="Null only for a RESTRICTED node")]
    deleted: bool


@api_shape
class GraphNode(Node):
    """A node of a graph answer: its place relative to the root and whether edges go beyond the answer."""

    level: Annotated[int, Field(description="Hops from the root; negative = upstream")]
    hasMoreUpstream: bool
    hasMoreDownstream: bool
    children: NotRequired[
        Annotated[list[str] | None, Field(description="collapseJobs=true: the child jobs this parent job stands for")]
    ]


@api_shape
class GraphEdge(TypedDict):
    """``INPUT`` dataset → job, ``OUTPUT`` job → dataset, ``DERIVED`` dataset → dataset (datasetsOnly; ``via`` lists the
    jobs). With collapseJobs, ``via`` of an edge lifted to a parent job lists the child jobs it stands for."""

    id: str
    source: str
    target: str
    type: EdgeType
    via: list[str]


@api_shape
class Transformation(TypedDict):
    """How a column edge's target is made from its source (the columnLineage facet)."""

    type: Annotated[str, Field(description="DIRECT | INDIRECT")]
    subtype: Annotated[
        str | None, Field(description="IDENTITY, TRANSFORMATION, AGGREGATION, JOIN, FILTER, GROUP_BY, ...")
    ]
    description: str | None
    masking: bool


@api_shape
class ColumnEdge(TypedDict):
    """A column-level edge; a ``target`` that is a dataset id is a dataset-level (INDIRECT) dependency."""

    source: Annotated[str, Field(description="datasetField:<ns>:<name>:<field>")]
    target: Annotated[str, Field(description="datasetField:... or dataset:...")]
    job: str
    transformations: list[Transformation]


# --- graph answers ----------------------------------------------------------------------------


@api_shape
class LineageAnswer(TypedDict):
    """``GET /api/v1/graph/lineage``."""

    root: str
    at: Time | None
    depth: int
    truncated: bool
    nodes: list[GraphNode]
    edges: list[GraphEdge]
    columnEdges: Annotated[list[ColumnEdge], Field(description="Empty unless columns=true")]


@api_shape
class ColumnNode(TypedDict):
    """One column of a column-lineage answer."""

    id: Annotated[str, Field(description="datasetField:<ns>:<name>:<field>")]
    dataset: str
    namespace: str
    name: str
    field: str
    type: str | None
    level: int


@api_shape
class ColumnLineageAnswer(TypedDict):
    """``GET /api/v1/graph/column-lineage``."""

    root: str
    at: Time | None
    nodes: list[ColumnNode]
    edges: list[ColumnEdge]
    truncated: bool


@api_shape
class ImpactItem(TypedDict):
    """Something downstream of the root, with the path that reaches it (root first)."""

    id: str
    type: ItemType
    namespace: Annotated[str, Field(description="For a field: its dataset's")]
    name: Annotated[str, Field(description="For a field: its dataset's")]
    field: str | None
    depth: int
    path: list[str]


@api_shape
class ImpactSummary(TypedDict):
    datasets: int
    jobs: int
    fields: int


@api_shape
class ImpactAnswer(TypedDict):
    """``GET /api/v1/graph/impact`` (``format=json``)."""

    root: str
    at: Time | None
    truncated: bool
    items: list[ImpactItem]
    summary: ImpactSummary


@api_shape
class Version(TypedDict):
    """A version of a dataset or job, valid over ``[validFrom, validTo)`` in event time."""

    version: str
    validFrom: Time
    validTo: Time | None
    runId: str | None
    fields: Annotated[list[SchemaField], Field(description="Datasets: the schema of this version; jobs: empty")]
    facets: Facets
    changes: list[VersionChange]
    inputs: NotRequired[
        Annotated[list[str] | None, Field(description="Jobs: the datasets this version reads (ids); datasets: null")]
    ]
    outputs: NotRequired[
        Annotated[list[str] | None, Field(description="Jobs: the datasets this version writes (ids); datasets: null")]
    ]


@api_shape
class DatasetDetails(Node):
    """A dataset's details (the API narrows ``type`` and ``kind``: headwater.api.models)."""

    facets: Facets
    currentVersion: Version
    producers: list[str]
    consumers: list[str]
    createdAt: Time


@api_shape
class JobDetails(Node):
    """A job's details (the API narrows ``type`` and ``kind``: headwater.api.models)."""

    facets: Facets
    currentVersion: Version
    inputs: list[str]
    outputs: list[str]
    parent: str | None
    children: Annotated[list[str], Field(description="Jobs whose parent (at the asked moment) is this job")]
    createdAt: Time


@api_shape
class Run(TypedDict):
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


NodeDetails = DatasetDetails | JobDetails | Run


@api_shape
class FieldAdded(TypedDict):
    field: Annotated[str, Field(description="Dotted for nested fields (``address.city``)")]
    type: str | None
    nullable: Annotated[bool | None, Field(description="From the ``headwater_columns`` facet; null when not reported")]


@api_shape
class FieldTypeChange(TypedDict):
    field: str
    fromType: str | None
    toType: str | None


@api_shape
class FieldNullabilityChange(TypedDict):
    field: str
    fromNullable: bool
    toNullable: bool


@api_shape
class SchemaChanges(TypedDict):
    """What a dataset version's schema changed versus the version before it."""

    added: list[FieldAdded]
    removed: list[FieldAdded]
    typeChanged: list[FieldTypeChange]
    nullabilityChanged: list[FieldNullabilityChange]


@api_shape
class MadeBy(TypedDict):
    """The run whose event made a version (a crawler run, a Spark run, a SQL statement...) and its job."""

    runId: str
    job: str
    jobNamespace: str
    jobName: str
    jobType: str | None
    state: RunState
    startedAt: Time
    endedAt: Time | None


@api_shape
class DatasetHistoryVersion(Version):
    """A dataset's version in its history: the schema diff with the version before and the run that made it."""

    schemaChanges: Annotated[SchemaChanges | None, Field(description="Null for the first (oldest) version")]
    madeBy: Annotated[
        MadeBy | None, Field(description="Null when no run made it (a DatasetEvent) or the run is unknown")
    ]


@api_shape
class HistoryAnswer(TypedDict):
    """``GET /api/v1/graph/history``: newest first (datasets: with schema diffs and the runs that made them)."""

    versions: list[DatasetHistoryVersion | Version]


@api_shape
class RunsAnswer(TypedDict):
    """``GET /api/v1/graph/runs``: newest first; ``total`` counts every run, not just this page."""

    runs: list[Run]
    total: int


@api_shape
class SearchResult(TypedDict):
    id: str
    type: ItemType
    namespace: str
    name: str
    field: str | None
    kind: Annotated[
        DatasetKind | None, Field(description="The dataset's kind (a field's: its dataset's); null for jobs")
    ]
    updatedAt: Time


@api_shape
class SearchAnswer(TypedDict):
    """``GET /api/v1/graph/search``: best matches first."""

    results: list[SearchResult]


@api_shape
class ColumnRef(TypedDict):
    dataset: str
    field: str
    type: str | None


@api_shape
class ColumnTypeChange(TypedDict):
    dataset: str
    field: str
    fromType: str | None
    toType: str | None


@api_shape
class NodeChanges(TypedDict):
    """The nodes around the root at ``to`` that were not there at ``from`` (``added``), the other way round
    (``removed``), and those there at both that a ``lifecycleStateChange`` DROP marked deleted in between
    (``dropped``) or that came back after one (``restored``), shaped as at ``to``."""

    added: list[GraphNode]
    removed: list[GraphNode]
    dropped: list[GraphNode]
    restored: list[GraphNode]


@api_shape
class EdgeChanges(TypedDict):
    added: list[GraphEdge]
    removed: list[GraphEdge]


@api_shape
class ColumnChanges(TypedDict):
    added: list[ColumnRef]
    removed: list[ColumnRef]
    changed: list[ColumnTypeChange]


@api_shape
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
CompareAnswer.__doc__ = "``GET /api/v1/graph/compare``: what changed around the node between ``from`` and ``to``."
api_shape(CompareAnswer)


@api_shape
class NamespaceSummary(TypedDict):
    name: str
    datasets: int
    jobs: int
    updatedAt: Time


@api_shape
class NamespacesAnswer(TypedDict):
    """``GET /api/v1/graph/namespaces``."""

    namespaces: list[NamespaceSummary]


@api_shape
class NodePage(TypedDict):
    """``GET /api/v1/graph/datasets`` and ``/jobs``: one page; ``total`` counts them all."""

    items: list[Node]
    total: int


@api_shape
class RecentAnswer(TypedDict):
    """``GET /api/v1/graph/recent``: most recently updated first."""

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
