"""The tree reader's fast expression loop gives exactly the trees (and the errors) of the straightforward reader
it replaced, kept here as the reference: over every golden snapshot (real Spark 3.5 and 4.x plans), the
1,000-column synthetic plan, and damaged trees."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from headwater.capture.lineage import tree
from headwater.capture.lineage.tree import Expr, PlanNode, TreeFormatError, parse_plan, short_name

from .golden_util import GOLDEN
from .test_wide_plan import wide_plan

SNAPSHOTS = sorted(GOLDEN.glob("*.snapshot.json"))


# -- the reference: the reader as it was (one call per node and per field) ---------------------------------


class _Reference(tree._Reader):
    def read_expr(self) -> Expr:
        raw = self._next()
        expr = Expr(cls=str(raw["class"]), fields={})
        _ref_fill_fields(expr, raw, self.where)
        todo: list[tuple[Expr, int]] = [(expr, int(raw["num-children"]))]
        while todo:
            parent, remaining = todo[-1]
            if remaining == 0:
                todo.pop()
                continue
            todo[-1] = (parent, remaining - 1)
            raw_child = self._next()
            child = Expr(cls=str(raw_child["class"]), fields={})
            _ref_fill_fields(child, raw_child, self.where)
            parent.children.append(child)
            todo.append((child, int(raw_child["num-children"])))
        return expr


def _ref_fill_fields(expr: Expr, raw: dict[str, Any], where: str) -> None:
    for key, value in raw.items():  # ``class`` and ``num-children`` too: an expression's fields are its JSON object
        if tree._is_tree(value) and not tree._is_expression_class(str(value[0]["class"])):
            expr.plans[key] = parse_plan(value, where=f"{where} > {short_name(expr.cls)}.{key}")
            expr.fields[key] = "__plan__"
        else:
            expr.fields[key] = value


def reference_parse(nodes: list[Any], monkeypatch: pytest.MonkeyPatch) -> PlanNode:
    with monkeypatch.context() as m:
        m.setattr(tree, "_Reader", _Reference)
        return parse_plan(nodes)


def flat(root: PlanNode) -> list[tuple[Any, ...]]:
    """Every node of a parsed tree in pre-order, with its class, fields and shape: compared instead of the
    dataclasses' own ``==``, which recurses and overflows the stack on the wide plan (thousands deep)."""
    out: list[tuple[Any, ...]] = []
    stack: list[PlanNode | Expr] = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, PlanNode):
            out.append(
                (
                    "plan",
                    node.cls,
                    node.fields,
                    node.leaf_index,
                    len(node.children),
                    [(k, len(v)) for k, v in node.exprs.items()],
                    list(node.plans),
                )
            )
            todo: list[PlanNode | Expr] = [e for v in node.exprs.values() for e in v]
        else:
            out.append(("expr", node.cls, node.fields, len(node.children), list(node.plans)))
            todo = []
        todo += [*node.plans.values(), *node.children]
        stack.extend(reversed(todo))
    return out


def _plans_of(snapshot: Path) -> list[list[Any]]:
    raw = json.loads(snapshot.read_text())
    return [raw["query"]] if raw.get("query") else []


@pytest.mark.parametrize("snapshot", SNAPSHOTS, ids=[p.name.removesuffix(".snapshot.json") for p in SNAPSHOTS])
def test_same_trees_as_the_reference_on_real_plans(snapshot: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for nodes in _plans_of(snapshot):
        assert flat(parse_plan(nodes)) == flat(reference_parse(nodes, monkeypatch))


def test_same_tree_on_the_widest_plan(monkeypatch: pytest.MonkeyPatch) -> None:
    nodes = wide_plan()
    got = parse_plan(nodes)
    assert flat(got) == flat(reference_parse(nodes, monkeypatch))
    expression_nodes = sum(1 for n in got.walk() for e in n.exprs.get("projectList", []) for _ in e.walk())
    assert expression_nodes > 100_000


def _damaged(nodes: list[Any]) -> list[tuple[str, list[Any]]]:
    """Expression trees cut short or with a broken node, at several depths."""
    out = []
    for i, node in enumerate(nodes):
        for key, value in node.items():
            if (
                isinstance(value, list)
                and value
                and isinstance(value[0], list)
                and value[0]
                and isinstance(value[0][0], dict)
                and ".expressions." in str(value[0][0].get("class"))
            ):
                for j, expr in enumerate(value[:3]):
                    if len(expr) < 2:
                        continue
                    cut = copy.deepcopy(nodes)
                    cut[i][key][j] = expr[:-1]
                    out.append((f"cut {i}.{key}[{j}]", cut))
                    broken = copy.deepcopy(nodes)
                    broken[i][key][j] = [expr[0], {"no": "class"}, *expr[2:]]
                    out.append((f"broken {i}.{key}[{j}]", broken))
                    extra = copy.deepcopy(nodes)
                    extra[i][key][j] = [*expr, expr[-1]]
                    out.append((f"extra {i}.{key}[{j}]", extra))
    return out


def test_same_errors_as_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    cases = [c for s in SNAPSHOTS for nodes in _plans_of(s) for c in _damaged(nodes)]
    assert len(cases) > 30
    for label, nodes in cases:
        try:
            expected: Any = flat(reference_parse(nodes, monkeypatch))
        except TreeFormatError as exc:
            expected = f"error: {exc}"
        try:
            got: Any = flat(parse_plan(nodes))
        except TreeFormatError as exc:
            got = f"error: {exc}"
        assert got == expected, label


def test_expressions_keep_their_json_objects_and_leaves_share_one_unchangeable_children_list() -> None:
    """A wide plan has tens of thousands of expression nodes: none is copied, no leaf gets a list of its own."""
    ns = "org.apache.spark.sql.catalyst.expressions."
    add = {"class": ns + "Add", "num-children": 2, "left": 0, "right": 1, "evalMode": "LEGACY"}
    a = {"class": ns + "AttributeReference", "num-children": 0, "name": "a", "exprId": {"id": 7}}
    one = {"class": ns + "Literal", "num-children": 0, "value": "1", "dataType": "integer"}
    expr = tree.parse_expr([add, a, one])
    assert expr.fields is add and expr.name == "Add" and expr.fields.get("evalMode") == "LEGACY"
    left, right = expr.children
    assert left.fields is a and left.expr_id == 7 and left.attr_name == "a" and right.fields is one
    assert left.children is right.children and list(left.children) == []
    with pytest.raises(TypeError):
        left.children.append(expr)
    assert list(right.children) == [] and list(expr.walk()) == [expr, left, right]
