"""What the analysis needs from a Spark ``QueryExecution``, read through py4j in a few calls.

The result, :class:`PlanSnapshot`, is plain data (JSON round-trip safe): the query plan as
Spark's ``toJSON`` list, and for the few things ``toJSON`` leaves out (file locations, JDBC
options, catalog metadata, write modes, metrics) a small description read with targeted py4j
calls on the leaf relations and the root command only. The plan itself is never walked
node by node over py4j. Everything after the snapshot is pure Python (:mod:`.build`), which is
what the golden tests exercise.
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass, field
from typing import Any

import orjson

from .tree import PlanNode, parse_plan, short_name, subquery_plans

log = logging.getLogger(__name__)

SEP = "\u0001"


@dataclass
class RelationInfo:
    """A leaf relation or write target, described by what naming needs."""

    kind: str  # files | table | jdbc | v2 | none | unknown
    cls: str = ""
    paths: list[str] = field(default_factory=list)
    format: str | None = None
    table: str | None = None  # "db.table" (catalog tables) or "ns.table" (V2 identifiers)
    catalog: str | None = None  # V2 catalog name, "spark_catalog" for the session catalog
    metastore: str | None = None  # symlink namespace of catalog tables
    jdbc_url: str | None = None
    jdbc_table: str | None = None
    provider: str | None = None

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> "RelationInfo":
        return cls(**raw)


@dataclass
class CommandInfo:
    name: str
    target: RelationInfo | None = None
    mode: str | None = None  # Spark SaveMode name, or "Overwrite"/"Append" for SQL inserts
    previous: RelationInfo | None = None
    output_columns: list[str] | None = None
    schema: Any = None  # Spark StructType JSON, for DDL without a query

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> "CommandInfo":
        data = dict(raw)
        for key in ("target", "previous"):
            if data.get(key) is not None:
                data[key] = RelationInfo.from_dict(data[key])
        return cls(**data)


@dataclass
class PlanSnapshot:
    spark_version: str = ""
    root: str = ""  # class name of the root node (the command for writes)
    action_node: str = ""  # nodeName of the executed physical root, e.g. "Execute InsertIntoHadoopFsRelationCommand"
    query: list[Any] | None = None  # toJSON of the query plan analysed for lineage
    plan_source: str = "optimized"
    relations: dict[str, RelationInfo] = field(default_factory=dict)
    command: CommandInfo | None = None
    metrics: dict[str, int] = field(default_factory=dict)
    sql: str | None = None
    notes: list[str] = field(default_factory=list)
    # columns of the leaves, only when the plan was too large to read (``query`` is then None)
    leaf_columns: dict[str, list[list[Any]]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def parsed_query(self) -> PlanNode | None:
        """``query`` parsed, once: :func:`take_snapshot` parses it anyway and keeps the tree here, outside
        the data fields (``to_dict`` and equality ignore it), so the analysis does not parse it again."""
        if not self.query:
            return None
        cached = self.__dict__.get("_parsed")
        if cached is None or cached[0] is not self.query:
            cached = (self.query, parse_plan(self.query))
            self.__dict__["_parsed"] = cached
        return cached[1]

    def keep_parsed(self, plan: PlanNode) -> None:
        """Remember ``plan`` as the parse of the current ``query`` (it must be exactly that)."""
        self.__dict__["_parsed"] = (self.query, plan)

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> "PlanSnapshot":
        data = dict(raw)
        data["relations"] = {k: RelationInfo.from_dict(v) for k, v in (raw.get("relations") or {}).items()}
        if raw.get("command") is not None:
            data["command"] = CommandInfo.from_dict(raw["command"])
        return cls(**data)


# ---------------------------------------------------------------------------------------------
# py4j helpers: each swallows its own failure (an unknown class must never break capture)


def _try(fn: Any, default: Any = None) -> Any:
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - py4j raises many kinds; all mean "not available"
        log.debug("headwater lineage: py4j read failed: %s", str(exc).splitlines()[0] if str(exc) else exc)
        return default


def _opt(option: Any) -> Any:
    """A Scala ``Option``'s value or None."""
    if option is None:
        return None
    return option.get() if option.isDefined() else None


def _cls(obj: Any) -> str:
    return str(obj.getClass().getName())


class _Context:
    def __init__(self, spark: Any) -> None:
        self.spark = spark
        self.jsession = spark._jsparkSession
        self._metastore: str | None = None
        self._conf = self.jsession.conf()

    def conf(self, key: str) -> str | None:
        value = _try(lambda: self._conf.get(key, ""), "")
        return str(value) if value else None

    @property
    def metastore(self) -> str:
        """Symlink namespace of session-catalog tables: ``hive://host:port`` or the warehouse URI."""
        if self._metastore is None:
            uris = self.conf("spark.hadoop.hive.metastore.uris") or self.conf("spark.sql.hive.metastore.uris")
            if not uris:
                uris = _try(lambda: self.jsession.sparkContext().hadoopConfiguration().get("hive.metastore.uris"))
            if uris:
                first = str(uris).split(",")[0].strip()
                self._metastore = "hive://" + first.split("://", 1)[-1]
            else:
                wh = self.conf("spark.sql.warehouse.dir") or "spark-warehouse"
                self._metastore = wh.rstrip("/") if ":" in wh else f"file:{wh.rstrip('/')}"
        return self._metastore

    def session_catalog(self) -> Any:
        return self.jsession.sessionState().catalog()


def _catalog_table(ctx: _Context, ct: Any, kind_hint: str = "table") -> RelationInfo:
    ident = ct.identifier()
    db = _try(lambda: _opt(ident.database())) or _try(lambda: str(ctx.session_catalog().getCurrentDatabase()))
    name = f"{db}.{ident.table()}" if db else str(ident.table())
    location = _try(lambda: ct.location().toString())
    if not location:
        location = _try(lambda: ctx.session_catalog().defaultTablePath(ident).toString())
    provider = _try(lambda: _opt(ct.provider()))
    return RelationInfo(kind=kind_hint, cls="CatalogTable", paths=[location] if location else [], table=name,
                        catalog="spark_catalog", metastore=ctx.metastore, provider=provider, format=provider)


def _table_identifier(ctx: _Context, ident: Any) -> RelationInfo:
    """A ``TableIdentifier`` → its table, looked up in the session catalog when it still exists."""
    meta = _try(lambda: ctx.session_catalog().getTableMetadata(ident))
    if meta is not None:
        return _catalog_table(ctx, meta)
    db = _try(lambda: _opt(ident.database())) or _try(lambda: ctx.session_catalog().getCurrentDatabase())
    name = f"{db}.{ident.table()}" if db else str(ident.table())
    location = _try(lambda: ctx.session_catalog().defaultTablePath(ident).toString())
    return RelationInfo(kind="table", cls="TableIdentifier", paths=[location] if location else [], table=name,
                        catalog="spark_catalog", metastore=ctx.metastore)


def _v2_table(ctx: _Context, table: Any, catalog_name: str | None, ident: str | None) -> RelationInfo:
    tcls = _cls(table)
    info = RelationInfo(kind="v2", cls=short_name(tcls), catalog=catalog_name, table=ident or str(table.name()))
    if short_name(tcls) == "JDBCTable":
        opts = table.jdbcOptions()
        info.jdbc_url = str(opts.url())
        info.jdbc_table = str(opts.tableOrQuery())
        return info
    props = _try(lambda: table.properties(), None)
    if props is not None:
        location = _try(lambda: props.get("location"))
        info.provider = _try(lambda: props.get("provider"))
        if location:
            info.paths = [str(location)]
    v1 = _try(lambda: table.v1Table()) if short_name(tcls) == "V1Table" else None
    if v1 is not None:
        return _catalog_table(ctx, v1)
    return info


def _v2_relation(ctx: _Context, rel: Any) -> RelationInfo:
    catalog = _try(lambda: str(_opt(rel.catalog()).name()))
    ident = _try(lambda: str(_opt(rel.identifier())))
    return _v2_table(ctx, rel.table(), catalog, ident)


def _logical_relation(ctx: _Context, leaf: Any) -> RelationInfo:
    rel = leaf.relation()
    rcls = short_name(_cls(rel))
    ct = _try(lambda: _opt(leaf.catalogTable()))
    if rcls == "HadoopFsRelation":
        paths = str(_try(lambda: rel.location().rootPaths().mkString(SEP), "") or "")
        fmt = _try(lambda: str(rel.fileFormat().toString()))
        if ct is not None:
            info = _catalog_table(ctx, ct)
            info.format = fmt or info.format
            return info
        return RelationInfo(kind="files", cls=rcls, paths=[p for p in paths.split(SEP) if p], format=fmt)
    if rcls == "JDBCRelation":
        opts = rel.jdbcOptions()
        return RelationInfo(kind="jdbc", cls=rcls, jdbc_url=str(opts.url()), jdbc_table=str(opts.tableOrQuery()))
    if ct is not None:
        return _catalog_table(ctx, ct)
    return RelationInfo(kind="unknown", cls=rcls)


def describe_leaf(ctx: _Context, leaf: Any, name: str) -> RelationInfo:
    if name == "LogicalRelation":
        return _logical_relation(ctx, leaf)
    if name == "HiveTableRelation":
        info = _catalog_table(ctx, leaf.tableMeta())
        info.format = info.format or "hive"
        return info
    if name == "DataSourceV2Relation":
        return _v2_relation(ctx, leaf)
    if name == "DataSourceV2ScanRelation":
        return _v2_relation(ctx, leaf.relation())
    if name in ("LogicalRDD", "LocalRelation", "Range", "OneRowRelation", "ResolvedIdentifier",
                "CTERelationRef", "LogicalQueryStage", "ExternalRDD"):
        return RelationInfo(kind="none", cls=name)
    return RelationInfo(kind="unknown", cls=name)


# ---------------------------------------------------------------------------------------------


def _describe_plan_leaves(ctx: _Context, jplan: Any, plan: PlanNode, out: dict[str, RelationInfo],
                          prefix: str = "") -> None:
    """Describe the leaves of ``plan`` (the parsed ``jplan``) and of the subqueries inside it."""
    leaves = [n for n in plan.walk() if not n.children]
    jleaves = jplan.collectLeaves()
    count = int(jleaves.size())
    if count != len(leaves):
        log.debug("headwater lineage: %d leaves over py4j, %d in JSON; leaves not described", count, len(leaves))
        return
    for i, node in enumerate(leaves):
        if node.name in ("LogicalRDD", "LocalRelation", "Range", "OneRowRelation", "CTERelationRef"):
            out[f"{prefix}L{i}"] = RelationInfo(kind="none", cls=node.name)
            continue
        jleaf = jleaves.apply(i)
        out[f"{prefix}L{i}"] = _try(lambda: describe_leaf(ctx, jleaf, node.name), RelationInfo(kind="unknown", cls=node.name))
    # subqueries held by expressions: reach their host node once, then recurse
    for pos, node in enumerate(plan.walk()):
        subs = subquery_plans(node)
        if not subs:
            continue
        jnode = _try(lambda: _navigate(jplan, plan, node))
        if jnode is None:
            continue
        jsubs = _try(lambda: jnode.subqueries())
        if jsubs is None or int(jsubs.size()) != len(subs):
            continue
        for k, sub in enumerate(subs):
            _describe_plan_leaves(ctx, jsubs.apply(k), sub, out, f"{prefix}{pos}.{k}/")


def _navigate(jplan: Any, plan: PlanNode, target: PlanNode) -> Any:
    path: list[int] = []

    def find(node: PlanNode) -> bool:
        stack: list[tuple[PlanNode, list[int]]] = [(node, [])]
        while stack:
            cur, p = stack.pop()
            if cur is target:
                path.extend(p)
                return True
            stack.extend((c, p + [i]) for i, c in enumerate(cur.children))
        return False

    if not find(plan):
        return None
    j = jplan
    for i in path:
        j = j.children().apply(i)
    return j


_QUERY_COMMANDS = {
    "InsertIntoHadoopFsRelationCommand", "CreateDataSourceTableAsSelectCommand", "SaveAsV1TableCommand",
    "SaveIntoDataSourceCommand", "AppendData", "OverwriteByExpression", "OverwritePartitionsDynamic",
    "CreateTableAsSelect", "ReplaceTableAsSelect", "InsertIntoHiveTable", "CreateHiveTableAsSelectCommand",
    "OptimizedCreateHiveTableAsSelectCommand", "InsertIntoDataSourceCommand", "InsertIntoDataSourceDirCommand",
    "InsertIntoHiveDirCommand", "CreateViewCommand",
}


def _query_of(root: Any, name: str) -> Any:
    if name == "CreateViewCommand":
        return None  # a view stores a query; nothing is read or written
    if name in _QUERY_COMMANDS:
        return _try(lambda: root.query())
    if name.endswith("Command") or name in ("DropTable", "CreateTable", "ReplaceTable", "TruncateTable"):
        return None
    return root


def _output_columns(root: Any) -> list[str] | None:
    raw = _try(lambda: root.outputColumnNames().mkString(SEP))
    return None if raw is None else ([c for c in str(raw).split(SEP)] if raw != "" else [])


def _jdbc_conf_url(ctx: _Context, catalog: str | None) -> str | None:
    return ctx.conf(f"spark.sql.catalog.{catalog}.url") if catalog else None


def _resolved_identifier(ctx: _Context, rid: Any, *, load: bool) -> RelationInfo | None:
    catalog = rid.catalog()
    cname = str(catalog.name())
    ident = rid.identifier()
    namespace = [str(x) for x in _try(lambda: list(ident.namespace()), []) or []]
    tname = str(ident.name())
    full = ".".join(namespace + [tname])
    if cname == "spark_catalog":
        tid = ctx.jsession.sessionState().sqlParser().parseTableIdentifier(full)
        return _table_identifier(ctx, tid)
    if load:
        table = _try(lambda: catalog.loadTable(ident))
        if table is not None:
            return _v2_table(ctx, table, cname, full)
    url = _jdbc_conf_url(ctx, cname)
    if url:
        return RelationInfo(kind="v2", cls="JDBCTable", catalog=cname, table=full, jdbc_url=url, jdbc_table=full)
    return RelationInfo(kind="v2", cls="unknown", catalog=cname, table=full)


def describe_command(ctx: _Context, root: Any, name: str) -> CommandInfo | None:
    """The write/DDL target of the root command, or None for a plain query."""
    cmd = CommandInfo(name=name)
    if name == "InsertIntoHadoopFsRelationCommand":
        ct = _try(lambda: _opt(root.catalogTable()))
        fmt = _try(lambda: str(root.fileFormat().toString()))
        if ct is not None:
            cmd.target = _catalog_table(ctx, ct)
            cmd.target.format = fmt or cmd.target.format
        else:
            cmd.target = RelationInfo(kind="files", cls="HadoopFsRelation",
                                      paths=[str(root.outputPath().toString())], format=fmt)
        cmd.mode = _try(lambda: str(root.mode().toString()))
        cmd.output_columns = _output_columns(root)
    elif name in ("CreateDataSourceTableAsSelectCommand", "SaveAsV1TableCommand", "CreateHiveTableAsSelectCommand",
                  "OptimizedCreateHiveTableAsSelectCommand"):
        ct = _try(lambda: root.table()) or _try(lambda: root.tableDesc())
        cmd.target = _catalog_table(ctx, ct) if ct is not None else None
        cmd.mode = _try(lambda: str(root.mode().toString()))
        cmd.output_columns = _output_columns(root)
    elif name in ("CreateDataSourceTableCommand", "CreateTableCommand"):
        ct = root.table()
        cmd.target = _catalog_table(ctx, ct)
        cmd.schema = _try(lambda: json.loads(str(ct.schema().json())))
    elif name == "InsertIntoHiveTable":
        cmd.target = _catalog_table(ctx, root.table())
        cmd.mode = "Overwrite" if _try(lambda: bool(root.overwrite())) else "Append"
        cmd.output_columns = _output_columns(root)
    elif name == "InsertIntoDataSourceCommand":
        cmd.target = _try(lambda: _logical_relation(ctx, root.logicalRelation()))
        cmd.mode = "Overwrite" if _try(lambda: bool(root.overwrite())) else "Append"
    elif name == "SaveIntoDataSourceCommand":
        opts = root.options()
        provider = _cls(root.dataSource())
        url = _try(lambda: _opt(opts.get("url")))
        dbtable = _try(lambda: _opt(opts.get("dbtable")))
        path = _try(lambda: _opt(opts.get("path")))
        if url and dbtable:
            cmd.target = RelationInfo(kind="jdbc", cls="JDBCRelation", jdbc_url=str(url), jdbc_table=str(dbtable))
        elif path:
            cmd.target = RelationInfo(kind="files", cls=short_name(provider), paths=[str(path)])
        else:
            cmd.target = RelationInfo(kind="unknown", cls=short_name(provider))
        cmd.mode = _try(lambda: str(root.mode().toString()))
    elif name in ("AppendData", "OverwriteByExpression", "OverwritePartitionsDynamic"):
        cmd.target = _try(lambda: _v2_relation(ctx, root.table()))
        cmd.mode = "Append" if name == "AppendData" else "Overwrite"
    elif name in ("CreateTableAsSelect", "ReplaceTableAsSelect", "CreateTable", "ReplaceTable"):
        cmd.target = _try(lambda: _resolved_identifier(ctx, root.name(), load=True))
        cmd.mode = "Overwrite" if name.startswith("Replace") else "ErrorIfExists"
        if name in ("CreateTable", "ReplaceTable"):
            cmd.schema = _try(lambda: json.loads(str(root.tableSchema().json())))
    elif name in ("DropTable", "TruncateTable"):
        cmd.target = _try(lambda: _resolved_identifier(ctx, root.child(), load=False))
    elif name in ("DropTableCommand", "TruncateTableCommand"):
        cmd.target = _try(lambda: _table_identifier(ctx, root.tableName()))
    elif name == "AlterTableRenameCommand":
        cmd.previous = _try(lambda: _table_identifier(ctx, root.oldName()))
        cmd.target = _try(lambda: _table_identifier(ctx, root.newName()))
    elif name.startswith("AlterTable") and name.endswith("Command"):
        ident = _try(lambda: root.tableName()) or _try(lambda: root.table())
        cmd.target = _try(lambda: _table_identifier(ctx, ident)) if ident is not None else None
        if cmd.target is not None:
            meta = _try(lambda: ctx.session_catalog().getTableMetadata(ident))
            cmd.schema = _try(lambda: json.loads(str(meta.schema().json()))) if meta is not None else None
    else:
        return None
    return cmd


def _executed_root(qe: Any) -> Any:
    """The executed physical root, unwrapped from adaptive execution's wrappers."""
    plan = _try(lambda: qe.executedPlan())
    for _ in range(4):
        if plan is None:
            break
        name = short_name(_cls(plan))
        if name == "AdaptiveSparkPlanExec":
            plan = _try(lambda: plan.executedPlan(), None) or plan
            if short_name(_cls(plan)) == "AdaptiveSparkPlanExec":
                break
        elif name in ("ResultQueryStageExec", "ShuffleQueryStageExec", "BroadcastQueryStageExec",
                      "TableCacheQueryStageExec"):
            plan = _try(lambda: plan.plan(), None)
        else:
            break
    return plan


def _metrics(plan: Any) -> dict[str, int]:
    if plan is None:
        return {}
    holder = _try(lambda: plan.cmd()) if short_name(_cls(plan)) in ("DataWritingCommandExec", "ExecutedCommandExec") else None
    metrics = _try(lambda: (holder or plan).metrics())
    out: dict[str, int] = {}
    if metrics is None:
        return out
    for key in ("numOutputRows", "numOutputBytes", "numFiles"):
        value = _try(lambda: int(metrics.apply(key).value()) if metrics.contains(key) else None)
        if value is not None:
            out[key] = value
    return out


def _sql_text(qe: Any) -> str | None:
    for getter in (lambda: qe.logical(), lambda: qe.analyzed()):
        text = _try(lambda: _opt(getter().origin().sqlText()))
        if text:
            return str(text)
    return None


# In these the optimized plan hides lineage the analyzed plan still shows: a cached relation
# stands for a plan we cannot see, and a V2 scan may have absorbed pushed-down filters.
_ANALYZED_INSTEAD = frozenset({"InMemoryRelation", "DataSourceV2ScanRelation"})


def _needs_analyzed(plan: PlanNode) -> str | None:
    for n in plan.walk():
        if n.name in _ANALYZED_INSTEAD:
            return n.name
    return None


_DIGITS_TO_ZERO = bytes.maketrans(b"123456789", b"000000000")


def _loads_plan(text: str) -> Any:
    """``toJSON`` text → exactly what ``json.loads`` returns, faster: orjson (a wide plan is ~1 MB, ~3× faster),
    and the standard library where orjson would differ — a run of 20+ digits (an integer beyond 64 bits,
    which orjson reads as a float; a decimal literal in a plan can be one) — or refuses (NaN, Infinity).
    The same rule as the server's ``headwater.store.canonical.loads_text``; the agent does not import the store."""
    if b"0" * 20 not in text.encode("utf-8", "surrogatepass").translate(_DIGITS_TO_ZERO):
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            pass
    return json.loads(text)


# Largest plan JSON we ask the JVM for. toJSON materialises the whole document on the driver heap:
# an analyzed plan of 500 withColumn calls over 1,000 columns is ~150 MB and can exhaust it.
MAX_PLAN_JSON_BYTES = 32 * 1024 * 1024
_BYTES_PER_ATTRIBUTE = 350  # one AttributeReference in toJSON, with its exprId and metadata


def estimated_json_bytes(jplan: Any) -> int:
    """A cheap upper estimate of ``jplan.toJSON()``'s size: operators × output width × attribute size.

    ``toString`` is bounded (Spark truncates each node's field list), so counting its lines costs
    little; only an int crosses py4j."""
    lines = int(len(jplan.toString().split("\n")))
    width = max(int(jplan.output().size()), 1)
    return lines * width * _BYTES_PER_ATTRIBUTE * 2


def _leaves_only(ctx: _Context, jquery: Any, snap: PlanSnapshot) -> None:
    """Too large to read: describe just the leaf relations (inputs, no column lineage)."""
    jleaves = jquery.collectLeaves()
    for i in range(int(jleaves.size())):
        jleaf = jleaves.apply(i)
        name = short_name(_cls(jleaf))
        snap.relations[f"L{i}"] = _try(lambda: describe_leaf(ctx, jleaf, name), RelationInfo(kind="unknown", cls=name))
        schema = _try(lambda: json.loads(str(jleaf.schema().json())), {}) or {}
        snap.leaf_columns[f"L{i}"] = [[f.get("name", ""), f.get("type")] for f in schema.get("fields", [])]


def take_snapshot(qe: Any, spark: Any) -> PlanSnapshot:
    """Read one QueryExecution into a :class:`PlanSnapshot` (a handful of py4j calls)."""
    ctx = _Context(spark)
    snap = PlanSnapshot(spark_version=str(_try(lambda: spark.version, "")))
    root = _try(lambda: qe.optimizedPlan())
    if root is None:
        root = qe.analyzed()
        snap.plan_source = "analyzed"
    name = short_name(_cls(root))
    snap.root = name
    snap.command = _try(lambda: describe_command(ctx, root, name))
    jquery = _query_of(root, name)
    if jquery is not None and estimated_json_bytes(jquery) > MAX_PLAN_JSON_BYTES:
        snap.notes.append("plan too large for toJSON: inputs without column lineage")
        _leaves_only(ctx, jquery, snap)
        jquery = None
    if jquery is not None:
        query_json = _loads_plan(str(jquery.toJSON()))
        plan = parse_plan(query_json)
        reason = _needs_analyzed(plan) if snap.plan_source == "optimized" else None
        if reason is not None:
            aroot = qe.analyzed()
            ajquery = _query_of(aroot, short_name(_cls(aroot)))
            if ajquery is not None and estimated_json_bytes(ajquery) > MAX_PLAN_JSON_BYTES:
                snap.notes.append(f"{reason} in the optimized plan, analyzed plan too large: optimized plan kept")
                ajquery = None
            if ajquery is not None:
                jquery = ajquery
                query_json = _loads_plan(str(jquery.toJSON()))
                plan = parse_plan(query_json)
                snap.plan_source = "analyzed"
                snap.notes.append(f"{reason} in the optimized plan: analyzed plan used")
        snap.query = query_json
        snap.keep_parsed(plan)
        _describe_plan_leaves(ctx, jquery, plan, snap.relations)
    executed = _executed_root(qe)
    snap.metrics = _metrics(executed)
    snap.action_node = str(_try(lambda: executed.nodeName(), "") or "") if executed is not None else ""
    snap.sql = _sql_text(qe)
    return snap
