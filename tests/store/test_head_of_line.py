"""No head-of-line blocking, on SQLite and PostgreSQL: an append never waits for a projection step.

A projection step holds the graph writers' locks for as long as its transaction runs — seconds for an event with
100,000 column edges. Appends take other locks (on SQLite the log is a file of its own, ``headwater.events.db``;
on PostgreSQL another advisory lock), so an append is acknowledged while a step runs. The timing of it, with a
real 11 MB event, is measured by ``bench/head_of_line.py``; here, what the step holds is held on purpose and the
append must come back while it is.

Also: the layout move of an older one-file SQLite store (the log's tables into their own file, crash-safe), and
on PostgreSQL the projector's gap-free read of the log (an append that took a lower ``seq`` but commits later is
never skipped).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from headwater.model.times import now_micros
from headwater.store import IncomingEvent, Store, migrate
from headwater.store.engine import LOG_TABLES, create_store_engine, events_file
from headwater.store.eventlog import prepare
from headwater.store.schema import datasets, events
from headwater.store.store import PG_APPEND_LOCK

WAIT = 30.0  # seconds an append may take here before it counts as blocked (it takes milliseconds)


def run_event(i: int) -> dict[str, Any]:
    return {
        "eventType": "COMPLETE",
        "eventTime": f"2026-03-01T10:00:{i % 60:02d}Z",
        "producer": "https://example.com/test",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": str(uuid.uuid4())},
        "job": {"namespace": "ns", "name": f"job{i}"},
        "inputs": [{"namespace": "file", "name": f"/in/{i}"}],
        "outputs": [{"namespace": "file", "name": f"/out/{i}"}],
    }


def incoming(payload: dict[str, Any]) -> IncomingEvent:
    return IncomingEvent(payload, json.dumps(payload))


def in_graph(store: Store, name: str, *, wait: bool = True) -> bool:
    """Whether the graph holds the dataset ``file:name`` (``wait``: after the projector caught up, as reads do)."""
    with store.read_connection(wait=wait) as conn:
        return conn.scalar(sa.select(sa.func.count()).where(datasets.c.id == f"dataset:file:{name}")) == 1


@contextmanager
def a_projection_step(store: Store) -> Iterator[None]:
    """Hold what the projector holds while it derives a chunk: the store's graph-writer lock, and a write
    transaction of the graph with the database's writers' lock (the main file's on SQLite, the advisory lock on
    PostgreSQL) — as a very wide event's derivation does for seconds."""
    with store._write_lock, store._write("graph") as conn, conn.begin():
        store._lock_writers(conn)
        conn.execute(sa.text("UPDATE datasets SET updated_at = updated_at WHERE 0 = 1"))  # a write, as a step's
        yield


def append_in_thread(store: Store, payloads: list[dict[str, Any]]) -> tuple[threading.Thread, list[Any]]:
    done: list[Any] = []

    def work() -> None:
        try:
            done.append(store.append([incoming(p) for p in payloads]))
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            done.append(exc)

    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    return thread, done


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    s = Store.open(store_url)
    yield s
    s.close()


def test_an_append_is_acknowledged_while_a_projection_step_holds_the_graph(store: Store) -> None:
    store.append([incoming(run_event(0))])
    assert in_graph(store, "/out/0")
    with a_projection_step(store):
        thread, done = append_in_thread(store, [run_event(1), run_event(2)])
        thread.join(WAIT)
        assert not thread.is_alive(), f"the append waited for the projection step for {WAIT} s"
        assert not isinstance(done[0], BaseException), done[0]
        assert [r.duplicate for r in done[0]] == [False, False]
        assert store.get_event(done[0][0].id) is not None  # durable in the log already
        position = store.projection_status().position
        assert position.log > position.graph  # and not derived yet: the step still holds the graph
    for name in ("/out/1", "/out/2"):
        assert in_graph(store, name)  # derived once the step let go


def test_a_sqlite_store_is_two_files(tmp_path: Path) -> None:
    """The log's tables live in ``<name>.events.db``, everything else in the main file."""
    main = tmp_path / "hw.db"
    with Store.open(f"sqlite:///{main}") as store:
        store.append([incoming(run_event(0))])
        assert in_graph(store, "/out/0")
    log_file = events_file(main)
    assert log_file == tmp_path / "hw.events.db"
    with sqlite3.connect(main) as db:
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    with sqlite3.connect(log_file) as db:
        log_tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert db.execute("SELECT count(*) FROM events").fetchone() == (1,)
    assert set(LOG_TABLES) <= log_tables and not set(LOG_TABLES) & tables
    assert {"datasets", "observations", "alembic_version"} <= tables


def _one_file_store(main: Path, count: int) -> list[str]:
    """A store as versions before the split made it: every table in the main file (migrated by an engine that
    attaches no log file), ``count`` events in its log, none derived yet; answers their ids."""
    engine = sa.create_engine(f"sqlite:///{main}")
    try:
        with engine.begin() as conn:
            migrate.command.upgrade(migrate.alembic_config(conn), "head")
        rows = [_row(run_event(i)) for i in range(count)]
        with engine.begin() as conn:
            conn.execute(events.insert(), rows)
    finally:
        engine.dispose()
    return [r["id"] for r in rows]


def test_an_older_one_file_store_is_split_on_open_and_keeps_every_event(tmp_path: Path) -> None:
    main = tmp_path / "old.db"
    ids = _one_file_store(main, 5)
    with sqlite3.connect(main) as db:
        assert db.execute("SELECT count(*) FROM events").fetchone() == (5,)
    assert not events_file(main).exists() or events_file(main).stat().st_size == 0
    with Store.open(f"sqlite:///{main}") as store:
        assert all(store.get_event(i) is not None for i in ids)
        assert all(in_graph(store, f"/out/{i}") for i in range(5))
        after = store.append([incoming(run_event(5))])[0]
        assert not after.duplicate
        with store.engine.connect() as conn:
            assert conn.scalar(sa.select(sa.func.max(events.c.seq))) == 6  # seq goes on where it was
    with sqlite3.connect(main) as db:
        assert db.execute("SELECT count(*) FROM sqlite_master WHERE name = 'events'").fetchone() == (0,)


def test_a_crash_between_the_moves_two_commits_loses_nothing(tmp_path: Path) -> None:
    """The move fills the log file, then drops the old tables: a crash after the first commit leaves both
    copies (a partial one in the log file); the next open copies again from the main file."""
    main = tmp_path / "old.db"
    ids = _one_file_store(main, 4)
    with sqlite3.connect(events_file(main)) as db:  # what a crash after a partial first step would leave
        db.execute("CREATE TABLE events (seq INTEGER PRIMARY KEY, id TEXT)")
        db.execute("INSERT INTO events (seq, id) VALUES (1, 'partial')")
    with Store.open(f"sqlite:///{main}") as store:
        assert all(store.get_event(i) is not None for i in ids)
        assert store.get_event("partial") is None
        assert all(in_graph(store, f"/out/{i}") for i in range(4))


def test_postgresql_projector_never_skips_an_append_that_commits_after_a_higher_seq(fresh_pg_url: str) -> None:
    """PostgreSQL hands out ``seq`` at insert: an append holding ``seq`` n can commit after one holding n+1.
    The projector reads new events while it holds the appends' lock, so it never moves its watermark past n
    while n is in flight (which would leave that event out of the graph for good)."""
    store_url = fresh_pg_url  # (SQLite hands out seq under the log file's write lock: nothing is in flight)
    store = Store.open(store_url)
    try:
        early, late = run_event(1), run_event(2)
        prepared = {p["job"]["name"]: _row(p) for p in (early, late)}
        engine = create_store_engine(store_url)
        try:
            with engine.connect() as slow:
                tx = slow.begin()
                slow.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": PG_APPEND_LOCK})
                slow.execute(events.insert(), [prepared["job1"]])  # takes seq n; not committed yet
                with engine.begin() as fast:  # seq n+1, committed first (no lock: the race the lock prevents)
                    fast.execute(events.insert(), [prepared["job2"]])
                store._projector.notify(10**9)  # the projector looks at the log now
                caught = threading.Thread(target=store.catch_up, args=(5.0,), daemon=True)
                caught.start()
                caught.join(10)
                assert not in_graph(
                    store, "/out/2", wait=False
                )  # it waits for the append in flight, projecting nothing
                tx.commit()
        finally:
            engine.dispose()
        assert in_graph(store, "/out/1") and in_graph(store, "/out/2")
    finally:
        store.close()


def _row(payload: dict[str, Any]) -> dict[str, Any]:
    (p,) = prepare([incoming(payload)])
    return {**p.row, "received_at": now_micros()}
