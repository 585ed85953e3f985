"""Hive metastore tables (Spark's embedded Derby metastore, enableHiveSupport) with pyspark's own jars."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from headwater.capture.lineage import analyze

from .spark_util import Runner, as_run_event, column_map, new_session

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

    snaps = run.snapshots(lambda: spark.sql("CREATE TABLE h_upper STORED AS ORC AS "
                                            "SELECT id, upper(name) AS who FROM h_people"))
    ctas = analyze(next(s for s in snaps if s.root == "CreateHiveTableAsSelectCommand"))
    assert [(i.namespace, i.name) for i in ctas.inputs] == [("file", people)]
    assert [(o.namespace, o.name) for o in ctas.outputs] == [("file", str(warehouse / "h_upper"))]
    assert ctas.outputs[0].facets["lifecycleStateChange"].lifecycleStateChange.value == "CREATE"
    assert column_map(ctas) == {"id": {(people, "id", "DIRECT", "IDENTITY")},
                                "who": {(people, "name", "DIRECT", "TRANSFORMATION")}}
    assert_valid_events([as_run_event(ctas)])
