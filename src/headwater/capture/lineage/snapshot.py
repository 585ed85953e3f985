"""What the analysis needs from a Spark ``QueryExecution``, read through py4j in a few calls.

The result, :class:`PlanSnapshot`, is plain data (JSON round-trip safe): the query plan as
Spark's ``toJSON`` list, and for the few things ``toJSON`` leaves out (file locations, JDBC
options, catalog metadata, write modes, metrics) a small description read with targeted py4j
calls on the leaf relations and the root command only. The plan itself is never walked
node by node over py4j. Everything after the snapshot is pure Python (:mod:`.build`), which is
what the golden tests exercise.

What is read from a given root command or leaf relation is its plan-node handler's business
(:mod:`.handlers`, by class name); this module drives the reads: which plan, the size guard, the
leaves of the plan and its subqueries, the executed plan's metrics, the SQL text.
"""

from __future__ import annotations

import logging
import re
from dataclasses import asdict, dataclass, field
from typing import Any

from headwater.capture.jvmtypes import JavaObject, PySparkObject

from .columns import QUERY_OPERATORS
from .handlers import REGISTRY, Jvm, Query, Registry, guarded
from .handlers.jvm import call, class_name, loads_json, scala_option, struct_json, text
from .model import CommandInfo, RelationInfo
from .tree import PlanNode, parse_plan, short_name, subquery_plans

log = logging.getLogger(__name__)

__all__ = ["CommandInfo", "PlanSnapshot", "RelationInfo", "describe_command", "describe_leaf", "take_snapshot"]


@dataclass
class PlanSnapshot:
    spark_version: str = ""
    root: str = ""  # class name of the root node (the command for writes)
    root_command: bool = False  # the root is a Spark logical Command (read over py4j only when no handler knows it)
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
    # the analysed query's resolved output schema (Spark's StructType JSON, one py4j call): the real type of
    # every output column, computed ones included (``count(*)`` → long), which toJSON does not carry
    output_schema: dict[str, Any] | None = None
    # exprIds of the analysed query's output attributes, in order (one py4j call: ``output().mkString``); toJSON
    # loses some operators' output pruning (Generate's ``unrequiredChildIndex`` is written as null)
    output_ids: list[int] | None = None
    # the session's Hive catalog facet (name, framework, type, source, warehouseUri, metadataUri), read only when
    # a command or leaf whose handler adds it is in the plan; None outside a Hive session
    catalog: dict[str, str] | None = None

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
    def from_dict(cls, raw: dict[str, Any]) -> PlanSnapshot:
        data = dict(raw)
        data["relations"] = {k: RelationInfo.from_dict(v) for k, v in (raw.get("relations") or {}).items()}
        if raw.get("command") is not None:
            data["command"] = CommandInfo.from_dict(raw["command"])
        return cls(**data)


# ---------------------------------------------------------------------------------------------


def _describe_plan_leaves(
    jvm: Jvm, registry: Registry, jplan: JavaObject, plan: PlanNode, out: dict[str, RelationInfo], prefix: str = ""
) -> None:
    """Describe the leaves of ``plan`` (the parsed ``jplan``) and of the subqueries inside it."""
    leaves = [n for n in plan.walk() if not n.children]
    jleaves = jplan.collectLeaves()
    count = int(jleaves.size())
    if count != len(leaves):
        log.debug("headwater lineage: %d leaves over py4j, %d in JSON; leaves not described", count, len(leaves))
        return
    for i, node in enumerate(leaves):
        handler = registry.leaf_for(node.name)
        if handler is not None and handler.describe is None:  # names no dataset: no py4j call
            out[f"{prefix}L{i}"] = RelationInfo(kind="none", cls=node.name)
            continue
        jleaf = jleaves.apply(i)
        out[f"{prefix}L{i}"] = guarded(
            lambda: registry.describe_leaf(jvm, jleaf, node.name), RelationInfo(kind="unknown", cls=node.name)
        )
    # subqueries held by expressions: reach their host node once, then recurse
    for pos, node in enumerate(plan.walk()):
        subs = subquery_plans(node)
        if not subs:
            continue
        jnode = guarded(lambda: _navigate(jplan, plan, node))
        if jnode is None:
            continue
        jsubs = call(jnode, "subqueries")
        if jsubs is None or int(jsubs.size()) != len(subs):
            continue
        for k, sub in enumerate(subs):
            _describe_plan_leaves(jvm, registry, jsubs.apply(k), sub, out, f"{prefix}{pos}.{k}/")


def _navigate(jplan: JavaObject, plan: PlanNode, target: PlanNode) -> JavaObject:
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


def _query_of(registry: Registry, root: JavaObject, name: str) -> JavaObject:
    """The plan the root ``name`` stands for (its handler says which), or None when it reads nothing."""
    query = registry.query_of(name)
    if query is Query.FIELD:
        return call(root, "query")
    return root if query is Query.ROOT else None


def describe_command(jvm: Jvm, root: JavaObject, name: str, registry: Registry = REGISTRY) -> CommandInfo | None:
    """The write/DDL target of the root command (its handler's ``describe``), or None for a plain query."""
    handler = registry.command_for(name)
    return handler.describe(jvm, root, name) if handler is not None else None


def describe_leaf(jvm: Jvm, leaf: JavaObject, name: str, registry: Registry = REGISTRY) -> RelationInfo:
    """What the leaf relation ``name`` names (its handler's ``describe``); unknown without a handler."""
    return registry.describe_leaf(jvm, leaf, name)


def _executed_root(top: JavaObject, top_name: str) -> tuple[JavaObject, str]:
    """The executed physical root (``top``, named ``top_name``), unwrapped from adaptive execution's wrappers, and
    its class's short name."""
    plan, name = top, top_name
    for _ in range(4):
        if plan is None:
            break
        if name == "AdaptiveSparkPlanExec":
            plan = call(plan, "executedPlan") or plan
            name = short_name(class_name(plan))  # read once (two py4j calls): the loop goes on with it
            if name == "AdaptiveSparkPlanExec":
                break
            continue
        elif name in (
            "ResultQueryStageExec",
            "ShuffleQueryStageExec",
            "BroadcastQueryStageExec",
            "TableCacheQueryStageExec",
        ):
            plan = call(plan, "plan")
        else:
            break
        name = short_name(class_name(plan)) if plan is not None else ""
    return plan, name


def _action_node(top: JavaObject, top_name: str, executed: JavaObject) -> str:
    """The ``nodeName`` the integration's job names use (``JobNameBuilder.sparkNodeName``): the executed plan's
    root ``top``, unwrapped from ``WholeStageCodegen`` only (an adaptive root stays ``AdaptiveSparkPlan``)."""
    plan = top
    if plan is not None and top_name == "WholeStageCodegenExec":
        plan = call(plan, "child")
    if plan is None:
        plan = executed
    return (text(plan, "nodeName") or "") if plan is not None else ""


def _metrics(plan: JavaObject, name: str) -> dict[str, int]:
    """The write metrics of the executed root ``plan`` (its class's short name: ``name``)."""
    if plan is None:
        return {}
    holder = call(plan, "cmd") if name in ("DataWritingCommandExec", "ExecutedCommandExec") else None
    metrics = call(holder or plan, "metrics")
    out: dict[str, int] = {}
    if metrics is None:
        return out
    for key in ("numOutputRows", "numOutputBytes", "numFiles"):
        value = guarded(lambda: int(metrics.apply(key).value()) if metrics.contains(key) else None)
        if value is not None:
            out[key] = value
    return out


_ATTR_SEP = "\u0001"
_ATTR_IDS = re.compile(r"#(\d+)L?(?=\u0001|\Z)")  # the exprId ending each item (``name#12``, ``count#13L``)


def _output_ids(jquery: JavaObject) -> list[int] | None:
    """The exprIds of ``jquery.output()`` (``name#12``, ``count#13L``), or None when one cannot be read."""
    raw = guarded(lambda: str(jquery.output().mkString(_ATTR_SEP)))
    if raw is None:
        return None
    if not raw:
        return []
    ids = _ATTR_IDS.findall(raw)  # one match per item exactly when every item ends with its exprId
    if len(ids) != raw.count(_ATTR_SEP) + 1:
        return None
    return [int(i) for i in ids]


def _sql_text(qe: JavaObject) -> str | None:
    for plan in ("logical", "analyzed"):
        sql = guarded(lambda: scala_option(getattr(qe, plan)().origin().sqlText()))
        if sql:
            return str(sql)
    return None


def _needs_analyzed(registry: Registry, plan: PlanNode) -> str | None:
    """The first node of ``plan`` whose handler says the optimized plan hides lineage (a cached relation, a V2
    scan with pushed-down filters), or None."""
    analyzed_instead = registry.analyzed_instead()
    for n in plan.walk():
        if n.name in analyzed_instead:
            return n.name
    return None


_loads_plan = loads_json  # the plan's toJSON text → exactly what json.loads returns (orjson where identical)


# Largest plan JSON we ask the JVM for. toJSON materialises the whole document on the driver heap:
# an analyzed plan of 500 withColumn calls over 1,000 columns is ~150 MB and can exhaust it.
MAX_PLAN_JSON_BYTES = 32 * 1024 * 1024
_BYTES_PER_ATTRIBUTE = 350  # one AttributeReference in toJSON, with its exprId and metadata


def estimated_json_bytes(jplan: JavaObject) -> int:
    """A cheap upper estimate of ``jplan.toJSON()``'s size: operators × output width × attribute size.

    ``toString`` is bounded (Spark truncates each node's field list), so counting its lines costs
    little; only an int crosses py4j."""
    lines = int(len(jplan.toString().split("\n")))
    width = max(int(jplan.output().size()), 1)
    return lines * width * _BYTES_PER_ATTRIBUTE * 2


def _leaves_only(jvm: Jvm, registry: Registry, jquery: JavaObject, snap: PlanSnapshot) -> None:
    """Too large to read: describe just the leaf relations (inputs, no column lineage)."""
    jleaves = jquery.collectLeaves()
    for i in range(int(jleaves.size())):
        jleaf = jleaves.apply(i)
        name = short_name(class_name(jleaf))
        snap.relations[f"L{i}"] = guarded(
            lambda: registry.describe_leaf(jvm, jleaf, name), RelationInfo(kind="unknown", cls=name)
        )
        schema = struct_json(jleaf, "schema") or {}
        snap.leaf_columns[f"L{i}"] = [[f.get("name", ""), f.get("type")] for f in schema.get("fields", [])]


def take_snapshot(qe: JavaObject, spark: PySparkObject, registry: Registry = REGISTRY) -> PlanSnapshot:
    """Read one QueryExecution into a :class:`PlanSnapshot` (a handful of py4j calls); ``registry``: the
    plan-node handlers (tests pass their own)."""
    jvm = Jvm(spark)
    snap = PlanSnapshot(spark_version=str(guarded(lambda: spark.version, "")))
    root = call(qe, "optimizedPlan")
    if root is None:
        root = qe.analyzed()
        snap.plan_source = "analyzed"
    name = short_name(class_name(root))
    snap.root = name
    if registry.command_for(name) is None and name not in QUERY_OPERATORS and registry.leaf_for(name) is None:
        # a root no handler knows: is it a command? (one py4j call; not made for plain query roots)
        snap.root_command = name.endswith("Command") or jvm.is_command(root)
    snap.command = guarded(lambda: describe_command(jvm, root, name, registry))
    jquery = _query_of(registry, root, name)
    if jquery is not None and estimated_json_bytes(jquery) > MAX_PLAN_JSON_BYTES:
        snap.notes.append("plan too large for toJSON: inputs without column lineage")
        _leaves_only(jvm, registry, jquery, snap)
        jquery = None
    if jquery is not None:
        query_json = _loads_plan(str(jquery.toJSON()))
        plan = parse_plan(query_json)
        reason = _needs_analyzed(registry, plan) if snap.plan_source == "optimized" else None
        if reason is not None:
            aroot = qe.analyzed()
            ajquery = _query_of(registry, aroot, short_name(class_name(aroot)))
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
        snap.output_schema = struct_json(jquery, "schema")
        snap.output_ids = _output_ids(jquery)
        _describe_plan_leaves(jvm, registry, jquery, plan, snap.relations)
    if registry.catalog_command(name) or any(registry.catalog_leaf(r.cls) for r in snap.relations.values()):
        snap.catalog = guarded(jvm.hive_catalog)
    top = call(qe, "executedPlan")  # read once: its root names the action, its unwrapped root has the metrics
    top_name = short_name(class_name(top)) if top is not None else ""
    executed, executed_name = _executed_root(top, top_name)
    snap.metrics = _metrics(executed, executed_name)
    snap.action_node = _action_node(top, top_name, executed)
    snap.sql = _sql_text(qe)
    return snap
