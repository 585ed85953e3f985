"""Statements → lineage records (pure apart from the schema look-ups of the catalog).

:class:`Extractor` reads the statements of one script in order, keeping what earlier statements made:
table schemas (``CREATE TABLE``, ``CREATE TABLE AS``, views) and temporary tables, through which lineage
passes (a temporary table is not a dataset: a statement reading it depends on what it was made of).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, SqlglotError
from sqlglot.optimizer.normalize_identifiers import normalize_identifiers
from sqlglot.optimizer.qualify import qualify
from sqlglot.optimizer.qualify_tables import qualify_tables
from sqlglot.optimizer.scope import build_scope

from headwater.model.column_lineage import CONDITIONAL, JOIN, TInfo, indirect
from headwater.model.naming import default_table_schema, path_dataset, sql_table_dataset, table_levels

from .columns import Analyzer, Deps, Relation, add_all
from .dialects import Dialect
from .schema import Catalog
from .script import Statement

_UNSET = "_"  # a name part the script does not give and no default fills (never part of a dataset name)


@dataclass
class Output:
    namespace: str
    name: str
    columns: list[tuple[str, Deps]] | None  # None: the output's columns are unknown
    lifecycle: str | None = None  # CREATE / OVERWRITE (lifecycleStateChange)
    kind: str = "TABLE"  # TABLE, VIEW, FILE


@dataclass
class StatementLineage:
    statement: Statement
    verb: str = ""  # insert, create_table_as, create_view, merge, update, select_into, copy, unload
    inputs: list[tuple[str, str]] = field(default_factory=list)
    outputs: list[Output] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what could not be resolved (no schema, ambiguity)

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
        self.namespace = namespace
        self.default_database = default_database
        self.default_schema = default_schema
        self.levels = table_levels(namespace)
        self.catalog = catalog if catalog is not None else Catalog(namespace=namespace)
        self.catalog.namespace = namespace
        self.temps: dict[str, Relation] = {}
        if self.levels == 3:
            self._q_catalog: str | None = _norm(default_database, self.read) or _UNSET
            self._q_db = _norm(default_schema, self.read) or default_table_schema(namespace) or _UNSET
        else:
            self._q_catalog = None
            self._q_db = _norm(default_database, self.read) or _UNSET

    # --- naming -----------------------------------------------------------------------------------------------

    def table_name(self, table: exp.Table) -> str:
        if not table.name:
            return ""
        catalog, db = table.catalog, table.db
        if catalog and catalog != _UNSET and db == _UNSET:
            db = ""
            catalog = ""  # no schema is known: the name stays relative rather than misplacing the database
        parts = [p for p in (catalog, db, table.name) if p and p != _UNSET]
        if table.name.startswith("#"):  # T-SQL temporary table: not a dataset of any database
            return table.name
        return sql_table_dataset(
            self.namespace, parts, default_database=self.default_database, default_schema=self.default_schema
        )[1]

    def dataset_of(self, table: exp.Table) -> str:
        """The dataset name of a table as a statement of this script names it (defaults applied)."""
        return self.table_name(self._qualified_table(table))

    # --- statements -------------------------------------------------------------------------------------------

    def run(self, stmt: Statement) -> list[StatementLineage]:
        """The lineage of one parsed statement (a procedure body gives one record per inner statement)."""
        if stmt.expression is None:
            return [StatementLineage(stmt)]
        if isinstance(stmt.expression, exp.Block):
            return self._block(stmt, stmt.expression.expressions)
        out = StatementLineage(stmt)
        try:
            inner = self._statement(stmt.expression, out)
        except SqlglotError as exc:
            stmt.error = f"cannot analyse the statement: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
            return [StatementLineage(stmt)]
        if inner is not None:
            return inner
        return [out]

    def _block(self, stmt: Statement, expressions: list[exp.Expr]) -> list[StatementLineage]:
        results: list[StatementLineage] = []
        for i, e in enumerate(expressions):
            sub = Statement(stmt.index, e.sql(dialect=self.read), stmt.line, stmt.col, e)
            sub.index = stmt.index
            for r in self.run(sub):
                r.notes.insert(0, f"statement {i + 1} of a block")
                results.append(r)
        return results

    def _statement(self, e: exp.Expr, out: StatementLineage) -> list[StatementLineage] | None:
        e = normalize_identifiers(e, dialect=self.read)
        _with_into_query(e)
        if isinstance(e, exp.Insert):
            self._insert(e, out)
        elif isinstance(e, exp.Create):
            return self._create(e, out)
        elif isinstance(e, exp.Select) and e.args.get("into") is not None:
            self._select_into(e, out)
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
        return None

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
                cols = [(c.name, c.args["kind"].sql(dialect=self.read) if c.args.get("kind") else None) for c in defs]
                self.catalog.define(name, cols)
                if temporary:
                    self.temps[name] = Relation(columns=[(c, {}) for c, _ in cols])
            return None
        out.verb = (
            ("create_materialized_view" if materialized else "create_view") if kind == "VIEW" else "create_table_as"
        )
        rel = self._query(query, out)
        names = listed or [n for n, _ in rel.columns]
        columns = _positional(names, rel, out, name)
        if temporary:
            self.temps[name] = Relation(columns=columns, rows=rel.rows, tables=rel.tables, complete=rel.complete)
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

    def _select_into(self, e: exp.Select, out: StatementLineage) -> None:
        into: exp.Into = e.args["into"]
        target = into.this
        if not isinstance(target, exp.Table):
            return
        target = self._qualified_table(target)
        name = self.table_name(target)
        query = e.copy()
        query.set("into", None)
        out.verb = "select_into"
        rel = self._query(query, out)
        columns = _positional([n for n, _ in rel.columns], rel, out, name)
        if into.args.get("temporary") or name.startswith("#"):
            self.temps[name] = Relation(columns=columns, rows=rel.rows, tables=rel.tables, complete=rel.complete)
            return
        self._write(out, name, columns, rel, "CREATE")
        self.catalog.define(name, [(c, None) for c, _ in columns])

    # MERGE INTO t USING s ON cond WHEN MATCHED THEN UPDATE SET ... WHEN NOT MATCHED THEN INSERT (...) VALUES (...)
    def _merge(self, e: exp.Merge, out: StatementLineage) -> None:
        target = e.this
        if not isinstance(target, exp.Table):
            return
        out.verb = "merge"
        name = self.table_name(self._qualified_table(target.copy()))
        pairs: list[tuple[str, exp.Expr, exp.Expr | None]] = []
        whens = e.args.get("whens")
        for when in whens.expressions if whens is not None else []:
            then = when.args.get("then")
            condition = when.args.get("condition")
            if isinstance(then, exp.Update):
                for eq in then.expressions:
                    if isinstance(eq, exp.EQ) and isinstance(eq.this, exp.Column):
                        pairs.append((eq.this.name, eq.expression, condition))
            elif isinstance(then, exp.Insert):
                cols = then.this.expressions if isinstance(then.this, exp.Tuple) else []
                vals = then.expression.expressions if isinstance(then.expression, exp.Tuple) else []
                if not cols and vals:
                    cols = [exp.column(c) for c in (self._known_columns(name) or [])]
                    if not cols:
                        out.notes.append(f"no schema for {name}: MERGE INSERT without a column list")
                for col, val in zip(cols, vals):
                    pairs.append((col.name, val, condition))
        select = exp.Select(
            expressions=[_hw_alias(v, i) for i, (_, v, _c) in enumerate(pairs)]
            + [_hw_alias(c, f"c{i}") for i, (_, _v, c) in enumerate(pairs) if c is not None]
        )
        select = select.from_(e.args["using"].copy()).join(target.copy(), on=e.args["on"].copy())
        self._set_like(out, name, pairs, select)

    # UPDATE t SET a = expr [FROM s] [WHERE cond]
    def _update(self, e: exp.Update, out: StatementLineage) -> None:
        target = e.this
        if not isinstance(target, exp.Table):
            return
        out.verb = "update"
        name = self.table_name(self._qualified_table(target.copy()))
        pairs = [
            (eq.this.name, eq.expression, None)
            for eq in e.expressions
            if isinstance(eq, exp.EQ) and isinstance(eq.this, exp.Column)
        ]
        base = target.copy()
        table_joins = base.args.get("joins") or []  # MySQL: UPDATE a JOIN b ON ... SET ...
        base.set("joins", None)
        select = exp.Select(expressions=[_hw_alias(v, i) for i, (_, v, _c) in enumerate(pairs)]).from_(base)
        for join in table_joins:
            select = select.join(join.copy())
        source = e.args.get("from_") or e.args.get("from")
        if source is not None:
            for table in [source.this, *source.expressions]:
                select = select.join(table.copy(), join_type="cross") if table is not None else select
        for join in e.args.get("joins") or ():
            select = select.join(join.copy())
        where = e.args.get("where")
        if where is not None:
            select = select.where(where.this.copy())
        self._set_like(out, name, pairs, select)

    def _set_like(
        self, out: StatementLineage, name: str, pairs: list[tuple[str, Any, Any]], select: exp.Select
    ) -> None:
        if not pairs:
            return
        rel = self._query(select, out)
        by_alias = dict(rel.columns)
        columns: dict[str, Deps] = {}
        for i, (col, _value, condition) in enumerate(pairs):
            deps = columns.setdefault(col, {})
            add_all(deps, by_alias.get(f"__hw_{i}", {}))
            if condition is not None:
                add_all(deps, by_alias.get(f"__hw_c{i}", {}), indirect(CONDITIONAL))
        ordered = list(columns.items())
        self._write(out, name, ordered, rel, None, append=True)

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
            query = exp.select("*").from_(this.copy())
        elif isinstance(this, exp.Subquery):
            query = this.this
        else:
            return
        rel = self._query(query, out)
        for ns, path in files:
            written = [(n, _folded(d, rel)) for n, d in rel.columns] if rel.columns else None
            out.outputs.append(Output(ns, path, written, "OVERWRITE", kind="FILE"))

    # UNLOAD ('query') TO 's3://...' (Redshift; sqlglot keeps it as a command)
    def _unload(self, e: exp.Command, out: StatementLineage) -> None:
        text = e.expression.name if isinstance(e.expression, exp.Literal) else str(e.expression or "")
        found = re.match(r"(?is)\s*\(\s*'((?:[^']|'')*)'\s*\)\s*TO\s*'([^']+)'", text)
        if not found:
            out.statement.error = "UNLOAD: cannot read its query and destination"
            return
        out.verb = "unload"
        try:
            query = sqlglot.parse_one(found.group(1).replace("''", "'"), read=self.read)
        except ParseError as exc:
            out.statement.error = f"UNLOAD: cannot parse its query: {str(exc).splitlines()[0]}"
            return
        query = normalize_identifiers(query, dialect=self.read)
        rel = self._query(query, out)
        ns, path = path_dataset(found.group(2))
        cols = [(n, _folded(d, rel)) for n, d in rel.columns] if rel.columns else None
        out.outputs.append(Output(ns, path, cols, "OVERWRITE", kind="FILE"))

    # --- helpers ----------------------------------------------------------------------------------------------

    def _file_dataset(self, f: exp.Expr) -> tuple[str, str] | None:
        if isinstance(f, exp.Literal) and f.is_string:
            return path_dataset(f.name)
        text = f.sql(dialect=self.read)
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
        query = qualify_tables(query.copy(), db=self._q_db, catalog=self._q_catalog, dialect=self.read)
        mapping = self._schema_for(query)
        try:
            query = qualify(
                query,
                dialect=self.read,
                schema=mapping or None,
                db=self._q_db,
                catalog=self._q_catalog,
                validate_qualify_columns=False,
                quote_identifiers=False,
                identify=False,
                isolate_tables=False,
            )
        except SqlglotError as exc:
            out.notes.append(f"columns not qualified: {str(exc).splitlines()[0]}")
        root = build_scope(query)
        if root is None:
            return Relation(complete=False)
        notes: list[str] = []
        analyzer = Analyzer(self.table_name, self.temps, notes)
        rel = analyzer.relation(root)
        for n in notes:
            if n not in out.notes:
                out.notes.append(n)
        for t in sorted(rel.tables):
            ds = (self.namespace, t)
            if ds not in out.inputs and not t.startswith("#"):
                out.inputs.append(ds)
        return rel

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
                    add_all(merged.setdefault(col, {}), _folded(deps, rel))
                temp.columns = list(merged.items())
                add_all(temp.rows, {})
                temp.tables |= rel.tables
            out.outputs.clear()
            out.verb = ""
            return
        folded = [(c, _folded(d, rel)) for c, d in columns] if columns is not None else None
        out.outputs.append(Output(self.namespace, name, folded, lifecycle, kind))


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


def _folded(deps: Deps, rel: Relation) -> Deps:
    """A column's own deps plus the dataset-wide ones (OpenLineage's default: folded into every field)."""
    merged: Deps = {k: set(v) for k, v in deps.items()}
    add_all(merged, rel.rows)
    return merged


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
    return exp.alias_(value.copy(), f"__hw_{i}")


def _norm(name: str | None, dialect: str | None) -> str | None:
    if not name:
        return None
    return normalize_identifiers(exp.to_identifier(name), dialect=dialect).name


def _strip_block(text: str) -> str:
    found = re.match(r"(?is)^\s*(?:declare\b.*?)?\bbegin\b(.*)\bend\s*;?\s*$", text)
    return found.group(1) if found else text


__all__ = ["Extractor", "Output", "StatementLineage", "statement_digest", "JOIN", "TInfo"]
