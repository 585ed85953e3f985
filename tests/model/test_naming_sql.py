"""Dataset naming for SQL tables (headwater.model.naming): one table is one node whoever reports it."""

from __future__ import annotations

import pytest

from headwater.model.naming import database_namespace, jdbc_dataset, sql_table_dataset, table_levels


@pytest.mark.parametrize(
    "url,expected",
    [
        ("postgresql://u:secret@db.local/shop", ("postgres://db.local:5432", "shop")),
        ("postgresql+psycopg://u@10.0.0.5:5433/shop?sslmode=require", ("postgres://10.0.0.5:5433", "shop")),
        ("mysql://headwater:headwater@127.0.0.1:3306", ("mysql://127.0.0.1:3306", None)),
        ("mariadb://h/crm", ("mysql://h:3306", "crm")),
        ("redshift://analytics.eu-west-1:5439/dev", ("redshift://analytics.eu-west-1:5439", "dev")),
        ("jdbc:sqlserver://sql01;databaseName=sales", ("sqlserver://sql01:1433", None)),
        ("bigquery://my-project", ("bigquery", "my-project")),
        ("snowflake://ACME-prod/ANALYTICS", ("snowflake://acme-prod", "ANALYTICS")),
    ],
)
def test_database_namespace(url: str, expected: tuple[str, str | None]) -> None:
    assert database_namespace(url) == expected


@pytest.mark.parametrize(
    "namespace,parts,db,schema,expected",
    [
        ("postgres://h:5432", ["t"], "shop", None, "shop.public.t"),
        ("postgres://h:5432", ["rpt", "t"], "shop", None, "shop.rpt.t"),
        ("postgres://h:5432", ["other", "rpt", "t"], "shop", None, "other.rpt.t"),
        ("postgres://h:5432", ["t"], "shop", "staging", "shop.staging.t"),
        ("redshift://c.r:5439", ["t"], "dev", None, "dev.public.t"),
        ("mysql://h:3306", ["t"], "shop", None, "shop.t"),
        ("mysql://h:3306", ["crm", "t"], "shop", None, "crm.t"),
        ("sqlserver://h:1433", ["t"], "sales", None, "sales.dbo.t"),
        ("bigquery", ["ds", "t"], "proj", None, "proj.ds.t"),
        ("postgres://h:5432", ['"Mixed"', "t"], "shop", None, "shop.Mixed.t"),
    ],
)
def test_sql_table_dataset(namespace: str, parts: list[str], db: str, schema: str | None, expected: str) -> None:
    assert sql_table_dataset(namespace, parts, default_database=db, default_schema=schema) == (namespace, expected)


def test_sql_and_spark_jdbc_name_the_same_table_alike() -> None:
    namespace, database = database_namespace("postgresql://u:p@pg:5432/shop")
    assert sql_table_dataset(namespace, ["orders"], default_database=database) == jdbc_dataset(
        "jdbc:postgresql://pg:5432/shop", "public.orders"
    )
    namespace, database = database_namespace("mysql://u:p@my:3306/crm")
    assert sql_table_dataset(namespace, ["orders"], default_database=database) == jdbc_dataset(
        "jdbc:mysql://my:3306/crm", "orders"
    )


def test_table_levels() -> None:
    assert (table_levels("postgres://h:1"), table_levels("mysql://h:1"), table_levels("bigquery")) == (3, 2, 3)
