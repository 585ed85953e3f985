"""Writes to DataSource V2 tables (JDBC table catalog, Iceberg, Delta, ...): appends, overwrites, CTAS/RTAS."""

from __future__ import annotations

from headwater.capture.jvmtypes import JavaObject

from ..model import CommandInfo
from .jvm import Jvm, guarded
from .registry import REGISTRY, Query, always
from .targets import resolved_identifier, v2_relation


def _v2_write(jvm: Jvm, root: JavaObject, name: str) -> CommandInfo | None:
    """The V2 relation written; Append for AppendData, Overwrite for the others."""
    cmd = CommandInfo(name=name)
    cmd.target = guarded(lambda: v2_relation(jvm, root.table()))
    cmd.mode = "Append" if name == "AppendData" else "Overwrite"
    return cmd


REGISTRY.command("AppendData", query=Query.FIELD)(_v2_write)
REGISTRY.command(
    "OverwriteByExpression", "OverwritePartitionsDynamic", query=Query.FIELD, lifecycle=always("OVERWRITE")
)(_v2_write)


def _v2_as_select(jvm: Jvm, root: JavaObject, name: str) -> CommandInfo | None:
    """The table named by the resolved identifier (loaded from its catalog when it exists)."""
    cmd = CommandInfo(name=name)
    cmd.target = guarded(lambda: resolved_identifier(jvm, root.name(), load=True))
    cmd.mode = "Overwrite" if name.startswith("Replace") else "ErrorIfExists"
    return cmd


REGISTRY.command("CreateTableAsSelect", query=Query.FIELD, lifecycle=always("CREATE"))(_v2_as_select)
REGISTRY.command("ReplaceTableAsSelect", query=Query.FIELD, lifecycle=always("OVERWRITE"))(_v2_as_select)
