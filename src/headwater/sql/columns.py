"""Column lineage over sqlglot scopes (pure): every output column of a query → the table columns it is made of,
with the transformation kinds of :mod:`headwater.model.column_lineage` and the same rules as Spark capture
(``headwater.capture.lineage.expressions``):

- a column is a dependency with the transformation accumulated so far (IDENTITY at the top); aliases,
  parentheses and sort keys keep it;
- CASE/IF conditions are INDIRECT CONDITIONAL, their values a TRANSFORMATION; COALESCE/NVL/IFNULL arguments are
  both a TRANSFORMATION and an INDIRECT CONDITIONAL (the vocabulary's meaning of "CASE/COALESCE branches", and
  what Spark capture reports for them: its golden cases, checked by tests/sql/test_meanings.py);
- aggregate functions are AGGREGATION; window functions TRANSFORMATION (an aggregate inside stays AGGREGATION)
  and their PARTITION BY/ORDER BY INDIRECT WINDOW; ranking functions read only their window;
- hashes (md5, sha*, crc32, xxhash64, hash) and COUNT set masking;
- every other expression (casts, arithmetic, string functions...) is a TRANSFORMATION of its children;
- a subquery in an expression depends on the subquery's output (TRANSFORMATION) and its own row deps.

Dataset-wide (row) deps of a query: WHERE/HAVING/QUALIFY → FILTER, JOIN ON/USING → JOIN, GROUP BY → GROUP_BY,
ORDER BY → SORT, INTERSECT/EXCEPT → JOIN on both sides' columns; row deps of a derived table, CTE or
temporary table read in FROM pass through to the query reading it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import cast

from sqlglot import exp
from sqlglot.optimizer.scope import Scope

from headwater.model.column_lineage import (
    AGGREGATION_T,
    CONDITIONAL,
    FILTER,
    GROUP_BY,
    IDENTITY_T,
    JOIN,
    SORT,
    TRANSFORMATION,
    WINDOW,
    TInfo,
    direct,
    indirect,
)

Leaf = tuple[str, str]  # (dataset name, column)
Deps = dict[Leaf, set[TInfo]]

_TRANSFORMATION_T = direct(TRANSFORMATION)
_CONDITIONAL = indirect(CONDITIONAL)
_WINDOW = indirect(WINDOW)
_FILTER = indirect(FILTER)
_JOIN = indirect(JOIN)
_GROUP_BY = indirect(GROUP_BY)
_SORT = indirect(SORT)

RANKING = (exp.RowNumber, exp.Rank, exp.DenseRank, exp.PercentRank, exp.CumeDist, exp.Ntile)
MASKING_TYPES = (exp.MD5, exp.MD5Digest, exp.SHA, exp.SHA2, exp.Count)
MASKING_NAMES = frozenset(
    {
        "md5",
        "sha",
        "sha1",
        "sha2",
        "sha256",
        "sha512",
        "crc32",
        "xxhash64",
        "hash",
        "murmur3",
        "mask",
        "hashbytes",
        "farm_fingerprint",
        "standard_hash",
        "ora_hash",
        "md5_hex",
        "sha1_hex",
        "sha2_hex",
        "fnv_hash",
        "checksum",
    }
)
_WINDOW_VALUE = (exp.Lag, exp.Lead, exp.FirstValue, exp.LastValue, exp.NthValue)  # sqlglot files them as AggFunc
_TRANSPARENT = (exp.Alias, exp.Paren, exp.Ordered, exp.PivotAlias)
_COALESCE = (exp.Coalesce,)
_QUERY = (exp.Select, exp.SetOperation)


@dataclass
class Relation:
    """The lineage of a query, derived table, CTE, view or temporary table."""

    columns: list[tuple[str, Deps]] = field(default_factory=list)  # output columns in order
    rows: Deps = field(default_factory=dict)  # INDIRECT deps deciding which rows exist
    tables: set[str] = field(default_factory=set)  # every dataset read
    complete: bool = True  # False: a SELECT * whose columns are unknown

    def column(self, name: str) -> Deps | None:
        for n, d in self.columns:
            if n == name:
                return d
        low = name.lower()
        for n, d in self.columns:
            if n.lower() == low:
                return d
        return None


def add(out: Deps, leaf: Leaf, kind: TInfo) -> None:
    kinds = out.get(leaf)
    if kinds is None:
        out[leaf] = {kind}
    else:
        kinds.add(kind)


def add_all(out: Deps, deps: Deps, outer: TInfo | None = None) -> None:
    """``out`` ∪ ``deps``, each kind seen through ``outer`` (``outer.merge(kind)``) when given."""
    for leaf, kinds in deps.items():
        for k in kinds:
            add(out, leaf, outer.merge(k) if outer is not None else k)


class Analyzer:
    """Lineage of the scopes of one qualified query.

    ``table_name`` names an ``exp.Table`` (a dataset name); ``temps`` maps a temporary table's dataset name to
    its :class:`Relation` (lineage passes through it); ``notes`` collects what could not be resolved.
    """

    def __init__(self, table_name: Callable[[exp.Table], str], temps: dict[str, Relation], notes: list[str]) -> None:
        self.table_name = table_name
        self.temps = temps
        self.notes = notes
        self._memo: dict[int, Relation] = {}
        self._subqueries: dict[int, Scope] = {}

    # --- scopes -----------------------------------------------------------------------------------------------

    def relation(self, scope: Scope) -> Relation:
        key = id(scope)
        found = self._memo.get(key)
        if found is not None:
            return found
        self._memo[key] = Relation(complete=False)  # a recursive CTE reads itself: empty until its anchor is known
        for sub in scope.subquery_scopes:
            self._subqueries[id(sub.expression)] = sub
        if isinstance(scope.expression, exp.SetOperation):
            rel = self._set_operation(scope)
        elif isinstance(scope.expression, exp.Select):
            rel = self._select(scope)
        else:
            rel = Relation(complete=False)
            self.notes.append(f"unsupported query form {type(scope.expression).__name__}")
        self._memo[key] = rel
        return rel

    def _set_operation(self, scope: Scope) -> Relation:
        left_scope, right_scope = scope.set_operation_scopes[0], scope.set_operation_scopes[1]
        left = self.relation(left_scope)
        self._memo[id(scope)] = left  # WITH RECURSIVE: the recursive part reads the anchor's lineage
        right = self.relation(right_scope)
        rel = Relation(rows={}, tables=left.tables | right.tables, complete=left.complete and right.complete)
        add_all(rel.rows, left.rows)
        add_all(rel.rows, right.rows)
        node = scope.expression
        if isinstance(node, exp.Union):
            for i, (name, deps) in enumerate(left.columns):
                merged: Deps = {}
                add_all(merged, deps)
                if i < len(right.columns):
                    add_all(merged, right.columns[i][1])
                rel.columns.append((name, merged))
        else:  # INTERSECT / EXCEPT: the rows of the right side decide which left rows stay (a semi/anti join)
            rel.columns = [(name, {k: set(v) for k, v in deps.items()}) for name, deps in left.columns]
            for side in (left, right):
                for _name, deps in side.columns:
                    add_all(rel.rows, deps, _JOIN)
        order = node.args.get("order")
        if order is not None:
            for ordered in order.expressions:
                for col in ordered.find_all(exp.Column):
                    sorted_by = rel.column(col.name)
                    if sorted_by:
                        add_all(rel.rows, sorted_by, _SORT)
        return rel

    def _select(self, scope: Scope) -> Relation:
        select = cast(exp.Select, scope.expression)
        rel = Relation()
        aliases: dict[str, Deps] = {}
        for projection in select.expressions:
            if isinstance(projection, exp.Star) or (
                isinstance(projection, exp.Column) and isinstance(projection.this, exp.Star)
            ):
                rel.complete = False
                self.notes.append(
                    f"SELECT {projection.sql()} not expanded: the columns of "
                    f"{self._star_sources(scope, projection)} are unknown (no schema)"
                )
                continue
            deps: Deps = {}
            self.walk(projection, IDENTITY_T, scope, deps)  # lateral aliases were expanded by qualify
            name = projection.alias_or_name
            rel.columns.append((name, deps))
            aliases.setdefault(name, deps)
        for _node, src in scope.selected_sources.values():
            if isinstance(src, Scope):
                inner = self.relation(src)
                add_all(rel.rows, inner.rows)
                rel.tables |= inner.tables
                rel.complete = rel.complete and inner.complete
            elif isinstance(src, exp.Table):
                self._read_table(src, rel)
        where = select.args.get("where")
        if where is not None:
            self.walk(where.this, _FILTER, scope, rel.rows, aliases)
        for key in ("having", "qualify"):
            clause = select.args.get(key)
            if clause is not None:
                self.walk(clause.this, _FILTER, scope, rel.rows, aliases)
        for join in _joins(select):
            on = join.args.get("on")
            if on is not None:
                self.walk(on, _JOIN, scope, rel.rows, aliases)
            for ident in join.args.get("using") or ():
                self._using(ident.name, scope, rel.rows)
        group = select.args.get("group")
        if group is not None:
            for g in group.expressions:
                self.walk(g, _GROUP_BY, scope, rel.rows, aliases)
        order = select.args.get("order")
        if order is not None:
            for o in order.expressions:
                self.walk(o, _SORT, scope, rel.rows, aliases)
        for sub in scope.subquery_scopes:  # tables read only by subqueries
            rel.tables |= self.relation(sub).tables
        return rel

    def _read_table(self, table: exp.Table, rel: Relation) -> None:
        name = self.table_name(table)
        temp = self.temps.get(name)
        if temp is not None:
            add_all(rel.rows, temp.rows)
            rel.tables |= temp.tables
        elif name:
            rel.tables.add(name)

    def _star_sources(self, scope: Scope, star: exp.Expr) -> str:
        names = []
        for _alias, (_node, src) in scope.selected_sources.items():
            if isinstance(src, exp.Table):
                names.append(self.table_name(src))
        return ", ".join(sorted(n for n in names if n)) or "its sources"

    def _using(self, column: str, scope: Scope, out: Deps) -> None:
        for _alias, (_node, src) in scope.selected_sources.items():
            self._source_column(src, column, _JOIN, out)

    # --- expressions ------------------------------------------------------------------------------------------

    def walk(
        self, node: exp.Expr, start: TInfo, scope: Scope, out: Deps, aliases: dict[str, Deps] | None = None
    ) -> None:
        stack: list[tuple[exp.Expr, TInfo]] = [(node, start)]
        while stack:
            e, t = stack.pop()
            if isinstance(e, exp.Column):
                if isinstance(e.this, exp.Star):
                    continue
                self._column(e, t, scope, out, aliases)
            elif isinstance(e, _TRANSPARENT):
                stack.extend((c, t) for c in _children(e))
            elif isinstance(
                e,
                (
                    exp.Literal,
                    exp.Null,
                    exp.Boolean,
                    exp.Star,
                    exp.Placeholder,
                    exp.Parameter,
                    exp.Var,
                    exp.Identifier,
                    exp.DataType,
                ),
            ):
                continue
            elif isinstance(e, _QUERY):
                sub = self._subqueries.get(id(e))
                if sub is not None:
                    rel = self.relation(sub)
                    inner = t.merge(_TRANSFORMATION_T)
                    for _name, deps in rel.columns:
                        add_all(out, deps, inner)
                    add_all(out, rel.rows, t)
            elif isinstance(e, exp.Case):
                value_t = t.merge(_TRANSFORMATION_T)
                for branch in e.args.get("ifs") or ():
                    stack.append((branch.this, t.merge(_CONDITIONAL)))
                    stack.append((branch.args["true"], value_t))
                if e.this is not None:  # CASE x WHEN ...: x decides the branch
                    stack.append((e.this, t.merge(_CONDITIONAL)))
                default = e.args.get("default")
                if default is not None:
                    stack.append((default, value_t))
            elif isinstance(e, exp.If):
                stack.append((e.this, t.merge(_CONDITIONAL)))
                for key in ("true", "false"):
                    value = e.args.get(key)
                    if value is not None:
                        stack.append((value, t.merge(_TRANSFORMATION_T)))
            elif isinstance(e, _COALESCE) or (
                isinstance(e, exp.Anonymous) and e.name.lower() in ("nvl", "ifnull", "isnull", "nvl2")
            ):
                for c in _children(e):
                    stack.append((c, t.merge(_CONDITIONAL)))
                    stack.append((c, t.merge(_TRANSFORMATION_T)))
            elif isinstance(e, exp.Window):
                function = e.this
                if function is not None and not isinstance(function, RANKING):
                    stack.append((function, t.merge(_TRANSFORMATION_T)))
                for p in e.args.get("partition_by") or ():
                    stack.append((p, t.merge(_WINDOW)))
                order = e.args.get("order")
                if order is not None:
                    stack.extend((o, t.merge(_WINDOW)) for o in order.expressions)
            elif isinstance(e, RANKING):
                continue
            elif isinstance(e, exp.AggFunc) and not isinstance(e, _WINDOW_VALUE):
                inner = t.merge(direct(AGGREGATION_T.subtype, masking=isinstance(e, exp.Count)))
                stack.extend((c, inner) for c in _children(e))
            else:
                masking = isinstance(e, MASKING_TYPES) or (
                    isinstance(e, exp.Anonymous) and e.name.lower() in MASKING_NAMES
                )
                inner = t.merge(direct(TRANSFORMATION, masking=masking))
                stack.extend((c, inner) for c in _children(e))

    def _column(self, col: exp.Column, t: TInfo, scope: Scope, out: Deps, aliases: dict[str, Deps] | None) -> None:
        table = col.table
        name = col.name
        s: Scope | None = scope
        if table:
            while s is not None:
                source = s.sources.get(table)
                if source is not None:
                    self._source_column(source, name, t, out)
                    return
                s = s.parent
            if scope.sources:  # (none: the duplicate scope of a recursive CTE's anchor)
                self.notes.append(f"column {col.sql()}: no source named {table}")
            return
        if aliases and name in aliases:  # ORDER BY / GROUP BY / HAVING naming an output alias, a lateral alias
            add_all(out, aliases[name], t)
            return
        sources = [src for _node, src in scope.selected_sources.values()]
        if not sources:
            sources = [src for src in scope.sources.values() if isinstance(src, exp.Table)]
        if len(sources) == 1:
            self._source_column(sources[0], name, t, out)
            return
        if not scope.sources:
            return  # a scope sqlglot builds twice for a recursive CTE's anchor: the other copy resolves it
        self.notes.append(
            f"column {name} is ambiguous: no schema says which of "
            f"{', '.join(sorted(scope.selected_sources)) or 'the sources'} has it"
        )

    def _source_column(self, source: exp.Expr | Scope, name: str, t: TInfo, out: Deps) -> None:
        if isinstance(source, Scope):
            rel = self.relation(source)
            deps = rel.column(name)
            if deps is None:
                if rel.complete:
                    self.notes.append(f"column {name} not found in a subquery's output")
                return
            add_all(out, deps, t)
            return
        if isinstance(source, exp.Table):
            dataset = self.table_name(source)
            if not dataset:
                return
            temp = self.temps.get(dataset)
            if temp is not None:
                deps = temp.column(name)
                if deps is not None:
                    add_all(out, deps, t)
                return
            add(out, (dataset, name), t)


def _children(e: exp.Expr) -> Iterator[exp.Expr]:
    for value in e.args.values():
        if isinstance(value, exp.Expr):
            yield value
        elif isinstance(value, list):
            for v in value:
                if isinstance(v, exp.Expr):
                    yield v


def _joins(select: exp.Select) -> list[exp.Join]:
    """The joins of ``select``: its own, and those of a parenthesized join in FROM or a join
    (``FROM (a JOIN b ON …)``, as PostgreSQL and MariaDB print view definitions)."""
    joins: list[exp.Join] = list(select.args.get("joins") or ())
    nested = [t for t in select.find_all(exp.Table) if t.args.get("joins") and t.find_ancestor(exp.Select) is select]
    for table in nested:
        joins.extend(table.args["joins"])
    return joins
