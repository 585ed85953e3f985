"""How one query of a statement is read, and the records statements give (pure apart from the catalog's look-ups).

:class:`Reader` is what :class:`~headwater.sql.extract.Extractor` (the statement forms) stands on: the names of
tables (defaults applied), the analysis of one query (qualified as :mod:`.qualify` decides, its scopes read by
:class:`~headwater.sql.columns.Analyzer`), the schemas known to the script so far (its catalog and temporary
tables) and how a write is recorded (:class:`Output` on a :class:`StatementLineage`; through a temporary table:
nothing, its lineage kept for the statements that read it).
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass, field
from typing import Any

from sqlglot import exp
from sqlglot.errors import SqlglotError
from sqlglot.optimizer.normalize_identifiers import normalize_identifiers
from sqlglot.optimizer.scope import build_scope

from headwater.model.naming import default_table_schema, path_dataset, sql_table_dataset, table_levels

from .columns import Analyzer, Deps, NeedsQualification, Relation, add_all
from .dialects import Dialect, sqlglot_dialect
from .qualify import needs_qualify, qualify_tables
from .schema import Catalog
from .script import Statement

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


class Reader:
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


class _Unqualified(Exception):
    """sqlglot could not qualify a statement's columns: it is read again without that step."""


def _copy_deps(deps: Deps) -> Deps:
    return {k: set(v) for k, v in deps.items()}


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
