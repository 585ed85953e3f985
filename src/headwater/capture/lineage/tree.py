"""The Catalyst tree model: Spark's ``TreeNode.toJSON`` output parsed into plain Python objects.

Spark serialises a tree as a flat, pre-order list of nodes; each node carries ``class``,
``num-children`` and its constructor fields. A field that holds a child is an index into the
node's children; a field that holds an expression holds that expression's own flat list; a
``Seq[Expression]`` holds a list of such lists; a field that holds a plan which is not a child
(``query`` of some commands, ``plan`` of a subquery expression) holds that plan's flat list.

Everything here is pure: no py4j, no Spark. The same model reads Spark 3.5 and 4.x output.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Self

_EXPRESSION_PACKAGE = ".expressions."
ATTRIBUTE_REFERENCE = "org.apache.spark.sql.catalyst.expressions.AttributeReference"


@lru_cache(maxsize=4096)
def short_name(cls: str) -> str:
    """``org.apache.spark.sql.catalyst.plans.logical.Project`` → ``Project`` (Scala ``$`` dropped; memoised:
    a wide plan asks for the same few class names thousands of times)."""
    return cls.rsplit(".", 1)[-1].rstrip("$")


class _TreeNode:
    """What expression and plan nodes share: a pre-order walk over the node and its children (not into nested
    plans), and the child a constructor field names by its index."""

    __slots__ = ()  # lets Expr keep its attributes in slots (no per-node ``__dict__``)

    fields: dict[str, Any]
    children: list[Self]

    def walk(self) -> Iterator[Self]:
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def child_field(self, name: str) -> Self | None:
        """The child held in constructor field ``name`` (e.g. ``predicate`` of ``If``, ``child`` of a plan node)."""
        idx = self.fields.get(name)
        if isinstance(idx, int) and not isinstance(idx, bool) and 0 <= idx < len(self.children):
            return self.children[idx]
        return None


class _NoChildren(list):  # type: ignore[type-arg]
    """The one empty ``children`` list every leaf expression shares (most nodes of a wide plan are leaves: one
    list fewer per node for the allocator and the cyclic garbage collector); it refuses to be changed."""

    def _refuse(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("a leaf expression's children cannot be changed")

    append = extend = insert = remove = pop = clear = sort = reverse = _refuse
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse  # type: ignore[assignment]


_LEAF_CHILDREN: list[Any] = _NoChildren()


@dataclass(slots=True)
class Expr(_TreeNode):
    """One Catalyst expression node. ``fields`` is the node's JSON object as ``toJSON`` wrote it (``class`` and
    ``num-children`` included; shared with the snapshot's ``query``, never changed), except for a node holding a
    plan: a copy whose plan fields say ``"__plan__"`` (the parsed plans are in ``plans``)."""

    cls: str
    fields: dict[str, Any]
    children: list[Expr] = field(default_factory=list)
    plans: dict[str, PlanNode] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return short_name(self.cls)

    @property
    def expr_id(self) -> int | None:
        raw = self.fields.get("exprId")
        if isinstance(raw, dict) and isinstance(raw.get("id"), int):
            return int(raw["id"])
        return None

    @property
    def attr_name(self) -> str:
        return str(self.fields.get("name", ""))


@dataclass
class PlanNode(_TreeNode):
    """One logical-plan node: its class, raw fields, parsed expression fields and children."""

    cls: str
    fields: dict[str, Any]
    children: list[PlanNode] = field(default_factory=list)
    exprs: dict[str, list[Expr]] = field(default_factory=dict)
    plans: dict[str, PlanNode] = field(default_factory=dict)
    leaf_index: int | None = None  # position among the tree's leaves, pre-order (matches collectLeaves)
    # :func:`subquery_plans` of this node, kept by its first call (the snapshot's leaf reading and the analysis
    # both ask; on a wide plan the walk over every expression node is the cost); not part of equality
    subqueries: list[PlanNode] | None = field(default=None, compare=False, repr=False)

    @property
    def name(self) -> str:
        return short_name(self.cls)

    def expr(self, name: str) -> Expr | None:
        values = self.exprs.get(name)
        return values[0] if values and self.fields.get(name) == "__single__" else None

    def expr_list(self, name: str) -> list[Expr]:
        return list(self.exprs.get(name, []))


class TreeFormatError(ValueError):
    """The JSON is not a Catalyst tree; the message says where it broke."""


def _is_node(value: Any) -> bool:
    return isinstance(value, dict) and "class" in value and "num-children" in value


def _is_tree(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and _is_node(value[0])


def _is_tree_seq(value: Any) -> bool:
    return (
        isinstance(value, list)
        and bool(value)
        and all(
            isinstance(v, list) and v and isinstance(v[0], dict) and "class" in v[0] and "num-children" in v[0]
            for v in value
        )
    )


def _is_expression_class(cls: str) -> bool:
    return _EXPRESSION_PACKAGE in cls


class _Reader:
    """Consumes one flat pre-order list; iterative on the spine so deep plans cannot overflow."""

    def __init__(self, nodes: list[dict[str, Any]], where: str, hosts: list[Expr] | None = None) -> None:
        self.nodes = nodes
        self.pos = 0
        self.where = where
        self.hosts = hosts  # expressions read that hold a plan (see _expr)

    def _next(self) -> dict[str, Any]:
        if self.pos >= len(self.nodes):
            raise TreeFormatError(f"{self.where}: tree ends early at node {self.pos}")
        node = self.nodes[self.pos]
        if not _is_node(node):
            raise TreeFormatError(f"{self.where}: node {self.pos} has no 'class'/'num-children'")
        self.pos += 1
        return node

    def read_expr(self) -> Expr:
        """One expression tree. The hot loop of a wide plan (tens of thousands of nodes): node checks and field
        reading are inlined, and leaves (most nodes: attribute references, literals) are never pushed."""
        nodes, where, hosts = self.nodes, self.where, self.hosts
        end = len(nodes)
        raw = self._next()
        expr = _expr(raw, where, hosts)
        count = int(raw["num-children"])
        if not count:
            return expr
        parents: list[Expr] = [expr]
        remaining: list[int] = [count]  # children still to read, per open parent
        pos = self.pos
        try:
            while parents:
                if not remaining[-1]:
                    parents.pop()
                    remaining.pop()
                    continue
                remaining[-1] -= 1
                if pos >= end:
                    raise TreeFormatError(f"{where}: tree ends early at node {pos}")
                raw = nodes[pos]
                if not (isinstance(raw, dict) and "class" in raw and "num-children" in raw):
                    raise TreeFormatError(f"{where}: node {pos} has no 'class'/'num-children'")
                pos += 1
                child = _expr(raw, where, hosts)
                parents[-1].children.append(child)
                count = int(raw["num-children"])
                if count:
                    parents.append(child)
                    remaining.append(count)
        finally:
            self.pos = pos
        return expr

    def read_plan(self) -> PlanNode:
        raw = self._next()
        plan = PlanNode(cls=str(raw["class"]), fields={})
        _fill_plan_fields(plan, raw, self.where)
        todo: list[tuple[PlanNode, int]] = [(plan, int(raw["num-children"]))]
        while todo:
            parent, remaining = todo[-1]
            if remaining == 0:
                todo.pop()
                continue
            todo[-1] = (parent, remaining - 1)
            raw_child = self._next()
            child = PlanNode(cls=str(raw_child["class"]), fields={})
            _fill_plan_fields(child, raw_child, self.where)
            parent.children.append(child)
            todo.append((child, int(raw_child["num-children"])))
        return plan


def _expr(raw: dict[str, Any], where: str, hosts: list[Expr] | None = None) -> Expr:
    """One expression node, without its children (a leaf gets the shared empty list; a parent a new list its
    reader fills): the node's JSON object itself as its fields, except for a field holding a plan that is not an
    expression tree (a subquery's ``plan``), which is parsed (the node's fields are then a copy, that field
    ``"__plan__"``). Only list values are looked at (a plan is a non-empty list of nodes). An expression holding a
    plan is also appended to ``hosts`` (so a plan node whose expressions hold none needs no walk for them)."""
    cls = raw["class"]
    children = [] if raw["num-children"] else _LEAF_CHILDREN
    if cls == ATTRIBUTE_REFERENCE:  # most nodes of a wide plan; its fields (name, type, ids) never hold a plan
        return Expr(cls, raw, children, {})
    plans: dict[str, PlanNode] = {}
    for key, value in raw.items():
        if value.__class__ is list and value:
            first = value[0]
            if (
                isinstance(first, dict)
                and "class" in first
                and "num-children" in first
                and _EXPRESSION_PACKAGE not in str(first["class"])
            ):
                plans[key] = parse_plan(value, where=f"{where} > {short_name(str(raw['class']))}.{key}")
    if not plans:
        return Expr(str(cls), raw, children, plans)
    fields = raw.copy()
    for key in plans:
        fields[key] = "__plan__"
    expr = Expr(str(cls), fields, children, plans)
    if hosts is not None:
        hosts.append(expr)
    return expr


def _expression_seq(value: Any) -> bool | None:
    """For a list of trees (a ``Seq[...]`` field): True when every tree is an expression, False when one is not,
    None when ``value`` is not a non-empty list of trees (one pass over the list)."""
    if not isinstance(value, list) or not value:
        return None
    expressions = True
    for v in value:
        if not (isinstance(v, list) and v):
            return None
        head = v[0]
        if not (isinstance(head, dict) and "class" in head and "num-children" in head):
            return None
        if expressions and _EXPRESSION_PACKAGE not in str(head["class"]):
            expressions = False
    return expressions


def _fill_plan_fields(plan: PlanNode, raw: dict[str, Any], where: str) -> None:
    hosts: list[Expr] = []  # expressions of this node holding a plan: none means no subqueries to look for
    for key, value in raw.items():
        if key in ("class", "num-children"):
            continue
        here = f"{where} > {short_name(plan.cls)}.{key}"
        if _is_tree(value):
            if _is_expression_class(str(value[0]["class"])):
                plan.exprs[key] = [parse_expr(value, where=here, hosts=hosts)]
                plan.fields[key] = "__single__"
            else:
                plan.plans[key] = parse_plan(value, where=here)
                plan.fields[key] = "__plan__"
            continue
        seq = _expression_seq(value)
        if seq is True:
            plan.exprs[key] = [parse_expr(v, where=here, hosts=hosts) for v in value]
            plan.fields[key] = "__seq__"
        elif seq is False:
            plan.fields[key] = value
        elif isinstance(value, list) and value and all(_is_tree_seq(v) or v == [] for v in value):
            # Seq[Seq[Expression]] (Expand.projections): flatten with a marker per row
            rows = [[parse_expr(e, where=here, hosts=hosts) for e in row] for row in value]
            plan.fields[key] = {"__rows__": [len(r) for r in rows]}
            plan.exprs[key] = [e for row in rows for e in row]
        else:
            plan.fields[key] = value
    if not hosts:
        plan.subqueries = []


def parse_expr(nodes: list[dict[str, Any]], *, where: str = "expression", hosts: list[Expr] | None = None) -> Expr:
    """One expression tree; expressions in it that hold a plan are appended to ``hosts`` when given."""
    if len(nodes) == 1:  # a lone leaf (most of a wide projection: attribute references): no reader needed
        raw = nodes[0]
        if raw.__class__ is dict and "class" in raw and raw.get("num-children") == 0:
            return _expr(raw, where, hosts)
    reader = _Reader(nodes, where, hosts)
    expr = reader.read_expr()
    if reader.pos != len(nodes):
        raise TreeFormatError(f"{where}: {len(nodes) - reader.pos} node(s) left after the expression")
    return expr


def parse_plan(nodes: list[dict[str, Any]], *, where: str = "plan") -> PlanNode:
    """Parse a flat plan list; leaves get their pre-order ``leaf_index``."""
    if not _is_tree(nodes):
        raise TreeFormatError(f"{where}: expected a non-empty list of plan nodes")
    reader = _Reader(nodes, where)
    plan = reader.read_plan()
    if reader.pos != len(nodes):
        raise TreeFormatError(f"{where}: {len(nodes) - reader.pos} node(s) left after the plan")
    leaf = 0
    for node in plan.walk():
        if not node.children:
            node.leaf_index = leaf
            leaf += 1
    return plan


def expr_rows(plan: PlanNode, name: str) -> list[list[Expr]]:
    """The rows of a ``Seq[Seq[Expression]]`` field (``Expand.projections``)."""
    marker = plan.fields.get(name)
    flat = plan.exprs.get(name, [])
    if not isinstance(marker, dict) or "__rows__" not in marker:
        return [flat] if flat else []
    rows: list[list[Expr]] = []
    pos = 0
    for size in marker["__rows__"]:
        rows.append(flat[pos : pos + size])
        pos += size
    return rows


def subquery_plans(node: PlanNode) -> list[PlanNode]:
    """Plans held by subquery expressions of ``node``, in Spark's ``QueryPlan.subqueries`` order
    (expression fields in constructor order, each expression pre-order). Walked once per node: the tree is not
    changed after parsing, so the answer is kept on the node."""
    if node.subqueries is not None:
        return node.subqueries
    out: list[PlanNode] = []
    for key in node.fields:
        for expr in node.exprs.get(key, []):
            for e in expr.walk():
                if e.plans:
                    out.extend(e.plans.values())
    node.subqueries = out
    return out
