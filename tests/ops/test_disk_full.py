"""A full disk under a SQLite store, for real: the store lives on a small tmpfs the test mounts, and a
ballast file fills it while a real ``headwater serve`` takes events and has a backlog to derive.

The appends that cannot be written answer ``503 disk_full`` with ``Retry-After``, and nothing of them is in
the log; every acknowledged event is kept; the projector meets the full disk too (the test holds the graph
file's write lock while a backlog comes in, fills the disk, then lets go) and records no event as failed;
once the ballast is removed the same server (no restart) takes the refused events again and derives
everything; the graph equals a rebuild. On the way, ``/readyz`` answers 503 while the graph is behind.
"""

from __future__ import annotations

import errno
import os
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import sqlalchemy as sa

from fixtures.stories.load import derived_state
from headwater.store import Store
from headwater.store.schema import events
from live_server import ServeProcess, serve_env

from .faults import big_event, ids, post_batch, wait_caught_up

pytestmark = pytest.mark.slow


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 64 MiB tmpfs mounted for the test (root only: CI runs as root)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a size-limited tmpfs needs root (CI runs as root)")
    folder = tmp_path / "disk"
    folder.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", str(folder)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"the kernel refused to mount a tmpfs: {done.stderr.decode(errors='replace').strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def fill(folder: Path) -> Path:
    """A ballast file that takes every free byte of ``folder``'s file system."""
    ballast = folder / "ballast"
    chunk = b"\0" * 65536
    with ballast.open("wb", buffering=0) as out:
        try:
            while True:
                out.write(chunk)
        except OSError as exc:
            assert exc.errno == errno.ENOSPC, exc
    with ballast.open("ab", buffering=0) as out:  # the last few bytes too
        try:
            while True:
                out.write(b"\0")
        except OSError as exc:
            assert exc.errno == errno.ENOSPC, exc
    return ballast


def in_log(folder: Path, event_ids: set[str]) -> int:
    """How many of ``event_ids`` the log file holds, read beside the server (reads need no space)."""
    log = sqlite3.connect(f"file:{folder / 'headwater.events.db'}?mode=ro", uri=True)
    try:
        marks = ",".join("?" * len(event_ids))
        return int(log.execute(f"SELECT count(*) FROM events WHERE id IN ({marks})", sorted(event_ids)).fetchone()[0])
    finally:
        log.close()


def test_a_full_disk_refuses_with_retry_after_keeps_what_it_acknowledged_and_recovers(
    small_disk: Path, tmp_path: Path
) -> None:
    url = f"sqlite:///{small_disk / 'headwater.db'}"
    acknowledged: set[str] = set()
    n = 0

    def batch(count: int) -> list[dict]:
        nonlocal n
        n += count
        return [big_event(i) for i in range(n - count, n)]

    # COLUMNS: the console log is wrapped at the terminal width; wide enough that a message stays on one line
    env = serve_env(tmp_path / "data", HEADWATER_READY_MAX_LAG="1", COLUMNS="400")
    with ServeProcess(url, tmp_path / "serve.log", env) as server, httpx.Client(timeout=60) as client:
        first = batch(5)
        assert post_batch(client, server.url, first).status_code == 200
        acknowledged |= ids(first)
        wait_caught_up(server.url)
        assert client.get(f"{server.url}/readyz").status_code == 200

        # a backlog the projector cannot derive yet: another connection holds the graph file's write lock
        graph_lock = sqlite3.connect(small_disk / "headwater.db", isolation_level=None, timeout=30)
        graph_lock.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # no room left in the graph's WAL file either
        graph_lock.execute("BEGIN IMMEDIATE")
        backlog = batch(100)
        assert post_batch(client, server.url, backlog).status_code == 200  # appends write the log file only
        acknowledged |= ids(backlog)
        time.sleep(1.5)
        ready = client.get(f"{server.url}/readyz")
        assert ready.status_code == 503, ready.text  # more than ready_max_lag (1 s) behind
        assert ready.json()["lagEvents"] == 100
        assert "headwater_projection_lag_events 100.0" in client.get(f"{server.url}/metrics").text

        log_file = sqlite3.connect(small_disk / "headwater.events.db", isolation_level=None, timeout=30)
        log_file.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the log's WAL keeps no room from earlier appends
        log_file.close()
        ballast = fill(small_disk)
        refused: list[dict] = []
        for _ in range(20):  # SQLite may still find a free page or two
            attempt = batch(10)
            answer = post_batch(client, server.url, attempt)
            if answer.status_code == 200:
                acknowledged |= ids(attempt)
                continue
            assert answer.status_code == 503, answer.text
            assert answer.json()["error"]["code"] == "disk_full", answer.text
            assert int(answer.headers["Retry-After"]) > 0
            refused = attempt
            break
        assert refused, "the full disk never refused an append"
        assert in_log(small_disk, ids(refused)) == 0  # nothing of the refused batch is in the log
        assert in_log(small_disk, acknowledged) == len(acknowledged)

        graph_lock.rollback()  # the projector may write the graph now: onto the full disk
        graph_lock.close()
        deadline = time.monotonic() + 30
        while "projector: could not project the event log" not in server.log.read_text():
            assert time.monotonic() < deadline, server.log.read_text()
            time.sleep(0.2)
        assert "disk is full" in server.log.read_text().split("projector: could not project the event log")[1]
        status = client.get(f"{server.url}/api/v1/status").json()  # reads go on
        assert status["projection"]["failed"] == 0, status  # a full disk is no event's fault
        assert status["projection"]["behind"] > 0

        metrics = client.get(f"{server.url}/metrics").text
        assert 'headwater_ingest_refused_total{reason="disk_full"} 1.0' in metrics

        ballast.unlink()  # space again: the same server takes the refused events, no restart
        answer = post_batch(client, server.url, refused)
        assert answer.status_code == 200, answer.text
        assert answer.json()["stored"] == len(refused)
        acknowledged |= ids(refused)
        more = batch(10)
        assert post_batch(client, server.url, more).status_code == 200
        acknowledged |= ids(more)

        projection = wait_caught_up(server.url)
        assert projection["failed"] == 0, projection  # the full disk was no event's fault

    with Store.open(url) as store:
        with store.engine.connect() as conn:
            logged = list(conn.scalars(sa.select(events.c.id)))
        assert sorted(logged) == sorted(acknowledged)  # each acknowledged event once, nothing else
        before = derived_state(store)
        store.rebuild()
        assert derived_state(store) == before
