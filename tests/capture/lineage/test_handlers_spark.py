"""Plan-node handlers on real Spark: an unhandled command is seen as such (by its name, or over py4j for a
command without the ``Command`` suffix), reported on the emitted events, and handled by one registration."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from headwater.capture import track
from headwater.capture.events import DEBUG_FACET
from headwater.capture.lineage import analyze, take_snapshot
from headwater.capture.lineage.handlers import REGISTRY, Jvm, always
from headwater.capture.lineage.handlers.targets import table_identifier
from headwater.capture.lineage.model import CommandInfo

from .spark_util import Runner, new_session

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("warehouse")


@pytest.fixture(scope="module")
def spark(warehouse: Path) -> Iterator[Any]:
    session = new_session("lineage handlers", warehouse)
    session.sql("CREATE TABLE like_src (a INT, b STRING) USING parquet")
    yield session
    session.stop()


@pytest.fixture(scope="module")
def run(spark: Any) -> Runner:
    return Runner(spark)


def _only(executions: list[tuple[str, Any, bool]]) -> Any:
    assert len(executions) == 1, [e[0] for e in executions]
    return executions[0][1]


def test_an_unhandled_command_is_seen(spark: Any, run: Runner) -> None:
    qe = _only(run.executions(lambda: spark.sql("CREATE TABLE like_t1 LIKE like_src")))
    snap = take_snapshot(qe, spark)
    assert snap.root == "CreateTableLikeCommand" and snap.root_command
    ql = analyze(snap)
    assert ql.unhandled_command == "CreateTableLikeCommand" and not ql.outputs


def test_a_command_without_the_suffix_is_recognised_over_py4j(spark: Any, run: Runner, warehouse: Path) -> None:
    path = warehouse / "tv_data"
    run.executions(lambda: spark.range(3).write.parquet(str(path)))  # waits for its listener event
    qe = _only(run.executions(lambda: spark.sql(f"CREATE TEMPORARY VIEW tv USING parquet OPTIONS (path '{path}')")))
    snap = take_snapshot(qe, spark)
    assert snap.root == "CreateTempViewUsing" and snap.root_command
    assert analyze(snap).unhandled_command == "CreateTempViewUsing"
    # a plain query is not a command
    query = take_snapshot(_only(run.executions(lambda: spark.range(5).selectExpr("id * 2 AS x").collect())), spark)
    assert not query.root_command and analyze(query).unhandled_command is None


def test_supporting_it_is_one_registration(spark: Any, run: Runner, warehouse: Path) -> None:
    registry = REGISTRY.copy()

    @registry.command("CreateTableLikeCommand", ddl=True, lifecycle=always("CREATE"))
    def _create_like(jvm: Jvm, root: Any, name: str) -> CommandInfo | None:
        return CommandInfo(name=name, target=table_identifier(jvm, root.targetTable()))

    qe = _only(run.executions(lambda: spark.sql("CREATE TABLE like_t2 LIKE like_src")))
    ql = analyze(take_snapshot(qe, spark, registry), registry=registry)
    assert ql.unhandled_command is None
    assert [(o.namespace, o.name) for o in ql.outputs] == [("file", str(warehouse / "like_t2"))]
    assert ql.outputs[0].facets["lifecycleStateChange"].lifecycleStateChange.value == "CREATE"


def test_the_events_of_an_unhandled_command_carry_the_debug_facet(
    spark: Any, tmp_path: Path, assert_valid_events: Any
) -> None:
    events_file = tmp_path / "events.ndjson"
    tracker = track(
        spark,
        conf={
            "spark.openlineage.transport.type": "file",
            "spark.openlineage.transport.location": str(events_file),
            "spark.headwater.spool.dir": str(tmp_path / "spool"),
            "spark.headwater.emitWithoutOutput": "true",
        },
    )
    assert tracker is not None
    try:
        spark.sql("CREATE TABLE like_t3 LIKE like_src")
        spark.range(3).write.mode("overwrite").parquet(str(tmp_path / "handled"))
    finally:
        tracker.stop()
    events = [json.loads(line) for line in events_file.read_text().splitlines()]
    assert_valid_events(events)
    runs = [e for e in events if "create_table_like_command" in e["job"]["name"]]
    assert {e["eventType"] for e in runs} == {"START", "COMPLETE"}
    for e in runs:
        assert e["run"]["facets"][DEBUG_FACET]["unhandledCommand"] == "CreateTableLikeCommand"
    writes = [e for e in events if "insert_into_hadoop_fs_relation" in e["job"]["name"]]
    assert writes and all(DEBUG_FACET not in e["run"]["facets"] for e in writes)
