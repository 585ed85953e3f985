"""The projector dying mid-derivation, on SQLite and PostgreSQL.

- An exception on one event (a derivation bug, injected): the other events of its chunk are derived, the
  failed one is kept in the log and shown where docs/store.md says (``GET /api/v1/status``, the
  ``headwater_projection_failed_events`` metric); once fixed, ``retry_failed`` derives it and the graph
  equals a rebuild.
- Its process killed (SIGKILL while it derives a backlog): the next server derives the rest, each event
  observed exactly once, and the graph equals a rebuild.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa

from fixtures.stories.load import derived_state
from headwater.api import create_app
from headwater.model.jsontext import loads_text
from headwater.settings import load_settings
from headwater.store import Store, codec, projector
from headwater.store.canonical import event_id
from headwater.store.observe import observe
from headwater.store.schema import events, observations
from headwater.store.store import PG_WRITER_LOCK
from live_server import ServeProcess, ThreadServer, serve_env

from .faults import big_event, ids, post_batch, wait_caught_up


def test_an_exception_on_one_event_is_shown_and_the_rest_derived(
    store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = projector.observe

    def buggy(payload: Any, eid: str, *rest: Any) -> Any:
        if payload.get("job", {}).get("name") == "poison":
            raise RuntimeError("a derivation bug on this event")
        return real(payload, eid, *rest)

    monkeypatch.setattr(projector, "observe", buggy)
    sent = [big_event(i, size=300) for i in range(30)]
    sent[15] = big_event(15, size=300, job="poison")
    poison = event_id(sent[15])
    with Store.open(store_url) as store, ThreadServer(create_app(load_settings({}, environ={}), store)) as server:
        with httpx.Client(base_url=server.url, timeout=60) as http:
            assert post_batch(http, server.url, sent).status_code == 200
            assert http.get("/api/v1/graph/node", params={"nodeId": "job:ops:job_3"}).status_code == 200
            assert http.get("/api/v1/graph/node", params={"nodeId": "job:ops:poison"}).status_code == 404
            health = http.get("/api/v1/status").json()
            assert health["status"] == "degraded"
            assert health["projection"]["behind"] == 0  # the watermark moved past it: nothing else waits
            assert health["projection"]["failed"] == 1
            (failed,) = health["projection"]["failedEvents"]
            assert failed["id"] == poison and "a derivation bug on this event" in failed["error"]
            assert "headwater_projection_failed_events 1.0" in http.get("/metrics").text
            assert http.get(f"/api/v1/events/{poison}").status_code == 200  # kept in the log

            monkeypatch.setattr(projector, "observe", real)  # the fixed version
            assert store.retry_failed() == (1, [])
            assert http.get("/api/v1/graph/node", params={"nodeId": "job:ops:poison"}).status_code == 200
            assert http.get("/api/v1/status").json()["status"] == "ok"
            assert "headwater_projection_failed_events 0.0" in http.get("/metrics").text
        before = derived_state(store)
        store.rebuild()
        assert derived_state(store) == before


@contextmanager
def projector_held(url: str) -> Iterator[None]:
    """The graph's writers' lock held by another connection: the projector waits, appends go on."""
    if url.startswith("sqlite"):
        conn = sqlite3.connect(url.removeprefix("sqlite:///"), isolation_level=None, timeout=30)
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        finally:
            conn.rollback()
            conn.close()
        return
    import psycopg

    with psycopg.connect(url, autocommit=True) as pg:
        pg.execute("SELECT pg_advisory_lock(%s)", (PG_WRITER_LOCK,))
        try:
            yield
        finally:
            pg.execute("SELECT pg_advisory_unlock(%s)", (PG_WRITER_LOCK,))


@pytest.mark.slow
def test_a_server_killed_while_it_derives_leaves_nothing_lost_or_doubled(store_url: str, tmp_path: Path) -> None:
    Store.open(store_url).close()  # migrated before the lock is taken
    acknowledged: set[str] = set()
    first = ServeProcess(store_url, tmp_path / "first.log", serve_env(tmp_path / "data"))
    with first, httpx.Client(timeout=60) as client:
        with projector_held(store_url):
            for start in range(0, 800, 200):
                batch = [big_event(i, size=300) for i in range(start, start + 200)]
                assert post_batch(client, first.url, batch).status_code == 200
                acknowledged |= ids(batch)
        deadline = time.monotonic() + 60
        while True:  # kill it while it derives: some of the backlog in the graph, not all
            projection: dict[str, Any] = client.get(f"{first.url}/api/v1/status").json()["projection"]
            if 0 < projection["graphPosition"] < projection["logPosition"]:
                os.kill(first.pid, signal.SIGKILL)
                break
            assert projection["behind"] > 0, "the backlog was derived before the kill"
            assert time.monotonic() < deadline, projection
            time.sleep(0.01)
        first.proc.wait(30)

    with ServeProcess(store_url, tmp_path / "second.log", serve_env(tmp_path / "data")) as second:
        assert wait_caught_up(second.url)["failed"] == 0
    with Store.open(store_url) as store:
        with store.engine.connect() as conn:
            logged = codec.log_rows(conn, conn.execute(sa.select(events.c.seq, events.c.id, *codec.TEXT_COLUMNS)).all())
            stored = sorted(
                tuple(r)
                for r in conn.execute(sa.select(observations.c.node, observations.c.event_seq, observations.c.role))
            )
        assert sorted(r.id for r in logged) == sorted(acknowledged)
        recomputed = sorted((o.node, r.seq, o.role) for r in logged for o in observe(loads_text(r.raw), r.id))
        assert stored == recomputed  # each event observed exactly once, across the kill
        before = derived_state(store)
        store.rebuild()
        assert derived_state(store) == before
