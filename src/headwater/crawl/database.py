"""Crawl a database through SQLAlchemy reflection: schemas, tables, columns, keys, comments, views.

Anything SQLAlchemy reflects works (PostgreSQL, MariaDB/MySQL and SQLite are tested); the driver
must be installed (``headwater[postgres]`` for psycopg; ``pymysql`` for MariaDB/MySQL). A view's
source tables come from the database's own dependency records where it keeps them — PostgreSQL's
``pg_depend`` (views and materialized views), SQLite's authorizer callback while the view is
compiled — never from parsing the SQL text with patterns; MariaDB/MySQL keep none, so their views
get their definition (SQL facet) and schema but no source tables unless the caller passes a SQL
lineage engine (``view_lineage``: ``headwater crawl`` passes ``headwater.sql.view_lineage`` when that
package provides it) to read the definition into source tables and column lineage.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

import sqlalchemy as sa
from sqlalchemy.engine import URL, make_url
from sqlalchemy.engine.reflection import Inspector

if TYPE_CHECKING:
    from sqlalchemy.engine.interfaces import ReflectedColumn

from headwater.crawl.files import table_name
from headwater.crawl.model import Column, Skipped, Table
from headwater.model.naming import scheme, sqlalchemy_table_dataset

SYSTEM_SCHEMAS = frozenset({"information_schema", "pg_catalog", "pg_toast", "mysql", "performance_schema", "sys"})
_DRIVERS = {
    "postgres": "postgresql+psycopg",
    "postgresql": "postgresql+psycopg",
    "mysql": "mysql+pymysql",
    "mariadb": "mariadb+pymysql",
}
DATABASE_SCHEMES = frozenset(
    {
        "postgres",
        "postgresql",
        "mysql",
        "mariadb",
        "sqlite",
        "mssql",
        "oracle",
        "cockroachdb",
        "redshift",
        "snowflake",
        "duckdb",
        "trino",
        "clickhouse",
    }
)

_PG_VIEW_SOURCES = sa.text("""
SELECT DISTINCT tn.nspname AS source_schema, t.relname AS source_table, v.relname AS view_name
FROM pg_depend d
JOIN pg_rewrite r ON r.oid = d.objid
JOIN pg_class v ON v.oid = r.ev_class
JOIN pg_namespace vn ON vn.oid = v.relnamespace
JOIN pg_class t ON t.oid = d.refobjid
JOIN pg_namespace tn ON tn.oid = t.relnamespace
WHERE d.classid = 'pg_rewrite'::regclass AND d.refclassid = 'pg_class'::regclass
  AND v.relkind IN ('v', 'm') AND t.oid <> v.oid AND vn.nspname = :schema
""")


def is_database_url(source: str) -> bool:
    return scheme(source) in DATABASE_SCHEMES


def engine_url(source: str) -> URL:
    """The SQLAlchemy URL with Headwater's drivers (psycopg 3, PyMySQL) when the URL names none."""
    url = make_url(source)
    if "+" not in url.drivername and url.drivername in _DRIVERS:
        url = url.set(drivername=_DRIVERS[url.drivername])
    return url


def public_url(source: str) -> str:
    """The URL without user and password (what events and job names show)."""
    url = make_url(source)
    return url.set(username=None, password=None).render_as_string(hide_password=True)


@dataclass
class DatabaseResult:
    tables: list[Table]
    skipped: list[Skipped]
    complete: bool  # every schema was reflected (only then are missing tables "removed")


# (view SQL, database URL without credentials, schema, SQLAlchemy dialect name) → (source tables as
# (namespace, name), the view's columnLineage facet fields); headwater.sql.view_lineage is one
ViewLineage = Callable[[str, str, str, str | None], tuple[list[tuple[str, str]], dict[str, Any]]]


def crawl_database(
    source: str, *, schemas: Sequence[str] | None = None, view_lineage: ViewLineage | None = None
) -> DatabaseResult:
    """Reflect ``source``; ``view_lineage`` (the SQL lineage engine's, given by the caller: this package
    does not import its sibling producers) reads each view's definition into sources and column lineage."""
    url = engine_url(source)
    named = public_url(source)
    engine = sa.create_engine(url)
    tables: list[Table] = []
    skipped: list[Skipped] = []
    complete = True
    try:
        insp = sa.inspect(engine)
        default = insp.default_schema_name
        wanted = list(schemas) if schemas else _schemas(insp, url)
        for schema in wanted:
            try:
                tables += _schema_tables(engine, insp, named, schema, default, url, view_lineage)
            except sa.exc.SQLAlchemyError as exc:
                complete = False
                skipped.append(
                    Skipped(
                        f"{named} schema {schema}",
                        f"cannot reflect: {exc.__class__.__name__}: {str(exc).splitlines()[0]}",
                    )
                )
    finally:
        engine.dispose()
    return DatabaseResult(tables, skipped, complete)


def _schemas(insp: Inspector, url: URL) -> list[str]:
    if url.get_backend_name() in ("mysql", "mariadb") and url.database:
        return [url.database]
    return [s for s in insp.get_schema_names() if s not in SYSTEM_SCHEMAS and not s.startswith("pg_")]


def _column_type(col: ReflectedColumn, dialect: sa.Dialect) -> str:
    try:
        return str(col["type"].compile(dialect=dialect))
    except Exception:  # noqa: BLE001 - a type the dialect cannot render (NullType...) keeps its Python name
        return str(col["type"])


_P = ParamSpec("_P")
_K = TypeVar("_K")
_V = TypeVar("_V")


def _optional(call: Callable[_P, dict[_K, _V]], *args: _P.args, **kwargs: _P.kwargs) -> dict[_K, _V]:
    try:
        return call(*args, **kwargs)
    except NotImplementedError:
        return {}


def _schema_tables(
    engine: sa.Engine,
    insp: Inspector,
    named: str,
    schema: str,
    default: str | None,
    url: URL,
    engine_lineage: ViewLineage | None,
) -> list[Table]:
    from sqlalchemy.engine.reflection import ObjectKind

    views = set(insp.get_view_names(schema=schema))
    try:
        views |= set(insp.get_materialized_view_names(schema=schema))
    except NotImplementedError:
        pass
    columns = insp.get_multi_columns(schema=schema, kind=ObjectKind.ANY)
    keys = _optional(insp.get_multi_pk_constraint, schema=schema, kind=ObjectKind.ANY)
    comments = _optional(insp.get_multi_table_comment, schema=schema, kind=ObjectKind.ANY)
    sources = _view_sources(engine, schema, sorted(views)) if views else {}
    is_default = schema in (default, url.database, "main")
    out = []
    for (_schema, name), cols in sorted(columns.items()):
        key, comment = keys.get((_schema, name)), comments.get((_schema, name))
        pk = set(key.get("constrained_columns") or []) if key else set()
        namespace, dataset = sqlalchemy_table_dataset(named, schema, name)
        table = Table(
            name=table_name(name if is_default else f"{schema}_{name}"),
            location=f"{named}#{schema}.{name}",
            namespace=namespace,
            dataset=dataset,
            format="view" if name in views else "table",
            columns=tuple(
                Column(
                    c["name"],
                    _column_type(c, engine.dialect),
                    bool(c.get("nullable", True)),
                    c.get("comment"),
                    (),
                    c["name"] in pk,
                )
                for c in cols
            ),
            description=comment.get("text") if comment else None,
        )
        if name in views:
            table.view_sql = _definition(insp, name, schema)
            table.view_sources = tuple(sqlalchemy_table_dataset(named, s, t) for s, t in sources.get(name, ()))
            if engine_lineage is not None and table.view_sql:
                try:
                    found, lineage = engine_lineage(table.view_sql, named, schema, engine.dialect.name)
                    table.view_sources = tuple(found) or table.view_sources
                    table.view_column_lineage = dict(lineage)
                except Exception:  # noqa: BLE001 - the engine is optional; table-level lineage stays
                    pass
        out.append(table)
    return out


def _definition(insp: Inspector, view: str, schema: str) -> str | None:
    try:
        text = insp.get_view_definition(view, schema=schema)
    except (NotImplementedError, sa.exc.SQLAlchemyError):
        return None
    return str(text).strip() if text else None


def _view_sources(engine: sa.Engine, schema: str, views: list[str]) -> dict[str, list[tuple[str, str]]]:
    """View → the (schema, table) pairs it reads, from the database's dependency records."""
    backend = engine.dialect.name
    found: dict[str, list[tuple[str, str]]] = {}
    if backend == "postgresql":
        with engine.connect() as conn:
            for row in conn.execute(_PG_VIEW_SOURCES, {"schema": schema}):
                found.setdefault(row.view_name, []).append((row.source_schema, row.source_table))
    elif backend == "sqlite":
        raw = engine.raw_connection()
        try:
            driver = raw.driver_connection
            assert isinstance(driver, sqlite3.Connection)
            for view in views:
                reads: set[tuple[str, str]] = set()

                def authorize(
                    action: int,
                    arg1: str | None,
                    _arg2: str | None,
                    db: str | None,
                    _src: str | None,
                    reads: set[tuple[str, str]] = reads,
                ) -> int:
                    if action == sqlite3.SQLITE_READ and arg1:
                        reads.add((db or "main", arg1))
                    return sqlite3.SQLITE_OK

                driver.set_authorizer(authorize)
                try:
                    quoted = '"' + view.replace('"', '""') + '"'
                    driver.execute(f'SELECT * FROM "{schema}".{quoted} LIMIT 0').fetchall()
                finally:
                    driver.set_authorizer(None)
                found[view] = sorted(r for r in reads if r[1] != view and r[1] not in views)
        finally:
            raw.close()
    return found
