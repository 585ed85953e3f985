"""Column-level lineage over a parsed logical plan, by ``exprId`` (pure).

One bottom-up pass records, for every attribute an operator creates, the attributes it is made
from (``edges``), which attributes are columns of a leaf relation (``sources``) and which
attributes decide which rows exist (``dataset_deps``: filters, join conditions, grouping keys,
sorts). A second step follows the edges from each output attribute down to the leaf columns,
combining transformation kinds along the way (:mod:`.transform`).

Operators that keep attributes (SubqueryAlias, View, Limit, Repartition, WriteFiles, ...) need
no rule: attributes flow through them by ``exprId``. Unknown operators degrade to "attributes we
can still follow" and are reported in ``unknown``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from headwater.model.column_lineage import FILTER, GROUP_BY, IDENTITY_T, JOIN, SORT, TRANSFORMATION_T, TInfo, indirect

from .expressions import Dep, expression_deps
from .tree import ATTRIBUTE_REFERENCE, Expr, PlanNode, expr_rows, subquery_plans

SourceKey = tuple[str, str]  # (leaf key, column name)


# equal and hashable by value like a frozen one; never changed after it is made, but not frozen: a frozen
# dataclass's __init__ is ~6x slower (a wide plan makes thousands of these); slots: no ``__dict__`` per attribute
@dataclass(unsafe_hash=True, slots=True)
class Attr:
    expr_id: int
    name: str
    data_type: Any = None
    nullable: bool = True


@dataclass
class LineageGraph:
    edges: dict[int, list[Dep]] = field(default_factory=dict)
    sources: dict[int, SourceKey] = field(default_factory=dict)
    dataset_deps: list[Dep] = field(default_factory=list)
    leaves: dict[str, PlanNode] = field(default_factory=dict)
    unknown: set[str] = field(default_factory=set)

    def add(self, target: int, deps: Iterable[Dep]) -> None:
        bucket = self.edges.setdefault(target, [])
        bucket.extend(d for d in deps if d[0] != target)


def attr_of(expr: Expr) -> Attr | None:
    # Expr.expr_id and Expr.attr_name inlined: called once per named expression of every operator (thousands on a
    # wide plan)
    fields = expr.fields
    raw = fields.get("exprId")
    if not isinstance(raw, dict):
        return None
    eid = raw.get("id")
    if not isinstance(eid, int):
        return None
    data_type = fields.get("dataType")
    if data_type is None and expr.children:
        data_type = _type_of(expr.children[0])
    return Attr(int(eid), str(fields.get("name", "")), data_type, bool(fields.get("nullable", True)))


def leaf_output(node: PlanNode) -> list[Expr]:
    """The output attributes of a leaf: its ``output`` field, or ``dataCols ++ partitionCols`` for a
    ``HiveTableRelation`` (a Hive-format table read as itself: toJSON has no ``output`` field for it)."""
    out = node.expr_list("output")
    if out:
        return out
    return node.expr_list("dataCols") + node.expr_list("partitionCols")


def _type_of(expr: Expr) -> Any:
    return expr.fields.get("dataType")


# operators whose output is exactly their (first) child's output
_PASS_THROUGH = frozenset(
    {
        "SubqueryAlias",
        "View",
        "WriteFiles",
        "GlobalLimit",
        "LocalLimit",
        "Limit",
        "Offset",
        "Tail",
        "Sample",
        "Repartition",
        "RepartitionByExpression",
        "RebalancePartitions",
        "ResolvedHint",
        "Distinct",
        "Deduplicate",
        "DeduplicateWithinWatermark",
        "Subquery",
        "Filter",
        "Sort",
        "CollectMetrics",
        "EventTimeWatermark",
        "Intersect",
        "Except",
        "WithCTE",
        "CTERelationDef",
        "ReturnAnswer",
        "Coalesce",
        "LocalLimitAndOffset",
        "OrderPreservingUnaryNode",
        "Unpivot",
    }
)
# whole-row Python/Arrow functions: every output column may depend on every input column
_OPAQUE_MAPS = frozenset(
    {
        "MapInPandas",
        "MapInArrow",
        "PythonMapInArrow",
        "FlatMapGroupsInPandas",
        "FlatMapGroupsInArrow",
        "FlatMapCoGroupsInPandas",
        "FlatMapCoGroupsInArrow",
        "FlatMapGroupsInPandasWithState",
        "AttachDistributedSequence",
    }
)
_PYTHON_EVAL = frozenset({"BatchEvalPython", "ArrowEvalPython", "BatchEvalPythonUDTF", "ArrowEvalPythonUDTF"})
_EXISTENCE_JOINS = ("LeftSemi", "LeftAnti", "ExistenceJoin")
# every query operator this module knows: a root among them is a plain query, not a command
QUERY_OPERATORS = (
    _PASS_THROUGH
    | _OPAQUE_MAPS
    | _PYTHON_EVAL
    | frozenset({"Project", "Aggregate", "Window", "Join", "Union", "Expand", "Generate"})
)


class ColumnAnalyzer:
    """Builds a :class:`LineageGraph` for one query plan (and the subqueries inside it)."""

    def __init__(self) -> None:
        self.graph = LineageGraph()
        self._cte_defs: dict[Any, PlanNode] = {}
        self._cte_refs: list[tuple[Any, list[Attr]]] = []
        self._outputs: dict[int, list[Attr]] = {}
        self._sub_index: dict[int, int] = {}

    # -- public ---------------------------------------------------------------------------------
    def analyze(self, plan: PlanNode, prefix: str = "") -> list[Attr]:
        """Analyse ``plan``; returns its output attributes in order."""
        order = self._post_order(plan)
        preorder_pos = {id(n): i for i, n in enumerate(plan.walk())}
        for node, parent in order:
            for k, sub in enumerate(subquery_plans(node)):
                self._sub_index[id(sub)] = k
            self._outputs[id(node)] = self._visit(node, parent, f"{prefix}{preorder_pos[id(node)]}.")
        if not prefix:
            self._link_ctes()
        return self._outputs[id(plan)]

    # -- internals ------------------------------------------------------------------------------
    @staticmethod
    def _post_order(plan: PlanNode) -> list[tuple[PlanNode, PlanNode | None]]:
        out: list[tuple[PlanNode, PlanNode | None]] = []
        stack: list[tuple[PlanNode, PlanNode | None, bool]] = [(plan, None, False)]
        while stack:
            node, parent, expanded = stack.pop()
            if expanded:
                out.append((node, parent))
                continue
            stack.append((node, parent, True))
            stack.extend((c, node, False) for c in reversed(node.children))
        return out

    def _child_output(self, node: PlanNode, i: int = 0) -> list[Attr]:
        if i < len(node.children):
            return self._outputs.get(id(node.children[i]), [])
        return []

    def _all_children_output(self, node: PlanNode) -> list[Attr]:
        out: list[Attr] = []
        for i in range(len(node.children)):
            out.extend(self._child_output(node, i))
        return out

    def _deps(self, expr: Expr, start: TInfo, host_prefix: str) -> list[Dep]:
        def resolve(sub: PlanNode) -> list[int]:
            k = self._sub_index.get(id(sub), 0)
            return [a.expr_id for a in self.analyze(sub, prefix=f"{host_prefix}{k}/")]

        return expression_deps(expr, start, resolve)

    def _named(self, exprs: list[Expr], host_prefix: str) -> list[Attr]:
        out: list[Attr] = []
        for e in exprs:
            attr = attr_of(e)
            if attr is None:
                continue
            if e.cls != ATTRIBUTE_REFERENCE and e.name != "AttributeReference":
                self.graph.add(attr.expr_id, self._deps(e, IDENTITY_T, host_prefix))
            out.append(attr)
        return out

    def _dataset(self, exprs: Iterable[Expr], subtype: str, host_prefix: str) -> None:
        t = indirect(subtype)
        for e in exprs:
            self.graph.dataset_deps.extend(self._deps(e, t, host_prefix))

    def _visit(self, node: PlanNode, parent: PlanNode | None, hp: str) -> list[Attr]:
        name = node.name
        if not node.children:
            return self._leaf(node, hp)
        if name == "Project":
            return self._named(node.expr_list("projectList"), hp)
        if name == "Aggregate":
            self._dataset(node.expr_list("groupingExpressions"), GROUP_BY, hp)
            return self._named(node.expr_list("aggregateExpressions"), hp)
        if name == "Window":
            return self._child_output(node) + self._named(node.expr_list("windowExpressions"), hp)
        if name == "Filter":
            self._dataset(node.expr_list("condition"), FILTER, hp)
            return self._child_output(node)
        if name == "Sort":
            planner_sort = parent is not None and parent.name == "WriteFiles" and not node.fields.get("global")
            if not planner_sort:  # V1Writes adds a local sort for partitioned writes: not the user's
                self._dataset(node.expr_list("order"), SORT, hp)
            return self._child_output(node)
        if name == "Join":
            self._dataset(node.expr_list("condition"), JOIN, hp)
            join_type = str(node.fields.get("joinType"))
            if any(k in join_type for k in _EXISTENCE_JOINS):
                return self._child_output(node, 0)
            return self._all_children_output(node)
        if name == "Union":
            return self._union(node)
        if name == "Expand":
            return self._expand(node, hp)
        if name == "Generate":
            return self._generate(node, hp)
        if name in _PYTHON_EVAL:
            return self._python_eval(node, hp)
        if name in _OPAQUE_MAPS:
            return self._opaque(node)
        if name in _PASS_THROUGH:
            if name in ("WithCTE",):
                return self._child_output(node, len(node.children) - 1)
            if name == "CTERelationDef":
                self._cte_defs[node.fields.get("id")] = node
            return self._child_output(node)
        self.graph.unknown.add(name)
        declared = [a for a in (attr_of(e) for e in node.expr_list("output")) if a is not None]
        return declared or self._all_children_output(node)

    def _leaf(self, node: PlanNode, hp: str) -> list[Attr]:
        attrs = [a for a in (attr_of(e) for e in leaf_output(node)) if a is not None]
        if node.name == "CTERelationRef":
            self._cte_refs.append((node.fields.get("cteId"), attrs))
            return attrs
        key = self._leaf_key(node, hp)
        self.graph.leaves[key] = node
        for a in attrs:
            self.graph.sources.setdefault(a.expr_id, (key, a.name))
        return attrs

    @staticmethod
    def _leaf_key(node: PlanNode, hp: str) -> str:
        # leaves of the top plan are "L<n>" (n = pre-order leaf index, as Spark's collectLeaves);
        # leaves of a subquery are "<host pre-order pos>.<k>/L<n>"
        prefix = hp[: hp.rfind("/") + 1] if "/" in hp else ""
        return f"{prefix}L{node.leaf_index}"

    def _union(self, node: PlanNode) -> list[Attr]:
        first = self._child_output(node, 0)
        for i in range(1, len(node.children)):
            other = self._child_output(node, i)
            for out_attr, in_attr in zip(first, other):
                self.graph.add(out_attr.expr_id, [(in_attr.expr_id, IDENTITY_T)])
        if node.expr_list("output"):
            return [a for a in (attr_of(e) for e in node.expr_list("output")) if a is not None]
        return first

    def _expand(self, node: PlanNode, hp: str) -> list[Attr]:
        out = [a for a in (attr_of(e) for e in node.expr_list("output")) if a is not None]
        for row in expr_rows(node, "projections"):
            for attr, e in zip(out, row):
                self.graph.add(attr.expr_id, self._deps(e, IDENTITY_T, hp))
        return out

    def _generate(self, node: PlanNode, hp: str) -> list[Attr]:
        gen_out = [a for a in (attr_of(e) for e in node.expr_list("generatorOutput")) if a is not None]
        generator = node.expr_list("generator")
        deps: list[Dep] = []
        for g in generator:
            deps.extend(self._deps(g, TRANSFORMATION_T, hp))
        for a in gen_out:
            self.graph.add(a.expr_id, deps)
        child = self._child_output(node)
        unrequired = node.fields.get("unrequiredChildIndex") or []
        if isinstance(unrequired, list) and all(isinstance(i, int) for i in unrequired):
            child = [a for i, a in enumerate(child) if i not in set(unrequired)]
        return child + gen_out

    def _python_eval(self, node: PlanNode, hp: str) -> list[Attr]:
        results = [a for a in (attr_of(e) for e in node.expr_list("resultAttrs")) if a is not None]
        udfs = node.expr_list("udfs") or node.expr_list("udtf")
        for attr, udf in zip(results, udfs):
            self.graph.add(attr.expr_id, self._deps(udf, IDENTITY_T, hp))
        return self._child_output(node) + results

    def _opaque(self, node: PlanNode) -> list[Attr]:
        out = [a for a in (attr_of(e) for e in node.expr_list("output")) if a is not None]
        inputs = [(a.expr_id, TRANSFORMATION_T) for a in self._all_children_output(node)]
        for a in out:
            self.graph.add(a.expr_id, inputs)
        return out

    def _link_ctes(self) -> None:
        for cte_id, attrs in self._cte_refs:
            definition = self._cte_defs.get(cte_id)
            if definition is None:
                continue
            target = self._outputs.get(id(definition), [])
            for ref_attr, def_attr in zip(attrs, target):
                self.graph.add(ref_attr.expr_id, [(def_attr.expr_id, IDENTITY_T)])


Resolved = dict[SourceKey, set[TInfo]]


def resolve_all(graph: LineageGraph, targets: Iterable[int]) -> dict[int, Resolved]:
    """Follow edges from each target to leaf columns (iterative DFS, memoised, cycle-safe)."""
    memo: dict[int, Resolved] = {}
    for target in targets:
        if target in memo:
            continue
        stack: list[tuple[int, bool]] = [(target, False)]
        on_path: set[int] = set()
        while stack:
            eid, ready = stack.pop()
            if eid in memo:
                continue
            if not ready:
                if eid in on_path:
                    continue
                on_path.add(eid)
                stack.append((eid, True))
                for child, _t in graph.edges.get(eid, ()):
                    if child not in memo and child not in on_path:
                        stack.append((child, False))
                continue
            on_path.discard(eid)
            res: Resolved = {}
            src = graph.sources.get(eid)
            if src is not None:
                res[src] = {IDENTITY_T}
            for child, t in graph.edges.get(eid, ()):
                for key, kinds in memo.get(child, {}).items():
                    bucket = res.setdefault(key, set())
                    bucket.update(t.merge(k) for k in kinds)
            memo[eid] = res
    return memo


@dataclass
class ColumnLineage:
    """Lineage of one query's output: per output column, and dataset-wide (INDIRECT) inputs."""

    output: list[Attr]
    fields: list[Resolved]  # aligned with ``output`` (names may repeat, e.g. after a join)
    dataset: Resolved
    graph: LineageGraph


def column_lineage(plan: PlanNode, output_ids: list[int] | None = None) -> ColumnLineage:
    """``output_ids``: the plan's output exprIds as Spark reports them (the snapshot's ``output_ids``); they
    win over the output the JSON implies when it has every one of them (toJSON drops Generate's pruning)."""
    analyzer = ColumnAnalyzer()
    output = analyzer.analyze(plan)
    if output_ids is not None and [a.expr_id for a in output] != output_ids:
        by_id = {a.expr_id: a for a in output}
        if all(i in by_id for i in output_ids):
            output = [by_id[i] for i in output_ids]
    graph = analyzer.graph
    targets = [a.expr_id for a in output] + [eid for eid, _t in graph.dataset_deps]
    memo = resolve_all(graph, targets)
    fields: list[Resolved] = [dict(memo.get(attr.expr_id, {})) for attr in output]
    dataset: Resolved = {}
    for eid, t in graph.dataset_deps:
        for key, kinds in memo.get(eid, {}).items():
            dataset.setdefault(key, set()).update(t.merge(k) for k in kinds)
    return ColumnLineage(output, fields, dataset, graph)
