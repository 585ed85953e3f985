"""NestedWrites, the rule that folds executions Spark runs inside a command into that command (pure)."""

from __future__ import annotations

from openlineage.client.event_v2 import InputDataset, OutputDataset
from openlineage.client.facet_v2 import output_statistics_output_dataset

from headwater.capture.events import Execution
from headwater.capture.nesting import NestedWrites


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def ex(
    execution_id: int | None,
    output: str,
    *,
    rows: int | None = None,
    started: float = 10.0,
    inputs: tuple[str, ...] = (),
) -> Execution:
    facets = {}
    if rows is not None:
        facets["outputStatistics"] = output_statistics_output_dataset.OutputStatisticsOutputDatasetFacet(rowCount=rows)
    return Execution(
        run_id=f"run-{execution_id}-{output}",
        job_name=f"job.{execution_id}",
        started=started,
        ended=started + 1,
        inputs=[InputDataset(namespace="file", name=i) for i in inputs],
        outputs=[OutputDataset(namespace="file", name=output, outputFacets=facets)],
        execution_id=execution_id,
    )


def test_outermost_command_absorbs_the_inner_writes_of_the_same_table() -> None:
    clock = Clock()
    nested = NestedWrites(2.0, clock)
    # Spark 4 saveAsTable: insert (12) ends first, then CTAS (11), then SaveAsV1TableCommand (8)
    assert nested.add(ex(12, "/wh/t", rows=20, started=10.5, inputs=("/in/a",))) == []
    assert nested.add(ex(11, "/wh/t", started=10.2)) == []
    assert nested.add(ex(8, "/wh/t", started=10.0)) == []
    assert nested.holding == 1 and nested.absorbed == 2
    clock.now += 1.9
    assert nested.due() == []
    clock.now += 0.2
    (out,) = nested.due()
    assert out.job_name == "job.8" and out.started == 10.0
    assert out.outputs[0].outputFacets["outputStatistics"].rowCount == 20
    assert [i.name for i in out.inputs] == ["/in/a"]


def test_other_tables_and_later_executions_are_not_absorbed() -> None:
    clock = Clock()
    nested = NestedWrites(2.0, clock)
    nested.add(ex(5, "/wh/a"))
    nested.add(ex(6, "/wh/b"))  # larger id, reported later: a later execution, not an outer one
    nested.add(ex(4, "/wh/c"))  # smaller id but another table: overlapping in time only
    assert nested.absorbed == 0
    assert [e.job_name for e in nested.drain()] == ["job.5", "job.6", "job.4"]
    assert nested.holding == 0


def test_an_outer_keeps_its_own_statistics_and_passes_through_without_ids_or_grace() -> None:
    clock = Clock()
    nested = NestedWrites(2.0, clock)
    nested.add(ex(9, "/wh/t", rows=5))
    nested.add(ex(3, "/wh/t", rows=7))
    (out,) = nested.drain()
    assert out.outputs[0].outputFacets["outputStatistics"].rowCount == 7
    assert [e.job_name for e in nested.add(ex(None, "/x"))] == ["job.None"]
    off = NestedWrites(0.0, clock)
    assert [e.job_name for e in off.add(ex(1, "/x"))] == ["job.1"]


def test_held_writes_are_released_in_order_when_their_grace_is_over() -> None:
    clock = Clock()
    nested = NestedWrites(1.0, clock)
    nested.add(ex(1, "/a"))
    clock.now += 0.6
    nested.add(ex(2, "/b"))
    clock.now += 0.5
    assert [e.job_name for e in nested.add(ex(3, "/c"))] == ["job.1"]
    clock.now += 0.6
    assert [e.job_name for e in nested.due()] == ["job.2"]
    clock.now += 0.5
    assert [e.job_name for e in nested.due()] == ["job.3"]


def test_the_inner_writes_column_lineage_is_kept() -> None:
    """The write Spark ran inside a CTAS holds the optimized query: its columnLineage replaces the outer's, as the
    integration reports the lineage of that write (pysparkCLLEnd.json; test_hive_spark's spark_cll.py case)."""
    inner, outer = ex(12, "/wh/t", rows=2), ex(11, "/wh/t")
    inner.outputs[0].facets = {"columnLineage": "inner lineage"}
    outer.outputs[0].facets = {"schema": "outer schema", "columnLineage": "outer lineage"}
    nested = NestedWrites(2.0, Clock())
    nested.add(inner)
    nested.add(outer)
    (out,) = nested.drain()
    assert out.outputs[0].facets == {"schema": "outer schema", "columnLineage": "inner lineage"}
