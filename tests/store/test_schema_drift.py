"""The schema is written twice: ``store/schema.py`` (what the code reads and writes) and the Alembic
migrations (what a database is made of). Alembic's own comparison checks they agree, on SQLite and
PostgreSQL: a column, type, nullability, index or constraint added to one and not the other fails here.

Left out of the comparison, by name: the search's trigram index (migration 0003), which exists only
in the migrations on purpose — SQLite FTS5 tables and triggers or a PostgreSQL GIN expression index,
created when the database supports them (docs/store.md, "Search").
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from headwater.store import migrate
from headwater.store.engine import LOG_TABLES, create_store_engine, events_file
from headwater.store.schema import metadata

SEARCH_INDEX_MARK = "_name_trgm"  # datasets_name_trgm*, jobs_name_trgm* (SQLite); ix_*_name_trgm (PostgreSQL)


def _not_the_search_index(obj: Any, name: str | None, type_: str, reflected: bool, compare_to: Any) -> bool:
    return not (name and SEARCH_INDEX_MARK in name)


def _compare(engine: sa.Engine, target: sa.MetaData) -> list[Any]:
    with engine.connect() as conn:
        context = MigrationContext.configure(
            conn,
            opts={
                "compare_type": True,
                "compare_server_default": True,
                "include_object": _not_the_search_index,
            },
        )
        return list(compare_metadata(context, target))


def _only(target: sa.MetaData, keep: bool) -> sa.MetaData:
    """The tables of ``target`` that live in the event log's file (``keep``) or the others."""
    part = sa.MetaData()
    for table in target.sorted_tables:
        if (table.name in LOG_TABLES) == keep:
            table.to_metadata(part)
    return part


def _differences(engine: sa.Engine, target: sa.MetaData) -> list[Any]:
    """On PostgreSQL one comparison; on SQLite one per file: the main file holds every table but the
    log's, the log's file (opened on its own) exactly the log's (headwater.store.engine)."""
    if engine.dialect.name != "sqlite":
        return _compare(engine, target)
    assert engine.url.database is not None
    log_engine = sa.create_engine(f"sqlite:///{events_file(engine.url.database)}")
    try:
        return _compare(engine, _only(target, keep=False)) + _compare(log_engine, _only(target, keep=True))
    finally:
        log_engine.dispose()


def test_migrations_build_exactly_the_tables_of_schema_py(empty_store_url: str) -> None:
    engine = create_store_engine(empty_store_url)
    try:
        migrate.upgrade(engine)
        assert _differences(engine, metadata) == []
    finally:
        engine.dispose()


def test_a_drift_is_found(empty_store_url: str) -> None:
    """The comparison is not blind: a column and an index the migrations never made are reported."""
    drifted = sa.MetaData()
    for table in metadata.sorted_tables:
        table.to_metadata(drifted)
    drifted.tables["datasets"].append_column(sa.Column("owner", sa.Text))
    sa.Index("ix_events_kind", drifted.tables["events"].c.kind)
    engine = create_store_engine(empty_store_url)
    try:
        migrate.upgrade(engine)
        found = {
            (d[0], getattr(d[-1], "name", None) if d[0] != "add_column" else d[3].name)
            for d in _differences(engine, drifted)
        }
        assert found == {("add_column", "owner"), ("add_index", "ix_events_kind")}
    finally:
        engine.dispose()
