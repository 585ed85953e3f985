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

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypedDict, Unpack

from .dialects import DIALECTS, Dialect, get_dialect
from .events import PRODUCER, to_event
from .extract import Extractor, Output, StatementLineage, statement_digest
from .schema import Catalog, Column, Provider
from .script import Statement, parse_script, read_script

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
    "ScriptOptions",
    "StatementLineage",
    "analyze_script",
    "get_dialect",
    "parse_script",
    "script_events",
    "stream_events",
    "statement_digest",
    "to_event",
    "default_namespace",
]


def default_namespace(dialect: Dialect) -> str:
    return dialect.system


class ScriptOptions(TypedDict, total=False):
    """How a script is read: its dialect (a name or a :class:`Dialect`), the datasets' namespace (default: the
    dialect's system), the database and schema of unqualified names, the schemas known (:class:`Catalog`)."""

    dialect: str | Dialect
    namespace: str | None
    default_database: str | None
    default_schema: str | None
    catalog: Catalog | None


@dataclass
class _Reading:
    dialect: Dialect
    namespace: str
    catalog: Catalog
    extractor: Extractor


def _reading(options: ScriptOptions, extractor: Extractor | None = None) -> _Reading:
    given = options.get("dialect") or "ansi"
    d = given if isinstance(given, Dialect) else get_dialect(given)
    ns = options.get("namespace") or default_namespace(d)
    found = options.get("catalog")
    cat = found if found is not None else Catalog(namespace=ns)
    ex = extractor or Extractor(
        d,
        ns,
        default_database=options.get("default_database"),
        default_schema=options.get("default_schema"),
        catalog=cat,
    )
    return _Reading(d, ns, cat, ex)


def _records(reading: _Reading, sql: str) -> tuple[int, Iterator[StatementLineage]]:
    """How many statements ``sql`` has, and their records in order, each statement read when asked for."""
    count, statements = read_script(sql, reading.dialect.sqlglot)

    def records() -> Iterator[StatementLineage]:
        for stmt in statements:
            found = reading.extractor.run(stmt)
            for statement in (stmt, *(stmt.block or ()), *(r.statement for r in found)):
                statement.expression = None  # its tree is no longer needed (see analyze_script)
            yield from found

    return count, records()


def analyze_script(
    sql: str, *, extractor: Extractor | None = None, **options: Unpack[ScriptOptions]
) -> list[StatementLineage]:
    """Every statement of ``sql`` in order, with its lineage (or its error). Never raises on bad SQL.

    The records keep each statement's text and place, not its syntax tree (``Statement.expression`` is None once
    read): a script of thousands of statements would otherwise hold every tree until the end."""
    return list(_records(_reading(options, extractor), sql)[1])


def _event(
    reading: _Reading, r: StatementLineage, total: int, job_namespace: str | None, event_time: datetime | None
) -> dict[str, Any] | None:
    if not (r.writes or r.error):
        return None
    schemas = {name: cols for _ns, name in r.inputs if (cols := reading.catalog.columns(name))}
    return to_event(
        r,
        dialect=reading.dialect.name,
        job_namespace=job_namespace or reading.namespace,
        event_time=event_time,
        input_schemas=schemas,
        total_tasks=total,
    )


def stream_events(
    sql: str, *, job_namespace: str | None = None, event_time: datetime | None = None, **options: Unpack[ScriptOptions]
) -> Iterator[tuple[StatementLineage, dict[str, Any] | None]]:
    """Each record of ``sql`` in order with its COMPLETE event (None: the statement neither writes nor failed),
    made as the script is read: a script of thousands of statements is never all in memory."""
    reading = _reading(options)
    total, records = _records(reading, sql)
    for r in records:
        yield r, _event(reading, r, total, job_namespace, event_time)


def script_events(
    sql: str,
    *,
    job_namespace: str | None = None,
    event_time: datetime | None = None,
    records: Sequence[StatementLineage] | None = None,
    **options: Unpack[ScriptOptions],
) -> list[dict[str, Any]]:
    """COMPLETE events for every statement that writes and every statement that could not be read (of ``records``
    when given: the records of ``sql`` read with the same options)."""
    if records is None:
        streamed = stream_events(sql, job_namespace=job_namespace, event_time=event_time, **options)
        return [event for _r, event in streamed if event is not None]
    reading = _reading(options)
    total = len({r.statement.index for r in records})
    found = (_event(reading, r, total, job_namespace, event_time) for r in records)
    return [event for event in found if event is not None]


from .views import view_lineage  # noqa: E402 - uses analyze_script above

__all__ += ["view_lineage"]
