"""A view's definition → the tables it reads and its columns' lineage, for crawlers that reflect views.

``view_lineage(view_sql, database_url, schema, dialect)`` is what ``headwater crawl`` hands the database
crawler (``headwater.crawl.database.ViewLineage``): the view's SELECT is read as ``CREATE VIEW … AS`` by
the engine, in the database's dialect, with the connection's database and the view's schema as defaults.
Its sources are named as the crawler names that database's tables (``model/naming.py``), so a view's
lineage and a crawled table are one node; its columns' lineage keeps the engine's transformation types.
"""

from __future__ import annotations

from typing import Any

from headwater.model.column_lineage import DIRECT, INDIRECT
from headwater.model.naming import database_namespace, sqlalchemy_table_dataset

from . import analyze_script
from .columns import Deps, add_all
from .dialects import DIALECTS, get_dialect
from .events import column_lineage_facet

# SQLAlchemy dialect names → the engine's dialects
_DIALECTS = {
    "postgresql": "postgres",
    "mysql": "mysql",
    "mariadb": "mariadb",
    "sqlite": "sqlite",
    "mssql": "tsql",
    "oracle": "oracle",
    "redshift": "redshift",
    "snowflake": "snowflake",
    "bigquery": "bigquery",
}


def view_lineage(
    view_sql: str, database_url: str, schema: str | None, dialect: str | None
) -> tuple[list[tuple[str, str]], dict[str, Any]]:
    """(source tables as ``(namespace, name)``, ``columnLineage`` facet ``fields`` of the view's columns).

    Empty answers when the definition cannot be read (the crawler then keeps table-level lineage)."""
    name = _DIALECTS.get((dialect or "").lower(), "ansi")
    sqlite = name == "sqlite"
    namespace, database = database_namespace(database_url)
    text = view_sql.strip().rstrip(";")
    if text[:6].upper() != "CREATE":  # PostgreSQL and MariaDB give the SELECT, SQLite the whole statement
        text = f"CREATE VIEW headwater_crawled_view AS {text}"
    records = analyze_script(
        text,
        dialect=get_dialect(name if name in DIALECTS else "ansi"),
        namespace=namespace,
        default_database=None if sqlite else database,
        default_schema=None if sqlite else schema,
    )
    record = next((r for r in records if r.outputs and not r.error), None)
    if record is None:
        return [], {}
    rename: dict[str, tuple[str, str]] = {}
    for ns, table in record.inputs:
        rename[table] = sqlalchemy_table_dataset(database_url, schema, table) if sqlite else (ns, table)
    out = record.outputs[0]
    # the crawler's contract carries fields only: the dataset-level deps are folded into each (OpenLineage's default)
    # for the INDIRECT ones; a whole-row read's DIRECT entry (COUNT(*): ``t.*``) only into the fields that have no
    # DIRECT source of their own (the count itself), not onto every column beside it
    indirect_only = {leaf: {k for k in kinds if k.type == INDIRECT} for leaf, kinds in out.dataset.items()}
    indirect_only = {leaf: kinds for leaf, kinds in indirect_only.items() if kinds}
    folded = [
        (c, _with(d, out.dataset if not any(k.type == DIRECT for ks in d.values() for k in ks) else indirect_only))
        for c, d in out.columns or []
        if c != "*"
    ]
    facet = column_lineage_facet(folded, {t: ns for t, (ns, _n) in rename.items()})
    fields: dict[str, Any] = dict((facet or {}).get("fields", {}))
    if sqlite:  # the crawler's SQLite names: the database file, then the table
        for column in fields.values():
            for item in column["inputFields"]:
                item["namespace"], item["name"] = rename.get(item["name"], (item["namespace"], item["name"]))
    return sorted(set(rename.values())), fields


def _with(deps: Deps, dataset: Deps) -> Deps:
    merged: Deps = {k: set(v) for k, v in deps.items()}
    add_all(merged, dataset)
    return merged
