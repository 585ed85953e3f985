"""The projector in a process of its own (``projector = process``), on SQLite and PostgreSQL: the same graph as a
rebuild from the log, reads that wait for it, a killed projector process started again with nothing lost,
appends that never wait for its step, and back-pressure when it falls behind."""

from __future__ import annotations

import os
import signal
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from fixtures.stories.load import derived_state, incoming, story
from headwater.store import IncomingEvent, Store
from headwater.store.projector_process import RemoteProjector
from headwater.store.schema import datasets

WAIT = 30.0  # seconds an append may take here before it counts as blocked (it takes milliseconds)


def remote(store: Store) -> RemoteProjector:
    projector = store._projector
    assert isinstance(projector, RemoteProjector)
    return projector


def run_event(i: int) -> IncomingEvent:
    payload = {
        "eventType": "COMPLETE",
        "eventTime": f"2026-03-01T10:00:{i % 60:02d}Z",
        "producer": "https://example.com/test",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": str(uuid.uuid4())},
        "job": {"namespace": "ns", "name": f"job{i}"},
        "inputs": [{"namespace": "file", "name": f"/in/{i}"}],
        "outputs": [{"namespace": "file", "name": f"/out/{i}"}],
    }
    return incoming([payload])[0]


def in_graph(store: Store, name: str) -> bool:
    """Whether a read (which waits for the projector, as every read does) finds the dataset ``file:name``."""
    with store.read_connection() as conn:
        return conn.scalar(sa.select(sa.func.count()).where(datasets.c.id == f"dataset:file:{name}")) == 1


def acknowledged_while_the_graph_is_held(store: Store) -> None:
    """An append is acknowledged while the graph writers' lock is held (as by a very wide event's step), and a
    read then waits until the projector process derived it."""
    # hold what a projection step holds (the graph writers' lock of the database), as a very wide event does
    with store._write("graph") as conn, conn.begin():
        store._lock_writers(conn)
        conn.execute(sa.text("UPDATE datasets SET updated_at = updated_at WHERE 0 = 1"))
        done: list[Any] = []
        thread = threading.Thread(target=lambda: done.append(store.append([run_event(1)])), daemon=True)
        thread.start()
        thread.join(WAIT)
        assert not thread.is_alive(), f"the append waited for the graph for {WAIT} s"
        assert store.get_event(done[0][0].id) is not None  # durable in the log
        position = store.projection_status().position
        assert position.log > position.graph  # and not derived: the projector process waits for the graph
    assert in_graph(store, "/out/1")  # the read waited until the projector process derived it


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    s = Store.open(store_url, projector="process")
    yield s
    s.close()


def test_the_projector_process_derives_what_a_rebuild_does_survives_kill_9_and_never_holds_an_append(
    store: Store,
) -> None:
    evs = story()
    half = len(evs) // 2
    for part in (evs[:2], evs[2:half]):
        store.append(incoming(part))
        position = store.catch_up()  # a read waits for what was appended before it
        assert position.caught_up and position.graph == position.log
    first = remote(store).pid
    assert first is not None and first != os.getpid() and remote(store).running
    os.kill(first, signal.SIGKILL)  # maybe mid-step: its transaction is rolled back, the watermark with it
    store.append(incoming(evs[half:]))  # acknowledged while no projector runs: the log holds them
    position = store.catch_up()  # waits for the next projector process, which catches up from the watermark
    assert position.caught_up and position.log == len(evs)
    assert remote(store).restarts == 1 and remote(store).pid not in (None, first)
    incremental = derived_state(store)
    assert store.rebuild() == len(evs)
    assert derived_state(store) == incremental
    assert store.projection_status().failed == 0
    acknowledged_while_the_graph_is_held(store)


def test_appends_wait_while_the_projector_process_is_too_far_behind(sqlite_url: str) -> None:
    store = Store.open(sqlite_url, projector="process", max_lag=2, projector_wait=1.0)
    try:
        store.append([run_event(0)])
        assert store.catch_up(30.0).caught_up  # (the process may take more than projector_wait to start)
        pid = remote(store).pid
        assert pid is not None
        os.kill(pid, signal.SIGSTOP)  # the projector process derives nothing for now
        try:
            store.append([run_event(i) for i in (1, 2, 3)])  # the graph is 3 events behind now: more than 2
            started = time.monotonic()
            store.append([run_event(4)])  # waits for the projector, at most projector_wait, then goes on
            assert time.monotonic() - started >= 0.9
            assert not store.catch_up(0.2).caught_up  # a read gives up after its wait: the graph is behind
        finally:
            os.kill(pid, signal.SIGCONT)
        position = store.catch_up(30.0)
        assert position.caught_up and position.log == 5
        assert all(in_graph(store, f"/out/{i}") for i in range(5))
    finally:
        store.close()


def test_a_store_refuses_a_projector_place_it_does_not_know(tmp_path: Path) -> None:
    """A misspelt place is refused before anything is made (it would otherwise derive in a thread, silently)."""
    with pytest.raises(ValueError, match="projector must be one of thread, process, got 'proces'"):
        Store.open(f"sqlite:///{tmp_path}/s.db", projector="proces")  # type: ignore[arg-type]
    assert list(tmp_path.iterdir()) == []
