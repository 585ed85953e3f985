"""Write and DDL commands → the lifecycle change they make to their target (pure).

CREATE on table creation (CTAS, CREATE TABLE, saveAsTable of a new table), OVERWRITE on any
overwrite (mode("overwrite"), INSERT OVERWRITE, REPLACE TABLE, OverwriteByExpression), DROP,
TRUNCATE, RENAME (with the previous identifier) and ALTER; plain appends change nothing.
"""

from __future__ import annotations

from .snapshot import CommandInfo

_CREATE_AS_SELECT = frozenset({
    "CreateDataSourceTableAsSelectCommand", "SaveAsV1TableCommand", "CreateHiveTableAsSelectCommand",
    "OptimizedCreateHiveTableAsSelectCommand",
})
_CREATE = frozenset({"CreateDataSourceTableCommand", "CreateTableCommand", "CreateTable", "CreateTableAsSelect"})
_OVERWRITE = frozenset({"ReplaceTableAsSelect", "ReplaceTable", "OverwriteByExpression", "OverwritePartitionsDynamic"})
_DROP = frozenset({"DropTableCommand", "DropTable"})
_TRUNCATE = frozenset({"TruncateTableCommand", "TruncateTable"})
# commands that only change metadata: their target is an output without rows
DDL = frozenset({"CreateDataSourceTableCommand", "CreateTableCommand", "CreateTable", "ReplaceTable"}) | _DROP | _TRUNCATE


def lifecycle_of(cmd: CommandInfo) -> str | None:
    name, mode = cmd.name, (cmd.mode or "")
    if name in _CREATE_AS_SELECT:
        if mode == "Overwrite":
            return "OVERWRITE"
        return None if mode == "Append" else "CREATE"
    if name in _CREATE:
        return "CREATE"
    if name in _OVERWRITE:
        return "OVERWRITE"
    if name in _DROP:
        return "DROP"
    if name in _TRUNCATE:
        return "TRUNCATE"
    if name == "AlterTableRenameCommand":
        return "RENAME"
    if name.startswith("AlterTable"):
        return "ALTER"
    if mode == "Overwrite":
        return "OVERWRITE"
    return None


def is_ddl(cmd: CommandInfo) -> bool:
    return cmd.name in DDL or cmd.name.startswith("AlterTable")
