"""The warehouse variant's names and database steps (the whole variant runs in test_demo_e2e.py)."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

import pytest

from headwater.demo import warehouse
from headwater.demo.checks import DemoError
from headwater.model.naming import jdbc_dataset


def test_spark_and_the_sql_engine_name_the_warehouse_table_alike() -> None:
    target = warehouse.parse_warehouse("postgresql://hr:secret@db.example.com/payroll")
    # what Spark's JDBC write reports, from the URL and table job 2 is given
    args = dict(zip(warehouse.publish_args(target)[::2], warehouse.publish_args(target)[1::2], strict=True))
    assert args == {
        "--jdbc-url": "jdbc:postgresql://db.example.com:5432/payroll",
        "--jdbc-table": "hr.employee_compensation",
    }
    assert (
        jdbc_dataset(args["--jdbc-url"], args["--jdbc-table"])
        == warehouse.dataset(target, warehouse.TABLE)
        == ("postgres://db.example.com:5432", "payroll.hr.employee_compensation")
    )
    assert (
        warehouse.node_id(target, warehouse.SUMMARY)
        == "dataset:postgres://db.example.com:5432:payroll.hr.compensation_by_department"
    )
    assert warehouse.publish_env(target) == {"HR_JDBC_USER": "hr", "HR_JDBC_PASSWORD": "secret"}
    assert "secret" not in " ".join(warehouse.publish_args(target))


def test_bad_warehouse_urls_name_the_option() -> None:
    with pytest.raises(DemoError, match="--warehouse must be a PostgreSQL URL"):
        warehouse.parse_warehouse("mysql://u:p@h/db")


@pytest.mark.postgres
def test_prepare_creates_the_schema_and_explains_a_wrong_password(fresh_pg_url: str) -> None:
    import psycopg

    warehouse.prepare(warehouse.parse_warehouse(fresh_pg_url))
    warehouse.prepare(warehouse.parse_warehouse(fresh_pg_url))  # again: nothing to do
    with psycopg.connect(fresh_pg_url) as conn:
        assert conn.execute("SELECT 1 FROM information_schema.schemata WHERE schema_name = 'hr'").fetchone()
    parts = urlsplit(fresh_pg_url)
    wrong = urlunsplit(parts._replace(netloc=f"{parts.username}:wrong-password@{parts.hostname}:{parts.port}"))
    with pytest.raises(DemoError, match="could not connect to the warehouse PostgreSQL"):
        warehouse.prepare(warehouse.parse_warehouse(wrong))
