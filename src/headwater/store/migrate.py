"""Run the packaged Alembic migrations programmatically."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

from headwater.store.engine import LOG_SCHEMA, LOG_TABLES
from headwater.store.schema import column_edges, dataset_fields, edges, fields

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
PG_MIGRATION_LOCK = 0x4857_4D47  # advisory lock key: one migration at a time per PostgreSQL database
# Indexes a bulk load into an empty store builds once at its end instead of keeping them up to date row by row
# (store/bulkload.py: millions of column edges, fields, dataset fields and edges inserted in random key order);
# only readers use them, no derivation (it finds fields by id, dataset fields by their primary key's dataset and
# edges by job). A load killed half-way leaves them missing: every open makes any that is missing
# (:func:`restore_indexes`).
_DEFERRED_NAMES = (
    "ix_column_edges_src",
    "ix_column_edges_dst",
    "ix_fields_dataset",
    "ix_dataset_fields_field",
    "ix_edges_dataset_at",
)
DEFERRABLE_INDEXES = tuple(
    i
    for t in (column_edges, fields, dataset_fields, edges)
    for i in sorted(t.indexes, key=str)
    if i.name in _DEFERRED_NAMES
)


def alembic_config(connection: sa.Connection | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def head_revision() -> str:
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None, "no migrations packaged"
    return head


def current_revision(engine: sa.Engine) -> str | None:
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def upgrade(engine: sa.Engine, revision: str = "head") -> int:
    """Migrate the database behind ``engine`` to ``revision`` (default: the newest).

    On PostgreSQL the migration holds an advisory lock for its transaction, so several servers started
    together on one new database migrate it once: the others wait, then find it at the newest revision.

    Answers how many events were moved into the log's own file (an older SQLite store: :func:`move_log`)."""
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": PG_MIGRATION_LOCK})
        command.upgrade(alembic_config(conn), revision)
    moved = move_log(engine)
    if revision == "head":
        restore_indexes(engine)
    return moved


# The name search's indexes (migration 0003), by the table whose names they index. SQLite: FTS5 trigram tables
# filled by triggers; PostgreSQL: a ``pg_trgm`` GIN index on ``lower(name)``. A bulk load into an empty store
# sets them aside (SQLite: each insert of a dataset or a job wrote its trigrams through a trigger, with SQLite's
# statement journal, most of the load's disk writes; PostgreSQL: each inserted or updated row added an entry per
# trigram of its name, a third of the server's work on the datasets): SQLite drops the triggers and moves each
# table aside under the name ``<table>_name_trgm_load``, PostgreSQL drops the index (search scans the names
# meanwhile: the same answers, slower); at its end they are made again as the migrations made them, in one pass
# over the names. A load killed half-way leaves them aside: every open finishes what the load's end would have
# done (:func:`restore_indexes`). A store whose migration could not make the name search (no FTS5, no
# ``pg_trgm``) has none to set aside and stays as it is.
NAME_SEARCH_TABLES = ("datasets", "jobs")
NAME_SEARCH_REVISION = "0003"  # the migration that made them: its statements make them again
_ASIDE = "_load"


def _name_search_ddl(conn: sa.Connection, table: str) -> list[str]:
    """Migration 0003's statements for ``table``'s name search, from the migration itself (the store's schema is
    the same whichever made it); on PostgreSQL with the index's pending list off, as migration 0014 set it."""
    script = ScriptDirectory.from_config(alembic_config()).get_revision(NAME_SEARCH_REVISION)
    assert script is not None, f"migration {NAME_SEARCH_REVISION} not packaged"
    if conn.dialect.name == "postgresql":
        made: list[str] = script.module._postgresql_ddl(table)
        return [*made, f"ALTER INDEX {_pg_name_index(table)} SET (fastupdate = off)"]
    statements: list[str] = script.module._sqlite_ddl(table)
    return statements


def _pg_name_index(table: str) -> str:
    return f"ix_{table}_name_trgm"


def name_search_aside(conn: sa.Connection) -> list[str]:
    """The name search set aside (in ``conn``'s transaction) until :func:`restore_indexes`: SQLite, its triggers
    dropped and its tables moved aside; PostgreSQL, its indexes dropped. Answers the tables whose name search was
    there."""
    moved = []
    if conn.dialect.name == "postgresql":
        present = _pg_indexes(conn)
        for table in NAME_SEARCH_TABLES:
            if _pg_name_index(table) in present:
                conn.exec_driver_sql(f"DROP INDEX {_pg_name_index(table)}")
                moved.append(table)
        return moved
    present = _master_names(conn, "table")
    for table in NAME_SEARCH_TABLES:
        fts = f"{table}_name_trgm"
        if fts not in present:
            continue
        for trigger in ("insert", "delete", "update"):
            conn.exec_driver_sql(f"DROP TRIGGER IF EXISTS {fts}_{trigger}")
        conn.exec_driver_sql(f"ALTER TABLE {fts} RENAME TO {fts}{_ASIDE}")
        moved.append(table)
    return moved


def _master_names(conn: sa.Connection, type_: str) -> set[str]:
    return {name for (name,) in conn.exec_driver_sql("SELECT name FROM main.sqlite_master WHERE type = ?", (type_,))}


def _pg_indexes(conn: sa.Connection) -> set[str]:
    found = conn.exec_driver_sql("SELECT indexname FROM pg_indexes WHERE schemaname = current_schema()")
    return {str(name) for (name,) in found}


def _name_search_to_make(conn: sa.Connection) -> list[str]:
    """The tables whose name search a bulk load set aside, to be made again: SQLite, a ``_load`` table (dropped
    here); PostgreSQL, no index while ``pg_trgm`` is installed (the migration made the index whenever it could
    install the extension)."""
    if conn.dialect.name == "postgresql":
        if conn.exec_driver_sql("SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'").first() is None:
            return []
        present = _pg_indexes(conn)
        return [t for t in NAME_SEARCH_TABLES if _pg_name_index(t) not in present]
    tables = _master_names(conn, "table")
    aside = [t for t in NAME_SEARCH_TABLES if f"{t}_name_trgm{_ASIDE}" in tables]
    for table in aside:
        conn.exec_driver_sql(f"DROP TABLE {table}_name_trgm{_ASIDE}")
    return aside


# PostgreSQL: memory for each index build of :func:`restore_indexes` (its sort in memory instead of in temporary
# files: the column edges' two indexes at a million datasets sort ~13 million entries each); this transaction only
PG_INDEX_BUILD_MEMORY = "512MB"


def restore_indexes(engine: sa.Engine) -> list[str]:
    """Create each of :data:`DEFERRABLE_INDEXES` that is missing, and the name search a bulk load set aside
    (:data:`NAME_SEARCH_TABLES`: a load stopped before its end); answers the names of those made."""
    if engine.dialect.name not in ("sqlite", "postgresql"):
        return []
    made: list[str] = []
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":  # one at a time: servers opening one store together, a load's end
            conn.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": PG_MIGRATION_LOCK})
            present = _pg_indexes(conn)
        else:
            present = _master_names(conn, "index")
        missing = [index for index in DEFERRABLE_INDEXES if index.name not in present]
        aside = _name_search_to_make(conn)
        if (missing or aside) and conn.dialect.name == "postgresql":
            conn.exec_driver_sql(f"SET LOCAL maintenance_work_mem = '{PG_INDEX_BUILD_MEMORY}'")
        for index in missing:
            index.create(conn)
            made.append(str(index.name))
        for table in aside:  # made again, filled from the names
            for statement in _name_search_ddl(conn, table):
                conn.exec_driver_sql(statement)
            made.append(f"{table}_name_trgm")
    return made


def _log_attached(conn: sa.Connection) -> bool:
    return conn.dialect.name == "sqlite" and any(
        row[1] == LOG_SCHEMA for row in conn.exec_driver_sql("PRAGMA database_list")
    )


def _master(conn: sa.Connection, schema: str, type_: str, table: str) -> list[tuple[str, str]]:
    found = conn.exec_driver_sql(
        f"SELECT name, sql FROM {schema}.sqlite_master WHERE type = ? AND tbl_name = ? AND sql IS NOT NULL",
        (type_, table),
    )
    return [(str(name), str(sql)) for name, sql in found]


def move_log(engine: sa.Engine) -> int:
    """SQLite: move the event log's tables from the main file into the log file (:mod:`headwater.store.engine`);
    answers how many events were moved (0 for a new store, when they are there already, and on PostgreSQL).

    The migrations create every table in the main file (a store made before the log had a file of its
    own has them there too); this moves them, data included, once. Two transactions, so that no crash
    loses an event: the first fills the log file (only that file is written), the second drops the old
    tables (only the main file is written). A crash between them leaves both copies, the main one in use
    (SQLite looks in the main file first); the next run copies again from it. Later migrations that change
    these tables must name the schema on SQLite (``schema="log"``)."""
    moved = 0
    for table in LOG_TABLES:
        with engine.begin() as conn:
            if not _log_attached(conn):
                return 0
            tables = _master(conn, "main", "table", table)
            if not tables:
                continue
            (_, create_sql), indexes = tables[0], _master(conn, "main", "index", table)
            conn.exec_driver_sql(f"DROP TABLE IF EXISTS {LOG_SCHEMA}.{table}")  # a copy left by a crash
            conn.exec_driver_sql(_in_log(create_sql, "TABLE", table))
            for name, sql in indexes:
                conn.exec_driver_sql(_in_log(sql, "INDEX", name))
            copied = conn.exec_driver_sql(f"INSERT INTO {LOG_SCHEMA}.{table} SELECT * FROM main.{table}").rowcount
        with engine.begin() as conn:
            conn.exec_driver_sql(f"DROP TABLE main.{table}")
        if table == "events":
            moved = int(copied or 0)
    return moved


def _in_log(create_sql: str, kind: str, name: str) -> str:
    """``CREATE [UNIQUE] TABLE|INDEX name ...`` as stored by SQLite → the same object in the log schema."""
    for quoted in (f'"{name}"', name):
        for head in (f"CREATE {kind} ", f"CREATE UNIQUE {kind} "):
            if create_sql.startswith(head + quoted):
                return f"{head}{LOG_SCHEMA}.{quoted}{create_sql[len(head + quoted) :]}"
    raise RuntimeError(f"unexpected definition of {name} in the SQLite schema: {create_sql[:200]}")
