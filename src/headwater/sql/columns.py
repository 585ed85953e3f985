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

Dataset-wide (row) deps of a query: WHERE/HAVING/QUALIFY → FILTER, JOIN ON/USING → JOIN, GROUP BY (and
SELECT DISTINCT's columns) → GROUP_BY,
ORDER BY → SORT, INTERSECT/EXCEPT → JOIN on both sides' columns; row deps of a derived table, CTE or
temporary table read in FROM pass through to the query reading it.

Why one module of this size: the analyzer is one recursion (a scope's relation needs its columns' expressions,
an expression's subquery needs that scope's relation) over one memo of the query's scopes; its parts — scopes,
stars, expressions, column resolution — are methods of that one object, and splitting them over modules would
only pass the object around.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import cast

from sqlglot import exp
from sqlglot.optimizer.scope import Scope

from headwater.model import column_lineage as vocabulary
from headwater.model.column_lineage import AGGREGATION_T, IDENTITY_T, TRANSFORMATION, TInfo, direct

Leaf = tuple[str, str]  # (dataset name, column)
Deps = dict[Leaf, set[TInfo]]

# the transformations the rules below apply, made once
_TRANSFORMATION_T = direct(TRANSFORMATION)
_CONDITIONAL, _WINDOW, _FILTER, _JOIN, _GROUP_BY, _SORT = (
    vocabulary.indirect(subtype)
    for subtype in (
        vocabulary.CONDITIONAL,
        vocabulary.WINDOW,
        vocabulary.FILTER,
        vocabulary.JOIN,
        vocabulary.GROUP_BY,
        vocabulary.SORT,
    )
)

RANKING = (exp.RowNumber, exp.Rank, exp.DenseRank, exp.PercentRank, exp.CumeDist, exp.Ntile)
MASKING_TYPES = (exp.MD5, exp.MD5Digest, exp.SHA, exp.SHA2, exp.FarmFingerprint, exp.StandardHash, exp.Count)
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
_UDTF = (exp.Lateral, exp.UDTF)


@dataclass
class Relation:
    """The lineage of a query, derived table, CTE, view or temporary table."""

    columns: list[tuple[str, Deps]] = field(default_factory=list)  # output columns in order
    rows: Deps = field(default_factory=dict)  # INDIRECT deps deciding which rows exist
    tables: set[str] = field(default_factory=set)  # every dataset read
    complete: bool = True  # False: a SELECT * whose columns are unknown
    # what an unexpanded ``*`` passes through (no schema): a dataset name (any column ``c`` is its ``c``,
    # IDENTITY) or the relation of a subquery/CTE it selected from; in the order of the star(s)
    passthrough: list[str | Relation] = field(default_factory=list)
    any_column: Deps | None = None  # a table function (FLATTEN, EXPLODE, UNNEST): every column is made of these

    def column(self, name: str) -> Deps | None:
        for n, d in self.columns:
            if n == name:
                return d
        low = name.lower()
        for n, d in self.columns:
            if n.lower() == low:
                return d
        if self.any_column is not None:
            return self.any_column
        if len(self.passthrough) == 1:  # one star source: the column is its (by name)
            only = self.passthrough[0]
            if isinstance(only, str):
                return {(only, name): {IDENTITY_T}}
            return only.column(name)
        return None

    def candidates(self, name: str) -> list[str]:
        """The datasets an unresolved ``name`` may come from (several star sources, no schema)."""
        found: list[str] = []
        for src in self.passthrough:
            if isinstance(src, str):
                found.append(f"{src}.{name}")
            elif src.column(name) is None:
                found.extend(src.candidates(name))
            else:
                found.extend(f"{ds}.{f}" for ds, f in src.column(name) or {})
        return found

    def whole(self) -> Deps:
        """The whole-table mapping of an unexpanded star: every star dataset's ``*`` (IDENTITY)."""
        out: Deps = {}
        for src in self.passthrough:
            if isinstance(src, str):
                add(out, (src, "*"), IDENTITY_T)
            else:
                add_all(out, src.whole())
        return out


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

    def __init__(
        self,
        table_name: Callable[[exp.Table], str],
        temps: dict[str, Relation],
        notes: list[str],
        table_columns: Callable[[exp.Table], list[str] | None] | None = None,
    ) -> None:
        self._table_name = table_name
        self._names: dict[int, str] = {}  # id of an exp.Table of the query → its dataset name
        self._joins: dict[int, list[exp.Join]] = {}  # id of a SELECT → its joins
        self.temps = temps
        self.notes = notes
        # given when sqlglot's column qualification was skipped: a table's columns (as sqlglot's schema names
        # them), with which this analyzer expands ``*`` and positional ORDER BY itself, as qualification would
        self.table_columns = table_columns
        self._memo: dict[int, Relation] = {}
        self._by_expression: dict[int, Relation] = {}
        self.candidates: list[tuple[str, list[str]]] = []  # unresolved columns → the dataset columns they may be
        self._subqueries: dict[int, Scope] = {}
        self._rows: Deps | None = None  # the dataset-level deps of the SELECT being read (COUNT(*) goes there)

    def table_name(self, table: exp.Table) -> str:
        """The dataset name of a table of the query (the tree lives as long as this analyzer: ids are stable)."""
        key = id(table)
        name = self._names.get(key)
        if name is None:
            name = self._names[key] = self._table_name(table)
        return name

    def _joins_of(self, select: exp.Select) -> list[exp.Join]:
        key = id(select)
        found = self._joins.get(key)
        if found is None:
            found = self._joins[key] = _joins(select)
        return found

    # --- scopes -----------------------------------------------------------------------------------------------

    def relation(self, scope: Scope) -> Relation:
        key = id(scope)
        found = self._memo.get(key)
        if found is not None:
            return found
        if not scope.sources and id(scope.expression) in self._by_expression:
            # a recursive CTE's reference to itself: sqlglot gives it a source-less copy of the anchor's scope
            return self._by_expression[id(scope.expression)]
        self._memo[key] = Relation(complete=False)  # a recursive CTE reads itself: empty until its anchor is known
        for sub in scope.subquery_scopes:
            self._subqueries[id(sub.expression)] = sub
        if isinstance(scope.expression, exp.SetOperation):
            rel = self._set_operation(scope)
        elif isinstance(scope.expression, exp.Select):
            rel = self._select(scope)
        elif isinstance(scope.expression, _UDTF):
            rel = self._udtf(scope)
        else:
            rel = Relation(complete=False)
            self.notes.append(f"unsupported query form {type(scope.expression).__name__}")
        self._memo[key] = rel
        if scope.sources:
            self._by_expression[id(scope.expression)] = rel
        return rel

    def _udtf(self, scope: Scope) -> Relation:
        """``LATERAL (subquery)`` / ``CROSS APPLY``: the subquery's columns; ``LATERAL FLATTEN(…)``, ``LATERAL VIEW
        explode(…)``, ``UNNEST(…)``: every column it gives is a TRANSFORMATION of the function's arguments."""
        node = scope.expression
        alias = node.args.get("alias")
        names = [c.name for c in alias.columns] if isinstance(alias, exp.TableAlias) else []
        inner = node.this
        if isinstance(inner, exp.Subquery):
            inner = inner.this
        if isinstance(inner, _QUERY):
            sub = next((s for s in scope.sources.values() if isinstance(s, Scope) and s.expression is inner), None)
            if sub is None:
                sub = next(
                    (s for s in scope.set_operation_scopes + scope.subquery_scopes if s.expression is inner), None
                )
            if sub is not None:
                found = self.relation(sub)
                rel = Relation(rows=dict(found.rows), tables=set(found.tables), complete=found.complete)
                rel.passthrough = list(found.passthrough)
                rel.any_column = found.any_column
                rel.columns = [(names[i] if i < len(names) else n, d) for i, (n, d) in enumerate(found.columns)]
                return rel
        deps: Deps = {}
        rel = Relation()
        self.walk(inner if isinstance(inner, exp.Expr) else node, _TRANSFORMATION_T, scope, deps)
        if isinstance(node, exp.Unnest):
            for e in node.expressions:
                self.walk(e, _TRANSFORMATION_T, scope, deps)
        rel.any_column = deps
        rel.columns = [(n, deps) for n in names]
        if isinstance(alias, exp.TableAlias) and alias.this is not None and not names and isinstance(node, exp.Unnest):
            rel.columns = [(alias.name, deps)]  # BigQuery: UNNEST(x) AS v names the value v
        for _name, src in scope.sources.items():
            if isinstance(src, exp.Table):
                self._read_table(src, rel)
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
        rel.passthrough = [*left.passthrough, *right.passthrough]
        if isinstance(node, exp.Union) and node.args.get("by_name"):  # UNION [ALL] BY NAME: matched by name
            seen: dict[str, Deps] = {}
            for name, deps in [*left.columns, *right.columns]:
                add_all(seen.setdefault(name.lower(), {}), deps)
            names = {n.lower(): n for n, _ in reversed([*left.columns, *right.columns])}
            rel.columns = [(names[k], d) for k, d in seen.items()]
        elif isinstance(node, exp.Union):  # by position: the first branch names the columns
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
        outer_rows = self._rows
        rel = Relation()
        self._rows = rel.rows
        try:
            self._select_into(scope, rel)
        finally:
            self._rows = outer_rows
        return rel

    def _select_into(self, scope: Scope, rel: Relation) -> None:
        select = cast(exp.Select, scope.expression)
        aliases: dict[str, Deps] = {}
        expanding = self.table_columns is not None
        for position, projection in enumerate(select.expressions):
            if isinstance(projection, exp.Star) or (
                isinstance(projection, exp.Column) and isinstance(projection.this, exp.Star)
            ):
                if expanding:
                    for star_name, star_deps in self._expand_star(scope, projection):
                        rel.columns.append((star_name, star_deps))
                        aliases.setdefault(star_name, star_deps)
                    continue
                rel.complete = False
                self._star(scope, projection, rel)
                continue
            deps: Deps = {}
            self.walk(projection, IDENTITY_T, scope, deps)  # lateral aliases were expanded by qualify
            # unnamed: as sqlglot/Spark name it (by its place once every star is expanded)
            name = projection.alias_or_name or f"_col_{len(rel.columns) if expanding else position}"
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
        for join in self._joins_of(select):
            on = join.args.get("on")
            if on is not None:
                self.walk(on, _JOIN, scope, rel.rows, aliases)
            for ident in join.args.get("using") or ():
                self._using(ident.name, scope, rel.rows)
        if select.args.get("distinct") is not None:  # DISTINCT groups by every output column (as Spark plans it)
            for _name, deps in rel.columns:
                add_all(rel.rows, deps, _GROUP_BY)
        group = select.args.get("group")
        if group is not None:
            for g in group.expressions:
                self.walk(g, _GROUP_BY, scope, rel.rows, aliases)
        order = select.args.get("order")
        if order is not None:
            for o in order.expressions:
                at = _position(o) if expanding else None
                if at is None:
                    self.walk(o, _SORT, scope, rel.rows, aliases)
                    continue
                # ORDER BY 2: the second output column (as qualification rewrites it: by its name, when unique)
                if not 1 <= at <= len(rel.columns):
                    raise NeedsQualification(f"ORDER BY {at}: no such output column")
                name, deps = rel.columns[at - 1]
                if sum(1 for n, _ in rel.columns if n == name) == 1:
                    add_all(rel.rows, deps, _SORT)
        for sub in scope.subquery_scopes:  # tables read only by subqueries
            rel.tables |= self.relation(sub).tables
        self._unread_tables(scope, select, rel)

    def _unread_tables(self, scope: Scope, select: exp.Select, rel: Relation) -> None:
        """A table the SELECT reads no column of still decides how many rows it gives (``SELECT 1 FROM u`` in an
        ``EXISTS``, a ``CROSS JOIN u``): its whole rows, the field ``*``, on the dataset-level list (FILTER; JOIN
        for a joined table)."""
        if rel.passthrough:
            return
        read = {ds for deps in (*(d for _n, d in rel.columns), rel.rows) for ds, _f in deps}
        joined = {id(j.this) for j in self._joins_of(select)}
        for _alias, (node, src) in scope.selected_sources.items():
            if not isinstance(src, exp.Table):
                continue
            name = self.table_name(src)
            if name and name not in read and name not in self.temps:
                add(rel.rows, (name, "*"), _JOIN if id(node) in joined else _FILTER)

    def _whole_rows(self, scope: Scope, kind: TInfo, out: Deps) -> None:
        """``COUNT(*)`` / ``COUNT(1)``: the rows of every source, not a column of them, as the field ``*``."""
        for _alias, (_node, src) in scope.selected_sources.items():
            if isinstance(src, exp.Table):
                name = self.table_name(src)
                temp = self.temps.get(name)
                names = sorted(temp.tables) if temp is not None else [name] if name else []
            elif isinstance(src, Scope):
                names = sorted(self.relation(src).tables)
            else:
                continue
            for ds in names:
                add(out, (ds, "*"), kind)

    def _read_table(self, table: exp.Table, rel: Relation) -> None:
        name = self.table_name(table)
        temp = self.temps.get(name)
        if temp is not None:
            add_all(rel.rows, temp.rows)
            rel.tables |= temp.tables
        elif name:
            rel.tables.add(name)

    def _expand_star(self, scope: Scope, star: exp.Expr) -> list[tuple[str, Deps]]:
        """The columns a ``*`` / ``t.*`` selects, as sqlglot's qualification expands it (in the order of the
        sources, each table's columns as its schema lists them); NeedsQualification where that expansion is not
        certain (a source without a known schema, duplicate names, a set operation matched by name)."""
        only = star.table if isinstance(star, exp.Column) else ""
        if only and only not in scope.selected_sources:
            raise NeedsQualification(f"{only}.*: not a source of its SELECT")
        columns: list[tuple[str, Deps]] = []
        for alias, (_node, src) in scope.selected_sources.items():
            if only and alias != only:
                continue
            if isinstance(src, Scope):
                inner = self.relation(src)
                by_name = isinstance(src.expression, exp.Union) and src.expression.args.get("by_name")
                names = [n for n, _ in inner.columns]
                if not inner.complete or by_name or not isinstance(src.expression, _QUERY):
                    raise NeedsQualification("a star over a source whose columns are not all known")
                if len(set(names)) != len(names):
                    raise NeedsQualification("a star over a source with duplicate column names")
                columns.extend((n, {k: set(v) for k, v in d.items()}) for n, d in inner.columns)
            elif isinstance(src, exp.Table):
                known = self.table_columns(src) if self.table_columns is not None else None
                if not known:
                    raise NeedsQualification("a star over a table without a known schema")
                for name in known:
                    deps: Deps = {}
                    self._source_column(src, name, IDENTITY_T, deps)
                    columns.append((name, deps))
            else:
                raise NeedsQualification("a star over a source of another kind")
        return columns

    def _star(self, scope: Scope, star: exp.Expr, rel: Relation) -> None:
        """A ``*`` / ``t.*`` qualify could not expand (no schema): what it selects passes through by name; the
        statement's output becomes a whole-table mapping where no name is known (``Relation.whole``)."""
        only = star.table if isinstance(star, exp.Column) else ""
        unknown = []
        for alias, (_node, src) in scope.selected_sources.items():
            if only and alias != only:
                continue
            if isinstance(src, Scope):
                inner = self.relation(src)
                rel.columns.extend((n, {k: set(v) for k, v in d.items()}) for n, d in inner.columns)
                if inner.passthrough or inner.any_column is not None:
                    rel.passthrough.append(inner)
            elif isinstance(src, exp.Table):
                name = self.table_name(src)
                temp = self.temps.get(name)
                if temp is not None:
                    rel.columns.extend((n, {k: set(v) for k, v in d.items()}) for n, d in temp.columns)
                    rel.passthrough.extend(temp.passthrough)
                elif name:
                    rel.passthrough.append(name)
                    unknown.append(name)
        if unknown:
            self.notes.append(
                f"SELECT {star.sql()} not expanded: the columns of {', '.join(sorted(unknown))} are unknown "
                "(no schema); mapped as a whole table"
            )

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
            elif isinstance(e, exp.Dot) and _field_path(e) is not None:
                col, path = _field_path(e)  # type: ignore[misc]
                self._column(col, t, scope, out, aliases, path)
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
            elif isinstance(e, exp.DecodeCase):  # DECODE(x, s1, r1, …, default): x and the sᵢ pick a branch
                args = list(e.expressions)
                for i, arg in enumerate(args):
                    is_value = i > 0 and (i % 2 == 0 or i == len(args) - 1)
                    stack.append((arg, t.merge(_TRANSFORMATION_T if is_value else _CONDITIONAL)))
            elif isinstance(e, exp.WithinGroup):  # LISTAGG(x) WITHIN GROUP (ORDER BY y): y orders the aggregate
                stack.append((e.this, t))
                if e.expression is not None:
                    stack.append((e.expression, t.merge(AGGREGATION_T)))
            elif isinstance(e, exp.Filter) and isinstance(e.this, exp.AggFunc):
                # agg(x) FILTER (WHERE c): c picks the rows aggregated, part of the aggregate's value
                stack.append((e.this, t))
                cond = e.expression.this if isinstance(e.expression, exp.Where) else e.expression
                if cond is not None:
                    stack.append((cond, t.merge(direct(AGGREGATION_T.subtype, masking=isinstance(e.this, exp.Count)))))
            elif isinstance(e, (exp.If, exp.Nvl2)):  # IF(c, a, b), NVL2(x, a, b): c / x only picks the branch
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
                if isinstance(e, exp.Count) and e.find(exp.Column) is None:  # COUNT(*): the rows, no column
                    self._whole_rows(scope, inner, self._rows if self._rows is not None else out)
                stack.extend((c, inner) for c in _children(e))
            else:
                masking = isinstance(e, MASKING_TYPES) or (
                    isinstance(e, exp.Anonymous) and e.name.lower() in MASKING_NAMES
                )
                inner = t.merge(direct(TRANSFORMATION, masking=masking))
                stack.extend((c, inner) for c in _children(e))

    def _column(
        self,
        col: exp.Column,
        t: TInfo,
        scope: Scope,
        out: Deps,
        aliases: dict[str, Deps] | None,
        path: list[str] | None = None,
    ) -> None:
        table = col.table
        name = col.name
        if path:  # a struct field path: the column's field, named by its dotted path
            name = ".".join([name, *path])
        if col.args.get("db") is not None and table:
            # a.b.c without schema: ``alias.struct.field`` or ``struct.field.field`` (BigQuery, Spark, Snowflake)
            db = col.db
            if self._find_source(scope, db) is not None:
                table, name = db, f"{col.table}.{name}"
            else:
                table, name = "", f"{db}.{col.table}.{name}"
        if table:
            source = self._find_source(scope, table)
            if source is not None:
                self._source_column(source, name, t, out)
                return
            if not scope.sources:  # the duplicate scope of a recursive CTE's anchor
                return
            sources = [src for _node, src in scope.selected_sources.values()]
            if len(sources) == 1:  # ``struct.field`` on the one source (no schema said it is a column)
                self._source_column(sources[0], f"{table}.{name}", t, out)
                return
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
        named = [
            src
            for src in sources
            if isinstance(src, Scope)
            and isinstance(src.expression, _UDTF)
            and any(n.lower() == name.lower() for n, _ in self.relation(src).columns)
        ]
        if len(named) == 1:  # UNNEST(x) AS v / LATERAL VIEW … AS v: the table function names it
            self._source_column(named[0], name, t, out)
            return
        tables = [src for src in sources if not (isinstance(src, Scope) and isinstance(src.expression, _UDTF))]
        if not named and len(tables) == 1 and len(tables) < len(sources):  # the one table beside table functions
            self._source_column(tables[0], name, t, out)
            return
        candidates = []
        for src in sources:
            if isinstance(src, exp.Table):
                ds = self.table_name(src)
                temp = self.temps.get(ds)
                if temp is None:
                    candidates.append(f"{ds}.{name}")
                elif temp.column(name) is not None:
                    candidates.extend(f"{d}.{f}" for d, f in temp.column(name) or {})
            elif isinstance(src, Scope):
                rel = self.relation(src)
                found = rel.column(name)
                if found is not None:
                    candidates.extend(f"{d}.{f}" for d, f in found)
                else:
                    candidates.extend(rel.candidates(name))
        self.candidates.append((name, sorted(set(candidates))))
        self.notes.append(
            f"column {name} is ambiguous: no schema says which of "
            f"{', '.join(sorted(scope.selected_sources)) or 'the sources'} has it; candidates: "
            f"{', '.join(sorted(set(candidates))) or 'none'}"
        )

    def _find_source(self, scope: Scope, alias: str) -> exp.Expr | Scope | None:
        s: Scope | None = scope
        while s is not None:
            source = s.sources.get(alias)
            if source is not None:
                return source
            s = s.parent
        return None

    def _source_column(self, source: exp.Expr | Scope, name: str, t: TInfo, out: Deps) -> None:
        if isinstance(source, Scope):
            rel = self.relation(source)
            deps = rel.column(name)
            if deps is None and "." in name:  # a struct field of a subquery's column
                head, _, rest = name.partition(".")
                base = rel.column(head)
                if base is not None:
                    deps = {(ds, f"{f}.{rest}"): kinds for (ds, f), kinds in base.items()}
            if deps is None:
                if rel.complete:
                    self.notes.append(f"column {name} not found in a subquery's output")
                elif rel.passthrough:
                    found = rel.candidates(name)
                    self.candidates.append((name, found))
                    self.notes.append(
                        f"column {name} is ambiguous: it comes from one of several unexpanded stars; "
                        f"candidates: {', '.join(found)}"
                    )
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


class NeedsQualification(Exception):
    """The analyzer cannot do what sqlglot's column qualification would (expand this star, this position):
    the query is to be qualified by sqlglot and read again."""


def _position(ordered: exp.Expr) -> int | None:
    """``ORDER BY 2``: 2 (an integer literal, which sqlglot's qualification reads as an output position)."""
    key = ordered.this if isinstance(ordered, exp.Ordered) else ordered
    return int(key.name) if isinstance(key, exp.Literal) and key.is_int else None


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
    own: list[exp.Join] = list(select.args.get("joins") or ())
    joins = list(own)
    from_ = select.args.get("from_")
    for clause in [from_, *own] if from_ is not None else own:  # FROM and JOIN sources, not inner queries
        for node in clause.walk(prune=_is_select):
            if isinstance(node, exp.Table) and node.args.get("joins"):
                joins.extend(node.args["joins"])
    return joins


def _is_select(node: exp.Expr) -> bool:
    return isinstance(node, exp.Select)


def _field_path(dot: exp.Dot) -> tuple[exp.Column, list[str]] | None:
    """``col.a.b`` (an ``exp.Dot`` chain over a column) → (the column, ``["a", "b"]``)."""
    path: list[str] = []
    node: exp.Expr = dot
    while isinstance(node, exp.Dot):
        if not isinstance(node.expression, exp.Identifier):
            return None
        path.append(node.expression.name)
        node = node.this
    if not isinstance(node, exp.Column) or isinstance(node.this, exp.Star):
        return None
    return node, list(reversed(path))
