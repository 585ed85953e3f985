"""The RDD job analysis (pure): what a save or an action over files reports, named as the integration's
RddExecutionContext names it. Expectations written by hand from the integration's rules (its expected events
pysparkRddToCsvCompleteEvent.json and pysparkSingleRDDStatistics.json are checked end to end, on real Spark, in
tests/capture/runtime/test_rdd_spark.py)."""

from __future__ import annotations

from headwater.capture.lineage.rdd_job import (
    JobTotals,
    RddJobRead,
    RddReporting,
    rdd_job_lineage,
    wants_statistics,
    with_statistics,
)

PRODUCER = "https://example.test/agent"


def names(datasets: list) -> list[tuple[str, str]]:  # type: ignore[type-arg]
    return [(d.namespace, d.name) for d in datasets]


def test_a_save_reads_each_file_dataset_once_and_writes_its_path() -> None:
    read = RddJobRead(
        app_job="spark_rdd_to_table",
        rdd_name="map_partitions_parallel_collection",
        # two partitions of one dataset (trimmed to /data/in) and the same directory again
        input_paths=["file:/data/in/2025/10/30", "file:/data/in/2025/10/31", "file:/data/in", "hdfs://nn:8020/raw"],
        output_path="file:/tmp/out/day=1",
    )
    got = rdd_job_lineage(read, RddReporting())
    assert got is not None
    assert got.job_name == "spark_rdd_to_table.map_partitions_parallel_collection"
    assert names(got.inputs) == [("file", "/data/in"), ("hdfs://nn:8020", "/raw")]
    assert names(got.outputs) == [("file", "/tmp/out")]
    source = got.inputs[1].facets["dataSource"]
    assert (source.name, source.uri) == ("hdfs://nn:8020", "hdfs://nn:8020")


def test_a_save_is_named_after_the_partition_map_spark_adds() -> None:
    read = RddJobRead(app_job="app", rdd_name="textFile", input_paths=[], output_path="/tmp/o")
    got = rdd_job_lineage(read, RddReporting())
    assert got is not None and got.job_name == "app.map_partitions_text_file"
    assert names(got.inputs) == [] and names(got.outputs) == [("file", "/tmp/o")]


def test_actions_are_reported_when_they_read_files() -> None:
    over_files = RddJobRead(app_job="app", rdd_name="hadoop", input_paths=["file:/in"], action=True)
    got = rdd_job_lineage(over_files, RddReporting())
    assert got is not None and got.job_name == "app.hadoop" and got.outputs == []
    # read-only executions switched off: not reported
    assert rdd_job_lineage(over_files, RddReporting(emit_read_only=False)) is None
    # an action over a collection reads nothing: reported only with emitWithoutOutput
    nothing = RddJobRead(app_job="app", rdd_name="parallel_collection", input_paths=[], action=True)
    assert rdd_job_lineage(nothing, RddReporting()) is None
    kept = rdd_job_lineage(nothing, RddReporting(emit_without_output=True))
    assert kept is not None and kept.inputs == [] and kept.outputs == []


def test_run_job_over_a_python_map_is_named_after_the_python_rdd() -> None:
    read = RddJobRead(app_job="app", rdd_name="hadoop", input_paths=["file:/in"], action=True, python_map=True)
    got = rdd_job_lineage(read, RddReporting())
    assert got is not None and got.job_name == "app.python_hadoop"
    already = RddJobRead(app_job="app", rdd_name="pythonRDD", input_paths=["file:/in"], action=True, python_map=True)
    got = rdd_job_lineage(already, RddReporting())
    assert got is not None and got.job_name == "app.python_rdd"


def test_namespace_resolvers_apply_to_inputs_and_output() -> None:
    resolver = ("warehouse", "hostList", ("nn-1.internal",), None, None, None)
    read = RddJobRead(
        app_job="app", rdd_name="r", input_paths=["hdfs://nn-1.internal:8020/in"], output_path="hdfs://nn-1.internal/o"
    )
    got = rdd_job_lineage(read, RddReporting(namespace_resolvers=(resolver,)))
    assert got is not None
    assert names(got.inputs) == [("hdfs://warehouse:8020", "/in")]
    assert names(got.outputs) == [("hdfs://warehouse", "/o")]
    assert got.inputs[0].facets["dataSource"].name == "hdfs://warehouse:8020"


def test_statistics_only_for_a_single_input_or_output() -> None:
    totals = JobTotals(input_records=10, input_bytes=200, output_records=7, output_bytes=90)
    single = rdd_job_lineage(
        RddJobRead(app_job="app", rdd_name="r", input_paths=["file:/in"], output_path="file:/out"), RddReporting()
    )
    assert single is not None and wants_statistics(single)
    with_statistics(single, totals, frozenset(), PRODUCER)
    stats_in = single.inputs[0].inputFacets["inputStatistics"]
    stats_out = single.outputs[0].outputFacets["outputStatistics"]
    assert (stats_in.rowCount, stats_in.size, stats_in._producer) == (10, 200, PRODUCER)
    assert (stats_out.rowCount, stats_out.size) == (7, 90)

    two_inputs = rdd_job_lineage(
        RddJobRead(app_job="app", rdd_name="r", input_paths=["file:/a", "file:/b"], output_path="file:/out"),
        RddReporting(),
    )
    assert two_inputs is not None
    with_statistics(two_inputs, totals, frozenset({"outputStatistics"}), PRODUCER)
    assert [d.inputFacets for d in two_inputs.inputs] == [{}, {}]  # two inputs: none of them gets statistics
    assert two_inputs.outputs[0].outputFacets == {}  # the facet is disabled

    none = rdd_job_lineage(
        RddJobRead(app_job="app", rdd_name="r", input_paths=["file:/a", "file:/b"], action=True), RddReporting()
    )
    assert none is not None and not wants_statistics(none)
