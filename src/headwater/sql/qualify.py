"""What the engine takes from sqlglot's ``qualify`` for a query, and where it does that work itself (pure).

Column lineage needs every table of a query named in full and aliased, and every column tied to its source
(``*`` expanded, positional ``ORDER BY`` rewritten). sqlglot's ``qualify_tables`` and ``qualify_columns`` do
that for any query; they are also most of a statement's cost. So:

- :func:`qualify_tables` does sqlglot's table qualification itself for the plain queries most statements are
  (tables and aliased derived tables in FROM/JOIN, top-level CTEs), giving the same tree, and hands any other
  form (pivots, table functions, unaliased derived tables, join constructs, nested WITH, ``db.table.column``
  references...) to sqlglot's;
- :func:`needs_qualify` says whether sqlglot's column qualification is needed at all: not where the analyzer
  (:mod:`.columns`) resolves the columns the same way itself, which it then does (and asks for sqlglot's
  qualification where it finds it cannot: :class:`.columns.NeedsQualification`).

Either way the records are the ones sqlglot's qualification gives (the rule and golden cases are read both
ways in tests/sql/test_qualify.py).
"""

from __future__ import annotations

import functools
from typing import cast

from sqlglot import exp
from sqlglot.optimizer.normalize_identifiers import normalize_identifiers
from sqlglot.optimizer.qualify_tables import qualify_tables as sqlglot_qualify_tables

from .dialects import sqlglot_dialect

# what a node is to these walks, by its class (looked up once per class: most nodes are none of these)
_OTHER, _STAR, _SOURCE_FORM, _JOIN, _TABLE_ALIAS, _GROUP_ORDER, _COLUMN, _WITH, _SUBQUERY, _TABLE = range(10)
_KINDS: dict[type, int] = {}


def _kind(node: exp.Expr) -> int:
    cls = type(node)
    kind = _KINDS.get(cls)
    if kind is None:
        kind = _KINDS[cls] = next(
            (k for k, bases in _KIND_BASES if issubclass(cls, bases)),
            _OTHER,
        )
    return kind


_KIND_BASES: tuple[tuple[int, type | tuple[type, ...]], ...] = (
    (_STAR, exp.Star),
    # pivots and table functions (LATERAL, UNNEST, VALUES...): sources only sqlglot's qualification handles
    (_SOURCE_FORM, (exp.Pivot, exp.UDTF)),
    (_JOIN, exp.Join),
    (_TABLE_ALIAS, exp.TableAlias),
    (_GROUP_ORDER, (exp.Group, exp.Order)),
    (_COLUMN, exp.Column),
    (_WITH, exp.With),
    (_SUBQUERY, exp.Subquery),
    (_TABLE, exp.Table),
)


def qualify_tables(query: exp.Expr, db: str, catalog: str | None, dialect: str) -> exp.Expr:
    """``query`` with every table named in full (``db``, ``catalog``) and aliased, in place, as sqlglot's
    ``qualify_tables`` does it (which is called for the forms this does not handle)."""
    plan = _plain_tables(query)
    if plan is None:
        return sqlglot_qualify_tables(query, db=db, catalog=catalog, dialect=sqlglot_dialect(dialect))
    db_name, db_quoted = _schema_identifier(db, dialect)
    catalog_name, catalog_quoted = _schema_identifier(catalog, dialect) if catalog else ("", False)
    for table, cte in plan:
        if table.args.get("alias") is None:
            # a CTE's reference keeps its name as its alias; a table's is the name normalised as an alias
            alias = table.name if cte else _alias_name(table.name, dialect)
            table.set("alias", exp.TableAlias(this=exp.to_identifier(alias)))
        if cte:
            continue
        if not table.args.get("db"):
            table.set("db", _identifier(db_name, db_quoted))
        if catalog_name and not table.args.get("catalog"):
            table.set("catalog", _identifier(catalog_name, catalog_quoted))
    return query


def _identifier(name: str, quoted: bool) -> exp.Identifier:
    ident = exp.Identifier(this=name, quoted=quoted)
    ident.meta["is_table"] = True
    return ident


@functools.lru_cache(maxsize=256)
def _schema_identifier(name: str | None, dialect: str) -> tuple[str, bool]:
    """A default database/schema name as sqlglot's ``qualify_tables`` makes it an identifier (parsed, then
    normalised as a table's part)."""
    ident = exp.parse_identifier(name or "", dialect=sqlglot_dialect(dialect))
    ident.meta["is_table"] = True
    ident = normalize_identifiers(ident, dialect=sqlglot_dialect(dialect))
    return ident.name, bool(ident.args.get("quoted"))


@functools.lru_cache(maxsize=4096)
def _alias_name(name: str, dialect: str) -> str:
    return normalize_identifiers(name, dialect=sqlglot_dialect(dialect)).name


def _plain_tables(query: exp.Expr) -> list[tuple[exp.Table, bool]] | None:
    """The tables of ``query`` and whether each is a CTE's reference, or None when the query has a form only
    sqlglot's ``qualify_tables`` handles."""
    if not isinstance(query, exp.Query) or isinstance(query, exp.Subquery):
        return None
    with_ = query.args.get("with_")
    ctes: list[str] = []
    bodies: dict[int, int] = {}  # id of a CTE's body → its place among the CTEs
    if with_ is not None:
        if with_.args.get("recursive"):
            return None
        for i, cte in enumerate(with_.expressions):
            ctes.append(cte.alias_or_name)
            bodies[id(cte.this)] = i
    tables: list[tuple[exp.Table, exp.Expr | None]] = []  # each table and the SELECT it is a source of
    aliases: set[str] = set()
    for node in query.walk():
        kind = _kind(node)
        if kind in (_OTHER, _STAR, _JOIN, _GROUP_ORDER):
            continue
        if kind == _SOURCE_FORM:
            return None
        if kind == _WITH and node is not with_:
            return None
        if kind == _COLUMN and node.args.get("db") is not None:
            return None  # db.table.column: sqlglot rewrites it to the table's alias
        if kind == _TABLE_ALIAS:
            if not node.name:
                return None
            aliases.add(node.name)
        elif kind == _SUBQUERY:
            parent = node.parent
            if isinstance(parent, exp.Subquery) or not isinstance(node.this, exp.Query):
                return None  # nested parentheses, a join construct
            if isinstance(parent, (exp.From, exp.Join)) and not node.alias:
                return None  # a derived table without an alias: sqlglot names it
            if node.args.get("pivots") or node.args.get("joins"):
                return None
        elif kind == _TABLE:
            parent = node.parent
            if (
                not isinstance(parent, (exp.From, exp.Join))
                or not isinstance(node.this, exp.Identifier)
                or node.args.get("joins")
                or node.args.get("pivots")
            ):
                return None
            tables.append((cast(exp.Table, node), parent.parent))
    plan: list[tuple[exp.Table, bool]] = []
    seen: dict[tuple[int, str], exp.Table] = {}
    for table, select in tables:
        name = table.name
        cte = not table.args.get("db") and name in ctes
        if cte:
            place = _cte_place(table, bodies)
            if place is not None and name in ctes[place:]:
                return None  # a CTE's body naming itself or a later CTE: a table of the database
        elif not table.args.get("db") and name in aliases:
            return None  # a table named as another source's alias: sqlglot's scopes decide which it is
        key = (id(select), table.alias_or_name)
        if key in seen:
            return None  # two sources of one SELECT under one name: sqlglot renames one
        seen[key] = table
        plan.append((table, cte))
    return plan


def _cte_place(node: exp.Expr, bodies: dict[int, int]) -> int | None:
    """The place of the CTE whose body ``node`` is in (None: outside every CTE)."""
    parent = node.parent
    while parent is not None:
        place = bodies.get(id(parent))
        if place is not None:
            return place
        parent = parent.parent
    return None


def needs_qualify(query: exp.Expr) -> bool:
    """Does the analyzer need sqlglot's column qualification for ``query``? Not when no USING or positional
    GROUP BY is to be rewritten, every star is a plain ``*`` / ``t.*`` of a SELECT list, every positional ORDER BY
    is a SELECT's (the analyzer expands those as qualification would, or finds it cannot and asks for it), and
    every column is qualified or its SELECT reads one source without naming an alias of its own (the analyzer
    resolves those the same way, faster)."""
    for node in query.walk():
        kind = _kind(node)
        if kind == _OTHER:
            continue
        if kind == _STAR:
            if not _plain_star(cast(exp.Star, node)):
                return True
        elif kind == _SOURCE_FORM:
            return True
        elif kind == _JOIN:
            if node.args.get("using"):
                return True
        elif kind == _TABLE_ALIAS:
            if node.args.get("columns"):  # WITH c (x, y) / (…) AS s (x, y): renamed columns
                return True
        elif kind == _GROUP_ORDER:
            if not (isinstance(node, exp.Order) and isinstance(node.parent, exp.Select)) and any(
                isinstance(e.this if isinstance(e, exp.Ordered) else e, exp.Literal) for e in node.expressions
            ):
                return True
        elif kind == _COLUMN and not cast(exp.Column, node).table and _unqualified_needs_qualify(node):
            return True
    return False


def _unqualified_needs_qualify(column: exp.Expr) -> bool:
    select = column.find_ancestor(exp.Select)
    if select is None:
        return True
    from_ = select.args.get("from_")
    if from_ is None or select.args.get("joins") or from_.expressions:
        return True
    if column.name in {e.alias for e in select.expressions if isinstance(e, exp.Alias)}:
        return True
    return not isinstance(from_.this, (exp.Table, exp.Subquery))


def _plain_star(star: exp.Star) -> bool:
    """A ``*`` qualification leaves alone (``COUNT(*)``) or the analyzer expands as it would: a plain ``*`` or
    ``t.*`` of a SELECT list (no EXCEPT/REPLACE/RENAME/ILIKE)."""
    holder: exp.Expr = star
    parent = star.parent
    if isinstance(parent, exp.Column) and parent.this is star:
        holder, parent = parent, parent.parent
    if isinstance(parent, exp.Select):
        return holder.arg_key == "expressions" and not any(star.args.values())
    return holder is star and not isinstance(parent, exp.Dot)  # a function's argument
