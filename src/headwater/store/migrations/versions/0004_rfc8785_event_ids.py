"""Event ids hash the RFC 8785 (JCS) canonical form of the event (store/canonical.py, docs/store.md).

Before this revision an id hashed Python's ``json.dumps(sort_keys=True, separators=(",", ":"),
ensure_ascii=False)`` bytes, which only CPython reproduces exactly. The two forms are the same bytes
for most events (ASCII keys, integers, no floats); they differ for floats (``1.0`` → ``1``,
``1e-05`` → ``0.00001``) and for keys whose UTF-16 order differs from their code-point order.

Upgrade: every event's id is computed anew from its stored text; the events whose id changes get
the new one. Two events that were distinct only in such a spelling (``1.0`` and ``1``) are one
event under the new scheme: the later copy is removed, as a resent event would never have been
stored. When any id changed, the derived graph and the observation index are emptied, so the
projector of the next ``Store.open`` derives them again from the log (the ids appear in them).
Clients that kept an old id of a changed event find it under its new id (``GET /api/v1/events``).

Downgrade: the same with the old form.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

log = logging.getLogger("headwater.store")

_DERIVED = (
    "runs",
    "jobs",
    "job_versions",
    "datasets",
    "dataset_versions",
    "dataset_fields",
    "edges",
    "column_edges",
    "observations",
)
_CHUNK = 2000


def _old_id(payload: Any) -> str:
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _new_id(payload: Any) -> str:
    from headwater.store.canonical import event_id

    return event_id(payload)


def _reid(compute: Callable[[Any], str]) -> None:
    from headwater.model.jsontext import loads_text

    conn = op.get_bind()
    events = sa.table("events", sa.column("seq", sa.BigInteger), sa.column("id", sa.String), sa.column("raw", sa.Text))
    changed: list[tuple[int, str, str]] = []
    last = 0
    while True:
        rows = conn.execute(
            sa.select(events.c.seq, events.c.id, events.c.raw)
            .where(events.c.seq > last)
            .order_by(events.c.seq)
            .limit(_CHUNK)
        ).all()
        if not rows:
            break
        for row in rows:
            try:
                new = compute(loads_text(row.raw))
            except ValueError as exc:  # no canonical form: keep the id it has
                log.warning("event %s keeps its id: %s", row.id, exc)
                continue
            if new != row.id:
                changed.append((row.seq, row.id, new))
        last = rows[-1].seq
    if not changed:
        return
    removed = 0
    for seq, _old, new in changed:  # in log order: the earliest copy keeps the id
        taken = conn.execute(sa.select(events.c.seq).where(events.c.id == new)).first()
        if taken is not None and taken.seq != seq:
            conn.execute(events.delete().where(events.c.seq == seq))
            removed += 1
        else:
            conn.execute(events.update().where(events.c.seq == seq).values(id=new))
    for table in _DERIVED:
        conn.execute(sa.text(f"DELETE FROM {table}"))
    log.warning(
        "event ids: %d changed (%d duplicates under the new form removed); the graph is derived again from the log",
        len(changed),
        removed,
    )


def upgrade() -> None:
    _reid(_new_id)


def downgrade() -> None:
    _reid(_old_id)
