"""The events the projector could not derive: recorded, listed, and tried again.

An event that cannot be observed or derived is not dropped and does not stop the projector: it is
recorded as an ``error`` observation of its own node (``error:<event id>``), with the error's text.
That observation moves the watermark (:mod:`headwater.store.watermark`) past the event, ``GET
/api/v1/status`` lists it (:func:`failed_events`), and ``headwater db retry-failed`` (or the
projector at start) derives it again after a fix (:func:`retry_failed`).
"""

from __future__ import annotations

import sqlalchemy as sa

from headwater.model.nodeid import error_node_id
from headwater.store.parts import observation_rows, read_observations
from headwater.store.projector import project_rows
from headwater.store.schema import events, observations
from headwater.store.watermark import LogPlace, log_events

# one failed event: {"seq": its log position, "id": its event id, "error": what went wrong}
FailedEvent = dict[str, int | str]


def mark_failed(conn: sa.Connection, row: LogPlace, message: str) -> None:
    """Record that a log event could not be derived (an ``error`` observation moves the watermark past it)."""
    conn.execute(
        observations.insert(),
        observation_rows(
            conn,
            [
                {
                    "node": error_node_id(row.id),
                    "event_seq": row.seq,
                    "role": "error",
                    "time": 0,
                    "event_id": row.id,
                    "data": {"error": message},
                }
            ],
        ),
    )


def failed_events(conn: sa.Connection, limit: int = 100) -> tuple[int, list[FailedEvent]]:
    """How many log events could not be derived, and the oldest ``limit`` of them: ``{seq, id, error}``."""
    failed = observations.c.role == "error"
    count = int(conn.scalar(sa.select(sa.func.count()).select_from(observations).where(failed)) or 0)
    rows = conn.execute(
        sa.select(observations.c.event_seq, observations.c.event_id, observations.c.data)
        .where(failed)
        .order_by(observations.c.event_seq)
        .limit(limit)
    )
    found = rows.all()
    datas = read_observations(conn, [r.data for r in found])
    return count, [
        {"seq": int(r.event_seq), "id": r.event_id, "error": str(d.get("error", ""))}
        for r, d in zip(found, datas, strict=True)
    ]


def retry_failed(conn: sa.Connection) -> tuple[int, list[FailedEvent]]:
    """Derive again every event recorded as failed (after a fix); answers (how many now derived, those still failing).

    Each event is tried alone in a savepoint: when it derives, its ``error`` observation is replaced
    by its real observations (an old event re-derives the nodes it touches, as any late event does);
    when it fails again, the record stays, with the new error.
    """
    failed_seqs = sa.select(observations.c.event_seq).where(observations.c.role == "error")
    fixed = 0
    still: list[FailedEvent] = []
    for row in log_events(conn, events.c.seq.in_(failed_seqs)):
        is_error = sa.and_(observations.c.role == "error", observations.c.event_seq == row.seq)
        try:
            with conn.begin_nested():
                conn.execute(observations.delete().where(is_error))
                project_rows(conn, [row])
            fixed += 1
        except Exception as exc:  # noqa: BLE001 - recorded again, with the error of this attempt
            message = f"{type(exc).__name__}: {exc}"
            (stored,) = observation_rows(conn, [{"data": {"error": message}}])
            conn.execute(observations.update().where(is_error).values(data=stored["data"]))
            still.append({"seq": row.seq, "id": row.id, "error": message})
    return fixed, still
