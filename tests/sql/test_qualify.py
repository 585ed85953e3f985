"""The engine's own table qualification and its skipping of sqlglot's column qualification (sql/qualify.py) give
the records sqlglot's qualification gives: every rule case and golden script is read both ways and every record
compared whole (inputs, outputs, column and dataset-level deps, notes, candidates)."""

from __future__ import annotations

import random

import pytest
from sqlglot import exp

import headwater.sql.reader as reader
from headwater.sql import Catalog, StatementLineage, analyze_script, get_dialect
from headwater.sql.dialects import sqlglot_dialect
from headwater.sql.qualify import needs_qualify, sqlglot_qualify_tables

from . import oracle
from .golden_util import GOLDEN, cases, header
from .test_rules import _cases


def _sqlglot_tables(query: exp.Expr, db: str, catalog: str | None, dialect: str) -> exp.Expr:
    return sqlglot_qualify_tables(query, db=db, catalog=catalog, dialect=sqlglot_dialect(dialect))


def _sqlglot_columns(query: exp.Expr) -> bool:
    """sqlglot's column qualification wherever a star or a positional ORDER BY is (what the analyzer now does
    itself), and wherever else the engine asks for it."""
    for node in query.walk():
        if isinstance(node, exp.Star):
            return True
        if isinstance(node, exp.Order) and any(isinstance(o.this, exp.Literal) for o in node.expressions):
            return True
    return needs_qualify(query)


def _document(records: list[StatementLineage]) -> list[object]:
    def deps(d: dict) -> list[object]:
        return sorted((leaf, sorted(repr(k) for k in kinds)) for leaf, kinds in d.items())

    return [
        (
            r.verb,
            r.inputs,
            r.error,
            r.skipped,
            r.notes,
            r.candidates,
            [
                (
                    o.namespace,
                    o.name,
                    o.kind,
                    o.lifecycle,
                    o.columns and [(c, deps(d)) for c, d in o.columns],
                    deps(o.dataset),
                )
                for o in r.outputs
            ],
        )
        for r in records
    ]


def _scripts() -> list[tuple[str, str, dict]]:
    """(case, script, analyze_script options) of every rule case, golden script and some generated queries."""
    out = []
    for c in _cases():
        d = get_dialect(c.dialect)
        out.append((f"{c.file}/{c.name}", "\n".join(c.sql), {"dialect": d, "tables": c.schema, "namespace": d.system}))
    for path in cases():
        sql = path.read_text()
        opts = header(sql)
        d = get_dialect(opts.get("dialect", "ansi"))
        out.append(
            (
                path.stem,
                sql,
                {
                    "dialect": d,
                    "tables": opts["schema"],
                    "namespace": opts.get("namespace") or d.system,
                    "default_database": opts.get("default-database"),
                    "default_schema": opts.get("default-schema"),
                },
            )
        )
    rnd = random.Random(5)
    for i in range(60):
        dialect = ("duckdb", "snowflake", "bigquery", "tsql")[i % 4]
        tables = {"t": list(oracle.T_COLS), "u": list(oracle.U_COLS)} if i % 3 else {}
        sql = f"CREATE TABLE out AS {oracle.generate(rnd)}"
        out.append((f"generated {i}", sql, {"dialect": get_dialect(dialect), "tables": tables, "namespace": "x"}))
    return out


def _read(sql: str, opts: dict) -> list[object]:
    options = {k: v for k, v in opts.items() if k != "tables"}
    catalog = Catalog(tables=opts["tables"], namespace=opts["namespace"])
    return _document(analyze_script(sql, catalog=catalog, **options))


def test_the_engine_reads_every_case_as_sqlglot_qualification_does(monkeypatch: pytest.MonkeyPatch) -> None:
    scripts = _scripts()
    assert GOLDEN.is_dir() and len(scripts) > 500
    calls = {"own tables": 0, "columns skipped": 0}
    own_tables, own_columns = reader.qualify_tables, reader.needs_qualify

    def counting_tables(query: exp.Expr, db: str, catalog: str | None, dialect: str) -> exp.Expr:
        from headwater.sql.qualify import _plain_tables

        calls["own tables"] += _plain_tables(query) is not None
        return own_tables(query, db, catalog, dialect)

    def counting_columns(query: exp.Expr) -> bool:
        needed = own_columns(query)
        calls["columns skipped"] += not needed and _sqlglot_columns(query)
        return needed

    monkeypatch.setattr(reader, "qualify_tables", counting_tables)
    monkeypatch.setattr(reader, "needs_qualify", counting_columns)
    engine = [_read(sql, opts) for _name, sql, opts in scripts]
    monkeypatch.setattr(reader, "qualify_tables", _sqlglot_tables)
    monkeypatch.setattr(reader, "needs_qualify", _sqlglot_columns)
    sqlglot = [_read(sql, opts) for _name, sql, opts in scripts]
    # the engine's own ways were taken (most tables, the stars and positions of many cases), so this compares
    assert calls["own tables"] > 400 and calls["columns skipped"] > 30, calls
    differ = [name for (name, _sql, _opts), a, b in zip(scripts, engine, sqlglot, strict=True) if a != b]
    assert differ == []
