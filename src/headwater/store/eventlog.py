"""The append-only event log: insert (deduplicated), fetch one, list newest first.

Each event's text is stored compressed (:mod:`headwater.store.codec`) and read back byte-identical; its id
hashes the event as sent (:mod:`headwater.store.canonical`), whatever its stored form."""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, TypedDict

import sqlalchemy as sa

from headwater.model.jsontext import dumps, loads_text
from headwater.model.nodeid import NodeRef
from headwater.model.times import from_micros, to_micros
from headwater.store import codec, parts
from headwater.store.canonical import decoded_event_id, event_id
from headwater.store.observe import Observation, header
from headwater.store.schema import event_warnings, events, observations
from headwater.store.types import IncomingEvent, StoredEvent


class InvalidCursor(ValueError):
    """A ``cursor`` that this store did not hand out."""


@dataclass(frozen=True)
class NewEvent:
    seq: int
    id: str
    observations: list[Observation]


@dataclass(frozen=True)
class PreparedEvent:
    """An event ready for the log: its id, its ``events`` row (``received_at`` set on insert) and its
    validation warnings as JSON text (None: none). The row holds the text in ``raw``; or, made ahead by a bulk
    load's worker, its stored form (``raw``, ``body``, ``dictionary``: :class:`headwater.store.codec.Encoder`),
    kept as made unless made without a dictionary while the store has one at insert (:func:`codec.kept_as_made`)."""

    id: str
    row: dict[str, Any]
    warnings: str | None = None
    # the event's value when the ingest door parsed it from ``row["raw"]`` in this process: the projector takes
    # it instead of parsing the stored text again (never sent between processes: ``without_payload``)
    payload: Mapping[str, Any] | None = field(default=None, compare=False)

    def without_payload(self) -> PreparedEvent:
        return self if self.payload is None else replace(self, payload=None)


def prepare(batch: Sequence[IncomingEvent]) -> list[PreparedEvent]:
    """Ids and log rows (pure; done by each caller before it queues for the write lock)."""
    prepared: list[PreparedEvent] = []
    for ev in batch:
        eid = event_id(ev.payload) if ev.decoded is None else decoded_event_id(ev.decoded)
        head = header(ev.payload)
        prepared.append(
            PreparedEvent(
                eid,
                {
                    "id": eid,
                    "raw": ev.raw,
                    "event_time": head.event_time,
                    "kind": head.kind,
                    "event_type": head.event_type,
                    "job": head.job,
                    "run_id": head.run_id,
                },
                dumps([dict(w) for w in ev.warnings]) if ev.warnings else None,
                ev.payload if ev.parsed else None,
            )
        )
    return prepared


# Built once (every append runs them; building a statement costs more than a one-row insert).
_STORED_IDS = sa.select(events.c.id).where(events.c.id.in_(sa.bindparam("ids", expanding=True)))
_INSERT_EVENTS = events.insert().returning(events.c.seq, sort_by_parameter_order=True)
_HEAD = sa.select(sa.func.max(events.c.seq))


def insert_events(
    conn: sa.Connection, batch: Sequence[PreparedEvent], received_at: int
) -> tuple[list[str], set[str], int]:
    """Append the events not stored yet to the log.

    Returns every event's id, the ids stored now, and the newest ``seq`` stored now (0: none).
    Only the log is written here (one dedupe query per 500 ids, one multi-row insert): the
    observations and the derived graph are the projector's (:mod:`headwater.store.background`).
    """
    ids = [p.id for p in batch]
    existing: set[str] = set()
    unique = sorted(set(ids))
    for start in range(0, len(unique), 500):
        chunk = unique[start : start + 500]
        existing.update(conn.scalars(_STORED_IDS, {"ids": chunk}))
    rows: list[dict[str, Any]] = []
    warned: list[str | None] = []
    pending: set[str] = set()
    held = codec.codec_of(conn.engine)
    newest = held.newest(conn)[0]
    for p in batch:
        if p.id in existing or p.id in pending:
            continue
        pending.add(p.id)
        if "dictionary" in p.row and codec.kept_as_made(p.row["dictionary"], newest):  # made by a bulk load's worker
            rows.append({**p.row, "received_at": received_at})
            warned.append(p.warnings)
            continue
        # compressed here, for the fresh events only (a resent one costs nothing): ~20 µs a Spark event; one made
        # ahead without a dictionary while the store has one now is compressed again with the newest
        text = str(p.row["raw"]) if "dictionary" not in p.row else held.text(conn, **_stored_form(p.row))
        rows.append({**p.row, "received_at": received_at, **codec.encode(conn, text).columns()})
        warned.append(p.warnings)
    if not rows:
        return ids, pending, 0
    seqs = _insert(conn, rows)
    notes = [
        {"event_id": row["id"], "event_seq": seq, "warnings": text}
        for row, seq, text in zip(rows, seqs, warned, strict=True)
        if text is not None
    ]
    if notes:  # in the same transaction: an acknowledged event never loses its warnings
        conn.execute(event_warnings.insert(), notes)
    return ids, pending, max(seqs)


_LOG_COLUMNS = tuple(c.name for c in events.columns if c.name != "seq")


def _insert(conn: sa.Connection, rows: Sequence[Mapping[str, Any]]) -> list[int]:
    """Insert the log ``rows``; answers their ``seq``s, in their order.

    - SQLite: one prepared statement run by the driver for every row (``executemany``, a loop in C), the
      ``seq``s then read as the last ``rowid`` and those before it: the caller holds the log's write lock, so
      the rows took consecutive ``seq``s (AUTOINCREMENT gives each the largest so far + 1). The
      ``RETURNING`` statement SQLAlchemy writes instead (rows in groups, each parameter bound in Python) cost
      ~21 µs per Spark event against ~8.
    - PostgreSQL, many rows (a bulk load's batch): by COPY, their ``seq``s taken from the column's sequence
      first, in order: the statement SQLAlchemy writes for many rows with ``RETURNING`` (one ``VALUES`` list of
      thousands of parameters) cost the driver more Python to split and bind than the rest of the append.
    """
    if conn.dialect.name == "sqlite":
        done = conn.exec_driver_sql(_SQLITE_INSERT, [tuple(row.get(c) for c in _LOG_COLUMNS) for row in rows])
        if done.rowcount != len(rows):
            raise RuntimeError(f"the log took {done.rowcount} of {len(rows)} rows")
        last = int(conn.exec_driver_sql("SELECT last_insert_rowid()").scalar_one())
        return list(range(last - len(rows) + 1, last + 1))
    if len(rows) < parts.COPY_ROWS:
        return [row.seq for row in conn.execute(_INSERT_EVENTS, rows)]
    taken = conn.exec_driver_sql(_PG_NEXT_SEQS, (len(rows),))
    seqs = sorted(int(seq) for (seq,) in taken)
    parts.insert_many(
        conn,
        events,
        ("seq", *_LOG_COLUMNS),
        [(seq, *(row.get(c) for c in _LOG_COLUMNS)) for seq, row in zip(seqs, rows, strict=True)],
    )
    return seqs


_SQLITE_INSERT = f"INSERT INTO events ({', '.join(_LOG_COLUMNS)}) VALUES ({', '.join('?' for _ in _LOG_COLUMNS)})"
_PG_NEXT_SEQS = "SELECT nextval(pg_get_serial_sequence('events', 'seq')) FROM generate_series(1, %s)"


def _stored_form(row: Mapping[str, Any]) -> dict[str, Any]:
    return {"raw": str(row["raw"]), "body": row.get("body"), "dictionary": row.get("dictionary")}


def head_seq(conn: sa.Connection) -> int:
    """The newest event's ``seq`` (0 for an empty log)."""
    return int(conn.scalar(_HEAD) or 0)


def insert_observations(conn: sa.Connection, new: Sequence[NewEvent]) -> None:
    """Store the observations (their large values as parts: :mod:`headwater.store.parts`)."""
    rows = [
        {
            "node": o.node,
            "event_seq": n.seq,
            "role": o.role,
            "time": o.time,
            "event_id": n.id,
            "data": o.data,
            "stored": o.stored,
        }
        for n in new
        for o in n.observations
    ]
    parts.insert_observations(conn, rows)


def _stored(conn: sa.Connection, row: sa.Row[*tuple[Any, ...]]) -> StoredEvent:
    return StoredEvent(
        id=row.id,
        raw=codec.text(conn, row),
        received_at=from_micros(row.received_at),
        event_time=from_micros(row.event_time),
        kind=row.kind,
        event_type=row.event_type,
        job=row.job,
        run_id=row.run_id,
        warnings=[] if row.warnings is None else list(loads_text(row.warnings)),
    )


_COLUMNS = (
    events.c.seq,
    events.c.id,
    *codec.TEXT_COLUMNS,
    events.c.received_at,
    events.c.event_time,
    events.c.kind,
    events.c.event_type,
    events.c.job,
    events.c.run_id,
    event_warnings.c.warnings,
)
_WITH_WARNINGS = events.outerjoin(event_warnings, event_warnings.c.event_id == events.c.id)


def get_event(conn: sa.Connection, eid: str) -> StoredEvent | None:
    row = conn.execute(sa.select(*_COLUMNS).select_from(_WITH_WARNINGS).where(events.c.id == eid)).first()
    return None if row is None else _stored(conn, row)


def encode_cursor(event_time: int, seq: int) -> str:
    return base64.urlsafe_b64encode(f"{event_time}:{seq}".encode()).decode().rstrip("=")


_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def decode_cursor(cursor: str) -> tuple[int, int]:
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        time_text, seq_text = text.split(":")
        event_time, seq = int(time_text), int(seq_text)
        if not (_INT64_MIN <= event_time <= _INT64_MAX and 0 <= seq <= _INT64_MAX):
            raise ValueError("out of range")  # the columns are 64-bit: never a database overflow
        if encode_cursor(event_time, seq) != cursor:  # only the one text encode_cursor writes: base64 skips
            raise ValueError("not canonical")  # stray characters, int() takes " 1", "+1", "0_1"
        return event_time, seq
    except (ValueError, UnicodeDecodeError):
        raise InvalidCursor(f"invalid cursor {cursor!r}: pass the nextCursor of a previous answer") from None


def node_key(node: NodeRef) -> str:
    """The observation key of a node (a field's events are its dataset's events)."""
    if node.type == "datasetField":
        return node.dataset.id
    return node.id


class EventQuery(TypedDict, total=False):
    """The filters and paging of :func:`list_events` (its defaults apply to those left out), for those who
    pass them on (``Store.list_events``, ``GraphReader.events``)."""

    since: datetime | None
    until: datetime | None
    node: NodeRef | None
    limit: int
    cursor: str | None


def list_events(
    conn: sa.Connection,
    *,
    since: datetime | None = None,
    until: datetime | None = None,
    node: NodeRef | None = None,
    limit: int = 100,
    cursor: str | None = None,
) -> tuple[list[StoredEvent], str | None]:
    """Events newest first (by event time) in [since, until], a page of ``limit`` (at least 1, else
    ValueError) after ``cursor``, and the cursor of the next page (None: no more); ``node`` limits to the
    events that touched it (through the projected observations)."""
    if limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")
    query = sa.select(*_COLUMNS).select_from(_WITH_WARNINGS)
    if since is not None:
        query = query.where(events.c.event_time >= to_micros(since))
    if until is not None:
        query = query.where(events.c.event_time <= to_micros(until))
    if node is not None:
        touched = sa.select(observations.c.event_seq).where(observations.c.node == node_key(node))
        query = query.where(events.c.seq.in_(touched))
    if cursor is not None:
        c_time, c_seq = decode_cursor(cursor)
        query = query.where(
            sa.or_(events.c.event_time < c_time, sa.and_(events.c.event_time == c_time, events.c.seq < c_seq))
        )
    query = query.order_by(events.c.event_time.desc(), events.c.seq.desc()).limit(limit + 1)
    rows = list(conn.execute(query))
    page = rows[:limit]
    next_cursor = encode_cursor(page[-1].event_time, page[-1].seq) if len(rows) > limit and page else None
    return [_stored(conn, r) for r in page], next_cursor


def warning_count(conn: sa.Connection) -> int:
    """How many events of the log were accepted with validation warnings."""
    return int(conn.scalar(sa.select(sa.func.count()).select_from(event_warnings)) or 0)


def count_events(conn: sa.Connection, *, since: int | None, until: int | None) -> int:
    """How many events have an event time in [since, until] (either bound may be open)."""
    query = sa.select(sa.func.count()).select_from(events)
    if since is not None:
        query = query.where(events.c.event_time >= since)
    if until is not None:
        query = query.where(events.c.event_time <= until)
    return int(conn.scalar(query) or 0)
