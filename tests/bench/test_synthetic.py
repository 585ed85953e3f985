"""The graph benchmark's generator (bench/synthetic.py): valid, deterministic events that load into
exactly the graph its ``Shape`` describes, and differ before and after ``midpoint()``."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from headwater.graph import GraphReader
from headwater.model.nodeid import NodeRef
from headwater.model.times import to_micros
from headwater.store import IncomingEvent, Store
from headwater.store.schema import column_edges, datasets, edges, jobs
from olschema import event_errors

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import synthetic

SHAPE = synthetic.Shape(jobs=40, layers=4, seed=3)


def test_events_are_deterministic_and_valid_openlineage() -> None:
    first = list(synthetic.events(SHAPE))
    assert first == list(synthetic.events(SHAPE))
    assert len(first) == SHAPE.jobs + SHAPE.jobs // 10 == synthetic.event_count(SHAPE)  # a tenth run again later
    for event in first:
        assert event_errors(event) == [], event["job"]["name"]
    assert [e["eventTime"] for e in first] == sorted(e["eventTime"] for e in first)


@pytest.fixture
def loaded(store_url: str) -> Iterator[Store]:
    with Store.open(store_url) as store:
        store.append([IncomingEvent(e, json.dumps(e)) for e in synthetic.events(SHAPE)])
        yield store


def _count(store: Store, table: sa.Table, *where: sa.ColumnElement[bool]) -> int:
    assert store.caught_up()  # store.engine does not wait for the projector
    with store.engine.connect() as conn:
        return int(conn.scalar(sa.select(sa.func.count()).select_from(table).where(*where)) or 0)


def test_loaded_graph_has_the_shape_it_promises(loaded: Store) -> None:
    past = to_micros(synthetic.midpoint())
    at_past = sa.and_(
        column_edges.c.valid_from <= past, sa.or_(column_edges.c.valid_to.is_(None), column_edges.c.valid_to > past)
    )
    assert _count(loaded, datasets) == SHAPE.datasets
    assert _count(loaded, jobs) == SHAPE.jobs
    per_output = SHAPE.columns + (SHAPE.columns + 1) // 2  # one input column each, a second for even columns
    assert _count(loaded, column_edges, at_past) == SHAPE.jobs * SHAPE.outputs_per_job * per_output
    # every job reads inputs_per_job datasets and writes outputs_per_job, now and in the past
    ins = _count(loaded, edges, edges.c.direction == "INPUT", edges.c.valid_to.is_(None))
    assert _count(loaded, edges, edges.c.direction == "OUTPUT", edges.c.valid_to.is_(None)) == SHAPE.jobs * 2
    assert SHAPE.jobs * 1 < ins <= SHAPE.jobs * SHAPE.inputs_per_job


def test_the_past_differs_from_now_for_changed_jobs(loaded: Store) -> None:
    g = GraphReader(loaded)
    job = NodeRef("job", "bench", "job_0000000")  # the first job of the plan is among the changed ones
    now = g.lineage(job, direction="upstream", depth=1)
    past = g.lineage(job, direction="upstream", depth=1, at=synthetic.midpoint())
    assert {n["id"] for n in now["nodes"]} != {n["id"] for n in past["nodes"]}
