"""The SQL dialects the engine reads: Headwater's name → sqlglot's dialect and the dataset system it names."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Dialect:
    name: str  # what --dialect accepts
    sqlglot: str  # sqlglot's read dialect ("" = its generic ANSI-like default)
    system: str  # the dataset namespace scheme (OpenLineage naming spec) when no --namespace is given


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
    key = (name or "ansi").strip().lower()
    key = ALIASES.get(key, key)
    try:
        return DIALECTS[key]
    except KeyError:
        raise ValueError(f"unknown SQL dialect {name!r}; one of: {', '.join(sorted(DIALECTS))}") from None
