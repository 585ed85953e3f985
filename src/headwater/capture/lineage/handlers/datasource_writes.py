"""Writes through a V1 data source: ``df.write.jdbc`` / ``format("jdbc").save()`` (``SaveIntoDataSourceCommand``),
``save(path)`` of a non-file source, and INSERT into a ``InsertableRelation`` (``InsertIntoDataSourceCommand``)."""

from __future__ import annotations

from headwater.capture.jvmtypes import JavaObject

from ..model import CommandInfo, RelationInfo
from ..tree import short_name
from .jvm import Jvm, class_name, flag, guarded, scala_option, text
from .registry import REGISTRY, Query
from .targets import logical_relation


@REGISTRY.command("SaveIntoDataSourceCommand", query=Query.FIELD)
def _save_into_data_source(jvm: Jvm, root: JavaObject, name: str) -> CommandInfo | None:
    """The JDBC table (``url`` + ``dbtable`` options) or the ``path``; OVERWRITE in overwrite mode."""
    cmd = CommandInfo(name=name)
    opts = root.options()
    provider = class_name(root.dataSource())
    url = guarded(lambda: scala_option(opts.get("url")))
    dbtable = guarded(lambda: scala_option(opts.get("dbtable")))
    path = guarded(lambda: scala_option(opts.get("path")))
    if url and dbtable:
        cmd.target = RelationInfo(kind="jdbc", cls="JDBCRelation", jdbc_url=str(url), jdbc_table=str(dbtable))
    elif path:
        cmd.target = RelationInfo(kind="files", cls=short_name(provider), paths=[str(path)])
    else:
        cmd.target = RelationInfo(kind="unknown", cls=short_name(provider))
    cmd.mode = text(root, "mode", "toString")
    return cmd


@REGISTRY.command("InsertIntoDataSourceCommand", query=Query.FIELD)
def _insert_into_data_source(jvm: Jvm, root: JavaObject, name: str) -> CommandInfo | None:
    """The relation inserted into; OVERWRITE for INSERT OVERWRITE."""
    cmd = CommandInfo(name=name)
    cmd.target = guarded(lambda: logical_relation(jvm, root.logicalRelation()))
    cmd.mode = "Overwrite" if flag(root, "overwrite") else "Append"
    return cmd
