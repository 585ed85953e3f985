"""Column lineage's dictionaries: each field (dataset node id, field name) and each transformation list, once,
under a 64-bit id.

``column_edges`` names its two ends by ``fields`` ids and its transformations by a ``column_transformations`` id,
instead of repeating a dataset id and a field name per end, and the transformations' JSON, as text on every edge
(and the ends again in its primary key and its two indexes). This module owns both tables: nothing else writes
them, and nothing outside the store reads ids.

- :func:`field_key` is the id of a pair, :func:`transformations_key` the id of a transformation list's JSON
  text: the first 8 bytes of a BLAKE2b hash, as a signed 64-bit integer. Pure, so the projector needs no round
  trip to learn an id, and the same field has the same id in every store whatever order its events came in
  (derived rows compare equal across stores, and a rebuild gives the rows one-by-one projection gave). They
  are a stored format: never change them.
- :func:`edge_rows` turns derived column edges (texts) into ``column_edges`` rows, adding the fields and
  transformation lists the dictionaries do not hold yet (in the caller's transaction, beside the edges naming
  them); two values with one id (a hash collision, ~1e-7 at ten million fields) are refused with
  :class:`FieldCollision` instead of mixing them.
- Readers never see ids: :func:`edge_select` is ``column_edges`` joined with the texts, with the columns the
  graph layer reads (``job``, ``src_dataset``, ``src_field``, ``dst_dataset``, ``dst_field``, ``valid_from``,
  ``valid_to``, ``transformations``); ``SRC_DATASET`` … are its columns to filter on, and :func:`ids_of` gives
  the ids of known pairs for exact lookups through the edges' own indexes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import Any

import sqlalchemy as sa

from headwater.store.parts import insert_many, select_in
from headwater.store.schema import column_edges, column_transformations, fields

Field = tuple[str, str]  # (dataset node id, field name; '' = the whole dataset)
CHUNK = 500


class FieldCollision(RuntimeError):
    """Two distinct values hash to one id (never seen; refused rather than mixing them)."""


def _key(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big", signed=True)


def field_key(dataset: str, field: str) -> int:
    """The id of ``(dataset, field)`` in every store (a stored format: never change it)."""
    return _key(f"{dataset}\x00{field}")


def transformations_key(text: str) -> int:
    """The id of a transformation list's JSON text in every store (a stored format: never change it)."""
    return _key(text)


def _ensure(conn: sa.Connection, table: sa.Table, wanted: Mapping[int, tuple[Any, ...]]) -> None:
    """Add to ``table`` (id + value columns) the ``wanted`` rows (id -> values) it does not hold; an id held
    with other values is a collision."""
    keys = sorted(wanted)
    missing: list[tuple[Any, ...]] = []
    for start in range(0, len(keys), CHUNK):
        chunk = keys[start : start + CHUNK]
        held = {r[0]: r[1:] for r in select_in(conn, table, "id", chunk)}
        for key in chunk:
            found = held.get(key)
            if found is None:
                missing.append((key, *wanted[key]))
            elif found != wanted[key]:
                raise FieldCollision(f"{table.name}: {found!r} and {wanted[key]!r} hash to one id ({key})")
    if missing:
        insert_many(conn, table, [c.name for c in table.columns], missing)


def _wanted(values: Iterable[tuple[int, tuple[Any, ...]]], what: str) -> dict[int, tuple[Any, ...]]:
    wanted: dict[int, tuple[Any, ...]] = {}
    for key, value in values:
        other = wanted.setdefault(key, value)
        if other != value:
            raise FieldCollision(f"{what}: {other!r} and {value!r} hash to one id ({key})")
    return wanted


def ensure(conn: sa.Connection, pairs: Iterable[Field]) -> None:
    """Add to the field dictionary the ``pairs`` it does not hold yet."""
    _ensure(conn, fields, _wanted(((field_key(*p), p) for p in pairs), "fields"))


def edge_rows(conn: sa.Connection, rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """``column_edges`` rows to insert from rows naming their ends by text (``src_dataset``, ``src_field``,
    ``dst_dataset``, ``dst_field``, as :func:`headwater.store.derive_jobs.derive_column_edges` answers) with
    ``transformations`` as JSON text; their ends and transformation lists are added to the dictionaries."""
    out: list[dict[str, Any]] = []
    ends: dict[Field, int] = {}
    lists: dict[str, int] = {}
    for r in rows:
        src, dst, text = (r["src_dataset"], r["src_field"]), (r["dst_dataset"], r["dst_field"]), r["transformations"]
        src_key = ends.get(src)
        if src_key is None:
            src_key = ends[src] = field_key(*src)
        dst_key = ends.get(dst)
        if dst_key is None:
            dst_key = ends[dst] = field_key(*dst)
        text_key = lists.get(text)
        if text_key is None:
            text_key = lists[text] = transformations_key(text)
        out.append(
            {
                "job": r["job"],
                "src_field_id": src_key,
                "dst_field_id": dst_key,
                "valid_from": r["valid_from"],
                "valid_to": r["valid_to"],
                "transformations_id": text_key,
            }
        )
    _ensure(conn, fields, _wanted(((k, p) for p, k in ends.items()), "fields"))
    _ensure(conn, column_transformations, _wanted(((k, (t,)) for t, k in lists.items()), "column_transformations"))
    return out


def clear(conn: sa.Connection) -> None:
    """Empty the dictionaries (a rebuild refills them with what its edges name)."""
    conn.execute(fields.delete())
    conn.execute(column_transformations.delete())


_SRC = fields.alias("src_f")
_DST = fields.alias("dst_f")
_LIST = column_transformations.alias("t")
SRC_DATASET = _SRC.c.dataset
SRC_FIELD = _SRC.c.field
DST_DATASET = _DST.c.dataset
DST_FIELD = _DST.c.field
SRC_ID = column_edges.c.src_field_id
DST_ID = column_edges.c.dst_field_id
JOINED = (
    column_edges.join(_SRC, _SRC.c.id == SRC_ID)
    .join(_DST, _DST.c.id == DST_ID)
    .join(_LIST, _LIST.c.id == column_edges.c.transformations_id)
)
COLUMNS: dict[str, sa.ColumnElement[Any]] = {
    "job": column_edges.c.job,
    "src_dataset": SRC_DATASET,
    "src_field": SRC_FIELD,
    "dst_dataset": DST_DATASET,
    "dst_field": DST_FIELD,
    "valid_from": column_edges.c.valid_from,
    "valid_to": column_edges.c.valid_to,
    "transformations": _LIST.c.body,
}


def edge_select(*names: str) -> sa.Select[Any]:
    """``SELECT`` of column edges with their ends and transformations as text: the named columns (default: all of
    :data:`COLUMNS`, in that order), each labelled with its name."""
    return sa.select(*(COLUMNS[n].label(n) for n in (names or COLUMNS))).select_from(JOINED)


def ids_of(pairs: Iterable[Field]) -> list[int]:
    """The ids of ``pairs`` (whether or not the dictionary holds them: a missing one matches no edge)."""
    return sorted({field_key(*p) for p in pairs})
