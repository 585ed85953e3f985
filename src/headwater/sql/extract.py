"""Statements → lineage records (pure apart from the schema look-ups of the catalog).

:class:`Extractor` reads the statements of one script in order, keeping what earlier statements made:
table schemas (``CREATE TABLE``, ``CREATE TABLE AS``, views) and temporary tables, through which lineage
passes (a temporary table is not a dataset: a statement reading it depends on what it was made of).
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from sqlglot import exp
from sqlglot.errors import ParseError, SqlglotError
from sqlglot.optimizer.normalize_identifiers import normalize_identifiers
from sqlglot.optimizer.scope import build_scope

from headwater.model.column_lineage import CONDITIONAL, JOIN, TInfo, indirect
from headwater.model.naming import default_table_schema, path_dataset, sql_table_dataset, table_levels

from .columns import Analyzer, Deps, NeedsQualification, Relation, add_all
from .dialects import Dialect, sqlglot_dialect
from .qualify import needs_qualify, qualify_tables
from .schema import Catalog
from .script import Statement, parse_one

# EXEC/EXECUTE of a string: T-SQL ``EXEC('…')`` / ``EXEC sp_executesql N'…'``, ``EXECUTE IMMEDIATE '…'``,
# PL/pgSQL ``EXECUTE '…'``; group 1 is the one literal when the whole argument is a constant string
_EXEC = re.compile(r"(?is)^\s*exec(?:ute)?\b(?!\s+immediate\s*[$'])")
_EXEC_LITERAL = re.compile(
    r"(?is)^\s*exec(?:ute)?\s*(?:immediate\s+|sp_executesql\s+)?\(?\s*N?'((?:[^']|'')*)'\s*\)?\s*;?\s*$"
)
_WRITES = re.compile(r"(?is)^\s*(insert|update|merge|create|replace|copy|unload|select\b.*\binto\b)")
_UNSET = "_"  # a name part the script does not give and no default fills (never part of a dataset name)


@dataclass
class Output:
    namespace: str
    name: str
    # None: the output's columns are unknown. A column named ``*`` is a whole-table mapping: a ``SELECT *`` whose
    # columns no schema gave; its inputs are ``<dataset>.*`` (every column of the dataset, by the same name)
    columns: list[tuple[str, Deps]] | None
    lifecycle: str | None = None  # CREATE / OVERWRITE (lifecycleStateChange)
    kind: str = "TABLE"  # TABLE, VIEW, FILE
    # dataset-wide INDIRECT deps (WHERE, JOIN, GROUP BY, ORDER BY...): the facet's ``dataset`` list, not every field
    dataset: Deps = field(default_factory=dict)


@dataclass
class StatementLineage:
    statement: Statement
    verb: str = ""  # insert, create_table_as, create_view, merge, update, select_into, copy, unload
    inputs: list[tuple[str, str]] = field(default_factory=list)
    outputs: list[Output] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what could not be resolved (no schema, ambiguity)
    # unqualified columns over several sources with no schema: (column, the ``dataset.column`` it may be)
    candidates: list[tuple[str, list[str]]] = field(default_factory=list)
    # a statement that may write but is not analysed (dynamic SQL built at run time, a procedure call): why
    skipped: str | None = None

    @property
    def error(self) -> str | None:
        return self.statement.error

    @property
    def writes(self) -> bool:
        return bool(self.outputs)

    def job_name(self) -> str:
        """Stable per distinct statement: the verb, the first output and a digest of the normalised text."""
        target = self.outputs[0].name if self.outputs else "statement"
        return f"{self.verb or 'sql'}.{target}.{statement_digest(self.statement.sql)[:10]}"


def statement_digest(sql: str) -> str:
    return hashlib.sha256(" ".join(sql.split()).encode("utf-8")).hexdigest()


class Extractor:
    def __init__(
        self,
        dialect: Dialect,
        namespace: str,
        *,
        default_database: str | None = None,
        default_schema: str | None = None,
        catalog: Catalog | None = None,
    ) -> None:
        self.dialect = dialect
        self.read = dialect.sqlglot or None
        self.sg = sqlglot_dialect(self.read)  # resolved once: every sqlglot call gets the instance
        self.namespace = namespace
        self.default_database = default_database
        self.default_schema = default_schema
        self.levels = table_levels(namespace)
        self.catalog = catalog if catalog is not None else Catalog(namespace=namespace)
        self.catalog.namespace = namespace
        self.temps: dict[str, Relation] = {}
        self._qualify_columns = True  # False while a statement is read again without sqlglot's column qualification
        self._variables: set[str] = set()  # the variables of the procedural block being read
        self._script_variables: set[str] = set()  # declared by a script's own DECLARE statements (BigQuery, T-SQL)
        if self.levels == 3:
            self._q_catalog: str | None = _norm(default_database, self.read) or _UNSET
            self._q_db = _norm(default_schema, self.read) or default_table_schema(namespace) or _UNSET
        else:
            self._q_catalog = None
            self._q_db = _norm(default_database, self.read) or _UNSET

    # --- naming -----------------------------------------------------------------------------------------------

    def table_name(self, table: exp.Table) -> str:
        name = table.name
        if not name:
            return ""
        if name.startswith("#"):  # T-SQL temporary table: not a dataset of any database
            return name
        return _dataset_name(self.namespace, table.catalog, table.db, name, self.default_database, self.default_schema)

    def dataset_of(self, table: exp.Table) -> str:
        """The dataset name of a table as a statement of this script names it (defaults applied)."""
        return self.table_name(self._qualified_table(table))

    # --- statements -------------------------------------------------------------------------------------------

    def run(self, stmt: Statement) -> list[StatementLineage]:
        """The lineage of one parsed statement (a procedure body gives one record per inner statement)."""
        if _EXEC.match(stmt.sql):
            return self._exec(stmt)
        if stmt.block is not None:
            return self._procedural(stmt)
        if stmt.expression is None:
            return [StatementLineage(stmt)]
        if isinstance(stmt.expression, exp.Block):
            return self._block(stmt, stmt.expression.expressions)
        out = StatementLineage(stmt)
        try:
            try:
                inner = self._statement(stmt.expression, out)
            except _Unqualified:
                out = StatementLineage(stmt)
                again = parse_one(stmt.sql, self.read or "")
                self._qualify_columns = False
                try:
                    inner = self._statement(again, out)
                finally:
                    self._qualify_columns = True
        except SqlglotError as exc:
            stmt.error = f"cannot analyse the statement: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
            return [StatementLineage(stmt)]
        if inner is not None:
            return inner
        return [out]

    def _exec(self, stmt: Statement) -> list[StatementLineage]:
        """EXEC/EXECUTE: a constant string is analysed as the statement it holds; anything else (a variable, a
        string built at run time, a procedure's name) is named as not analysed, never passed over silently."""
        literal = _EXEC_LITERAL.match(stmt.sql)
        if literal:
            from .script import parse_script

            text = literal.group(1).replace("''", "'")
            results: list[StatementLineage] = []
            for sub in parse_script(text, self.read or ""):
                sub.index, sub.line, sub.col = stmt.index, stmt.line + sub.line - 1, stmt.col
                for r in self.run(sub):
                    r.notes.insert(0, "the constant string of an EXEC/EXECUTE")
                    results.append(r)
            return results or [StatementLineage(stmt)]
        out = StatementLineage(stmt)
        head = " ".join(stmt.sql.split())
        out.skipped = f"not analysed: dynamic SQL or a procedure call ({head[:60]}{'…' if len(head) > 60 else ''})"
        out.notes.append(out.skipped)
        return [out]

    def _procedural(self, stmt: Statement) -> list[StatementLineage]:
        """A procedural block: every statement found inside, in order (each with the block's index); one that
        writes but cannot be read is an error record naming it; reads and control flow give nothing."""
        results: list[StatementLineage] = []
        inner = stmt.block or []
        declared = {_norm(v, self.read) or v for v in stmt.variables}
        if re.match(r"(?is)\s*declare\b", stmt.sql) and not stmt.block:  # a script's DECLARE: to its end
            self._script_variables |= declared
        self._variables = self._script_variables | declared
        try:
            return self._procedural_statements(stmt, inner, results)
        finally:
            self._variables = set(self._script_variables)

    def _procedural_statements(
        self, stmt: Statement, inner: list[Statement], results: list[StatementLineage]
    ) -> list[StatementLineage]:
        for i, sub in enumerate(inner):
            where = f"statement {i + 1} of {len(inner)} in a procedural block (line {sub.line})"
            if sub.expression is None:
                if _WRITES.match(sub.sql):
                    sub.error = f"{where}: cannot parse: {sub.error}"
                    results.append(StatementLineage(sub))
                continue
            for r in self.run(sub):
                if r.writes or r.error or r.skipped:
                    r.notes.insert(0, where)
                    if r.verb and isinstance(sub.expression, exp.Expr):
                        r.verb = f"procedure_{r.verb}"
                    results.append(r)
        if not results:
            results.append(StatementLineage(stmt))
        return results

    def _block(self, stmt: Statement, expressions: list[exp.Expr]) -> list[StatementLineage]:
        results: list[StatementLineage] = []
        for i, e in enumerate(expressions):
            sub = Statement(stmt.index, e.sql(dialect=self.sg), stmt.line, stmt.col, e)
            sub.index = stmt.index
            for r in self.run(sub):
                r.notes.insert(0, f"statement {i + 1} of a block")
                results.append(r)
        return results

    def _statement(self, e: exp.Expr, out: StatementLineage) -> list[StatementLineage] | None:
        e = normalize_identifiers(e, dialect=self.sg)
        if self._variables:  # a block's own variables are values, not columns (they win over a column's name)
            for col in list(e.find_all(exp.Column)):
                if not col.table and col.name in self._variables:
                    col.replace(exp.Var(this=col.name))
        _with_into_query(e)
        returning = e.args.get("returning")
        if isinstance(returning, exp.Returning) and isinstance(returning.args.get("into"), exp.Expr):
            self._output_into(e, returning, out)
        elif isinstance(e, exp.Insert):
            self._insert(e, out)
        elif isinstance(e, exp.Create):
            return self._create(e, out)
        elif isinstance(e, exp.Select) and e.args.get("into") is not None or _set_operation_into(e):
            self._select_into(cast(exp.Select | exp.SetOperation, e), out)
        elif isinstance(e, exp.Merge):
            self._merge(e, out)
        elif isinstance(e, exp.Update):
            self._update(e, out)
        elif isinstance(e, exp.Copy):
            self._copy(e, out)
        elif isinstance(e, exp.Drop) and (e.args.get("kind") or "").upper() in ("TABLE", "VIEW"):
            target = e.this
            if isinstance(target, exp.Table):
                target = self._qualified_table(target)
                name = self.table_name(target)
                self.temps.pop(name, None)
                self.catalog.drop(name)
        elif isinstance(e, exp.Command) and e.name.upper() == "UNLOAD":
            self._unload(e, out)
        elif (
            isinstance(e, exp.Command)
            and e.name.upper() == "REPLACE"
            and re.match(r"(?i)\s*into\b", e.text("expression"))
        ):
            # MySQL/MariaDB REPLACE INTO t … SELECT: for lineage, the INSERT it is (rows with a taken key replaced)
            insert = parse_one(f"INSERT {e.text('expression')}", self.read or "")
            if isinstance(insert, exp.Insert):
                self._insert(normalize_identifiers(insert, dialect=self.sg), out)
                out.verb = "replace_into"
        return None

    # T-SQL INSERT/UPDATE/MERGE/DELETE … OUTPUT inserted.c, deleted.c INTO other (cols)
    def _output_into(self, e: exp.Expr, returning: exp.Returning, out: StatementLineage) -> None:
        """The statement's own lineage, then the OUTPUT table: ``inserted.c`` is what the statement writes to ``c``
        (the target's ``c`` where it writes none), ``deleted.c`` the target's ``c`` as it was; its rows are the
        statement's. (``DELETE … OUTPUT … INTO`` is read as the INSERT … SELECT it amounts to: see ``script``.)"""
        e = e.copy()
        e.set("returning", None)
        self._statement(e, out)
        if not out.outputs:
            return
        main = out.outputs[0]
        target, written, rows = main.name, dict(main.columns or []), main.dataset
        rows = {leaf: kinds for leaf, kinds in rows.items() if leaf != (target, "*")}
        into = returning.args["into"]
        listed: list[str] = []
        if isinstance(into, exp.Anonymous):  # INTO audit (a, b): sqlglot reads it as a call
            table: exp.Expr = exp.to_table(into.name, dialect=self.sg)
            listed = [c.name for c in into.expressions]
        elif isinstance(into, exp.Schema):
            table, listed = into.this, [c.name for c in into.expressions]
        else:
            table = into
        if not isinstance(table, exp.Table) or table.name.startswith("@"):
            out.notes.append(f"OUTPUT INTO {into.sql(dialect=self.sg)}: a table variable, no dataset")
            return
        name = self.table_name(self._qualified_table(table))
        names = listed or self._known_columns(name) or []
        reads_target = False
        columns: list[tuple[str, Deps]] = []
        for i, value in enumerate(returning.expressions):
            deps: Deps = {}
            bare = isinstance(value.unalias(), exp.Column)
            for col in value.find_all(exp.Column):
                prefix = col.table.lower()
                kind = TInfo("DIRECT", "IDENTITY") if bare else TInfo("DIRECT", "TRANSFORMATION")
                if prefix == "inserted" and col.name in written:
                    add_all(deps, written[col.name], kind)
                elif prefix in ("inserted", "deleted"):
                    add_all(deps, {(target, col.name): {kind}})
                    reads_target = True
                else:
                    out.notes.append(f"OUTPUT column {col.sql(dialect=self.sg)} not resolved")
            columns.append((names[i] if i < len(names) else value.alias_or_name or f"_col_{i}", deps))
        if reads_target and (self.namespace, target) not in out.inputs:
            out.inputs.append((self.namespace, target))
        self._write(out, name, columns, Relation(rows=rows), None, append=True)

    # INSERT INTO / OVERWRITE t [(cols)] query
    def _insert(self, e: exp.Insert, out: StatementLineage) -> None:
        target, listed = _target(e.this)
        if not isinstance(target, exp.Table):
            return
        target = self._qualified_table(target)
        name = self.table_name(target)
        out.verb = "insert_overwrite" if e.args.get("overwrite") else "insert_into"
        query = e.expression
        rel = self._query(query, out) if isinstance(query, (exp.Select, exp.SetOperation, exp.Subquery)) else None
        if rel is None:
            rel = Relation()  # VALUES: nothing is read
        names = listed or self._known_columns(name) or None
        if rel.passthrough and not rel.complete:
            columns: list[tuple[str, Deps]] | None = _star_columns(rel)
        else:
            if names is None and rel.columns:
                names = [n for n, _ in rel.columns]
                if not isinstance(query, exp.Values):
                    out.notes.append(
                        f"no schema for {name}: INSERT without a column list mapped by the query's "
                        "output names (positions unknown)"
                    )
            columns = _positional(names, rel, out, name) if names is not None else None
        self._write(out, name, columns, rel, "OVERWRITE" if e.args.get("overwrite") else None, append=True)

    def _create(self, e: exp.Create, out: StatementLineage) -> list[StatementLineage] | None:
        kind = (e.args.get("kind") or "").upper()
        if kind in ("PROCEDURE", "FUNCTION"):
            return self._procedure(e, out)
        if kind not in ("TABLE", "VIEW"):
            return None
        target, listed = _target(e.this)
        if not isinstance(target, exp.Table):
            return None
        target = self._qualified_table(target)
        name = self.table_name(target)
        props = e.args.get("properties")
        temporary = bool(props and props.find(exp.TemporaryProperty)) or name.startswith("#")
        materialized = bool(props and props.find(exp.MaterializedProperty))
        query = e.expression
        if not isinstance(query, (exp.Select, exp.SetOperation, exp.Subquery)):
            defs = [
                c
                for c in (e.this.expressions if isinstance(e.this, exp.Schema) else [])
                if isinstance(c, exp.ColumnDef)
            ]
            if defs:
                cols = [(c.name, c.args["kind"].sql(dialect=self.sg) if c.args.get("kind") else None) for c in defs]
                self.catalog.define(name, cols)
                if temporary:
                    self.temps[name] = Relation(columns=[(c, {}) for c, _ in cols])
            return None
        out.verb = (
            ("create_materialized_view" if materialized else "create_view") if kind == "VIEW" else "create_table_as"
        )
        rel = self._query(query, out)
        names = listed or [n for n, _ in rel.columns]
        columns = _star_columns(rel) if rel.passthrough and not rel.complete else _positional(names, rel, out, name)
        if temporary:
            self.temps[name] = _temp(rel, columns)
            if rel.complete:
                self.catalog.define(name, [(c, None) for c, _ in columns])
            return None
        lifecycle = "OVERWRITE" if e.args.get("replace") else "CREATE"
        self._write(out, name, columns, rel, lifecycle, kind="VIEW" if kind == "VIEW" else "TABLE")
        if rel.complete:
            self.catalog.define(name, [(c, None) for c, _ in columns])
        return None

    def _procedure(self, e: exp.Create, out: StatementLineage) -> list[StatementLineage] | None:
        body = e.expression
        stmts: list[exp.Expr] = []
        if isinstance(body, exp.Block):
            stmts = list(body.expressions)
        elif isinstance(body, (exp.Heredoc, exp.Literal)):
            from .script import parse_script

            text = _strip_block(body.this if isinstance(body.this, str) else body.name)
            parsed = parse_script(text, self.read or "")
            stmts = [s.expression for s in parsed if s.expression is not None]
            skipped = sum(1 for s in parsed if s.expression is None)
            if skipped:
                out.notes.append(f"{skipped} statement(s) of the procedure body could not be read")
        elif body is not None and not isinstance(body, exp.Expr):
            return None
        if not stmts:
            return None
        results = self._block(out.statement, stmts)
        for r in results:
            r.notes.extend(out.notes)
            if r.verb:
                r.verb = f"procedure_{r.verb}"
        return [r for r in results if r.writes or r.error]

    def _select_into(self, e: exp.Select | exp.SetOperation, out: StatementLineage) -> None:
        """``SELECT … INTO t FROM …`` (in a set operation, the first SELECT's INTO makes ``t`` of the whole)."""
        query = e.copy()
        first = query
        while isinstance(first, exp.SetOperation):
            first = first.this
        into: exp.Into = first.args["into"]
        target = into.this
        if not isinstance(target, exp.Table):
            return
        target = self._qualified_table(target)
        name = self.table_name(target)
        first.set("into", None)
        out.verb = "select_into"
        rel = self._query(query, out)
        if rel.passthrough and not rel.complete:
            columns = _star_columns(rel)
        else:
            columns = _positional([n for n, _ in rel.columns], rel, out, name)
        if into.args.get("temporary") or name.startswith("#"):
            self.temps[name] = _temp(rel, columns)
            return
        self._write(out, name, columns, rel, "CREATE")
        if rel.complete:
            self.catalog.define(name, [(c, None) for c, _ in columns])

    # MERGE INTO t USING s ON cond WHEN [NOT] MATCHED [AND c] THEN UPDATE SET ... | INSERT (...) VALUES (...) | DELETE
    def _merge(self, e: exp.Merge, out: StatementLineage) -> None:
        target = e.this
        if not isinstance(target, exp.Table):
            return
        out.verb = "merge"
        name = self.table_name(self._qualified_table(target.copy()))
        pairs: list[tuple[str, exp.Expr, exp.Expr | None]] = []
        whens = e.args.get("whens")
        using = e.args["using"]
        for when in whens.expressions if whens is not None else []:
            then = when.args.get("then")
            condition = when.args.get("condition")
            branch_where = then.args.get("where") if isinstance(then, (exp.Update, exp.Insert)) else None
            if branch_where is not None:  # Oracle: WHEN MATCHED THEN UPDATE SET … WHERE cond (the branch's filter)
                condition = exp.and_(condition, branch_where.this) if condition is not None else branch_where.this
            if isinstance(then, exp.Update):
                for eq in then.expressions:
                    if isinstance(eq, exp.EQ) and isinstance(eq.this, exp.Column):
                        pairs.append((eq.this.name, eq.expression, condition))
                if not then.expressions:  # UPDATE SET * (Databricks, Spark): every source column by name
                    pairs.extend((c, self._source_ref(using, c), condition) for c in self._star_names(name, using))
            elif isinstance(then, exp.Insert):
                cols = then.this.expressions if isinstance(then.this, exp.Tuple) else []
                if isinstance(then.this, exp.Column):
                    cols = [then.this]
                vals = then.expression.expressions if isinstance(then.expression, exp.Tuple) else []
                if (  # Redshift: sqlglot reads INSERT VALUES (…) as a column tuple holding a VALUES(…) call
                    isinstance(then.this, exp.Tuple)
                    and len(cols) == 1
                    and isinstance(cols[0], exp.Anonymous)
                    and cols[0].name.upper() == "VALUES"
                ):
                    cols, vals = [], list(cols[0].expressions)
                if isinstance(then.expression, exp.Column):
                    vals = [then.expression]
                if isinstance(then.this, exp.Star) or (not cols and not vals):  # INSERT * (Databricks, Spark)
                    names = self._star_names(name, using)
                    cols, vals = [exp.column(c) for c in names], [self._source_ref(using, c) for c in names]
                if not cols and vals:
                    cols = [exp.column(c) for c in (self._known_columns(name) or [])]
                    if not cols:
                        out.notes.append(f"no schema for {name}: MERGE INSERT without a column list")
                for col, val in zip(cols, vals):
                    pairs.append((col.name, val, condition))
        if (
            not pairs
            and whens is not None
            and any(isinstance(w.args.get("then"), exp.Insert) for w in whens.expressions)
        ):
            # BigQuery INSERT ROW, or INSERT * with no schema: the target is written, its columns are unknown
            probe = (
                exp.select("1").from_(using.copy(), copy=False).join(target.copy(), on=e.args["on"].copy(), copy=False)
            )
            rel = self._query(probe, out)
            out.inputs = [ds for ds in out.inputs if ds != (self.namespace, name)]
            out.notes.append(f"MERGE into {name}: the columns it inserts are unknown (INSERT ROW or no schema)")
            rows = {leaf: kinds for leaf, kinds in rel.rows.items() if leaf[0] != name}
            self._write(out, name, None, Relation(rows=rows), None, append=True)
            return
        select = exp.Select(expressions=_set_expressions(pairs))
        select = select.from_(using.copy(), copy=False).join(target.copy(), on=e.args["on"].copy(), copy=False)
        with_ = e.args.get("with_") or e.args.get("with")
        if with_ is not None:
            select.set("with_", with_.copy())
        self._set_like(out, name, pairs, select, matched=e.args["on"], target_alias=target.alias_or_name)

    def _star_names(self, target: str, using: exp.Expr) -> list[str]:
        names = self._known_columns(target)
        if names is None and isinstance(using, exp.Table):
            names = self._known_columns(self.table_name(self._qualified_table(using.copy())))
        return names or []

    @staticmethod
    def _source_ref(using: exp.Expr, column: str) -> exp.Expr:
        return exp.column(column, table=using.alias_or_name or None)

    # UPDATE t SET a = expr [FROM s [JOIN …]] [WHERE cond]; T-SQL UPDATE alias SET … FROM tab alias; WITH … UPDATE
    def _update(self, e: exp.Update, out: StatementLineage) -> None:
        target = e.this
        if not isinstance(target, exp.Table):
            return
        out.verb = "update"
        pairs = [
            (eq.this.name, eq.expression, None)
            for eq in e.expressions
            if isinstance(eq, exp.EQ) and isinstance(eq.this, exp.Column)
        ]
        source = e.args.get("from_") or e.args.get("from")
        from_tables: list[exp.Expr] = []
        if source is not None:
            from_tables = [t for t in [source.this, *source.expressions] if t is not None]
        joins = list(e.args.get("joins") or ())
        # T-SQL: the target may be named by an alias (or its name) of a table of the FROM clause
        named = None
        if not target.args.get("db"):
            named = next(
                (
                    t
                    for t in [*from_tables, *(j.this for j in joins)]
                    if isinstance(t, exp.Table) and t.alias_or_name == target.name
                ),
                None,
            )
        real = named if named is not None else target
        name = self.table_name(self._qualified_table(real.copy()))
        if named is not None:
            select = exp.Select(expressions=_set_expressions(pairs)).from_(from_tables[0].copy(), copy=False)
            for t in from_tables[1:]:
                select = select.join(t.copy(), join_type="cross", copy=False)
        else:
            base = target.copy()
            table_joins = base.args.get("joins") or []  # MySQL: UPDATE a JOIN b ON ... SET ...
            base.set("joins", None)
            select = exp.Select(expressions=_set_expressions(pairs)).from_(base, copy=False)
            for join in table_joins:
                select = select.join(join.copy(), copy=False)
            for t in from_tables:
                select = select.join(t.copy(), join_type="cross", copy=False)
        for join in joins:
            select = select.join(join.copy(), copy=False)
        where = e.args.get("where")
        if where is not None:
            select = select.where(where.this.copy(), copy=False)
        with_ = e.args.get("with_") or e.args.get("with")
        if with_ is not None:
            select.set("with_", with_.copy())
        self._set_like(out, name, pairs, select)

    def _set_like(
        self,
        out: StatementLineage,
        name: str,
        pairs: list[tuple[str, Any, Any]],
        select: exp.Select,
        *,
        matched: exp.Expr | None = None,
        target_alias: str | None = None,
    ) -> None:
        if not pairs:
            return
        rel = self._query(select, out)
        values = rel.columns
        conditions = values[len(pairs) :]
        columns: dict[str, Deps] = {}
        c = 0
        for i, (col, _value, condition) in enumerate(pairs):
            deps = columns.setdefault(col, {})
            if i < len(values):
                add_all(deps, values[i][1])
            if condition is not None:
                if c < len(conditions):
                    add_all(deps, conditions[c][1], indirect(CONDITIONAL))
                c += 1
        # the rows of the target are the ones written, not read (``UPDATE t SET c = 0``)
        rel.rows = {leaf: kinds for leaf, kinds in rel.rows.items() if leaf != (name, "*")}
        if matched is not None:  # MERGE: matching on the target's key reads no value of it
            rel.rows = {leaf: kinds for leaf, kinds in rel.rows.items() if leaf[0] != name}
        read = any(leaf[0] == name for deps in columns.values() for leaf in deps) or any(
            leaf[0] == name for leaf in rel.rows
        )
        if not read:  # the target is an input only where the statement reads one of its columns
            out.inputs = [ds for ds in out.inputs if ds != (self.namespace, name)]
        self._write(out, name, list(columns.items()), rel, None, append=True)

    # COPY t FROM 'file' / COPY t|(query) TO 'file' (PostgreSQL, Redshift, Snowflake COPY INTO)
    def _copy(self, e: exp.Copy, out: StatementLineage) -> None:
        found_files = (self._file_dataset(f) for f in e.args.get("files") or ())
        files: list[tuple[str, str]] = [f for f in found_files if f is not None]
        this = e.this
        if e.args.get("kind"):  # FROM files into a table
            target, listed = _target(this)
            if not isinstance(target, exp.Table):
                return
            name = self.table_name(self._qualified_table(target))
            out.verb = "copy_from"
            out.inputs.extend(files)
            cols = listed or self._known_columns(name)
            out.outputs.append(Output(self.namespace, name, None if not cols else [(c, {}) for c in cols]))
            out.notes.append("COPY: table-level lineage only (file columns are not known)")
            return
        out.verb = "copy_to"
        if isinstance(this, exp.Table):
            query = exp.select("*").from_(this.copy(), copy=False)
        elif isinstance(this, exp.Subquery):
            query = this.this
        else:
            return
        rel = self._query(query, out)
        for ns, path in files:
            written = _star_columns(rel) if rel.passthrough else (list(rel.columns) if rel.columns else None)
            out.outputs.append(Output(ns, path, written, "OVERWRITE", kind="FILE", dataset=_copy_deps(rel.rows)))

    # UNLOAD ('query') TO 's3://...' (Redshift; sqlglot keeps it as a command)
    def _unload(self, e: exp.Command, out: StatementLineage) -> None:
        text = e.expression.name if isinstance(e.expression, exp.Literal) else str(e.expression or "")
        found = re.match(r"(?is)\s*\(\s*'((?:[^']|'')*)'\s*\)\s*TO\s*'([^']+)'", text)
        if not found:
            out.statement.error = "UNLOAD: cannot read its query and destination"
            return
        out.verb = "unload"
        try:
            query = parse_one(found.group(1).replace("''", "'"), self.read or "")
        except ParseError as exc:
            out.statement.error = f"UNLOAD: cannot parse its query: {str(exc).splitlines()[0]}"
            return
        query = normalize_identifiers(query, dialect=self.sg)
        rel = self._query(query, out)
        ns, path = path_dataset(found.group(2))
        cols = _star_columns(rel) if rel.passthrough else (list(rel.columns) if rel.columns else None)
        out.outputs.append(Output(ns, path, cols, "OVERWRITE", kind="FILE", dataset=_copy_deps(rel.rows)))

    # --- helpers ----------------------------------------------------------------------------------------------

    def _file_dataset(self, f: exp.Expr) -> tuple[str, str] | None:
        if isinstance(f, exp.Literal) and f.is_string:
            return path_dataset(f.name)
        text = f.sql(dialect=self.sg)
        if text.startswith("@"):  # a Snowflake stage
            return self.namespace, text
        return None

    def _known_columns(self, name: str) -> list[str] | None:
        temp = self.temps.get(name)
        if temp is not None and temp.columns:
            return [c for c, _ in temp.columns]
        cols = self.catalog.columns(name)
        return [c for c, _ in cols] if cols else None

    def _qualified_table(self, table: exp.Table) -> exp.Table:
        if self.levels == 3:
            if not table.args.get("db"):
                table.set("db", exp.to_identifier(self._q_db))
            if not table.args.get("catalog"):
                table.set("catalog", exp.to_identifier(self._q_catalog))
        elif not table.args.get("db"):
            table.set("db", exp.to_identifier(self._q_db))
        return table

    def _schema_for(self, query: exp.Expr) -> dict[str, Any]:
        mapping: dict[str, Any] = {}
        for table in query.find_all(exp.Table):
            if not table.args.get("db"):
                continue  # a CTE reference (qualify_tables qualified every real table)
            name = self.table_name(table)
            if not name:
                continue
            temp = self.temps.get(name)
            cols = (
                [(c, None) for c, _ in temp.columns]
                if temp is not None and temp.columns
                else self.catalog.columns(name)
            )
            if not cols:
                continue
            parts = [table.catalog, table.db, table.name] if self.levels == 3 else [table.db, table.name]
            node = mapping
            for p in parts[:-1]:
                node = node.setdefault(p, {})
            node[parts[-1]] = {c: "UNKNOWN" for c, _ in cols}
        return mapping

    def _query(self, query: exp.Expr, out: StatementLineage) -> Relation:
        if isinstance(query, exp.Subquery) and isinstance(query.this, (exp.Select, exp.SetOperation)):
            query = query.this
        # in place: the statement's tree is this run's own (a retry parses the text again)
        query = qualify_tables(query, self._q_db, self._q_catalog, self.read or "")
        # sqlglot's column qualification only where the analyzer cannot do its work itself (which it then does
        # as qualification would: stars of known schemas, positional ORDER BY), or tries and finds it cannot
        qualify = self._qualify_columns and needs_qualify(query)
        if qualify:
            query = self._qualify(query)
        elif self._qualify_columns:
            root = build_scope(query)
            if root is None:
                return Relation(complete=False)
            notes: list[str] = []
            analyzer = Analyzer(self.table_name, self.temps, notes, self._table_columns)
            try:
                return self._record(analyzer, analyzer.relation(root), notes, out)
            except NeedsQualification:
                query = self._qualify(query)
        root = build_scope(query)
        if root is None:
            return Relation(complete=False)
        notes = []
        analyzer = Analyzer(self.table_name, self.temps, notes)
        return self._record(analyzer, analyzer.relation(root), notes, out)

    def _record(self, analyzer: Analyzer, rel: Relation, notes: list[str], out: StatementLineage) -> Relation:
        """What the analysis of one query adds to the statement's record: notes, candidates, inputs."""
        for n in notes:
            if n not in out.notes:
                out.notes.append(n)
        for c in analyzer.candidates:
            if c not in out.candidates:
                out.candidates.append(c)
        for t in sorted(rel.tables):
            ds = (self.namespace, t)
            if ds not in out.inputs and not t.startswith("#"):
                out.inputs.append(ds)
        return rel

    def _qualify(self, query: exp.Expr) -> exp.Expr:
        """sqlglot's ``qualify`` without the steps already done (identifiers normalised, tables qualified) or not
        needed (quoting, validation): its column qualification against the schemas of the tables read."""
        # imported here: it brings sqlglot's type annotator, which a one-statement call rarely needs
        from sqlglot.optimizer.qualify_columns import qualify_columns

        try:
            return qualify_columns(query, self.catalog.sqlglot_schema(self._schema_for(query), self.sg))
        except SqlglotError as exc:
            # sqlglot refuses an unqualified column of a correlated subquery when a source has no schema: the
            # statement is read again qualifying everything but the columns, which the analyzer resolves itself
            raise _Unqualified from exc

    def _table_columns(self, table: exp.Table) -> list[str] | None:
        """The columns of a table the query reads, as sqlglot's schema of :meth:`_schema_for` would name them
        (None: unknown, or a name that schema would not find)."""
        if self.levels != 3 and table.catalog:
            return None
        name = self.table_name(table)
        temp = self.temps.get(name)
        found = [c for c, _ in temp.columns] if temp is not None and temp.columns else None
        if found is None:
            found = [c for c, _ in self.catalog.columns(name) or []]
        if not found:
            return None
        try:
            names = list(dict.fromkeys(_schema_column(c, self.read or "") for c in found))
        except SqlglotError:
            return None
        if self.sg.EXCLUDES_PSEUDOCOLUMNS_FROM_STAR and self.sg.PSEUDOCOLUMNS:
            names = [n for n in names if n.upper() not in self.sg.PSEUDOCOLUMNS]
        return names

    def _write(
        self,
        out: StatementLineage,
        name: str,
        columns: list[tuple[str, Deps]] | None,
        rel: Relation,
        lifecycle: str | None,
        *,
        kind: str = "TABLE",
        append: bool = False,
    ) -> None:
        if name in self.temps:  # lineage passes through a temporary table: no dataset, no event
            temp = self.temps[name]
            if append and columns is not None:
                merged = dict(temp.columns)
                for col, deps in columns:
                    add_all(merged.setdefault(col, {}), deps)
                temp.columns = list(merged.items())
                add_all(temp.rows, rel.rows)
                temp.tables |= rel.tables
            out.outputs.clear()
            out.verb = ""
            return
        out.outputs.append(Output(self.namespace, name, columns, lifecycle, kind, dataset=_copy_deps(rel.rows)))


def _set_operation_into(e: exp.Expr) -> bool:
    """T-SQL ``SELECT … INTO t FROM a UNION ALL SELECT … FROM b``: the INTO is on the first SELECT."""
    if not isinstance(e, exp.SetOperation):
        return False
    first: exp.Expr = e
    while isinstance(first, exp.SetOperation):
        first = first.this
    return isinstance(first, exp.Select) and first.args.get("into") is not None


def _with_into_query(e: exp.Expr) -> None:
    """``WITH x AS (...) INSERT INTO t SELECT ... FROM x``: the CTEs belong to the query the statement runs."""
    key = "with_" if "with_" in e.args else "with"
    cte = e.args.get(key)
    query = e.args.get("expression")
    if cte is None or not isinstance(query, (exp.Select, exp.SetOperation)):
        return
    inner_key = "with_" if "with_" in type(query).arg_types else "with"
    inner = query.args.get(inner_key)
    if inner is None:
        query.set(inner_key, cte)
    else:
        inner.set("expressions", [*cte.expressions, *inner.expressions])
        if cte.args.get("recursive"):
            inner.set("recursive", True)
    e.set(key, None)


@functools.lru_cache(maxsize=4096)
def _dataset_name(
    namespace: str, catalog: str, db: str, name: str, default_database: str | None, default_schema: str | None
) -> str:
    """A table's dataset name (naming.sql_table_dataset), remembered: the same few tables recur in every script."""
    if catalog and catalog != _UNSET and db == _UNSET:
        db = ""
        catalog = ""  # no schema is known: the name stays relative rather than misplacing the database
    parts = [p for p in (catalog, db, name) if p and p != _UNSET]
    return sql_table_dataset(namespace, parts, default_database=default_database, default_schema=default_schema)[1]


class _Unqualified(Exception):
    """sqlglot could not qualify a statement's columns: it is read again without that step."""


def _copy_deps(deps: Deps) -> Deps:
    return {k: set(v) for k, v in deps.items()}


def _star_columns(rel: Relation) -> list[tuple[str, Deps]]:
    """The output of a query with an unexpanded ``*``: its named columns, then ``*`` ← every star dataset's ``*``."""
    return [*((n, d) for n, d in rel.columns), ("*", rel.whole())]


def _temp(rel: Relation, columns: list[tuple[str, Deps]]) -> Relation:
    """What a temporary table is made of (lineage passes through it)."""
    named = [(c, d) for c, d in columns if c != "*"]
    return Relation(
        columns=named, rows=rel.rows, tables=rel.tables, complete=rel.complete, passthrough=list(rel.passthrough)
    )


def _target(node: exp.Expr) -> tuple[exp.Expr, list[str] | None]:
    if isinstance(node, exp.Schema):
        cols = [c.name for c in node.expressions if isinstance(c, (exp.Identifier, exp.Column, exp.ColumnDef))]
        return node.this, cols or None
    return node, None


def _positional(names: list[str], rel: Relation, out: StatementLineage, target: str) -> list[tuple[str, Deps]]:
    if rel.columns and len(names) != len(rel.columns) and rel.complete:
        out.notes.append(f"{target}: {len(names)} target columns for {len(rel.columns)} query columns")
    result: list[tuple[str, Deps]] = []
    for i, name in enumerate(names):
        result.append((name, rel.columns[i][1] if i < len(rel.columns) else {}))
    return result


def _hw_alias(value: exp.Expr, i: int | str) -> exp.Expr:
    return exp.alias_(value.copy(), f"__hw_{i}", copy=False)


def _set_expressions(pairs: Sequence[tuple[str, exp.Expr, exp.Expr | None]]) -> list[exp.Expr]:
    """The values of SET/INSERT pairs, then their WHEN conditions, as one SELECT list (matched by position)."""
    values = [_hw_alias(v, i) for i, (_, v, _c) in enumerate(pairs)]
    return values + [_hw_alias(c, f"c{i}") for i, (_, _v, c) in enumerate(pairs) if c is not None]


@functools.lru_cache(maxsize=4096)
def _schema_column(name: str, dialect: str) -> str:
    """A column's name as sqlglot's schema keeps it (normalised as an identifier of the dialect)."""
    from sqlglot.schema import normalize_name

    return normalize_name(name, dialect=sqlglot_dialect(dialect), is_table=False, normalize=True).name


@functools.lru_cache(maxsize=256)
def _norm(name: str | None, dialect: str | None) -> str | None:
    if not name:
        return None
    return normalize_identifiers(exp.to_identifier(name), dialect=sqlglot_dialect(dialect)).name


def _strip_block(text: str) -> str:
    found = re.match(r"(?is)^\s*(?:declare\b.*?)?\bbegin\b(.*)\bend\s*;?\s*$", text)
    return found.group(1) if found else text


__all__ = ["Extractor", "Output", "StatementLineage", "statement_digest", "JOIN", "TInfo"]
