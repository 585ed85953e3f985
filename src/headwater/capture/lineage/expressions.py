"""Which attributes an expression reads, and how (pure; OpenLineage's ``ExpressionTraverser`` rules).

- an attribute is a dependency with the transformation accumulated so far (IDENTITY at the top);
- ``Alias`` and other wrappers that do not change the value keep it;
- ``If``/``CaseWhen`` conditions are INDIRECT CONDITIONAL, their value branches (``THEN``, ``ELSE``, the
  two values of ``IF``) DIRECT TRANSFORMATION, a bare column included (OpenLineage's ``CaseWhenVisitor``,
  ``IfVisitor``);
- ``Coalesce`` arguments are both a TRANSFORMATION value and an INDIRECT CONDITIONAL (``CoalesceVisitor``);
  ``NULLIF``/``NVL``/``NVL2``/``IFNULL`` are Spark's If/Coalesce replacements and follow those rules;
- aggregate functions are AGGREGATION; window functions TRANSFORMATION and their partition/order
  INDIRECT WINDOW (ranking functions read only their window spec);
- hashes (sha1/sha2/md5/crc32/hash/xxhash64/hive hash), ``count`` and ``mask`` set masking;
- every other expression (casts, arithmetic, string functions, struct access, Python and pandas
  UDFs, generators...) is a TRANSFORMATION of its children;
- a subquery expression depends on the subquery plan's output (resolved by the caller).

Iterative (explicit stack), so collapsed chains of hundreds of nested expressions are fine.
"""

from __future__ import annotations

from collections.abc import Callable

from headwater.model.column_lineage import (
    AGGREGATION_T,
    CONDITIONAL,
    TRANSFORMATION,
    WINDOW,
    TInfo,
    direct,
    indirect,
)

from .tree import Expr, PlanNode

Dep = tuple[int, TInfo]
PlanResolver = Callable[[PlanNode], list[int]]

MASKING = frozenset({"Crc32", "HiveHash", "Md5", "Murmur3Hash", "Sha1", "Sha2", "XxHash64", "Count", "Mask"})
RANKING = frozenset({"Rank", "DenseRank", "PercentRank", "CumeDist", "RowNumber", "NTile"})
# wrappers that neither change a value nor count as a transformation
_TRANSPARENT = frozenset(
    {
        "Alias",
        "KnownNotNull",
        "KnownNullable",
        "KnownFloatingPointNormalized",
        "PromotePrecision",
        "CheckOverflow",
        "SortOrder",
        "Empty2Null",
    }
)
_CONDITIONAL_INDIRECT = indirect(CONDITIONAL)
# a value branch of CASE WHEN / IF / COALESCE: the output is not identical to any one input
# (OpenLineage CaseWhenVisitor, IfVisitor, CoalesceVisitor: ``TransformationInfo.transformation()``)
_VALUE = direct(TRANSFORMATION)
# RuntimeReplaceable conditionals whose only child (analyzed plan) is their replacement If/Coalesce;
# the optimizer replaces them, so the optimized plan holds the If/Coalesce itself
_REPLACED_BY_CHILD = frozenset({"NullIf", "Nvl", "Nvl2", "IfNull"})
_WINDOW_INDIRECT = indirect(WINDOW)
# a function of its arguments, masked when the function is a hash or mask (made once: a frozen dataclass's __init__
# is slow, and a wide plan asks for these thousands of times)
_TRANSFORM = direct(TRANSFORMATION)
_TRANSFORM_MASKED = direct(TRANSFORMATION, masking=True)


def expression_deps(expr: Expr, start: TInfo, resolve_plan: PlanResolver | None = None) -> list[Dep]:
    """Every ``(exprId, transformation)`` the value of ``expr`` depends on."""
    out: list[Dep] = []
    stack: list[tuple[Expr, TInfo]] = [(expr, start)]
    while stack:
        node, t = stack.pop()
        name = node.name
        if name in ("AttributeReference", "OuterReference") or (
            name.endswith("Attribute") and node.expr_id is not None and not node.children
        ):
            eid = node.expr_id
            if eid is not None:
                out.append((eid, t))
            else:
                stack.extend((c, t) for c in node.children)
            continue
        if node.plans and resolve_plan is not None:
            inner = t.merge(_TRANSFORM)
            for plan in node.plans.values():
                out.extend((eid, inner) for eid in resolve_plan(plan))
        if name in _TRANSPARENT:
            stack.extend((c, t) for c in node.children)
        elif name in _REPLACED_BY_CHILD and len(node.children) == 1:
            stack.append((node.children[0], t))  # NULLIF/NVL/NVL2/IFNULL: their If/Coalesce replacement
        elif name == "If":
            kids = node.children
            if kids:
                stack.append((kids[0], t.merge(_CONDITIONAL_INDIRECT)))
                stack.extend((c, t.merge(_VALUE)) for c in kids[1:])
        elif name == "CaseWhen":
            kids = node.children
            n_branch = len(kids) // 2
            for i in range(n_branch):
                stack.append((kids[2 * i], t.merge(_CONDITIONAL_INDIRECT)))
                stack.append((kids[2 * i + 1], t.merge(_VALUE)))
            if len(kids) % 2:
                stack.append((kids[-1], t.merge(_VALUE)))
        elif name == "Coalesce":
            for c in node.children:
                stack.append((c, t.merge(_CONDITIONAL_INDIRECT)))
                stack.append((c, t.merge(_VALUE)))
        elif name == "AggregateExpression":
            inner = t.merge(AGGREGATION_T)
            stack.extend((c, inner) for c in node.children)
        elif name == "WindowExpression":
            function = node.child_field("windowFunction") or (node.children[0] if node.children else None)
            spec = node.child_field("windowSpec") or (node.children[1] if len(node.children) > 1 else None)
            if function is not None and function.name not in RANKING:
                stack.append((function, t.merge(_TRANSFORM)))
            if spec is not None:
                stack.extend((c, t.merge(_WINDOW_INDIRECT)) for c in spec.children)
        elif name in RANKING:
            continue  # reads only its window's order, handled by the window spec
        elif name == "Literal" or not node.children:
            continue
        else:
            inner = t.merge(_TRANSFORM_MASKED if name in MASKING else _TRANSFORM)
            stack.extend((c, inner) for c in node.children)
    return out


def named_output(expr: Expr) -> tuple[int, str] | None:
    """``(exprId, name)`` of a named expression (``Alias`` or attribute) in a project list."""
    eid = expr.expr_id
    if eid is None:
        return None
    return eid, expr.attr_name
