"""JDBC sources and sinks against the real PostgreSQL and MariaDB servers, and DataSource V2
tables through Spark's own JDBC table catalog (the code path Iceberg/Delta take: DataSourceV2Relation,
AppendData, OverwriteByExpression, CreateTableAsSelect, ReplaceTableAsSelect, DropTable)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest

from headwater.capture.lineage import analyze

from .spark_util import Runner, as_run_event, column_map, new_session

pytestmark = [pytest.mark.spark, pytest.mark.postgres, pytest.mark.mariadb]

D, I = "DIRECT", "INDIRECT"


@pytest.fixture(scope="module")
def suffix() -> str:
    return uuid.uuid4().hex[:8]


@pytest.fixture(scope="module")
def pg(pg_server_url: str) -> dict[str, str]:
    p = urlsplit(pg_server_url)
    return {
        "url": f"jdbc:postgresql://{p.hostname}:{p.port or 5432}{p.path}",
        "user": p.username or "",
        "password": p.password or "",
        "driver": "org.postgresql.Driver",
        "ns": f"postgres://{p.hostname}:{p.port or 5432}",
        "db": p.path.strip("/"),
    }


@pytest.fixture(scope="module")
def maria(mariadb_server_url: str, suffix: str) -> Iterator[dict[str, str]]:
    import pymysql

    p = urlsplit(mariadb_server_url)
    db = f"hw_lineage_{suffix}"
    conn = pymysql.connect(host=p.hostname, port=p.port or 3306, user=p.username, password=p.password or "")
    with conn.cursor() as cur:
        cur.execute(f"CREATE DATABASE {db}")
    # the jdbc:mysql scheme selects Spark's MySQL dialect (MariaDB speaks it; jdbc:mariadb gets ANSI quotes)
    yield {
        "url": f"jdbc:mysql://{p.hostname}:{p.port or 3306}/{db}?permitMysqlScheme",
        "user": p.username or "",
        "password": p.password or "",
        "driver": "org.mariadb.jdbc.Driver",
        "ns": f"mysql://{p.hostname}:{p.port or 3306}",
        "db": db,
    }
    with conn.cursor() as cur:
        cur.execute(f"DROP DATABASE IF EXISTS {db}")
    conn.close()


@pytest.fixture(scope="module")
def spark(tmp_path_factory: pytest.TempPathFactory, pg: dict[str, str]) -> Iterator[Any]:
    catalog = {
        "spark.sql.catalog.pg": "org.apache.spark.sql.execution.datasources.v2.jdbc.JDBCTableCatalog",
        "spark.sql.catalog.pg.url": pg["url"],
        "spark.sql.catalog.pg.user": pg["user"],
        "spark.sql.catalog.pg.password": pg["password"],
        "spark.sql.catalog.pg.driver": pg["driver"],
    }
    session = new_session("lineage jdbc", tmp_path_factory.mktemp("warehouse"), extra=catalog)
    yield session
    session.stop()


@pytest.fixture(scope="module")
def run(spark: Any) -> Runner:
    return Runner(spark)


def props(db: dict[str, str]) -> dict[str, str]:
    return {"user": db["user"], "password": db["password"], "driver": db["driver"]}


@pytest.mark.parametrize("server", ["pg", "maria"])
def test_jdbc_write_and_read(
    spark: Any,
    run: Runner,
    request: pytest.FixtureRequest,
    suffix: str,
    server: str,
    tmp_path: Any,
    assert_valid_events: Any,
) -> None:
    from pyspark.sql import functions as F

    db = request.getfixturevalue(server)
    table = f"people_{suffix}" if server == "maria" else f"public.people_{suffix}"
    expected_name = f"{db['db']}.{table}"
    df = spark.createDataFrame([(1, "ada", 10.0), (2, "bob", 20.0)], "id INT, name STRING, pay DOUBLE")
    ql = run.lineage(
        lambda: df.write.mode("overwrite").jdbc(db["url"], table, properties=props(db)),
        root="SaveIntoDataSourceCommand",
    )
    assert [(o.namespace, o.name) for o in ql.outputs] == [(db["ns"], expected_name)]
    assert ql.outputs[0].facets["lifecycleStateChange"].lifecycleStateChange.value == "OVERWRITE"
    assert [f.name for f in ql.outputs[0].facets["schema"].fields] == ["id", "name", "pay"]
    assert ql.output_name == f"people_{suffix}"

    out = tmp_path / "from_jdbc"
    ql = run.lineage(
        lambda: (
            spark.read.jdbc(db["url"], table, properties=props(db))
            .select("id", F.round("pay").alias("pay_r"))
            .write.mode("overwrite")
            .parquet(str(out))
        )
    )
    assert [(i.namespace, i.name) for i in ql.inputs] == [(db["ns"], expected_name)]
    assert column_map(ql) == {
        "id": {(expected_name, "id", D, "IDENTITY")},
        "pay_r": {(expected_name, "pay", D, "TRANSFORMATION")},
    }
    assert_valid_events([as_run_event(ql)])


def test_v2_jdbc_catalog(
    spark: Any, run: Runner, pg: dict[str, str], suffix: str, tmp_path: Any, assert_valid_events: Any
) -> None:
    t = f"pg.public.v2_{suffix}"
    name = f"{pg['db']}.public.v2_{suffix}"
    src = spark.createDataFrame([(1, "ada"), (2, "bob")], "id INT, name STRING")
    src.write.mode("overwrite").parquet(str(tmp_path / "src"))
    src_path = str(tmp_path / "src")
    events = []

    snaps = run.snapshots(
        lambda: spark.sql(f"CREATE TABLE {t} AS SELECT id, upper(name) AS name FROM parquet.`{src_path}`")
    )
    ctas = analyze(next(s for s in snaps if s.root == "CreateTableAsSelect"))
    assert [(o.namespace, o.name) for o in ctas.outputs] == [(pg["ns"], name)]
    assert ctas.outputs[0].facets["lifecycleStateChange"].lifecycleStateChange.value == "CREATE"
    assert column_map(ctas) == {
        "id": {(src_path, "id", D, "IDENTITY")},
        "name": {(src_path, "name", D, "TRANSFORMATION")},
    }
    events.append(as_run_event(ctas))

    ql = run.lineage(lambda: spark.read.parquet(src_path).writeTo(t).append(), root="AppendData")
    assert [(o.namespace, o.name) for o in ql.outputs] == [(pg["ns"], name)]
    assert "lifecycleStateChange" not in ql.outputs[0].facets
    assert column_map(ql) == {"id": {(src_path, "id", D, "IDENTITY")}, "name": {(src_path, "name", D, "IDENTITY")}}
    events.append(as_run_event(ql))

    ql = run.lineage(
        lambda: spark.sql(f"INSERT OVERWRITE {t} SELECT id + 1, name FROM parquet.`{src_path}`"),
        root="OverwriteByExpression",
    )
    assert ql.outputs[0].facets["lifecycleStateChange"].lifecycleStateChange.value == "OVERWRITE"
    assert column_map(ql)["id"] == {(src_path, "id", D, "TRANSFORMATION")}

    out = tmp_path / "from_v2"
    ql = run.lineage(lambda: spark.table(t).where("id > 1").write.mode("overwrite").parquet(str(out)))
    assert [(i.namespace, i.name) for i in ql.inputs] == [(pg["ns"], name)]
    assert column_map(ql)["name"] == {(name, "name", D, "IDENTITY"), (name, "id", I, "FILTER")}
    events.append(as_run_event(ql))

    ql = run.lineage(lambda: spark.sql(f"DROP TABLE {t}"))
    assert [(o.namespace, o.name) for o in ql.outputs] == [(pg["ns"], name)]
    assert ql.outputs[0].facets["lifecycleStateChange"].lifecycleStateChange.value == "DROP"
    events.append(as_run_event(ql))
    assert_valid_events(events)
