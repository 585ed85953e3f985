"""File writes: ``df.write.<format>(path)``, ``insertInto`` / SQL INSERT into a file-based table, and the data
part of CTAS / ``saveAsTable``; writes to a directory (``INSERT OVERWRITE DIRECTORY``)."""

from __future__ import annotations

from headwater.capture.jvmtypes import JavaObject

from ..model import CommandInfo, RelationInfo
from .jvm import Jvm, flag, option, string_list, text
from .registry import REGISTRY, Query
from .targets import catalog_table


@REGISTRY.command("InsertIntoHadoopFsRelationCommand", query=Query.FIELD)
def _insert_into_hadoop_fs(jvm: Jvm, root: JavaObject, name: str) -> CommandInfo | None:
    """The output path, or the catalog table it belongs to; OVERWRITE in overwrite mode, nothing on append."""
    cmd = CommandInfo(name=name)
    ct = option(root, "catalogTable")
    fmt = text(root, "fileFormat", "toString")
    if ct is not None:
        cmd.target = catalog_table(jvm, ct)
        cmd.target.format = fmt or cmd.target.format
    else:
        cmd.target = RelationInfo(
            kind="files", cls="HadoopFsRelation", paths=[str(root.outputPath().toString())], format=fmt
        )
    cmd.mode = text(root, "mode", "toString")
    cmd.output_columns = string_list(root, "outputColumnNames")
    return cmd


@REGISTRY.command("InsertIntoHiveDirCommand", query=Query.FIELD, catalog=True)  # InsertIntoHiveDirVisitor: catalog()
@REGISTRY.command("InsertIntoDataSourceDirCommand", query=Query.FIELD)
def _insert_into_dir(jvm: Jvm, root: JavaObject, name: str) -> CommandInfo | None:
    """``INSERT OVERWRITE [LOCAL] DIRECTORY '<path>'``: the directory (``storage.locationUri``) as a path dataset,
    OVERWRITE when it overwrites (the integration's InsertIntoHiveDirVisitor, pysparkHiveOverwriteDirCompleteEvent)."""
    cmd = CommandInfo(name=name)
    location = option(root, "storage", "locationUri")
    if location is not None:
        cmd.target = RelationInfo(
            kind="files",
            cls=name,
            paths=[str(location.toString())],
            format=text(root, "provider") if name == "InsertIntoDataSourceDirCommand" else "hive",
        )
    cmd.mode = "Overwrite" if flag(root, "overwrite") else "Append"
    return cmd
