"""The SQL dialects the engine reads: Headwater's name → sqlglot's dialect and the dataset system it names.

Every dialect sqlglot has is accepted (the table below only adds names and dataset systems); a name neither
knows falls back to ANSI with a ``warning`` naming the fallback, so a statement is never refused for its
dialect's name."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlglot


@dataclass(frozen=True)
class Dialect:
    name: str  # what --dialect accepts
    sqlglot: str  # sqlglot's read dialect ("" = its generic ANSI-like default)
    system: str  # the dataset namespace scheme (OpenLineage naming spec) when no --namespace is given
    warning: str | None = None  # set when the name was not known and ANSI is read instead


DIALECTS: dict[str, Dialect] = {
    d.name: d
    for d in (
        Dialect("ansi", "", "sql"),
        Dialect("postgres", "postgres", "postgres"),
        Dialect("redshift", "redshift", "redshift"),
        Dialect("mysql", "mysql", "mysql"),
        Dialect("mariadb", "mysql", "mysql"),
        Dialect("spark", "spark", "spark"),
        Dialect("hive", "hive", "hive"),
        Dialect("databricks", "databricks", "spark"),
        Dialect("bigquery", "bigquery", "bigquery"),
        Dialect("snowflake", "snowflake", "snowflake"),
        Dialect("tsql", "tsql", "sqlserver"),
        Dialect("oracle", "oracle", "oracle"),
        Dialect("trino", "trino", "trino"),
        Dialect("duckdb", "duckdb", "duckdb"),
        Dialect("sqlite", "sqlite", "sqlite"),
        Dialect("teradata", "teradata", "teradata"),
        Dialect("presto", "presto", "presto"),
        Dialect("athena", "athena", "awsathena"),
        Dialect("clickhouse", "clickhouse", "clickhouse"),
        Dialect("fabric", "fabric", "sqlserver"),
        Dialect("materialize", "materialize", "postgres"),
        Dialect("risingwave", "risingwave", "postgres"),
        Dialect("spark2", "spark2", "spark"),
        Dialect("starrocks", "starrocks", "mysql"),
        Dialect("doris", "doris", "mysql"),
        Dialect("singlestore", "singlestore", "mysql"),
        Dialect("exasol", "exasol", "exasol"),
        Dialect("dremio", "dremio", "dremio"),
        Dialect("drill", "drill", "drill"),
        Dialect("druid", "druid", "druid"),
    )
}
ALIASES = {
    "postgresql": "postgres",
    "generic": "ansi",
    "sqlserver": "tsql",
    "mssql": "tsql",
    "sparksql": "spark",
    "spark-sql": "spark",
    "": "ansi",
}


def get_dialect(name: str | None) -> Dialect:
    """The dialect named ``name``: one of the table, else any sqlglot dialect (its name as the dataset
    system), else ANSI with a warning (never an error: a statement is still read)."""
    key = (name or "ansi").strip().lower()
    key = ALIASES.get(key, key)
    found = DIALECTS.get(key)
    if found is not None:
        return found
    import sqlglot

    try:
        sqlglot.Dialect.get_or_raise(key)
    except ValueError:
        ansi = DIALECTS["ansi"]
        return Dialect(
            ansi.name,
            ansi.sqlglot,
            ansi.system,
            warning=f"unknown SQL dialect {name!r}: read as ansi (one of: {', '.join(sorted(DIALECTS))})",
        )
    return Dialect(key, key, key)


@functools.lru_cache(maxsize=64)
def sqlglot_dialect(name: str | None) -> sqlglot.Dialect:
    """sqlglot's dialect object for one of its names ("" or None: its default), made once: sqlglot makes a new
    one each time a call is given a dialect's name, a good part of a short statement's cost."""
    import sqlglot

    return sqlglot.Dialect.get_or_raise(name or None)
