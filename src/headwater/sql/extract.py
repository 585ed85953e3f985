"""Statements → lineage records: what each statement form writes, from what (pure apart from the catalog's look-ups).

:class:`Extractor` reads the statements of one script in order, keeping what earlier statements made:
table schemas (``CREATE TABLE``, ``CREATE TABLE AS``, views) and temporary tables, through which lineage
passes (a temporary table is not a dataset: a statement reading it depends on what it was made of). How one
query is read, tables named and writes recorded is :mod:`.reader`'s; this module is the statement forms: INSERT,
CREATE … AS, SELECT INTO, MERGE, UPDATE, COPY, UNLOAD, OUTPUT INTO, procedural blocks, EXEC of a constant.

Why one module of this size: each form is one method of one dispatch (``_statement``), and MERGE and UPDATE share
the rewrite into a SELECT (``_set_like``); splitting the forms over modules would split that one contract.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import cast

from sqlglot import exp
from sqlglot.errors import ParseError, SqlglotError
from sqlglot.optimizer.normalize_identifiers import normalize_identifiers

from headwater.model.column_lineage import CONDITIONAL, JOIN, TInfo, indirect
from headwater.model.naming import path_dataset

from .columns import Deps, Relation, add_all
from .reader import Output, Reader, StatementLineage, _copy_deps, _norm, _Unqualified, statement_digest
from .script import Statement, parse_one

# EXEC/EXECUTE of a string: T-SQL ``EXEC('…')`` / ``EXEC sp_executesql N'…'``, ``EXECUTE IMMEDIATE '…'``,
# PL/pgSQL ``EXECUTE '…'``; group 1 is the one literal when the whole argument is a constant string
_EXEC = re.compile(r"(?is)^\s*exec(?:ute)?\b(?!\s+immediate\s*[$'])")
_EXEC_LITERAL = re.compile(
    r"(?is)^\s*exec(?:ute)?\s*(?:immediate\s+|sp_executesql\s+)?\(?\s*N?'((?:[^']|'')*)'\s*\)?\s*;?\s*$"
)
_WRITES = re.compile(r"(?is)^\s*(insert|update|merge|create|replace|copy|unload|select\b.*\binto\b)")


class Extractor(Reader):
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
        pairs: list[tuple[str, exp.Expr, exp.Expr | None]] = [
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
        pairs: list[tuple[str, exp.Expr, exp.Expr | None]],
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


def _strip_block(text: str) -> str:
    found = re.match(r"(?is)^\s*(?:declare\b.*?)?\bbegin\b(.*)\bend\s*;?\s*$", text)
    return found.group(1) if found else text


__all__ = ["Extractor", "Output", "StatementLineage", "statement_digest", "JOIN", "TInfo"]
