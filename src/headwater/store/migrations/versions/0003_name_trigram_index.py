"""Trigram indexes on dataset and job names, so a name search reads postings instead of every row.

Search matches ``lower(name) LIKE '%q%'`` (graph/search.py), which no B-tree can serve.

- **SQLite**: one FTS5 table per table, ``tokenize='trigram'`` (case-folding), *external content*
  (``content='datasets'``: the index stores only the trigram postings, keyed by the table's rowid,
  not a copy of the names), kept in step by triggers on INSERT, DELETE and ``UPDATE OF name``
  (the write path's frequent ``updated_at``/``kind``/``facets`` updates do not touch it), and
  filled from the existing rows with FTS5's ``'rebuild'`` command. Search uses it for candidates
  only and still applies the exact ``LIKE`` to every candidate row.
- **PostgreSQL**: ``pg_trgm`` (a trusted extension since PostgreSQL 13: the database owner or any
  role with CREATE on the database may install it) and a GIN index on ``lower(name)``; the
  planner uses it for the same ``lower(name) LIKE`` query and rechecks every candidate. The
  tables are analyzed at once: without statistics of the indexed expression the planner guesses
  a handful of matches and reads the index even for a substring in every name (``warehouse``).

If the index cannot be made (an SQLite build without FTS5 or its trigram tokenizer, or
``CREATE EXTENSION`` refused), the step is skipped inside a savepoint, one warning is logged,
and search keeps scanning; the migration still succeeds. To add the index later, see
docs/store.md ("Search").

A later migration that rebuilds ``datasets`` or ``jobs`` in Alembic batch mode (copy, drop,
rename) drops the SQLite triggers with the old table: it must create them again.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import logging

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

log = logging.getLogger("headwater.store.migrate")

TABLES = ("datasets", "jobs")


def _sqlite_ddl(table: str) -> list[str]:
    fts = f"{table}_name_trgm"
    delete = f"INSERT INTO {fts}({fts}, rowid, name) VALUES ('delete', old.rowid, old.name);"
    insert = f"INSERT INTO {fts}(rowid, name) VALUES (new.rowid, new.name);"
    return [
        f"CREATE VIRTUAL TABLE {fts} USING fts5(name, content='{table}', content_rowid='rowid', tokenize='trigram')",
        f"CREATE TRIGGER {fts}_insert AFTER INSERT ON {table} BEGIN {insert} END",
        f"CREATE TRIGGER {fts}_delete AFTER DELETE ON {table} BEGIN {delete} END",
        f"CREATE TRIGGER {fts}_update AFTER UPDATE OF name ON {table} BEGIN {delete} {insert} END",
        f"INSERT INTO {fts}({fts}) VALUES ('rebuild')",
    ]


def _postgresql_ddl(table: str) -> list[str]:
    return [f"CREATE INDEX ix_{table}_name_trgm ON {table} USING gin (lower(name) gin_trgm_ops)"]


def upgrade() -> None:
    bind = op.get_bind()
    dialect = bind.dialect.name
    if dialect == "sqlite":
        statements = [s for table in TABLES for s in _sqlite_ddl(table)]
    elif dialect == "postgresql":
        statements = [
            "CREATE EXTENSION IF NOT EXISTS pg_trgm",
            *(s for t in TABLES for s in _postgresql_ddl(t)),
            *(f"ANALYZE {t}" for t in TABLES),
        ]
    else:  # pragma: no cover - the store runs on SQLite and PostgreSQL only
        return
    try:
        with bind.begin_nested():
            for statement in statements:
                bind.exec_driver_sql(statement)
    except sa.exc.DBAPIError as exc:
        log.warning(
            "name search index not created (%s); search scans every dataset and job name instead. "
            "See docs/store.md, 'Search', to add it later.",
            str(exc.orig).strip().splitlines()[0],
        )


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        for table in TABLES:
            fts = f"{table}_name_trgm"
            for trigger in ("insert", "delete", "update"):
                bind.exec_driver_sql(f"DROP TRIGGER IF EXISTS {fts}_{trigger}")
            bind.exec_driver_sql(f"DROP TABLE IF EXISTS {fts}")
    elif bind.dialect.name == "postgresql":
        # the extension stays: other objects may use it, and it holds no data of ours
        for table in TABLES:
            bind.exec_driver_sql(f"DROP INDEX IF EXISTS ix_{table}_name_trgm")
