"""OpenLineage events the agent emits, built from plain values (pure functions, no Spark).

Two kinds of runs, as in the OpenLineage Spark integration:

- the *application* run — job ``<app>``, jobType ``APPLICATION``; START when tracking starts, COMPLETE
  when the application ends (``spark.stop()`` or interpreter exit), FAIL when the script died with an
  exception; its ``parent`` facet points at ``spark.openlineage.parentJob*`` when given;
- one run per Spark SQL execution that writes (or, with ``spark.headwater.emitWithoutOutput``, reads)
  data — job ``<app>.<action>.<output>``, jobType ``SQL_JOB``; START and COMPLETE (or FAIL with
  ``errorMessage``), its ``parent`` facet pointing at the application run.
"""

from __future__ import annotations

import traceback
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, ClassVar

import attr
from openlineage.client import event_v2
from openlineage.client.event_v2 import InputDataset, OutputDataset, RunEvent
from openlineage.client.event_v2 import RunState as EventType
from openlineage.client.facet_v2 import (
    JobFacet,
    RunFacet,
    error_message_run,
    job_type_job,
    ownership_job,
    parent_run,
    processing_engine_run,
    source_code_job,
    source_code_location_job,
    sql_job,
    tags_job,
    tags_run,
)

from headwater import __version__

PRODUCER = f"https://github.com/headwater-lineage/headwater/tree/{__version__}/src/headwater/capture"
APPLICATION = "APPLICATION"
SQL_JOB = "SQL_JOB"
RDD_JOB = "RDD_JOB"


@attr.define
class SparkPropertiesRunFacet(RunFacet):
    """The OpenLineage Spark integration's custom ``spark_properties`` facet (app name, master, ...)."""

    properties: dict[str, str] = attr.field(factory=dict)

    @staticmethod
    def _get_schema() -> str:
        return "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunFacet"


@attr.define
class HeadwaterDebugRunFacet(RunFacet):
    """Headwater's ``headwater_debug`` run facet: what the agent could not understand about this run.

    ``unhandledCommand`` is the class (short name) of the executed plan's root when it is a Spark command no
    plan-node handler knows (``headwater.capture.lineage.handlers``): the run's inputs and outputs may be
    missing. Like OpenLineage Spark's ``spark_unknown``, for debugging, but only the class name."""

    unhandledCommand: str | None = attr.field(default=None)
    message: str | None = attr.field(default=None)

    @staticmethod
    def _get_schema() -> str:
        return "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunFacet"


DEBUG_FACET = "headwater_debug"
CALL_SITE_FACET = "headwater_callSite"
LOGICAL_PLAN_FACET = "spark.logicalPlan"
SOURCE_CODE_FACET = "sourceCode"
ENVIRONMENT_FACET = "environment-properties"


@attr.define
class HeadwaterCallSiteRunFacet(RunFacet):
    """Headwater's ``headwater_callSite`` run facet: the line of the job's code whose action ran this execution
    (``headwater.capture.callsite``): the file's path, the 1-based line and the function around it."""

    file: str = attr.field()
    line: int = attr.field()
    function: str | None = attr.field(default=None)

    @staticmethod
    def _get_schema() -> str:
        return "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunFacet"


@attr.define
class LogicalPlanRunFacet(RunFacet):
    """The OpenLineage Spark integration's ``spark.logicalPlan`` run facet: the optimized logical plan as Spark's
    ``toJSON`` writes it (a list of plan nodes in pre-order). Off by default, as in the integration."""

    plan: list[Any] = attr.field(factory=list)

    @staticmethod
    def _get_schema() -> str:
        return "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunFacet"


def debug_facet(unhandled_command: str) -> HeadwaterDebugRunFacet:
    return HeadwaterDebugRunFacet(
        unhandledCommand=unhandled_command,
        producer=PRODUCER,
        message=f"no Headwater handler for the Spark command {unhandled_command}: its inputs and outputs may be missing",
    )


@dataclass(frozen=True)
class RunRef:
    namespace: str
    name: str
    run_id: str


@dataclass(frozen=True)
class AppContext:
    """What every event of one tracked application shares."""

    namespace: str
    app_job: str  # the application job's name
    app_run_id: str
    spark_version: str
    properties: Mapping[str, str] = field(default_factory=dict)  # spark.app.name, spark.master, ...
    parent: RunRef | None = None  # the application's parent (spark.openlineage.parentJob*)
    root: RunRef | None = None  # the root of the chain (spark.openlineage.rootParentJob*)
    script_url: str | None = None  # file:///path/job.py for the sourceCodeLocation facet
    disabled_facets: frozenset[str] = frozenset()
    streaming: bool = False
    job_tags: tuple[tuple[str, str, str], ...] = ()  # spark.openlineage.job.tags: (key, value, source)
    run_tags: tuple[tuple[str, str, str], ...] = ()  # spark.openlineage.run.tags
    job_owners: tuple[tuple[str, str], ...] = ()  # spark.openlineage.job.owners.<type>: (name, type)
    source_code: tuple[str, str] | None = None  # (language, text) of the script, for the sourceCode job facet
    # the environment-properties run facet: the configured environment variables and their values
    environment: Mapping[str, str | None] = field(default_factory=dict)

    @property
    def app_ref(self) -> RunRef:
        return RunRef(self.namespace, self.app_job, self.app_run_id)


@dataclass(frozen=True)
class Failure:
    message: str
    stack_trace: str | None = None
    language: str = "JAVA"

    @classmethod
    def from_exception(cls, exc: BaseException) -> Failure:
        text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        return cls(message=f"{type(exc).__name__}: {exc}", stack_trace=text, language="PYTHON")


def iso(ts: float) -> str:
    """Epoch seconds → ``2026-11-22T05:10:10.123Z``."""
    return datetime.fromtimestamp(ts, tz=UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def _parent_facet(parent: RunRef, root: RunRef | None) -> parent_run.ParentRunFacet:
    top = root or parent
    return parent_run.ParentRunFacet(
        run=parent_run.Run(runId=parent.run_id),
        job=parent_run.Job(namespace=parent.namespace, name=parent.name),
        root=parent_run.Root(
            run=parent_run.RootRun(runId=top.run_id), job=parent_run.RootJob(namespace=top.namespace, name=top.name)
        ),
        producer=PRODUCER,
    )


def _root_of(ctx: AppContext, parent: RunRef | None) -> RunRef | None:
    """The root of a run's chain: the configured root or parent, else the application when the run's own parent is
    below it (a Spark Connect session's run)."""
    return ctx.root or ctx.parent or (ctx.app_ref if parent is not None else None)


def _keep(facets: dict[str, Any], disabled: Iterable[str]) -> dict[str, Any]:
    off = set(disabled)
    return {k: v for k, v in facets.items() if k not in off}


def _engine(ctx: AppContext) -> processing_engine_run.ProcessingEngineRunFacet:
    return processing_engine_run.ProcessingEngineRunFacet(
        version=ctx.spark_version, name="spark", openlineageAdapterVersion=__version__, producer=PRODUCER
    )


def _job_type(ctx: AppContext, kind: str) -> job_type_job.JobTypeJobFacet:
    return job_type_job.JobTypeJobFacet(
        processingType="STREAMING" if ctx.streaming else "BATCH", integration="SPARK", jobType=kind, producer=PRODUCER
    )


def _error(failure: Failure) -> error_message_run.ErrorMessageRunFacet:
    return error_message_run.ErrorMessageRunFacet(
        message=failure.message, programmingLanguage=failure.language, stackTrace=failure.stack_trace, producer=PRODUCER
    )


def environment_facet(environment: Mapping[str, str | None]) -> dict[str, Any]:
    """The integration's ``environment-properties`` run facet (``EnvironmentFacet``, from its
    CustomEnvironmentFacetBuilder): the variables of ``spark.openlineage.facets.custom_environment_variables`` and
    their values, on every event, ``{}`` when none is configured. Its one property is named like the facet, which
    no attrs field can be, so the facet is a plain mapping (Serde writes it as it is)."""
    return {
        "_producer": PRODUCER,
        "_schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunFacet",
        ENVIRONMENT_FACET: {k: v for k, v in environment.items() if v is not None},
    }


def _add_config_facets(ctx: AppContext, run_facets: dict[str, Any], job_facets: dict[str, Any]) -> None:
    """``tags`` (job and run) and ``ownership`` from the configuration, as the integration's TagsJobFacetBuilder,
    TagsRunFacetBuilder and OwnershipJobFacetBuilder add them to every event, and ``environment-properties``."""
    run_facets[ENVIRONMENT_FACET] = environment_facet(ctx.environment)
    if ctx.run_tags:
        run_facets["tags"] = tags_run.TagsRunFacet(
            tags=[tags_run.TagsRunFacetFields(key=k, value=v, source=src) for k, v, src in ctx.run_tags],
            producer=PRODUCER,
        )
    if ctx.job_tags:
        job_facets["tags"] = tags_job.TagsJobFacet(
            tags=[tags_job.TagsJobFacetFields(key=k, value=v, source=src) for k, v, src in ctx.job_tags],
            producer=PRODUCER,
        )
    if ctx.job_owners:
        job_facets["ownership"] = ownership_job.OwnershipJobFacet(
            owners=[ownership_job.Owner(name=name, type=kind) for name, kind in ctx.job_owners], producer=PRODUCER
        )


def _add_code_facets(ctx: AppContext, job_facets: dict[str, Any]) -> None:
    """Where the job's code is (``sourceCodeLocation``) and, when it was read, the code itself (``sourceCode``)."""
    if ctx.script_url:
        job_facets["sourceCodeLocation"] = source_code_location_job.SourceCodeLocationJobFacet(
            type="file", url=ctx.script_url, producer=PRODUCER
        )
    if ctx.source_code is not None:
        language, text = ctx.source_code
        job_facets[SOURCE_CODE_FACET] = source_code_job.SourceCodeJobFacet(
            language=language, sourceCode=text, producer=PRODUCER
        )


def application_event(ctx: AppContext, event_type: EventType, at: float, failure: Failure | None = None) -> RunEvent:
    """START / COMPLETE / FAIL of the application run."""
    run_facets: dict[str, Any] = {"processing_engine": _engine(ctx)}
    if ctx.properties:
        run_facets["spark_properties"] = SparkPropertiesRunFacet(properties=dict(ctx.properties), producer=PRODUCER)
    if ctx.parent is not None:
        run_facets["parent"] = _parent_facet(ctx.parent, ctx.root)
    if failure is not None:
        run_facets["errorMessage"] = _error(failure)
    job_facets: dict[str, Any] = {"jobType": _job_type(ctx, APPLICATION)}
    _add_config_facets(ctx, run_facets, job_facets)
    _add_code_facets(ctx, job_facets)
    return _run_event(ctx, event_type, at, ctx.app_run_id, ctx.app_job, run_facets, job_facets)


def _run_event(
    ctx: AppContext,
    event_type: EventType,
    at: float,
    run_id: str,
    job_name: str,
    run_facets: Mapping[str, RunFacet],
    job_facets: Mapping[str, JobFacet],
    inputs: Iterable[InputDataset] = (),
    outputs: Iterable[OutputDataset] = (),
) -> RunEvent:
    """One event of a run of ``ctx``'s namespace, its facets kept unless disabled."""
    return RunEvent(
        eventType=event_type,
        eventTime=iso(at),
        producer=PRODUCER,
        run=event_v2.Run(runId=run_id, facets=_keep(dict(run_facets), ctx.disabled_facets)),
        job=event_v2.Job(namespace=ctx.namespace, name=job_name, facets=_keep(dict(job_facets), ctx.disabled_facets)),
        inputs=list(inputs),
        outputs=list(outputs),
    )


@dataclass(frozen=True)
class Execution:
    """One finished Spark SQL execution, as the listener saw it."""

    run_id: str
    job_name: str
    started: float
    ended: float
    inputs: list[InputDataset]
    outputs: list[OutputDataset]
    sql: str | None = None
    failure: Failure | None = None
    execution_id: int | None = None
    unhandled_command: str | None = None  # the root is a Spark command no plan-node handler knows
    job_type: str = SQL_JOB  # RDD_JOB for RDD saves (headwater.capture.rdd)
    call_site: tuple[str, int, str | None] | None = None  # (file, line, function) of the action's call
    logical_plan: list[Any] | None = None  # toJSON of the optimized plan (spark.logicalPlan facet, when enabled)
    parent: RunRef | None = None  # the run it belongs to when not the application's (a Spark Connect session's)
    extra_run_facets: Mapping[str, Any] = field(default_factory=dict)  # e.g. the Spark Connect session facet

    TERMINAL: ClassVar[tuple[EventType, EventType]] = (EventType.COMPLETE, EventType.FAIL)


# Facets a START leaves to the terminal event: ``columnLineage`` is the big one (a 650-column output
# carries ~7,500 facet objects, ~200 kB of JSON) and, as in the OpenLineage Spark integration, it is
# reported on COMPLETE/FAIL; START and its terminal event are sent together (see docs/capture.md).
_TERMINAL_ONLY_OUTPUT_FACETS = frozenset({"columnLineage"})


def _start_outputs(outputs: list[OutputDataset]) -> list[OutputDataset]:
    """Outputs as known before the write: without outputStatistics (those only exist afterwards) and
    without the facets only the terminal event carries."""
    return [
        OutputDataset(
            namespace=o.namespace,
            name=o.name,
            facets=None
            if o.facets is None
            else {k: v for k, v in o.facets.items() if k not in _TERMINAL_ONLY_OUTPUT_FACETS},
        )
        for o in outputs
    ]


def _start_inputs(inputs: list[InputDataset]) -> list[InputDataset]:
    """Inputs as known before the run: without inputStatistics (known only afterwards)."""
    if not any(i.inputFacets for i in inputs):
        return list(inputs)
    return [InputDataset(namespace=i.namespace, name=i.name, facets=i.facets) for i in inputs]


def execution_events(ctx: AppContext, ex: Execution) -> list[RunEvent]:
    """START and COMPLETE (or FAIL) for one execution, parented to the application run."""
    run_facets: dict[str, Any] = {
        "parent": _parent_facet(ex.parent or ctx.app_ref, _root_of(ctx, ex.parent)),
        "processing_engine": _engine(ctx),
        **ex.extra_run_facets,
    }
    if ctx.properties:
        run_facets["spark_properties"] = SparkPropertiesRunFacet(properties=dict(ctx.properties), producer=PRODUCER)
    if ex.unhandled_command:
        run_facets[DEBUG_FACET] = debug_facet(ex.unhandled_command)
    if ex.call_site is not None:
        file, line, function = ex.call_site
        run_facets[CALL_SITE_FACET] = HeadwaterCallSiteRunFacet(
            file=file, line=line, function=function, producer=PRODUCER
        )
    job_facets: dict[str, JobFacet] = {"jobType": _job_type(ctx, ex.job_type)}
    if ex.sql:
        job_facets["sql"] = sql_job.SQLJobFacet(query=ex.sql, dialect="spark", producer=PRODUCER)
    _add_config_facets(ctx, run_facets, job_facets)
    _add_code_facets(ctx, job_facets)
    job = event_v2.Job(namespace=ctx.namespace, name=ex.job_name, facets=_keep(job_facets, ctx.disabled_facets))
    start = RunEvent(
        eventType=EventType.START,
        eventTime=iso(ex.started),
        producer=PRODUCER,
        run=event_v2.Run(runId=ex.run_id, facets=_keep(run_facets, ctx.disabled_facets)),
        job=job,
        inputs=_start_inputs(ex.inputs),
        outputs=_start_outputs(ex.outputs),
    )
    end_facets = dict(run_facets)
    if ex.logical_plan is not None:  # on the terminal event only, like columnLineage: it can be big
        end_facets[LOGICAL_PLAN_FACET] = LogicalPlanRunFacet(plan=ex.logical_plan, producer=PRODUCER)
    if ex.failure is not None:
        end_facets["errorMessage"] = _error(ex.failure)
    end = RunEvent(
        eventType=EventType.FAIL if ex.failure else EventType.COMPLETE,
        eventTime=iso(max(ex.ended, ex.started)),
        producer=PRODUCER,
        run=event_v2.Run(runId=ex.run_id, facets=_keep(end_facets, ctx.disabled_facets)),
        job=job,
        inputs=list(ex.inputs),
        outputs=list(ex.outputs),
    )
    return [start, end]


STREAMING_FACET = "headwater_streaming"


@attr.define
class StreamingRunFacet(RunFacet):
    """Headwater's ``headwater_streaming`` run facet: where a Structured Streaming query is. Spark's query id (stable
    across restarts from the same checkpoint) and run id, its name, and the last progress Spark reported: the batch
    id, the rows of that batch, the input and processing rates (rows per second), and how many micro-batches ran
    since the previous event of this run (they are summarised into one RUNNING event per progress interval)."""

    queryId: str = attr.field()
    queryRunId: str | None = attr.field(default=None)
    queryName: str | None = attr.field(default=None)
    batchId: int | None = attr.field(default=None)
    numInputRows: int | None = attr.field(default=None)
    inputRowsPerSecond: float | None = attr.field(default=None)
    processedRowsPerSecond: float | None = attr.field(default=None)
    batches: int = attr.field(default=0)

    @staticmethod
    def _get_schema() -> str:
        return "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunFacet"


@dataclass(frozen=True)
class StreamRun:
    """What one event of a streaming query's run says (``headwater.capture.streaming``)."""

    run_id: str
    job_name: str
    inputs: list[InputDataset]
    outputs: list[OutputDataset]
    progress: StreamingRunFacet
    parent: RunRef | None = None  # the run it belongs to (the application, or a Spark Connect session)
    extra_run_facets: Mapping[str, Any] = field(default_factory=dict)


def stream_event(
    ctx: AppContext, stream: StreamRun, event_type: EventType, at: float, failure: Failure | None = None
) -> RunEvent:
    """START / RUNNING / COMPLETE / FAIL of a streaming query: one job, one run per query run, jobType ``SQL_JOB``
    with processingType ``STREAMING`` (as the OpenLineage Spark integration types streaming executions)."""
    run_facets: dict[str, Any] = {
        "parent": _parent_facet(stream.parent or ctx.app_ref, _root_of(ctx, stream.parent)),
        "processing_engine": _engine(ctx),
        STREAMING_FACET: stream.progress,
        **stream.extra_run_facets,
    }
    if ctx.properties:
        run_facets["spark_properties"] = SparkPropertiesRunFacet(properties=dict(ctx.properties), producer=PRODUCER)
    if failure is not None:
        run_facets["errorMessage"] = _error(failure)
    job_facets: dict[str, Any] = {
        "jobType": job_type_job.JobTypeJobFacet(
            processingType="STREAMING", integration="SPARK", jobType=SQL_JOB, producer=PRODUCER
        )
    }
    _add_config_facets(ctx, run_facets, job_facets)
    _add_code_facets(ctx, job_facets)
    outputs = _start_outputs(stream.outputs) if event_type == EventType.START else stream.outputs
    return _run_event(
        ctx, event_type, at, stream.run_id, stream.job_name, run_facets, job_facets, stream.inputs, outputs
    )


CONNECT_FACET = "spark_connect"


@attr.define
class SparkConnectRunFacet(RunFacet):
    """Headwater's ``spark_connect`` run facet: the Spark Connect client session a run belongs to: its session id,
    the user id and name the client sent, and the client type (``_SPARK_CONNECT_PYTHON spark/4.0.0 os/linux ...``)."""

    sessionId: str = attr.field()
    userId: str | None = attr.field(default=None)
    userName: str | None = attr.field(default=None)
    clientType: str | None = attr.field(default=None)

    @staticmethod
    def _get_schema() -> str:
        return "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunFacet"


def session_event(
    ctx: AppContext,
    session: RunRef,
    connect: SparkConnectRunFacet,
    event_type: EventType,
    at: float,
) -> RunEvent:
    """START / COMPLETE of a Spark Connect client session's run: an ``APPLICATION`` job (the client's application)
    whose parent is the Connect server's application run."""
    run_facets: dict[str, Any] = {
        "parent": _parent_facet(ctx.app_ref, ctx.root or ctx.parent),
        "processing_engine": _engine(ctx),
        CONNECT_FACET: connect,
    }
    job_facets: dict[str, Any] = {"jobType": _job_type(ctx, APPLICATION)}
    _add_config_facets(ctx, run_facets, job_facets)
    return _run_event(ctx, event_type, at, session.run_id, session.name, run_facets, job_facets)
