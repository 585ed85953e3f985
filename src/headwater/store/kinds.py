"""Dataset kind for the UI: file | table | jdbc | stream | other (pure)."""

from __future__ import annotations

from collections.abc import Mapping

from headwater.model import naming
from headwater.model.jsontypes import JSONMapping

FILE_SCHEMES = frozenset(
    {
        "file",
        "s3",
        "s3a",
        "s3n",
        "hdfs",
        "abfs",
        "abfss",
        "wasb",
        "wasbs",
        "gs",
        "gcs",
        "dbfs",
        "local",
        "viewfs",
        "oss",
        "adl",
        "alluxio",
    }
)
JDBC_SCHEMES = frozenset(
    {
        "postgres",
        "postgresql",
        "mysql",
        "mariadb",
        "jdbc",
        "sqlserver",
        "mssql",
        "oracle",
        "db2",
        "redshift",
        "sqlite",
        "teradata",
        "h2",
        "derby",
        "clickhouse",
        "vertica",
    }
)
STREAM_SCHEMES = frozenset({"kafka", "pulsar", "kinesis", "pubsub", "eventhubs", "rabbitmq"})
TABLE_SCHEMES = frozenset(
    {
        "bigquery",
        "snowflake",
        "hive",
        "trino",
        "presto",
        "athena",
        "glue",
        "databricks",
        "awsathena",
        "iceberg",
        "unity",
        "spark_catalog",
        "delta",
        "dremio",
        "duckdb",
        "sqlserver_table",
        "azurecosmos",
        "cassandra",
        "mongodb",
        "dynamodb",
    }
)


def scheme(namespace: str) -> str:
    """``s3://bucket`` → ``s3``; ``jdbc:sqlserver://h`` → ``jdbc``; ``file`` → ``file``."""
    return naming.scheme(namespace, family=True)


def dataset_kind(namespace: str, facets: JSONMapping) -> str:
    s = scheme(namespace)
    if s in JDBC_SCHEMES:
        return "jdbc"
    if s in STREAM_SCHEMES:
        return "stream"
    ds_type = facets.get("datasetType")
    if isinstance(ds_type, Mapping):
        value = str(ds_type.get("datasetType", "")).upper()
        if value in {"TABLE", "VIEW", "MATERIALIZED_VIEW"}:
            return "table"
        if value in {"STREAM", "TOPIC"}:
            return "stream"
        if value == "FILE":
            return "file"
    symlinks = facets.get("symlinks")
    if isinstance(symlinks, Mapping):
        for ident in symlinks.get("identifiers") or []:
            if isinstance(ident, Mapping) and str(ident.get("type", "")).upper() == "TABLE":
                return "table"
    if s in FILE_SCHEMES:
        return "file"
    if s in TABLE_SCHEMES:
        return "table"
    return "other"
