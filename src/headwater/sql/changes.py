"""SQL in a pull request → proposed changes (:mod:`headwater.model.changes`) for an impact check (pure).

:func:`script_changes` reads a script's statements in order with one :class:`~headwater.sql.Extractor`
(so tables an earlier statement made are known to later ones, and names get the same defaults as in
``headwater sql lineage``):

- ``ALTER TABLE t DROP COLUMN c`` → ``drop_column``; ``RENAME COLUMN a TO b`` → ``rename_column``;
  ``ALTER COLUMN c TYPE x`` / ``SET DATA TYPE x`` → ``retype_column``; ``ALTER TABLE t RENAME TO u`` →
  ``drop_dataset`` of ``t`` (readers of the old name break); ``ADD COLUMN`` changes nothing downstream;
- ``DROP TABLE`` / ``DROP VIEW`` / ``DROP MATERIALIZED VIEW`` → ``drop_dataset``;
- every statement that writes (``CREATE OR REPLACE VIEW``, ``CREATE TABLE AS``, ``INSERT``, ``MERGE``,
  ``UPDATE`` ...) → ``new_lineage`` of each dataset it writes: the column lineage the statement would
  produce, which the impact check compares with what the graph holds for the dataset's writers (``job``:
  the graph's job the script is, when the caller knows it). ``CREATE`` statements define the whole
  dataset (``replaces``).

A statement that cannot be parsed raises :class:`ScriptError` naming its position: a CI gate must not
pass a change it could not read.
"""

from __future__ import annotations

from sqlglot import exp

from headwater.model.changes import (
    DROP_COLUMN,
    DROP_DATASET,
    NEW_LINEAGE,
    RENAME_COLUMN,
    RETYPE_COLUMN,
    Change,
    ProposedColumn,
    SourceColumn,
)

from .dialects import Dialect, get_dialect
from .extract import Extractor, StatementLineage
from .schema import Catalog
from .script import Statement, parse_script

_DEFINES = ("create_view", "create_materialized_view", "create_table_as")


class ScriptError(ValueError):
    """A statement of the script could not be read."""


def _alter(ex: Extractor, e: exp.Alter, namespace: str, origin: str) -> list[Change]:
    if not isinstance(e.this, exp.Table) or (e.args.get("kind") or "TABLE").upper() != "TABLE":
        return []
    name = ex.dataset_of(e.this)
    out: list[Change] = []
    for action in e.args.get("actions") or []:
        if isinstance(action, exp.Drop) and (action.args.get("kind") or "").upper() == "COLUMN":
            for col in action.args.get("tables") or []:
                out.append(Change(DROP_COLUMN, namespace, name, column=col.name, origin=origin))
        elif isinstance(action, exp.RenameColumn):
            out.append(
                Change(RENAME_COLUMN, namespace, name, column=action.this.name, new_name=action.args["to"].name,
                       origin=origin)
            )  # fmt: skip
        elif isinstance(action, exp.AlterColumn) and action.args.get("dtype") is not None:
            dtype = action.args["dtype"].sql(dialect=ex.read)
            out.append(Change(RETYPE_COLUMN, namespace, name, column=action.this.name, new_type=dtype, origin=origin))
        elif isinstance(action, exp.AlterRename):
            renamed = ex.dataset_of(action.this) if isinstance(action.this, exp.Table) else "?"
            out.append(
                Change(DROP_DATASET, namespace, name, origin=origin, notes=(f"renamed to {renamed}: readers of {name} break",))
            )  # fmt: skip
    return out


def _lineage(record: StatementLineage, job: str | None, origin: str) -> list[Change]:
    namespaces = {name: ns for ns, name in record.inputs}
    out = []
    for output in record.outputs:
        if output.columns is None:
            continue  # the columns it writes are unknown: nothing to compare
        columns = tuple(
            ProposedColumn(
                name,
                tuple(
                    SourceColumn(namespaces.get(ds, output.namespace), ds, col, k.type, k.subtype, k.masking)
                    for (ds, col), kinds in sorted(deps.items())
                    for k in sorted(kinds)
                ),
            )
            for name, deps in output.columns
        )
        out.append(
            Change(
                NEW_LINEAGE, output.namespace, output.name, columns=columns, job=job,
                replaces=record.verb in _DEFINES, origin=origin, notes=tuple(record.notes),
            )
        )  # fmt: skip
    return out


def script_changes(
    sql: str,
    *,
    dialect: str | Dialect = "ansi",
    namespace: str,
    default_database: str | None = None,
    default_schema: str | None = None,
    catalog: Catalog | None = None,
    job: str | None = None,
    origin: str = "",
) -> list[Change]:
    """The changes the statements of ``sql`` propose, in order (see the module docstring)."""
    d = dialect if isinstance(dialect, Dialect) else get_dialect(dialect)
    ex = Extractor(
        d,
        namespace,
        default_database=default_database,
        default_schema=default_schema,
        catalog=catalog if catalog is not None else Catalog(namespace=namespace),
    )
    changes: list[Change] = []
    for stmt in parse_script(sql, d.sqlglot):
        where = f"{origin}:{stmt.line}" if origin else f"line {stmt.line}"
        if stmt.error:
            raise ScriptError(f"{where}: {stmt.error}")
        e = stmt.expression
        if isinstance(e, exp.Alter):
            changes.extend(_alter(ex, e, namespace, where))
            continue
        if isinstance(e, exp.Drop) and (e.args.get("kind") or "").upper() in ("TABLE", "VIEW"):
            for table in e.args.get("tables") or ([e.this] if e.this is not None else []):
                if isinstance(table, exp.Table):
                    changes.append(Change(DROP_DATASET, namespace, ex.dataset_of(table), origin=where))
        for record in ex.run(Statement(stmt.index, stmt.sql, stmt.line, stmt.col, e)):
            if record.error:
                raise ScriptError(f"{where}: {record.error}")
            changes.extend(_lineage(record, job, where))
    return changes
