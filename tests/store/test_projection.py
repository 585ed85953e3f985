"""The background projector: crash recovery from the log, the read barrier, failing events, close.

``Store.append`` acknowledges once events are durably in the log; the graph is derived by a
background thread. These tests use the real store on SQLite and PostgreSQL, no timing.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from fixtures.stories.load import derived_state, incoming, story
from headwater.graph import GraphReader
from headwater.model.nodeid import parse_node_id
from headwater.store import IncomingEvent, Store
from headwater.store.engine import create_store_engine
from headwater.store.eventlog import head_seq, insert_events, prepare
from headwater.store.schema import DERIVED_TABLES, observations
from headwater.store.watermark import projected_seq


def run_event(i: int, job: str = "job", minute: int = 0) -> dict:
    return {
        "eventType": "COMPLETE",
        "eventTime": f"2026-04-01T10:{minute:02d}:{i % 60:02d}Z",
        "producer": "https://example.com/p",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": str(uuid.uuid4())},
        "job": {"namespace": "ns", "name": f"{job}{i}"},
        "inputs": [{"namespace": "file", "name": "/in"}],
        "outputs": [{"namespace": "file", "name": f"/out/{i}"}],
    }


def log_only(url: str, events: list[IncomingEvent]) -> None:
    """Write events to the log exactly as an acknowledged append does, with no projection after it:
    the state a kill -9 between the acknowledgement and the projection leaves behind."""
    engine = create_store_engine(url)
    try:
        with engine.begin() as conn:
            insert_events(conn, prepare(events), 0)
    finally:
        engine.dispose()


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    s = Store.open(store_url)
    yield s
    s.close()


def test_open_derives_what_the_log_holds_beyond_the_graph(store_url: str) -> None:
    with Store.open(store_url) as reference:
        reference.append(incoming(story("hr_payroll")))
        expected = derived_state(reference)
    engine = create_store_engine(store_url)
    try:
        with engine.begin() as conn:  # a graph that knows nothing of the log ...
            for table in (*DERIVED_TABLES, observations):
                conn.execute(table.delete())
    finally:
        engine.dispose()
    with Store.open(store_url) as reopened:  # ... is caught up by the projector of the next open
        assert derived_state(reopened) == expected


def test_events_acknowledged_but_not_projected_are_derived_on_the_next_open(store_url: str) -> None:
    Store.open(store_url).close()  # migrate
    evs = story("hr_payroll")
    half = len(evs) // 2
    with Store.open(store_url) as first:
        first.append(incoming(evs[:half]))
    log_only(store_url, incoming(evs[half:]))  # "killed" right after acknowledging the second half
    with Store.open(store_url) as recovered:
        state = derived_state(recovered)
        assert recovered.caught_up()  # store.engine does not wait for the projector
        with recovered.engine.connect() as conn:
            assert projected_seq(conn) == head_seq(conn)
    with Store.open(store_url) as reference:
        reference.rebuild()
        assert state == derived_state(reference)


def test_a_read_sees_every_event_appended_before_it(store: Store) -> None:
    def client(c: int) -> None:
        for i in range(10):
            store.append([IncomingEvent(e, json.dumps(e)) for e in [run_event(i, job=f"c{c}job", minute=c)]])

    threads = [threading.Thread(target=client, args=(c,)) for c in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert store.caught_up()
    names = {item["name"] for item in GraphReader(store).jobs(namespace="ns", limit=100)["items"]}
    assert names == {f"c{c}job{i}" for c in range(4) for i in range(10)}
    for c in range(4):  # and right after one more append, without waiting explicitly
        e = run_event(99, job=f"late{c}")
        store.append([IncomingEvent(e, json.dumps(e))])
        assert GraphReader(store).node(parse_node_id(f"job:ns:late{c}99"))["name"] == f"late{c}99"
    node = parse_node_id("dataset:file:/in")
    events, _ = store.list_events(node=node, limit=100)
    assert len(events) == 44  # list_events(node=...) reads the projected index: it waits too


def test_an_event_that_cannot_be_derived_is_recorded_and_does_not_block_the_others(store_url: str) -> None:
    Store.open(store_url).close()
    good = [run_event(i) for i in range(3)]
    bad_payload = run_event(7)
    broken = IncomingEvent(bad_payload, "this raw text is not the event")  # the derivation reads the raw text
    log_only(
        store_url,
        [IncomingEvent(good[0], json.dumps(good[0])), broken, *[IncomingEvent(e, json.dumps(e)) for e in good[1:]]],
    )
    with Store.open(store_url) as store:
        assert store.caught_up()  # the failing event does not hold readers back
        names = {item["name"] for item in GraphReader(store).jobs(namespace="ns")["items"]}
        assert names == {"job0", "job1", "job2"}
        assert store.caught_up()  # store.engine does not wait for the projector
        with store.engine.connect() as conn:
            errors = list(conn.execute(sa.select(observations).where(observations.c.role == "error")))
        assert len(errors) == 1 and errors[0].node.startswith("error:")
        assert "JSONDecodeError" in json.loads(errors[0].data)["error"]
        assert store.get_event(errors[0].event_id) is not None  # the event itself stays in the log


def test_close_projects_what_was_appended(store_url: str) -> None:
    store = Store.open(store_url)
    evs = [run_event(i) for i in range(40)]
    for e in evs:
        store.append([IncomingEvent(e, json.dumps(e))])
    store.close()
    engine = create_store_engine(store_url)
    try:
        with engine.connect() as conn:
            assert projected_seq(conn) == head_seq(conn) > 0
    finally:
        engine.dispose()


def test_appends_wait_while_the_graph_is_too_far_behind(store_url: str) -> None:
    with Store.open(store_url, max_lag=0) as store:  # every append first waits until the graph has caught up
        for i in range(12):
            batch = [run_event(i * 3 + k) for k in range(3)]
            store.append([IncomingEvent(e, json.dumps(e)) for e in batch])
            with store.engine.connect() as conn:  # the raw engine: no read barrier here
                behind = head_seq(conn) - projected_seq(conn)
            assert behind <= len(batch)  # at most the events of the append that just returned
