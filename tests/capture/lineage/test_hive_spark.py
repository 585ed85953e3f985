"""Hive metastore tables (Spark's embedded Derby metastore, enableHiveSupport) with pyspark's own jars."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from headwater.capture.lineage import analyze

from .spark_util import Runner, as_run_event, column_map, new_session, to_json

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("hive_warehouse")


@pytest.fixture(scope="module")
def spark(warehouse: Path) -> Iterator[Any]:
    session = new_session("lineage hive", warehouse, hive=True)
    assert session.conf.get("spark.sql.catalogImplementation") == "hive"
    yield session
    session.stop()


def test_hive_tables(spark: Any, warehouse: Path, assert_valid_events: Any) -> None:
    run = Runner(spark)
    spark.sql("CREATE TABLE h_people (id INT, name STRING) STORED AS PARQUET")
    people = str(warehouse / "h_people")
    ql = run.lineage(lambda: spark.sql("INSERT INTO h_people VALUES (1, 'ada'), (2, 'bob')"))
    assert [(o.namespace, o.name) for o in ql.outputs] == [("file", people)]
    ident = ql.outputs[0].facets["symlinks"].identifiers[0]
    assert (ident.name, ident.type) == ("default.h_people", "TABLE")

    snaps = run.snapshots(
        lambda: spark.sql("CREATE TABLE h_upper STORED AS ORC AS SELECT id, upper(name) AS who FROM h_people")
    )
    ctas = analyze(next(s for s in snaps if s.root == "CreateHiveTableAsSelectCommand"))
    assert [(i.namespace, i.name) for i in ctas.inputs] == [("file", people)]
    assert [(o.namespace, o.name) for o in ctas.outputs] == [("file", str(warehouse / "h_upper"))]
    assert ctas.outputs[0].facets["lifecycleStateChange"].lifecycleStateChange.value == "CREATE"
    assert column_map(ctas) == {
        "id": {(people, "id", "DIRECT", "IDENTITY")},
        "who": {(people, "name", "DIRECT", "TRANSFORMATION")},
    }
    assert_valid_events([as_run_event(ctas)])


def _job(app: str, ql: Any) -> str:
    from headwater.capture.naming import execution_job_name

    return execution_job_name(app, ql.action, ql.job_suffix)


def _catalog(ds: Any) -> dict[str, Any] | None:
    """The ``catalog`` facet as JSON (None without one)."""
    facet = ds.facets.get("catalog")
    return None if facet is None else {k: v for k, v in to_json(facet).items() if not k.startswith("_")}


def _schema(ds: Any) -> list[tuple[str, str]]:
    return [(f.name, f.type) for f in ds.facets["schema"].fields] if "schema" in ds.facets else []


def test_parity_integration_hive_scripts(spark: Any, warehouse: Path, tmp_path: Path, assert_valid_events: Any) -> None:
    """The OpenLineage integration's PySpark container scripts on a Hive session, against its expected events
    (integration/spark/app/integrations/container/*.json; the warehouse is this test's, so path suffixes end
    with its directory name instead of ``warehouse``/``alter_test``)."""
    run = Runner(spark)
    wh = warehouse.name
    # CatalogDatasetFacetUtils.getCatalogDatasetFacetForHive, as pysparkHiveCompleteEvent.json, pysparkCTASEnd.json
    # and pysparkHiveOverwriteDirCompleteEvent.json carry it (name "default" is what the builder sets)
    hive = {
        "name": "default",
        "framework": "hive",
        "type": "hive",
        "source": "spark",
        "warehouseUri": f"file:{warehouse}",
    }
    events = []
    # spark_hadoop_fs_relation.py → pysparkHadoopFSEndEvent.json
    run.executions(lambda: spark.sql("CREATE TABLE IF NOT EXISTS test (key INT, value STRING) USING parquet"))
    run.executions(lambda: spark.sql("CREATE TABLE IF NOT EXISTS target (key INT, value STRING) USING parquet"))
    run.executions(lambda: spark.sql("INSERT INTO test VALUES (1, 'a'), (2, 'b'), (3, 'c')"))
    ql = run.lineage(lambda: spark.sql("INSERT INTO target SELECT * from test WHERE key > 1"))
    assert (
        _job("Open Lineage Integration HadoopFS relation", ql)
        == f"open_lineage_integration_hadoop_fs_relation.execute_insert_into_hadoop_fs_relation_command.{wh}_target"
    )
    assert [(i.name, _schema(i)) for i in ql.inputs] == [
        (str(warehouse / "test"), [("key", "integer"), ("value", "string")])
    ]
    assert [(o.name, _schema(o)) for o in ql.outputs] == [
        (str(warehouse / "target"), [("key", "integer"), ("value", "string")])
    ]
    # neither the integration's LogicalRelation input builder nor its InsertIntoHadoopFsRelationVisitor adds it
    assert [_catalog(d) for d in (*ql.inputs, *ql.outputs)] == [None, None]
    events.append(as_run_event(ql))
    # spark_truncate_table.py → pysparkTruncateTableCompleteEvent.json
    run.executions(lambda: spark.sql("CREATE TABLE truncate_table_test (a string, b string)"))
    ql = run.lineage(lambda: spark.sql("TRUNCATE TABLE truncate_table_test"))
    assert (
        _job("Open Lineage Integration Truncate Table", ql)
        == f"open_lineage_integration_truncate_table.execute_truncate_table_command.{wh}_truncate_table_test"
    )
    out = ql.outputs[0]
    assert (out.name, out.facets["lifecycleStateChange"].lifecycleStateChange.value) == (
        str(warehouse / "truncate_table_test"),
        "TRUNCATE",
    )
    assert _catalog(out) == hive  # TruncateTableCommandVisitor: dataset(CatalogTable) in a Hive session
    events.append(as_run_event(ql))
    # spark_alter_table.py → pysparkAlterTableAddColumnsEnd.json, pysparkAlterTableRenameEnd.json
    run.executions(lambda: spark.sql("CREATE TABLE alter_table_test (a string, b string)"))
    ql = run.lineage(lambda: spark.sql("ALTER TABLE alter_table_test ADD COLUMNS (c string, d string)"))
    assert (
        _job("Open Lineage Integration Alter Table", ql)
        == "open_lineage_integration_alter_table.execute_alter_table_add_columns_command"
    )
    assert [(o.name, _schema(o)) for o in ql.outputs] == [
        (str(warehouse / "alter_table_test"), [("a", "string"), ("b", "string"), ("c", "string"), ("d", "string")])
    ]
    assert _catalog(ql.outputs[0]) == hive  # AlterTableAddColumnsCommandVisitor
    events.append(as_run_event(ql))
    ql = run.lineage(lambda: spark.sql("ALTER TABLE alter_table_test RENAME TO alter_table_test_new"))
    assert (
        _job("Open Lineage Integration Alter Table", ql)
        == "open_lineage_integration_alter_table.execute_alter_table_rename_command"
    )
    out = ql.outputs[0]
    assert (out.name, _schema(out)) == (
        str(warehouse / "alter_table_test_new"),
        [("a", "string"), ("b", "string"), ("c", "string"), ("d", "string")],
    )
    prev = out.facets["lifecycleStateChange"].previousIdentifier
    assert (prev.namespace, prev.name) == ("file", str(warehouse / "alter_table_test"))
    assert _catalog(out) is None  # AlterTableRenameCommandVisitor does not add it
    events.append(as_run_event(ql))
    # spark_ctas_load.py → pysparkLoadComplete.json (LOAD DATA into a Hive table)
    csv = tmp_path / "test_data.csv"
    csv.write_text("1,2\n3,4\n")
    run.executions(
        lambda: spark.sql("CREATE TABLE tbl1 (a BIGINT, b BIGINT) ROW FORMAT DELIMITED FIELDS TERMINATED BY ','")
    )
    ql = run.lineage(lambda: spark.sql(f"LOAD DATA LOCAL INPATH '{csv}' INTO TABLE tbl1"))
    assert (
        _job("Open Lineage Integration CTAS Load", ql)
        == "open_lineage_integration_ctas_load.execute_load_data_command.default_tbl1"
    )
    out = ql.outputs[0]
    assert (out.name, _schema(out)) == (str(warehouse / "tbl1"), [("a", "long"), ("b", "long")])
    assert out.facets["symlinks"].identifiers[0].name == "default.tbl1"
    assert _catalog(out) == hive  # LoadDataCommandVisitor
    events.append(as_run_event(ql))
    # spark_overwrite_hive.py → pysparkHiveOverwriteDirCompleteEvent.json
    target = tmp_path / "overwrite" / "table"
    ql = run.lineage(
        lambda: spark.sql(f"INSERT OVERWRITE DIRECTORY '{target}' USING hive VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    )
    assert (
        _job("Open Lineage Integration Overwrite Hive", ql)
        == "open_lineage_integration_overwrite_hive.execute_insert_into_hive_dir_command.overwrite_table"
    )
    out = ql.outputs[0]
    assert (out.namespace, out.name, _schema(out)) == ("file", str(target), [("col1", "integer"), ("col2", "string")])
    assert out.facets["lifecycleStateChange"].lifecycleStateChange.value == "OVERWRITE"
    assert _catalog(out) == hive  # InsertIntoHiveDirVisitor, pysparkHiveOverwriteDirCompleteEvent.json
    events.append(as_run_event(ql))
    # spark_hive.py → pysparkHiveCompleteEvent.json: INSERT into a Hive-format table (InsertIntoHiveTable) has it;
    # reading that table back (HiveTableRelation) too
    run.executions(lambda: spark.sql("CREATE TABLE IF NOT EXISTS hive_test (key INT, value STRING) USING hive"))
    ql = run.lineage(lambda: spark.sql("INSERT INTO hive_test VALUES (1, 'a'), (2, 'b'), (3, 'c')"))
    assert (
        _job("Open Lineage Integration Hive", ql)
        == f"open_lineage_integration_hive.execute_insert_into_hive_table.{wh}_hive_test"
    )
    assert _catalog(ql.outputs[0]) == hive
    events.append(as_run_event(ql))
    ql = run.lineage(lambda: spark.sql("INSERT INTO hive_test SELECT * FROM hive_test WHERE key > 1"))
    assert [(i.name, _catalog(i)) for i in ql.inputs] == [(str(warehouse / "hive_test"), hive)]
    events.append(as_run_event(ql))
    assert_valid_events(events)


def test_parity_integration_cll_script(spark: Any, warehouse: Path, tmp_path: Path, assert_valid_events: Any) -> None:
    """spark_cll.py → pysparkCLLEnd.json: a Hive CTAS over a join, a filter and a GROUP BY; the integration's
    default (datasetLineageEnabled=false) folds the dataset-wide dependencies into every field."""
    run = Runner(spark)
    run.executions(lambda: spark.sql("CREATE TABLE cll_source1 (a int, b string)"))
    run.executions(lambda: spark.sql("CREATE TABLE cll_source2 (a int, c int)"))
    tbl1 = tmp_path / "cll_test" / "cll_tbl1"  # the script's tbl1 (the name is taken by the LOAD DATA case)
    snaps = run.snapshots(
        lambda: spark.sql(f"""
        CREATE TABLE cll_tbl1 USING hive LOCATION '{tbl1}'
        AS SELECT t1.a as ident, CONCAT(b, 'test') as trans, SUM(c) as agg
        FROM (SELECT a, c from cll_source2 where a > 1) t2
        JOIN cll_source1 t1 on t1.a = t2.a
        GROUP BY t1.a, b""")
    )
    # the write Spark runs inside the CTAS has the optimized query (its inferred isnotnull/a > 1 filter on
    # cll_source1 included): that is the lineage the integration reports, and the one the agent keeps when it
    # folds the inner write into the CTAS (capture/nesting.py)
    ql = analyze(next(s for s in snaps if s.root == "InsertIntoHiveTable"))
    s1, s2 = str(warehouse / "cll_source1"), str(warehouse / "cll_source2")
    assert sorted(i.name for i in ql.inputs) == sorted([s1, s2])
    out = ql.outputs[0]
    assert out.name == str(tbl1)
    assert [(f.name, f.type) for f in out.facets["schema"].fields] == [
        ("ident", "integer"),
        ("trans", "string"),
        ("agg", "long"),
    ]
    shared = {
        (s1, "a", "INDIRECT", "FILTER"),
        (s1, "a", "INDIRECT", "GROUP_BY"),
        (s1, "a", "INDIRECT", "JOIN"),
        (s1, "b", "INDIRECT", "GROUP_BY"),
        (s2, "a", "INDIRECT", "FILTER"),
        (s2, "a", "INDIRECT", "JOIN"),
    }
    assert column_map(ql) == {
        "ident": shared | {(s1, "a", "DIRECT", "IDENTITY")},
        "trans": shared | {(s1, "b", "DIRECT", "TRANSFORMATION")},
        "agg": shared | {(s2, "c", "DIRECT", "AGGREGATION")},
    }
    assert_valid_events([as_run_event(ql)])


def test_parity_integration_table_scripts(
    spark: Any, warehouse: Path, tmp_path: Path, assert_valid_events: Any
) -> None:
    """More of the integration's container scripts on the Hive session, against their expected events:
    spark_create_table.py (pysparkCreateTableCompleteEvent.json), spark_drop_table.py (pysparkDropTableEvent.json),
    spark_ctas_load.py's CTAS (pysparkCTASEnd.json, pysparkCTASWithColumnLineageEnd.json), spark_octas_load.py
    (pysparkOCTASEnd.json), spark_cached.py (pysparkCachedDatasetComplete.json)."""
    import re

    run = Runner(spark)
    wh = str(warehouse)
    meta = f"file:{wh}"
    events = []
    # spark_create_table.py: job ${json-unit.regex}open_lineage_integration_create_table.*create_table_test
    ql = run.lineage(lambda: spark.sql("CREATE TABLE create_table_test (a string, b string)"))
    assert re.fullmatch(
        r"open_lineage_integration_create_table.*create_table_test", _job("Open Lineage Integration Create Table", ql)
    )
    out = ql.outputs[0]
    assert (out.name, _schema(out), out.facets["lifecycleStateChange"].lifecycleStateChange.value) == (
        f"{wh}/create_table_test",
        [("a", "string"), ("b", "string")],
        "CREATE",
    )
    assert [(i.namespace, i.name) for i in out.facets["symlinks"].identifiers] == [(meta, "default.create_table_test")]
    events.append(as_run_event(ql))
    # spark_drop_table.py: the dropped table, DROP, its symlink, no schema
    run.executions(lambda: spark.sql("CREATE TABLE drop_table_test (a string, b string)"))
    ql = run.lineage(lambda: spark.sql("DROP TABLE drop_table_test"))
    out = ql.outputs[0]
    assert (out.name, _schema(out), out.facets["lifecycleStateChange"].lifecycleStateChange.value) == (
        f"{wh}/drop_table_test",
        [],
        "DROP",
    )
    assert [(i.namespace, i.name) for i in out.facets["symlinks"].identifiers] == [(meta, "default.drop_table_test")]
    events.append(as_run_event(ql))
    # spark_ctas_load.py: saveAsTable("temp"), then a Hive CTAS at a location
    df = spark.createDataFrame([{"a": 1, "b": 2}, {"a": 3, "b": 4}])
    run.executions(lambda: df.write.option("compression", "none").saveAsTable("temp"))
    temp = f"{wh}/temp"
    tbl1 = tmp_path / "ctas_load" / "tbl1"
    snaps = run.snapshots(
        lambda: spark.sql(f"CREATE TABLE ctas_tbl1 USING hive LOCATION '{tbl1}' AS SELECT a, b FROM temp")
    )
    ctas = analyze(next(s for s in snaps if s.root == "CreateHiveTableAsSelectCommand"))
    assert [(i.name, _schema(i)) for i in ctas.inputs] == [(temp, [("a", "long"), ("b", "long")])]
    out = ctas.outputs[0]
    assert (out.name, _schema(out)) == (str(tbl1), [("a", "long"), ("b", "long")])
    assert [(i.namespace, i.name) for i in out.facets["symlinks"].identifiers] == [(meta, "default.ctas_tbl1")]
    assert _catalog(out) is not None
    inner = analyze(next(s for s in snaps if s.root == "InsertIntoHiveTable"))  # the lineage nesting keeps
    assert column_map(inner) == {
        "a": {(temp, "a", "DIRECT", "IDENTITY")},
        "b": {(temp, "b", "DIRECT", "IDENTITY")},
    }
    events += [as_run_event(ctas), as_run_event(inner)]
    # spark_octas_load.py: STORED AS PARQUET, written through the data-source writer
    tbl2 = tmp_path / "ctas_load" / "tbl2"
    snaps = run.snapshots(
        lambda: spark.sql(f"CREATE TABLE tbl2 STORED AS PARQUET LOCATION '{tbl2}' AS SELECT a, b FROM temp")
    )
    for ql in (analyze(s) for s in snaps):
        assert [(i.name, _schema(i)) for i in ql.inputs] == [(temp, [("a", "long"), ("b", "long")])]
        assert [(o.name, _schema(o)) for o in ql.outputs] == [(str(tbl2), [("a", "long"), ("b", "long")])]
        events.append(as_run_event(ql))
    # spark_cached.py: the write of a cached read knows the table the cache was read from
    cached = spark.read.table("temp").cache()
    cached.count()
    try:
        snaps = run.snapshots(
            lambda: cached.select("a").write.option("compression", "none").saveAsTable("cached_target")
        )
    finally:
        cached.unpersist()
    written = [analyze(s) for s in snaps]
    assert {(i.name, tuple(_schema(i))) for ql in written for i in ql.inputs} == {
        (temp, (("a", "long"), ("b", "long")))
    }
    events += [as_run_event(ql) for ql in written]
    # ColumnLevelLineageHiveTest.testNonV2CreateTableAsSelect / testNonV2CatalogInsertIntoTable: Hive-format tables
    # at a location, a CTAS and an INSERT ... SELECT from one to the other: a <- t1.a, b <- t1.b
    nv = tmp_path / "column_non_v2"
    run.executions(lambda: spark.sql(f"CREATE TABLE nv_t1 (a int, b int) LOCATION '{nv / 't1'}'"))
    run.executions(lambda: spark.sql("INSERT INTO nv_t1 VALUES (1,2)"))
    t1 = str(nv / "t1")
    expected = {"a": {(t1, "a", "DIRECT", "IDENTITY")}, "b": {(t1, "b", "DIRECT", "IDENTITY")}}
    snaps = run.snapshots(lambda: spark.sql(f"CREATE TABLE nv_t2 LOCATION '{nv / 't2'}' AS SELECT * FROM nv_t1"))
    assert column_map(analyze(snaps[-1])) == expected
    run.executions(lambda: spark.sql(f"CREATE TABLE nv_t3 (a int, b int) LOCATION '{nv / 't3'}'"))
    ql = run.lineage(lambda: spark.sql("INSERT INTO nv_t3 SELECT * FROM nv_t1"))
    assert column_map(ql) == expected
    events.append(as_run_event(ql))
    assert_valid_events(events)
