"""Search datasets, jobs and fields by name: case-insensitive substring, best matches first.

Dataset and job names are matched with ``lower(name) LIKE '%q%'``. Migration 0003 adds trigram
indexes for it: on PostgreSQL a ``pg_trgm`` GIN index on ``lower(name)`` that the planner uses for
that very query (and rechecks); on SQLite an FTS5 trigram table per table whose ``MATCH`` gives
*candidate* rows, each still checked with the same ``LIKE`` (so the answer is the scan's, whatever
the index's case folding), used only when it is selective (see ``MAX_CANDIDATES``).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa

from headwater.graph.answers import ItemType, SearchAnswer, SearchResult
from headwater.graph.common import field_id
from headwater.model.times import iso
from headwater.store.schema import dataset_fields, datasets, jobs
from headwater.store.types import Row, Select

TYPES = ("dataset", "job", "field")

MIN_INDEXED = 3
"""Shorter queries scan: a trigram index has nothing to offer for one or two characters."""
MAX_CANDIDATES = 20_000
"""More index candidates than this and the SQLite scan is as fast as looking each one up (docs/store.md)."""
SQLITE_NAME_INDEXES = {"datasets": "datasets_name_trgm", "jobs": "jobs_name_trgm"}
"""The FTS5 trigram tables of migration 0003, by the table whose names they index."""


def _like(text: str) -> str:
    escaped = text.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _rank(value: str, q: str) -> int:
    low = value.lower()
    if low == q:
        return 0
    if low.startswith(q):
        return 1
    base = low.rsplit("/", 1)[-1]
    if base.startswith(q) or base.rsplit(".", 1)[-1].startswith(q):
        return 2
    return 3


def _sqlite_name_indexes(conn: sa.Connection) -> frozenset[str]:
    """The FTS5 name indexes this SQLite store has (none when migration 0003 could not make them)."""
    if conn.dialect.name != "sqlite":
        return frozenset()
    names = conn.scalars(
        sa.text("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN (:a, :b)"),
        {"a": SQLITE_NAME_INDEXES["datasets"], "b": SQLITE_NAME_INDEXES["jobs"]},
    )
    return frozenset(names)


def _phrase(q: str) -> str:
    """An FTS5 phrase matching ``q`` literally (with the trigram tokenizer: as a substring)."""
    return '"' + q.replace('"', '""') + '"'


def _candidates(
    conn: sa.Connection, table: sa.Table, q: str, indexes: frozenset[str], bound: int = MAX_CANDIDATES
) -> Select | None:
    """The rowids the SQLite trigram index finds for ``q``, or None when the scan is as good
    (no index, ``q`` too short, or more than ``bound`` candidates).

    Every row whose ``lower(name) LIKE '%q%'`` holds is among them: SQLite's ``lower`` and ``LIKE``
    fold ASCII only, the tokenizer folds every character the same on both sides, so it finds a
    superset (the caller keeps the ``LIKE``). ``LIKE`` stops at a NUL character; such a ``q`` scans.
    """
    index = SQLITE_NAME_INDEXES[table.name]
    if index not in indexes or len(q) < MIN_INDEXED or "\x00" in q:
        return None
    fts = sa.table(index, sa.column("rowid"))
    found = sa.select(fts.c.rowid).where(sa.literal_column(index).op("MATCH")(_phrase(q)))
    count = conn.scalar(sa.select(sa.func.count()).select_from(found.limit(bound + 1).subquery()))
    return found if (count or 0) <= bound else None


def _name_rows(
    conn: sa.Connection,
    table: sa.Table,
    q: str,
    pattern: str,
    namespace: str | None,
    scan: int,
    indexes: frozenset[str],
) -> list[Row]:
    """Datasets or jobs whose name matches, ``ORDER BY length(name), name, id``, at most ``scan``."""
    kind = table.c.kind if table is datasets else sa.null()
    query = sa.select(table.c.id, table.c.namespace, table.c.name, table.c.updated_at, kind.label("kind")).where(
        sa.func.lower(table.c.name).like(pattern, escape="\\")
    )
    candidates = _candidates(conn, table, q, indexes)
    if candidates is not None:
        query = query.where(sa.literal_column(f"{table.name}.rowid").in_(candidates))
    if namespace is not None:
        query = query.where(table.c.namespace == namespace)
    # ties (one name in two namespaces): by id, so the cut at ``scan`` is the same on every plan
    return list(conn.execute(query.order_by(sa.func.length(table.c.name), table.c.name, table.c.id).limit(scan)))


def _matching_field_names(conn: sa.Connection, pattern: str) -> list[str]:
    """Distinct field names matching ``pattern``, in ``ORDER BY length(field), field`` order.

    Field names repeat across datasets (``id``, ``name``, ``updated_at`` ...), so the distinct
    names are walked with a loose index scan on ``ix_dataset_fields_field`` (a recursive CTE,
    portable SQLite/PostgreSQL SQL: one index probe per distinct name) instead of matching
    every row of ``dataset_fields``.
    """
    f = dataset_fields.c.field
    walk = sa.select(sa.func.min(f).label("name")).cte("field_names", recursive=True)
    walk = walk.union_all(
        sa.select(sa.select(sa.func.min(f)).where(f > walk.c.name).scalar_subquery()).where(walk.c.name.is_not(None))
    )
    names = list(
        conn.scalars(
            sa.select(walk.c.name).where(
                walk.c.name.is_not(None), sa.func.lower(walk.c.name).like(pattern, escape="\\")
            )
        )
    )
    # the walk's order is the database's collation order; keep it among names of equal length
    return [name for _, _, name in sorted((len(name), i, name) for i, name in enumerate(names))]


def _field_rows(conn: sa.Connection, pattern: str, namespace: str | None, scan: int) -> list[Row]:
    """The current fields whose name matches, ``ORDER BY length(field), field``, at most ``scan``."""
    rows: list[Row] = []
    names = _matching_field_names(conn, pattern)
    query = (
        sa.select(
            dataset_fields.c.dataset,
            dataset_fields.c.field,
            dataset_fields.c.namespace,
            dataset_fields.c.name,
            datasets.c.updated_at,
            datasets.c.kind,
        )
        .join(datasets, datasets.c.id == dataset_fields.c.dataset)
        .where(dataset_fields.c.valid_to.is_(None))
    )
    if namespace is not None:
        query = query.where(dataset_fields.c.namespace == namespace)
    for start in range(0, len(names), 100):
        if len(rows) >= scan:
            break
        chunk = query.where(dataset_fields.c.field.in_(names[start : start + 100]))
        rows.extend(
            conn.execute(
                chunk.order_by(
                    sa.func.length(dataset_fields.c.field), dataset_fields.c.field, dataset_fields.c.dataset
                ).limit(scan - len(rows))  # ties: the same rows on every database
            ).all()
        )
    return rows


def search(
    conn: sa.Connection, q: str, *, types: Sequence[str] = TYPES, namespace: str | None = None, limit: int = 20
) -> SearchAnswer:
    q = q.strip().lower()
    if not q:
        raise ValueError("search text q must not be empty")
    unknown = set(types) - set(TYPES)
    if unknown:
        raise ValueError(f"unknown search type(s) {', '.join(sorted(unknown))}: use dataset, job or field")
    if limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")
    pattern = _like(q)
    scan = max(limit * 10, 200)
    found: list[tuple[tuple[int, int, str], SearchResult]] = []
    indexes = _sqlite_name_indexes(conn) if {"dataset", "job"} & set(types) else frozenset()
    kinds: tuple[tuple[str, ItemType, sa.Table], ...] = (("dataset", "DATASET", datasets), ("job", "JOB", jobs))
    for type_, item_type, table in kinds:
        if type_ not in types:
            continue
        for r in _name_rows(conn, table, q, pattern, namespace, scan, indexes):
            found.append(
                (
                    (_rank(r.name, q), len(r.name), r.id),
                    {
                        "id": r.id,
                        "type": item_type,
                        "namespace": r.namespace,
                        "name": r.name,
                        "field": None,
                        "kind": r.kind,
                        "updatedAt": iso(r.updated_at),
                    },
                )
            )
    if "field" in types:
        for r in _field_rows(conn, pattern, namespace, scan):
            fid = field_id(r.dataset, r.field)
            found.append(
                (
                    (_rank(r.field, q), len(r.field), fid),
                    {
                        "id": fid,
                        "type": "FIELD",
                        "namespace": r.namespace,
                        "name": r.name,
                        "field": r.field,
                        "kind": r.kind,
                        "updatedAt": iso(r.updated_at),
                    },
                )
            )
    found.sort(key=lambda item: item[0])
    return {"results": [item for _, item in found[:limit]]}
