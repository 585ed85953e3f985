"""Catalog tables on real Spark: saveAsTable, insertInto, CTAS, SQL INSERT INTO/OVERWRITE, views,
temp views, and DDL lifecycle (CREATE, OVERWRITE, TRUNCATE, ALTER, RENAME, DROP)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .spark_util import Runner, as_run_event, column_map, new_session

pytestmark = pytest.mark.spark

D, I = "DIRECT", "INDIRECT"


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("warehouse")


@pytest.fixture(scope="module")
def spark(warehouse: Path) -> Iterator[Any]:
    session = new_session("lineage tables", warehouse)
    yield session
    session.stop()


@pytest.fixture(scope="module")
def run(spark: Any) -> Runner:
    return Runner(spark)


def lifecycle(ql: Any) -> str | None:
    facet = ql.outputs[0].facets.get("lifecycleStateChange")
    return None if facet is None else facet.lifecycleStateChange.value


def symlink(ds: Any) -> tuple[str, str, str]:
    ident = ds.facets["symlinks"].identifiers[0]
    return ident.namespace, ident.name, ident.type


def test_save_as_table_insert_into_and_sql(spark: Any, run: Runner, warehouse: Path, assert_valid_events: Any) -> None:
    wh = f"file:{warehouse}"
    emp = str(warehouse / "emp")
    df = spark.createDataFrame([(1, "ada", 10.0), (2, "bob", 20.0)], "id INT, name STRING, pay DOUBLE")

    executions = run.snapshots(lambda: df.write.mode("overwrite").saveAsTable("emp"))
    roots = [s.root for s in executions]
    assert "CreateDataSourceTableAsSelectCommand" in roots
    from headwater.capture.lineage import analyze

    ctas = analyze(next(s for s in executions if s.root == "CreateDataSourceTableAsSelectCommand"))
    assert [(o.namespace, o.name) for o in ctas.outputs] == [("file", emp)]
    assert symlink(ctas.outputs[0]) == (wh, "default.emp", "TABLE")
    assert lifecycle(ctas) == "OVERWRITE"
    assert [f.name for f in ctas.outputs[0].facets["schema"].fields] == ["id", "name", "pay"]
    assert ctas.output_name == "emp"

    ql = run.lineage(
        lambda: spark.sql("CREATE TABLE emp_hi USING parquet AS SELECT id, upper(name) AS who FROM emp WHERE pay > 15"),
        root="CreateDataSourceTableAsSelectCommand",
    )
    assert lifecycle(ql) == "CREATE"
    assert [(i.namespace, i.name) for i in ql.inputs] == [("file", emp)]
    assert symlink(ql.inputs[0]) == (wh, "default.emp", "TABLE")
    assert column_map(ql) == {
        "id": {(emp, "id", D, "IDENTITY"), (emp, "pay", I, "FILTER")},
        "who": {(emp, "name", D, "TRANSFORMATION"), (emp, "pay", I, "FILTER")},
    }
    assert_valid_events([as_run_event(ql)])

    run.executions(lambda: spark.sql("CREATE TABLE pay_log (person INT, amount DOUBLE) USING parquet"))
    pay_log = str(warehouse / "pay_log")
    ql = run.lineage(lambda: spark.table("emp").select("id", "pay").write.insertInto("pay_log"))
    assert [(o.namespace, o.name) for o in ql.outputs] == [("file", pay_log)]
    assert lifecycle(ql) is None
    assert column_map(ql) == {"person": {(emp, "id", D, "IDENTITY")}, "amount": {(emp, "pay", D, "IDENTITY")}}

    ql = run.lineage(lambda: spark.sql("INSERT OVERWRITE TABLE pay_log SELECT id, pay * 2 FROM emp"))
    assert lifecycle(ql) == "OVERWRITE"
    assert column_map(ql)["amount"] == {(emp, "pay", D, "TRANSFORMATION")}
    assert ql.sql is None or "INSERT OVERWRITE" in ql.sql

    ql = run.lineage(lambda: spark.sql("INSERT INTO pay_log SELECT id, pay FROM emp"))
    assert lifecycle(ql) is None
    assert ql.outputs[0].outputFacets["outputStatistics"].rowCount == 2


def test_views_pass_lineage_through(spark: Any, run: Runner, warehouse: Path) -> None:
    emp = str(warehouse / "emp")
    spark.sql("CREATE OR REPLACE VIEW emp_view AS SELECT id, lower(name) AS low FROM emp")
    spark.table("emp").selectExpr("id", "pay + 1 AS bumped").createOrReplaceTempView("emp_tmp")
    ql = run.lineage(
        lambda: (
            spark.sql("SELECT v.id, v.low, t.bumped FROM emp_view v JOIN emp_tmp t ON v.id = t.id")
            .write.mode("overwrite")
            .parquet(str(warehouse / "via_views"))
        )
    )
    assert [(i.namespace, i.name) for i in ql.inputs] == [("file", emp)]
    cols = column_map(ql)
    assert {x for x in cols["low"] if x[2] == D} == {(emp, "name", D, "TRANSFORMATION")}
    assert {x for x in cols["bumped"] if x[2] == D} == {(emp, "pay", D, "TRANSFORMATION")}
    assert (emp, "id", I, "JOIN") in cols["low"]


def test_ddl_lifecycle(spark: Any, run: Runner, warehouse: Path, assert_valid_events: Any) -> None:
    wh = f"file:{warehouse}"
    t = str(warehouse / "ddl_t")
    ql = run.lineage(lambda: spark.sql("CREATE TABLE ddl_t (a INT, b STRING) USING parquet"))
    assert (ql.outputs[0].namespace, ql.outputs[0].name, lifecycle(ql)) == ("file", t, "CREATE")
    assert [(f.name, f.type) for f in ql.outputs[0].facets["schema"].fields] == [("a", "integer"), ("b", "string")]
    assert ql.inputs == []
    events = [as_run_event(ql)]

    ql = run.lineage(lambda: spark.sql("TRUNCATE TABLE ddl_t"))
    assert (ql.outputs[0].name, lifecycle(ql)) == (t, "TRUNCATE")
    events.append(as_run_event(ql))

    ql = run.lineage(lambda: spark.sql("ALTER TABLE ddl_t ADD COLUMNS (c DOUBLE)"))
    assert (ql.outputs[0].name, lifecycle(ql)) == (t, "ALTER")
    assert [f.name for f in ql.outputs[0].facets["schema"].fields] == ["a", "b", "c"]
    events.append(as_run_event(ql))

    ql = run.lineage(lambda: spark.sql("ALTER TABLE ddl_t RENAME TO ddl_t2"))
    out = ql.outputs[0]
    assert (out.name, lifecycle(ql)) == (str(warehouse / "ddl_t2"), "RENAME")
    prev = out.facets["lifecycleStateChange"].previousIdentifier
    assert (prev.namespace, prev.name) == ("file", t)
    assert symlink(out) == (wh, "default.ddl_t2", "TABLE")
    events.append(as_run_event(ql))

    ql = run.lineage(lambda: spark.sql("DROP TABLE ddl_t2"))
    assert (ql.outputs[0].name, lifecycle(ql)) == (str(warehouse / "ddl_t2"), "DROP")
    assert "schema" not in ql.outputs[0].facets
    events.append(as_run_event(ql))
    assert_valid_events(events)


def test_disabled_facets(spark: Any, run: Runner, warehouse: Path) -> None:
    from headwater.capture.lineage import LineageOptions

    ql = run.lineage(
        lambda: spark.table("emp").write.mode("overwrite").parquet(str(warehouse / "plain")),
        options=LineageOptions(disabled_facets=frozenset({"schema", "columnLineage"})),
    )
    assert set(ql.outputs[0].facets) == {"dataSource", "lifecycleStateChange"}
    assert set(ql.inputs[0].facets) == {"dataSource", "symlinks"}
