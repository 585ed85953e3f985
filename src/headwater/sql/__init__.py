"""The SQL lineage engine: SQL text → OpenLineage RunEvents with table and column lineage.

A pure pipeline in sqlglot's style::

    SQL text ──script.split/parse──► statements ──extract.Extractor (qualify against the Catalog's schemas,
    scopes → columns.Analyzer)──► StatementLineage records ──events.to_event──► OpenLineage event dicts

Dataset names come from :mod:`headwater.model.naming`, transformation kinds from
:mod:`headwater.model.column_lineage` (the meanings Spark capture uses). Events go to a Headwater through
:mod:`headwater.client` (the caller's business: this package never sends anything).

    from headwater.sql import analyze_script, script_events
    records = analyze_script(sql, dialect="postgres", namespace="postgres://db:5432", default_database="shop")
    events = script_events(sql, dialect="postgres", namespace="postgres://db:5432", default_database="shop")
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from .dialects import DIALECTS, Dialect, get_dialect
from .events import PRODUCER, to_event
from .extract import Extractor, Output, StatementLineage, statement_digest
from .schema import Catalog, Column, Provider
from .script import Statement, parse_script

__all__ = [
    "DIALECTS",
    "PRODUCER",
    "Catalog",
    "Column",
    "Dialect",
    "Extractor",
    "Output",
    "Provider",
    "Statement",
    "StatementLineage",
    "analyze_script",
    "get_dialect",
    "parse_script",
    "script_events",
    "statement_digest",
    "to_event",
    "default_namespace",
]


def default_namespace(dialect: Dialect) -> str:
    return dialect.system


def analyze_script(
    sql: str,
    *,
    dialect: str | Dialect = "ansi",
    namespace: str | None = None,
    default_database: str | None = None,
    default_schema: str | None = None,
    catalog: Catalog | None = None,
    extractor: Extractor | None = None,
) -> list[StatementLineage]:
    """Every statement of ``sql`` in order, with its lineage (or its error). Never raises on bad SQL."""
    d = dialect if isinstance(dialect, Dialect) else get_dialect(dialect)
    ex = extractor or Extractor(
        d,
        namespace or default_namespace(d),
        default_database=default_database,
        default_schema=default_schema,
        catalog=catalog,
    )
    records: list[StatementLineage] = []
    for stmt in parse_script(sql, d.sqlglot):
        records.extend(ex.run(stmt))
    return records


def script_events(
    sql: str,
    *,
    dialect: str | Dialect = "ansi",
    namespace: str | None = None,
    default_database: str | None = None,
    default_schema: str | None = None,
    catalog: Catalog | None = None,
    job_namespace: str | None = None,
    event_time: datetime | None = None,
    records: Sequence[StatementLineage] | None = None,
) -> list[dict[str, Any]]:
    """COMPLETE events for every statement that writes and every statement that could not be read."""
    d = dialect if isinstance(dialect, Dialect) else get_dialect(dialect)
    ns = namespace or default_namespace(d)
    cat = catalog if catalog is not None else Catalog(namespace=ns)
    if records is None:
        records = analyze_script(
            sql, dialect=d, namespace=ns, default_database=default_database, default_schema=default_schema, catalog=cat
        )
    total = len({r.statement.index for r in records})
    events = []
    for r in records:
        if not (r.writes or r.error):
            continue
        schemas = {name: cols for _ns, name in r.inputs if (cols := cat.columns(name))}
        events.append(
            to_event(
                r,
                dialect=d.name,
                job_namespace=job_namespace or ns,
                event_time=event_time,
                input_schemas=schemas,
                total_tasks=total,
            )
        )
    return events


from .views import view_lineage  # noqa: E402 - uses analyze_script above

__all__ += ["view_lineage"]
