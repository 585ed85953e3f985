"""Dataset naming of tables reached through SQLAlchemy URLs and of Headwater's catalog tables (pure)."""

from __future__ import annotations

import os

import pytest

from headwater.model.naming import catalog_table_dataset, jdbc_dataset, sqlalchemy_table_dataset


@pytest.mark.parametrize(
    ("url", "schema", "table", "expected"),
    [
        (
            "postgresql+psycopg://u:secret@db.example:5433/shop",
            "sales",
            "orders",
            ("postgres://db.example:5433", "shop.sales.orders"),
        ),
        ("postgresql://u@db.example/shop", None, "orders", ("postgres://db.example:5432", "shop.public.orders")),
        ("postgres://db.example/shop", "public", '"Orders"', ("postgres://db.example:5432", "shop.public.Orders")),
        ("mysql+pymysql://u:p@127.0.0.1:3307/shop", None, "orders", ("mysql://127.0.0.1:3307", "shop.orders")),
        ("mariadb+pymysql://u:p@h/shop", "other", "orders", ("mysql://h:3306", "other.orders")),
        ("sqlite:////data/app.db", None, "orders", ("sqlite://localhost", "/data/app.db.orders")),
        ("sqlite:////data/app.db", "main", "orders", ("sqlite://localhost", "/data/app.db.orders")),
        ("sqlite:////data/app.db", "aux", "orders", ("sqlite://localhost", "/data/app.db.aux.orders")),
        ("sqlite://", None, "t", ("sqlite://localhost", ":memory:.t")),
        ("mssql+pyodbc://h:1433/db", "dbo", "t", ("sqlserver://h:1433", "db.dbo.t")),
    ],
)
def test_sqlalchemy_table_dataset(url: str, schema: str | None, table: str, expected: tuple[str, str]) -> None:
    assert sqlalchemy_table_dataset(url, schema, table) == expected


def test_relative_sqlite_paths_are_made_absolute() -> None:
    assert sqlalchemy_table_dataset("sqlite:///rel/app.db", None, "t") == (
        "sqlite://localhost",
        os.path.join(os.getcwd(), "rel", "app.db") + ".t",
    )


def test_same_table_same_node_as_jdbc_naming() -> None:
    """A Spark JDBC read and a crawl of the same PostgreSQL/MySQL table name one node."""
    assert sqlalchemy_table_dataset("postgresql+psycopg://h:5432/shop", "public", "orders") == jdbc_dataset(
        "jdbc:postgresql://h:5432/shop", "public.orders"
    )
    assert sqlalchemy_table_dataset("mysql+pymysql://h:3306/shop", None, "orders") == jdbc_dataset(
        "jdbc:mysql://h:3306/shop", "orders"
    )


def test_catalog_table_dataset() -> None:
    assert catalog_table_dataset("default", "employees") == ("headwater", "default.employees")
