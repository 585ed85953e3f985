"""Plan-node handlers, one module per family, registered by Spark class short name in :data:`REGISTRY`.

| module | family |
|---|---|
| :mod:`.reads` | leaf relations: files, catalog tables, JDBC, DataSource V2, cached plans, local data |
| :mod:`.file_writes` | ``InsertIntoHadoopFsRelationCommand``, writes to directories |
| :mod:`.datasource_writes` | ``SaveIntoDataSourceCommand`` (JDBC, ``save(path)``), ``InsertIntoDataSourceCommand`` |
| :mod:`.table_writes` | V1 catalog tables: ``saveAsTable``/CTAS, ``InsertIntoHiveTable`` |
| :mod:`.v2_writes` | V2 tables: ``AppendData``, ``OverwriteByExpression``, ``OverwritePartitionsDynamic``, CTAS/RTAS |
| :mod:`.ddl` | CREATE / REPLACE / DROP / TRUNCATE / ALTER (RENAME) TABLE, V1 and V2 |
| :mod:`.views` | view definitions (no output) |
| :mod:`.metadata` | commands that touch no data (SET, SHOW, DESCRIBE, CACHE, ANALYZE, ...) |
| :mod:`.streams` | Structured Streaming sources (files, rate, Kafka, tables) and sinks (files, memory, Kafka, tables) |

The registry is in :mod:`.registry`, the guarded py4j reads in :mod:`.jvm`, the table readers the families
share in :mod:`.targets`. A new Spark command: one function registered in the module of its family.
"""

from __future__ import annotations

from . import datasource_writes, ddl, file_writes, metadata, reads, streams, table_writes, v2_writes, views  # noqa: F401 - registration
from .jvm import Jvm, guarded
from .registry import (
    REGISTRY,
    CommandHandler,
    LeafHandler,
    Query,
    Registry,
    always,
    by_mode,
    report_unhandled,
)

__all__ = [
    "REGISTRY",
    "CommandHandler",
    "Jvm",
    "LeafHandler",
    "Query",
    "Registry",
    "always",
    "by_mode",
    "guarded",
    "report_unhandled",
]
