"""The field dictionary: each (dataset node id, field name) that column lineage names, once, under a 64-bit id.

``column_edges`` names its two ends by these ids instead of repeating a dataset id and a field name as text on
every edge and in every index entry. This module owns the ``fields`` table: nothing else writes it, and
nothing outside the store reads ids.

- :func:`field_key` is the id of a pair: the first 8 bytes of its BLAKE2b hash, as a signed 64-bit integer.
  Pure, so the projector needs no round trip to learn an id, and the same field has the same id in every
  store whatever order its events came in (derived rows compare equal across stores, and a rebuild gives the
  rows one-by-one projection gave). It is a stored format: never change it.
- :func:`ensure` adds the pairs not in the dictionary yet (in the caller's transaction, beside the edges
  naming them); two pairs with one id (a hash collision, ~1e-7 at ten million fields) are refused with
  :class:`FieldCollision` instead of mixing two fields.
- Readers never see ids: :func:`edge_select` is ``column_edges`` joined with both ends' texts, with the
  columns the graph layer reads (``job``, ``src_dataset``, ``src_field``, ``dst_dataset``, ``dst_field``,
  ``valid_from``, ``valid_to``, ``transformations``); ``SRC_DATASET`` … are its columns to filter on, and
  :func:`ids_of` gives the ids of known pairs for exact lookups through the edges' own indexes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import Any

import sqlalchemy as sa

from headwater.store.schema import column_edges, fields

Field = tuple[str, str]  # (dataset node id, field name; '' = the whole dataset)
CHUNK = 500


class FieldCollision(RuntimeError):
    """Two distinct fields hash to one id (never seen; refused rather than mixing them)."""


def field_key(dataset: str, field: str) -> int:
    """The id of ``(dataset, field)`` in every store (a stored format: never change it)."""
    digest = hashlib.blake2b(f"{dataset}\x00{field}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def ensure(conn: sa.Connection, pairs: Iterable[Field]) -> None:
    """Add to the dictionary the ``pairs`` it does not hold yet; raises :class:`FieldCollision` when an id is
    held by another pair."""
    wanted: dict[int, Field] = {}
    for pair in pairs:
        key = field_key(*pair)
        other = wanted.setdefault(key, pair)
        if other != pair:
            raise FieldCollision(f"fields {other!r} and {pair!r} hash to one id ({key})")
    keys = sorted(wanted)
    missing: list[dict[str, Any]] = []  # rows to add
    for start in range(0, len(keys), CHUNK):
        chunk = keys[start : start + CHUNK]
        held = {r.id: (r.dataset, r.field) for r in conn.execute(sa.select(fields).where(fields.c.id.in_(chunk)))}
        for key in chunk:
            found = held.get(key)
            if found is None:
                missing.append({"id": key, "dataset": wanted[key][0], "field": wanted[key][1]})
            elif found != wanted[key]:
                raise FieldCollision(f"fields {found!r} and {wanted[key]!r} hash to one id ({key})")
    if (
        missing
    ):  # straight to the driver's executemany: a wide job adds thousands (SQLAlchemy's per-row work is most of it)
        quote = conn.dialect.identifier_preparer.quote
        mark = "?" if conn.dialect.paramstyle == "qmark" else "%s"
        conn.exec_driver_sql(
            f"INSERT INTO {quote(fields.name)} (id, dataset, field) VALUES ({mark}, {mark}, {mark})",
            [(m["id"], m["dataset"], m["field"]) for m in missing],
        )


def edge_rows(conn: sa.Connection, rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """``column_edges`` rows to insert from rows naming their ends by text (``src_dataset``, ``src_field``,
    ``dst_dataset``, ``dst_field``, as :func:`headwater.store.derive_jobs.derive_column_edges` answers); the
    ends are added to the dictionary."""
    out: list[dict[str, Any]] = []
    ends: set[Field] = set()
    for r in rows:
        src, dst = (r["src_dataset"], r["src_field"]), (r["dst_dataset"], r["dst_field"])
        ends.add(src)
        ends.add(dst)
        out.append(
            {
                "job": r["job"],
                "src_field_id": field_key(*src),
                "dst_field_id": field_key(*dst),
                "valid_from": r["valid_from"],
                "valid_to": r["valid_to"],
                "transformations": r["transformations"],
            }
        )
    ensure(conn, ends)
    return out


def clear(conn: sa.Connection) -> None:
    """Empty the dictionary (a rebuild refills it with the fields its edges name)."""
    conn.execute(fields.delete())


_SRC = fields.alias("src_f")
_DST = fields.alias("dst_f")
SRC_DATASET = _SRC.c.dataset
SRC_FIELD = _SRC.c.field
DST_DATASET = _DST.c.dataset
DST_FIELD = _DST.c.field
SRC_ID = column_edges.c.src_field_id
DST_ID = column_edges.c.dst_field_id
JOINED = column_edges.join(_SRC, _SRC.c.id == SRC_ID).join(_DST, _DST.c.id == DST_ID)
COLUMNS: dict[str, sa.ColumnElement[Any]] = {
    "job": column_edges.c.job,
    "src_dataset": SRC_DATASET,
    "src_field": SRC_FIELD,
    "dst_dataset": DST_DATASET,
    "dst_field": DST_FIELD,
    "valid_from": column_edges.c.valid_from,
    "valid_to": column_edges.c.valid_to,
    "transformations": column_edges.c.transformations,
}


def edge_select(*names: str) -> sa.Select[Any]:
    """``SELECT`` of column edges with their ends as text: the named columns (default: all of
    :data:`COLUMNS`, in that order), each labelled with its name."""
    return sa.select(*(COLUMNS[n].label(n) for n in (names or COLUMNS))).select_from(JOINED)


def ids_of(pairs: Iterable[Field]) -> list[int]:
    """The ids of ``pairs`` (whether or not the dictionary holds them: a missing one matches no edge)."""
    return sorted({field_key(*p) for p in pairs})
