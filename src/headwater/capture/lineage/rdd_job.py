"""The lineage of one RDD job (``saveAsTextFile``, ``collect`` over files, ``SparkContext.runJob``): pure.

What py4j reads of the job (the files its RDD graph reads, the RDD's name, its Spark jobs' record and byte
totals) is read by the tracker; this module turns those values into what the OpenLineage Spark integration's
``RddExecutionContext`` reports:

- inputs: each file dataset the RDD reads, once, named by the OpenLineage naming spec (partition directories
  trimmed as for every file dataset), with the ``dataSource`` facet; the output: the saved path, the same way;
- whether the job is reported at all: a save always; an action (no output) when it reads files and read-only
  executions are reported (``spark.headwater.emitReadOnly``), or with ``spark.headwater.emitWithoutOutput``;
- the job's name: ``<application job>.<the RDD's name, normalised>``, prefixed as the integration names the
  job's final RDD (a save maps the partitions: ``map_partitions_``; a ``runJob`` over a Python map: ``python_``);
- ``inputStatistics`` / ``outputStatistics`` from the jobs' totals, only for a single input / output.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openlineage.client.event_v2 import InputDataset, OutputDataset
from openlineage.client.facet_v2 import input_statistics_input_dataset, output_statistics_output_dataset

from headwater.capture.naming import normalize

from .facets import datasource_facet
from .relations import path_dataset
from .resolvers import Resolver, resolve_namespace


@dataclass(frozen=True)
class RddJobRead:
    """What the tracker read of one RDD job over py4j (plain values)."""

    app_job: str  # the application's job name
    rdd_name: str  # ``RddExecutionContext.nameRDD`` of the job's final RDD
    input_paths: Sequence[str]  # the files the RDD graph reads, in the order found
    output_path: str | None = None  # where a save wrote; None for an action
    action: bool = False  # an action (collect, toLocalIterator, runJob) rather than a save
    python_map: bool = False  # Spark ran a Python map over the RDD first (runJob)


@dataclass(frozen=True)
class RddReporting:
    """The settings that decide what is reported."""

    namespace_resolvers: Sequence[Resolver] = ()
    emit_read_only: bool = True
    emit_without_output: bool = False
    disabled_facets: frozenset[str] = frozenset()


@dataclass(frozen=True)
class JobTotals:
    """Records and bytes the job's Spark jobs read and wrote (summed over their stages)."""

    input_records: int
    input_bytes: int
    output_records: int
    output_bytes: int


@dataclass(frozen=True)
class RddJobLineage:
    job_name: str
    inputs: list[InputDataset]
    outputs: list[OutputDataset]


def rdd_job_lineage(read: RddJobRead, reporting: RddReporting) -> RddJobLineage | None:
    """The job's name, inputs and output, or None when the job is not reported (an action that reads no file,
    with read-only executions not reported)."""
    resolvers = reporting.namespace_resolvers

    def named(path: str) -> tuple[str, str]:
        namespace, name = path_dataset(path)
        return resolve_namespace(resolvers, namespace), name

    inputs: list[InputDataset] = []
    seen: set[tuple[str, str]] = set()
    for path in read.input_paths:
        namespace, name = named(path)
        if (namespace, name) not in seen:
            seen.add((namespace, name))
            inputs.append(
                InputDataset(namespace=namespace, name=name, facets={"dataSource": datasource_facet(namespace)})
            )
    if read.action and not reporting.emit_without_output and not (inputs and reporting.emit_read_only):
        return None
    outputs: list[OutputDataset] = []
    if read.output_path:
        namespace, name = named(read.output_path)
        outputs.append(
            OutputDataset(namespace=namespace, name=name, facets={"dataSource": datasource_facet(namespace)})
        )
    return RddJobLineage(f"{read.app_job}.{normalize(rdd_job_suffix(read))}", inputs, outputs)


def rdd_job_suffix(read: RddJobRead) -> str:
    """The job name's last part: the name of the job's final RDD, which the integration takes after Spark's own
    last step (a save's partition map, a ``runJob``'s Python map) — not yet normalised."""
    suffix = read.rdd_name
    if read.action:  # runJob maps the partitions with Python first: the job's final RDD is that PythonRDD
        if read.python_map and not suffix.startswith("python"):
            suffix = f"python_{suffix}"
    elif not suffix.startswith("map_partitions"):
        # the save itself maps the partitions (Scala's saveAsTextFile/saveAsObjectFile): the job's final RDD
        suffix = f"map_partitions_{suffix}"
    return suffix


def with_statistics(lineage: RddJobLineage, totals: JobTotals, disabled_facets: frozenset[str], producer: str) -> None:
    """``inputStatistics`` / ``outputStatistics`` of the job, only for a single input / output, as the
    integration's RddExecutionContext attaches them (the datasets of ``lineage`` get the facets; ``producer``: the
    agent's producer URL)."""
    inputs, outputs = lineage.inputs, lineage.outputs
    if len(inputs) == 1 and "inputStatistics" not in disabled_facets:
        inputs[0].inputFacets = {
            "inputStatistics": input_statistics_input_dataset.InputStatisticsInputDatasetFacet(
                rowCount=totals.input_records, size=totals.input_bytes, producer=producer
            )
        }
    if len(outputs) == 1 and "outputStatistics" not in disabled_facets:
        outputs[0].outputFacets = {
            "outputStatistics": output_statistics_output_dataset.OutputStatisticsOutputDatasetFacet(
                rowCount=totals.output_records, size=totals.output_bytes, producer=producer
            )
        }


def wants_statistics(lineage: RddJobLineage) -> bool:
    """Statistics are read (from Spark's status store) only when one of them could be attached."""
    return len(lineage.inputs) == 1 or len(lineage.outputs) == 1
