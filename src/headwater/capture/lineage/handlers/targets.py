"""Tables and relations read over py4j into :class:`RelationInfo`: shared by the read, write and DDL families.

Each function may raise (its caller decides what a failure means: a guarded read, or the whole command
left undescribed); the reads that are allowed to be missing are guarded here.
"""

from __future__ import annotations

from headwater.capture.jvmtypes import JavaObject

from ..model import RelationInfo
from ..tree import short_name
from .jvm import SEP, Jvm, call, class_name, guarded, option, scala_option, text


def catalog_table(jvm: Jvm, ct: JavaObject, kind_hint: str = "table") -> RelationInfo:
    """A ``CatalogTable`` (session catalog / Hive metastore) → its location, ``db.table`` and provider."""
    ident = ct.identifier()
    db = option(ident, "database") or guarded(lambda: str(jvm.session_catalog().getCurrentDatabase()))
    name = f"{db}.{ident.table()}" if db else str(ident.table())
    location = text(ct, "location", "toString")
    if not location:
        location = guarded(lambda: jvm.session_catalog().defaultTablePath(ident).toString())
    provider = option(ct, "provider")
    return RelationInfo(
        kind=kind_hint,
        cls="CatalogTable",
        paths=[location] if location else [],
        table=name,
        catalog="spark_catalog",
        metastore=jvm.metastore,
        provider=provider,
        format=provider,
    )


def table_identifier(jvm: Jvm, ident: JavaObject) -> RelationInfo:
    """A ``TableIdentifier`` → its table, looked up in the session catalog when it still exists."""
    meta = guarded(lambda: jvm.session_catalog().getTableMetadata(ident))
    if meta is not None:
        return catalog_table(jvm, meta)
    db = option(ident, "database") or guarded(lambda: jvm.session_catalog().getCurrentDatabase())
    name = f"{db}.{ident.table()}" if db else str(ident.table())
    location = guarded(lambda: jvm.session_catalog().defaultTablePath(ident).toString())
    return RelationInfo(
        kind="table",
        cls="TableIdentifier",
        paths=[location] if location else [],
        table=name,
        catalog="spark_catalog",
        metastore=jvm.metastore,
    )


def v2_table(jvm: Jvm, table: JavaObject, catalog_name: str | None, ident: str | None) -> RelationInfo:
    """A DataSource V2 ``Table``: the JDBC table catalog's url and table, else its location and provider."""
    tcls = short_name(class_name(table))
    info = RelationInfo(kind="v2", cls=tcls, catalog=catalog_name, table=ident or str(table.name()))
    if tcls == "JDBCTable":
        opts = table.jdbcOptions()
        info.jdbc_url = str(opts.url())
        info.jdbc_table = str(opts.tableOrQuery())
        return info
    props = call(table, "properties")
    if props is not None:
        location = guarded(lambda: props.get("location"))
        info.provider = guarded(lambda: props.get("provider"))
        if location:
            info.paths = [str(location)]
    v1 = call(table, "v1Table") if tcls == "V1Table" else None
    if v1 is not None:
        return catalog_table(jvm, v1)
    return info


def v2_relation(jvm: Jvm, rel: JavaObject) -> RelationInfo:
    """A ``DataSourceV2Relation`` → its table, with the catalog name and identifier it was resolved by."""
    catalog = guarded(lambda: str(scala_option(rel.catalog()).name()))
    ident = guarded(lambda: str(scala_option(rel.identifier())))
    return v2_table(jvm, rel.table(), catalog, ident)


def logical_relation(jvm: Jvm, leaf: JavaObject) -> RelationInfo:
    """A ``LogicalRelation`` → files (``HadoopFsRelation``), a JDBC table, or the catalog table it reads."""
    rel = leaf.relation()
    rcls = short_name(class_name(rel))
    ct = option(leaf, "catalogTable")
    if rcls == "HadoopFsRelation":
        paths = str(guarded(lambda: rel.location().rootPaths().mkString(SEP), "") or "")
        fmt = text(rel, "fileFormat", "toString")
        if ct is not None:
            info = catalog_table(jvm, ct)
            info.format = fmt or info.format
            return info
        return RelationInfo(kind="files", cls=rcls, paths=[p for p in paths.split(SEP) if p], format=fmt)
    if rcls == "JDBCRelation":
        opts = rel.jdbcOptions()
        return RelationInfo(kind="jdbc", cls=rcls, jdbc_url=str(opts.url()), jdbc_table=str(opts.tableOrQuery()))
    if ct is not None:
        return catalog_table(jvm, ct)
    return RelationInfo(kind="unknown", cls=rcls)


def resolved_identifier(jvm: Jvm, rid: JavaObject, *, load: bool) -> RelationInfo | None:
    """A V2 ``ResolvedIdentifier`` (catalog + identifier): a session-catalog table, a loaded V2 table
    (``load``), a JDBC table catalog's table named from its configured url, or just catalog + name."""
    catalog = rid.catalog()
    cname = str(catalog.name())
    ident = rid.identifier()
    namespace = [str(x) for x in guarded(lambda: list(ident.namespace()), []) or []]
    tname = str(ident.name())
    full = ".".join(namespace + [tname])
    if cname == "spark_catalog":
        tid = jvm.jsession.sessionState().sqlParser().parseTableIdentifier(full)
        return table_identifier(jvm, tid)
    if load:
        table = guarded(lambda: catalog.loadTable(ident))
        if table is not None:
            return v2_table(jvm, table, cname, full)
    url = jvm.conf(f"spark.sql.catalog.{cname}.url")
    if url:
        return RelationInfo(kind="v2", cls="JDBCTable", catalog=cname, table=full, jdbc_url=url, jdbc_table=full)
    return RelationInfo(kind="v2", cls="unknown", catalog=cname, table=full)
