"""DDL: CREATE / REPLACE / DROP / TRUNCATE / ALTER TABLE, V1 (session catalog) and V2. Each changes metadata
only (``ddl``): its output has the schema the DDL gives (or the table's current one), no column lineage and
no output statistics."""

from __future__ import annotations

from headwater.capture.jvmtypes import JavaObject

from ..model import CommandInfo
from .jvm import Jvm, call, guarded, struct_json
from .registry import REGISTRY, always
from .targets import catalog_table, resolved_identifier, table_identifier


@REGISTRY.command(
    "CreateDataSourceTableCommand", "CreateTableCommand", ddl=True, lifecycle=always("CREATE"), catalog=True
)
def _create_v1(jvm: Jvm, root: JavaObject, name: str) -> CommandInfo | None:
    """The new table and its schema."""
    cmd = CommandInfo(name=name)
    ct = root.table()
    cmd.target = catalog_table(jvm, ct)
    cmd.schema = struct_json(ct, "schema")
    return cmd


def _create_v2(jvm: Jvm, root: JavaObject, name: str) -> CommandInfo | None:
    """The table named by the resolved identifier and the schema of the statement."""
    cmd = CommandInfo(name=name)
    cmd.target = guarded(lambda: resolved_identifier(jvm, root.name(), load=True))
    cmd.mode = "Overwrite" if name.startswith("Replace") else "ErrorIfExists"
    cmd.schema = struct_json(root, "tableSchema")
    return cmd


REGISTRY.command("CreateTable", ddl=True, lifecycle=always("CREATE"))(_create_v2)
REGISTRY.command("ReplaceTable", ddl=True, lifecycle=always("OVERWRITE"))(_create_v2)


def _v2_child(jvm: Jvm, root: JavaObject, name: str) -> CommandInfo | None:
    """The table of the V2 command's ``child`` (a resolved identifier; the table is not loaded: it may be gone)."""
    return CommandInfo(name=name, target=guarded(lambda: resolved_identifier(jvm, root.child(), load=False)))


REGISTRY.command("DropTable", ddl=True, lifecycle=always("DROP"))(_v2_child)
REGISTRY.command("TruncateTable", ddl=True, lifecycle=always("TRUNCATE"))(_v2_child)


def _v1_table_name(jvm: Jvm, root: JavaObject, name: str) -> CommandInfo | None:
    """The table of the V1 command's ``tableName``."""
    return CommandInfo(name=name, target=guarded(lambda: table_identifier(jvm, root.tableName())))


REGISTRY.command("DropTableCommand", ddl=True, lifecycle=always("DROP"), catalog=True)(_v1_table_name)
REGISTRY.command("TruncateTableCommand", ddl=True, lifecycle=always("TRUNCATE"), catalog=True)(_v1_table_name)


@REGISTRY.command("AlterTableRenameCommand", ddl=True, lifecycle=always("RENAME"))
def _rename(jvm: Jvm, root: JavaObject, name: str) -> CommandInfo | None:
    """The new name as the target, the old one as ``previousIdentifier``."""
    cmd = CommandInfo(name=name)
    cmd.previous = guarded(lambda: table_identifier(jvm, root.oldName()))
    cmd.target = guarded(lambda: table_identifier(jvm, root.newName()))
    cmd.schema = _current_schema(jvm, call(root, "newName"))  # the renamed table's schema (pysparkAlterTableRenameEnd)
    return cmd


def _current_schema(jvm: Jvm, ident: JavaObject) -> JavaObject:
    """The table's schema as the catalog has it now: after the command (the listener runs once it is done)."""
    if ident is None:
        return None
    meta = guarded(lambda: jvm.session_catalog().getTableMetadata(ident))
    return struct_json(meta, "schema") if meta is not None else None


@REGISTRY.command("LoadDataCommand", ddl=True, catalog=True)
def _load_data(jvm: Jvm, root: JavaObject, name: str) -> CommandInfo | None:
    """``LOAD DATA [LOCAL] INPATH ... [OVERWRITE] INTO TABLE t``: the table with its schema, as the integration's
    LoadDataCommandVisitor reports it (OVERWRITE as the lifecycle of ``OVERWRITE``; the loaded path is not an
    input there either)."""
    ident = call(root, "table")
    cmd = CommandInfo(name=name, target=guarded(lambda: table_identifier(jvm, ident)) if ident is not None else None)
    cmd.mode = "Overwrite" if guarded(lambda: bool(root.isOverwrite()), False) else "Append"
    cmd.schema = _current_schema(jvm, ident)
    return cmd


def _is_alter_table(name: str) -> bool:
    return name.startswith("AlterTable") and name.endswith("Command")


@REGISTRY.command(ddl=True, lifecycle=always("ALTER"), pattern=_is_alter_table)
def _alter(jvm: Jvm, root: JavaObject, name: str) -> CommandInfo | None:
    """Any other ``AlterTable*Command``: the table (``tableName`` or ``table``) with its current schema."""
    cmd = CommandInfo(name=name)
    ident = call(root, "tableName") or call(root, "table")
    cmd.target = guarded(lambda: table_identifier(jvm, ident)) if ident is not None else None
    if cmd.target is not None:
        meta = guarded(lambda: jvm.session_catalog().getTableMetadata(ident))
        cmd.schema = struct_json(meta, "schema") if meta is not None else None
    return cmd


# the integration's AlterTableAddColumnsCommandVisitor, AlterTableAddPartitionCommandVisitor and
# AlterTableSetLocationCommandVisitor build their dataset from the CatalogTable (SparkDatasetBuilder.dataset): the
# Hive catalog facet in a Hive session; its other ALTER visitors (rename) do not
REGISTRY.command(
    "AlterTableAddColumnsCommand",
    "AlterTableAddPartitionCommand",
    "AlterTableSetLocationCommand",
    ddl=True,
    lifecycle=always("ALTER"),
    catalog=True,
)(_alter)
