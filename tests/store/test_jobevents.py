"""Static metadata: a JobEvent says only what it sends. Its job facets are laid over the job's (one not sent is
kept, one sent as ``{"_deleted": true}`` removed), and the ``inputs`` / ``outputs`` it leaves out are the job's
before it, so a JobEvent adding documentation does not wipe the job's lineage or SQL; in time order however the
events arrive, and a rebuild derives the same graph. On SQLite and PostgreSQL."""

from __future__ import annotations

import json
from typing import Any

import pytest
import sqlalchemy as sa

from fixtures.stories.load import derived_state, incoming
from headwater.store import Store
from headwater.store.schema import job_versions, jobs

P = "https://example.com/static"
JOB = "job:ns:load_orders"


def f(**body: Any) -> dict[str, Any]:
    return {"_producer": P, "_schemaURL": P + "/facet.json", **body}


def ds(name: str) -> dict[str, str]:
    return {"namespace": "file", "name": name}


def run(minute: int) -> list[dict[str, Any]]:
    """A run of the job: reads /raw/orders, writes /mart/orders, with its SQL."""
    return [
        {
            "eventType": event_type,
            "eventTime": f"2026-03-01T10:{minute + i:02d}:00Z",
            "producer": P,
            "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
            "run": {"runId": "0195a1c2-0000-7000-8000-000000000001"},
            "job": {"namespace": "ns", "name": "load_orders", "facets": {"sql": f(query="INSERT INTO mart SELECT 1")}},
            "inputs": [ds("/raw/orders")],
            "outputs": [ds("/mart/orders")],
        }
        for i, event_type in enumerate(("START", "COMPLETE"))
    ]


def job_event(minute: int, facets: dict[str, Any], **io: list[dict[str, str]]) -> dict[str, Any]:
    return {
        "eventTime": f"2026-03-01T10:{minute:02d}:00Z",
        "producer": P,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/JobEvent",
        "job": {"namespace": "ns", "name": "load_orders", "facets": facets},
        **io,
    }


EVENTS = [
    *run(0),
    job_event(10, {"documentation": f(description="Orders, loaded nightly")}),  # facets only: nothing else moves
    job_event(20, {}, inputs=[ds("/raw/orders"), ds("/raw/refunds")]),  # inputs only: the outputs stay
    job_event(30, {"sql": f(_deleted=True)}),  # the SQL deleted: the documentation stays
    job_event(40, {}, outputs=[]),  # an empty list states "none"
]


def versions(store: Store) -> list[tuple[list[str], list[str], list[str], list[str]]]:
    """Each version of the job, oldest first: inputs, outputs, its facets' names and what changed."""
    assert store.caught_up()
    with store.engine.connect() as conn:
        rows = conn.execute(
            sa.select(job_versions).where(job_versions.c.job == JOB).order_by(job_versions.c.valid_from)
        )
        return [
            (
                [i.rsplit(":", 1)[1] for i in _json(r.inputs)],
                [o.rsplit(":", 1)[1] for o in _json(r.outputs)],
                sorted(_json(r.facets)),
                _json(r.changes),
            )
            for r in rows
        ]


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def facets_now(store: Store) -> list[str]:
    with store.engine.connect() as conn:
        return sorted(_json(conn.scalar(sa.select(jobs.c.facets).where(jobs.c.id == JOB))))


@pytest.mark.parametrize("order", ["in time order", "newest first"])
def test_a_job_event_says_only_what_it_sends(store_url: str, order: str) -> None:
    store = Store.open(store_url)
    try:
        # one by one: in time order the projector continues the job from its last version; newest first, each
        # event lands before the ones held and the job is derived again from all of them
        for e in EVENTS if order == "in time order" else EVENTS[::-1]:
            store.append(incoming([e]))
        assert versions(store) == [
            (["/raw/orders"], ["/mart/orders"], ["sql"], ["created"]),  # the run; the documentation changed nothing
            (["/raw/orders", "/raw/refunds"], ["/mart/orders"], ["documentation", "sql"], ["inputs"]),
            (["/raw/orders", "/raw/refunds"], ["/mart/orders"], ["documentation"], ["sql"]),
            (["/raw/orders", "/raw/refunds"], [], ["documentation"], ["outputs"]),
        ]
        assert facets_now(store) == ["documentation"]
        incremental = derived_state(store)
        store.rebuild()
        assert derived_state(store) == incremental
    finally:
        store.close()
