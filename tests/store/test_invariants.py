"""Idempotency and rebuild == incremental on the HR story, on SQLite and PostgreSQL, as fixed examples.

Arrival order, duplicates and rebuilds in any sequence are the stateful property test of test_fuzz.py."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa

from fixtures.stories.load import derived_state, incoming, story
from headwater.graph import GraphReader
from headwater.model.nodeid import parse_node_id
from headwater.store import Store
from headwater.store.schema import DERIVED_TABLES


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    s = Store.open(store_url)
    yield s
    s.close()


def answers(store: Store) -> dict[str, Any]:
    """A few graph answers that depend on everything (versions, edges, columns, runs)."""
    g = GraphReader(store)
    comp = parse_node_id("dataset:file:/warehouse/hr/employee_compensation")
    return {
        "lineage": g.lineage(comp, depth=6, columns=True),
        "history": g.history(comp),
        "job2": g.history(parse_node_id("job:hr_payroll:job2")),
        "runs": g.runs(parse_node_id("job:hr_payroll:job2")),
        "columns": g.column_lineage(
            parse_node_id("datasetField:file:/warehouse/hr/employee_compensation:TotalCompensation")
        ),
    }


def test_same_events_twice_change_nothing(store: Store) -> None:
    evs = story()
    first = store.append(incoming(evs))
    before = derived_state(store)
    again = store.append(incoming(evs))
    assert [r.id for r in again] == [r.id for r in first]
    assert all(r.duplicate for r in again) and not any(r.duplicate for r in first)
    assert derived_state(store) == before
    assert len(store.list_events(limit=1000)[0]) == len(evs)


def test_rebuild_equals_incremental(store: Store) -> None:
    evs = story()
    for e in evs:
        store.append(incoming([e]))
    incremental, incremental_answers = derived_state(store), answers(store)
    assert store.rebuild() == len(evs)
    assert derived_state(store) == incremental
    assert answers(store) == incremental_answers
    assert store.caught_up()  # store.engine does not wait for the projector
    with store.engine.begin() as conn:  # damage the derived graph; rebuild repairs it
        conn.execute(sa.delete(DERIVED_TABLES[0]))
    assert store.rebuild() == len(evs)
    assert derived_state(store) == incremental
    assert answers(store) == incremental_answers
