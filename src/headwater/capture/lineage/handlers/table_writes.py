"""Writes to session-catalog / Hive metastore tables (V1): ``saveAsTable`` and CTAS, INSERT into a Hive table."""

from __future__ import annotations

from headwater.capture.jvmtypes import JavaObject

from ..model import CommandInfo
from .jvm import Jvm, call, flag, string_list, text
from .registry import REGISTRY, Query
from .targets import catalog_table


def _create_as_select(cmd: CommandInfo) -> str | None:
    """CREATE for a new table, OVERWRITE in overwrite mode, nothing when appending to an existing table."""
    mode = cmd.mode or ""
    if mode == "Overwrite":
        return "OVERWRITE"
    return None if mode == "Append" else "CREATE"


# the integration's CreateDataSourceTableAsSelectCommandVisitor and CreateHiveTableAsSelectCommandVisitor add the
# Hive catalog facet; its OptimizedCreateHiveTableAsSelectCommandVisitor does not, and it has no visitor for Spark
# 4's SaveAsV1TableCommand
@REGISTRY.command(
    "SaveAsV1TableCommand", "OptimizedCreateHiveTableAsSelectCommand", query=Query.FIELD, lifecycle=_create_as_select
)
@REGISTRY.command(
    "CreateDataSourceTableAsSelectCommand",
    "CreateHiveTableAsSelectCommand",
    query=Query.FIELD,
    lifecycle=_create_as_select,
    catalog=True,
)
def _table_as_select(jvm: Jvm, root: JavaObject, name: str) -> CommandInfo | None:
    """The table (``table`` or, for Hive CTAS, ``tableDesc``), the save mode and the written column names."""
    cmd = CommandInfo(name=name)
    ct = call(root, "table") or call(root, "tableDesc")
    cmd.target = catalog_table(jvm, ct) if ct is not None else None
    cmd.mode = text(root, "mode", "toString")
    cmd.output_columns = string_list(root, "outputColumnNames")
    return cmd


@REGISTRY.command("InsertIntoHiveTable", query=Query.FIELD, catalog=True)
def _insert_into_hive_table(jvm: Jvm, root: JavaObject, name: str) -> CommandInfo | None:
    """The Hive table; OVERWRITE for INSERT OVERWRITE."""
    cmd = CommandInfo(name=name)
    cmd.target = catalog_table(jvm, root.table())
    cmd.mode = "Overwrite" if flag(root, "overwrite") else "Append"
    cmd.output_columns = string_list(root, "outputColumnNames")
    return cmd
