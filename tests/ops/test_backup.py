"""``headwater db backup`` taken while a real server takes events, restored and served: the same graph.

SQLite: both files copied with SQLite's backup API from one snapshot while a producer keeps appending: the
copy's graph is never ahead of its log, every event in it was sent, and it equals a rebuild of its log; a
copy taken at rest, served by an app of its own, answers exactly as the original. PostgreSQL: a ``pg_dump``
archive restored with ``pg_restore`` into an empty database answers exactly as the original.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import httpx
import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from databases import pg_database
from fixtures.stories.load import derived_state
from headwater.api import create_app
from headwater.settings import load_settings
from headwater.store import Store
from headwater.store.schema import events
from live_server import ServeProcess, serve_env

from .faults import big_event, ids, post_batch, wait_caught_up

READS = [
    ("/api/v1/graph/lineage", {"nodeId": "dataset:ops:out_3", "depth": 5}),
    ("/api/v1/graph/node", {"nodeId": "job:ops:job_4"}),
    ("/api/v1/graph/runs", {"nodeId": "job:ops:job_4"}),
    ("/api/v1/graph/search", {"q": "out_"}),
    ("/api/v1/graph/namespaces", {}),
]


def backup(db_url: str, target: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "headwater", "db", "backup", str(target), "--db", db_url],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def answers(url: str) -> list[object]:
    with httpx.Client(base_url=url, timeout=60) as http:
        return [http.get(path, params=params).json() for path, params in READS]


def served_answers(db_url: str) -> list[object]:
    """The same reads from the restored store, served by an app of its own (in this process: no second server
    process to start)."""
    with Store.open(db_url) as store:
        http = TestClient(create_app(load_settings({}, environ={}), store), base_url="http://localhost")
        return [http.get(path, params=params).json() for path, params in READS]


@pytest.mark.slow
def test_an_online_sqlite_backup_is_consistent_and_serves_the_same_graph(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'live' / 'headwater.db'}"
    sent: set[str] = set()
    stop = threading.Event()
    with ServeProcess(url, tmp_path / "live.log", serve_env(tmp_path / "data")) as server:
        with httpx.Client(timeout=60) as client:
            first = [big_event(i, size=2_000) for i in range(60)]
            assert post_batch(client, server.url, first).status_code == 200

        def producer() -> None:  # keeps appending while the backup is taken
            with httpx.Client(timeout=60) as client:
                n = 1000
                while not stop.is_set():
                    batch = [big_event(n + i, size=2_000) for i in range(10)]
                    n += 10
                    sent.update(ids(batch))  # before the post: an event in flight may be in the copy
                    assert post_batch(client, server.url, batch).status_code == 200

        thread = threading.Thread(target=producer)
        thread.start()
        try:
            out = backup(url, tmp_path / "online" / "copy.db")
        finally:
            stop.set()
            thread.join(60)
        assert "copy.events.db" in out
        wait_caught_up(server.url)
        rest = tmp_path / "rest" / "copy.db"
        backup(url, rest)
        original = answers(server.url)

    sent |= ids(first)
    with Store.open(f"sqlite:///{tmp_path / 'online' / 'copy.db'}") as copy:
        with copy.engine.connect() as conn:
            copied = set(conn.scalars(sa.select(events.c.id)))
        assert ids(first) <= copied <= sent  # every event of the copy was sent; the first batch is in it
        copy.catch_up()
        assert copy.projection_status().failed == 0
        before = derived_state(copy)
        copy.rebuild()
        assert derived_state(copy) == before  # graph and log consistent with each other

    assert served_answers(f"sqlite:///{rest}") == original


@pytest.mark.postgres
@pytest.mark.slow
def test_a_pg_dump_backup_restores_the_same_graph(fresh_pg_url: str, pg_server_url: str, tmp_path: Path) -> None:
    with ServeProcess(fresh_pg_url, tmp_path / "live.log", serve_env(tmp_path / "data")) as server:
        with httpx.Client(timeout=60) as client:
            assert post_batch(client, server.url, [big_event(i, size=2_000) for i in range(60)]).status_code == 200
        wait_caught_up(server.url)
        archive = tmp_path / "headwater.dump"
        backup(fresh_pg_url, archive)
        original = answers(server.url)
    with pg_database(pg_server_url, "hw_restore") as restored:
        done = subprocess.run(
            ["pg_restore", "--no-owner", "--dbname", restored, str(archive)], capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        assert served_answers(restored) == original
