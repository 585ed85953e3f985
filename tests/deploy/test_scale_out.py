"""Several ``headwater serve`` processes on one PostgreSQL database (docs/deploy.md).

Real servers (subprocesses of ``python -m headwater serve``) on a fresh database: events are sent to
all of them at once, the server that is deriving the graph is found through PostgreSQL
(``pg_stat_activity``: the projector names its connection ``headwater-projector-<pid>`` while it
derives: a server's process, or the projector process it started) and killed with SIGKILL mid-load,
with its server, twice; then every acknowledged event is in the log once,
observed once, the graph holds every run once, and equals a rebuild from the log.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa

from fixtures.stories.load import derived_state
from headwater.model.jsontext import loads_text
from headwater.store import Store, codec
from headwater.store.canonical import event_id
from headwater.store.observe import observe
from headwater.store.schema import events, observations, runs
from live_server import ServeProcess, free_port, serve_env

from .workload import run_events

pytestmark = pytest.mark.postgres


class Server(ServeProcess):
    """One ``headwater serve`` process on a free port, ready when its status route answers."""

    def __init__(self, db_url: str, tmp_path: Path, name: str) -> None:
        super().__init__(db_url, tmp_path / f"{name}.log", serve_env(tmp_path / "data"), ready_path="/api/v1/status")


@contextmanager
def servers(db_url: str, tmp_path: Path, count: int) -> Iterator[list[Server]]:
    started: list[Server] = []
    try:
        for n in range(count):  # started together: the first migrates, the others wait for its lock
            started.append(Server(db_url, tmp_path, f"server{n}"))
        for server in started:
            server.wait_ready()
        yield started
    finally:
        for server in started:
            server.stop()


def _parent(pid: int) -> int | None:
    """The pid of ``pid``'s parent process (Linux /proc; the 4th field of its stat, after the name's parenthesis)."""
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def _deriving_pid(db_url: str, watching: threading.Event, timeout: float = 20.0) -> int | None:
    """The pid of the process whose projector is deriving now (its connection's application_name): a server's,
    or its projector process's. ``watching`` is set once it looks."""
    engine = sa.create_engine(db_url.replace("postgresql://", "postgresql+psycopg://", 1))
    try:
        deadline = time.monotonic() + timeout
        with engine.connect() as conn:
            watching.set()
            while time.monotonic() < deadline:
                name = conn.scalar(
                    sa.text(
                        "SELECT application_name FROM pg_stat_activity "
                        "WHERE application_name LIKE 'headwater-projector-%' AND datname = current_database() LIMIT 1"
                    )
                )
                conn.rollback()
                if name:
                    return int(name.rsplit("-", 1)[1])
                time.sleep(0.002)
        return None
    finally:
        engine.dispose()


def _post_batch(client: httpx.Client, url: str, batch: list[dict[str, Any]]) -> list[str] | None:
    try:
        answer = client.post(f"{url}/api/v1/lineage/batch", json=batch, timeout=60)
    except httpx.HTTPError:
        return None  # the server died (or the connection did): not acknowledged, sent again elsewhere
    if answer.status_code >= 500:
        return None
    assert answer.status_code == 200, answer.text
    return list(answer.json()["ids"])


def test_three_servers_survive_kill_9_of_the_deriving_one(fresh_pg_url: str, tmp_path: Path) -> None:
    sent = run_events(900)  # 1,800 events
    batches = [sent[i : i + 12] for i in range(0, len(sent), 12)]
    acknowledged: set[str] = set()
    killed: list[int] = []
    lock = threading.Lock()
    with servers(fresh_pg_url, tmp_path, 3) as pool:
        alive = list(pool)
        next_batch = iter(range(len(batches)))
        failures: list[BaseException] = []

        shares = (len(sent) // 4, len(sent) // 2)
        # Past each share the senders wait until the killer looks for the deriving server: the rest of the events,
        # sent while it looks, keep a projector deriving (sent before, on a busy machine, they were all derived by
        # the time it looked, and it saw nobody deriving)
        watching = [threading.Event() for _ in shares]

        def sender(k: int) -> None:
            try:
                with httpx.Client() as client:
                    for n in next_batch:
                        for share, looking in zip(shares, watching, strict=True):
                            if len(acknowledged) >= share:
                                looking.wait(60)
                        for attempt in range(200):
                            with lock:
                                target = alive[(n + k + attempt) % len(alive)]
                            ids = _post_batch(client, target.url, batches[n])
                            if ids is not None:
                                with lock:
                                    acknowledged.update(ids)
                                break
                            time.sleep(0.05)
                        else:
                            raise AssertionError(f"batch {n} was never acknowledged")
            except BaseException as exc:  # noqa: BLE001 - reported by the test thread
                failures.append(exc)

        def killer() -> None:
            try:
                for share, looking in zip(shares, watching, strict=True):
                    while len(acknowledged) < share:
                        time.sleep(0.01)
                    pid = _deriving_pid(fresh_pg_url, looking)
                    assert pid is not None, "no server was seen deriving"
                    with lock:  # the deriving pid is the server's (projector = thread) or its child's (= process)
                        victim = next(s for s in alive if s.pid in (pid, _parent(pid)))
                    for process in {pid, victim.pid}:  # the deriving process mid-step, and its server
                        os.kill(process, signal.SIGKILL)
                    victim.proc.wait()
                    killed.append(pid)
                    replacement = Server(fresh_pg_url, tmp_path, f"replacement{len(killed)}")
                    with lock:
                        alive.remove(victim)
                    replacement.wait_ready()
                    pool.append(replacement)
                    with lock:
                        alive.append(replacement)
            except BaseException as exc:  # noqa: BLE001 - reported by the test thread
                failures.append(exc)

        threads = [threading.Thread(target=sender, args=(k,)) for k in range(6)]
        threads.append(threading.Thread(target=killer))
        for t in threads:
            t.start()
        for t in threads:
            t.join(600)
        assert not failures, failures
        assert len(killed) == 2, "the deriving server was not killed twice"
        # the survivors derive what the killed ones left, with no request to prompt them (the idle poll)
        deadline = time.monotonic() + 120
        while True:
            status = httpx.get(f"{alive[0].url}/api/v1/status", timeout=10).json()["projection"]
            if status["behind"] == 0:
                break
            assert time.monotonic() < deadline, status
            time.sleep(0.2)
        assert status["failed"] == 0
    expected = {event_id(e) for e in sent}
    assert acknowledged == expected  # every batch ended acknowledged (resends after a kill included)
    with Store.open(fresh_pg_url) as store:
        with store.engine.connect() as conn:
            logged = codec.log_rows(conn, conn.execute(sa.select(events.c.seq, events.c.id, *codec.TEXT_COLUMNS)).all())
            assert sorted(r.id for r in logged) == sorted(expected)  # in the log, each once
            stored = sorted(
                tuple(r)
                for r in conn.execute(sa.select(observations.c.node, observations.c.event_seq, observations.c.role))
            )
            assert len(conn.execute(sa.select(runs.c.run_id, runs.c.state)).all()) == 900
            assert {r.state for r in conn.execute(sa.select(runs.c.state))} == {"COMPLETE"}
        # observed exactly once: the index holds each event's observations, no more, no fewer
        recomputed = sorted((o.node, r.seq, o.role) for r in logged for o in observe(loads_text(r.raw), r.id))
        assert stored == recomputed
        before = derived_state(store)
        store.rebuild()
        assert derived_state(store) == before


def test_read_your_writes_across_servers(fresh_pg_url: str, tmp_path: Path) -> None:
    """A read on server B right after server A acknowledged an event sees it."""
    with servers(fresh_pg_url, tmp_path, 2) as (a, b), httpx.Client(timeout=30) as client:
        for n, event in enumerate(run_events(20, seed=5, jobs=20)):
            answer = client.post(f"{a.url}/api/v1/lineage", json=event)
            assert answer.status_code in (200, 201), answer.text
            job = f"job:deploy:{event['job']['name']}"
            read = client.get(f"{b.url}/api/v1/graph/node", params={"nodeId": job})
            assert read.status_code == 200, (n, read.text)
            run = client.get(f"{b.url}/api/v1/graph/node", params={"nodeId": f"run:{event['run']['runId']}"})
            assert run.status_code == 200, (n, run.text)
            a, b = b, a  # both directions


def test_serve_workers_runs_processes_on_one_port(fresh_pg_url: str, tmp_path: Path) -> None:
    """``headwater serve --workers 3``: three processes behind one port, each with its own connections."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEADWATER_")}
    env["HEADWATER_DATA_DIR"] = str(tmp_path / "data")
    log = tmp_path / "workers.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "headwater", "serve", "--db", fresh_pg_url, "--port", str(port), "--workers", "3"],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=env,
        )
    url = f"http://127.0.0.1:{port}"
    engine = sa.create_engine(fresh_pg_url.replace("postgresql://", "postgresql+psycopg://", 1))
    try:
        deadline = time.monotonic() + 60
        names: set[str] = set()
        while len(names) < 3:  # each worker opened its store: its connections carry its pid
            assert proc.poll() is None, log.read_text()
            assert time.monotonic() < deadline, (names, log.read_text())
            with engine.connect() as conn:
                names = set(
                    conn.scalars(
                        sa.text(
                            "SELECT DISTINCT application_name FROM pg_stat_activity "
                            "WHERE application_name ~ '^headwater-[0-9]+$' AND datname = current_database()"
                        )
                    )
                )
            time.sleep(0.2)
        sent = run_events(60, seed=9)
        with httpx.Client(timeout=30) as client:
            for n in range(0, len(sent), 10):  # a connection each: the batches spread over the workers
                answer = httpx.post(f"{url}/api/v1/lineage/batch", json=sent[n : n + 10], timeout=30)
                assert answer.status_code == 200, answer.text
            for event in sent[:10]:
                read = client.get(f"{url}/api/v1/graph/node", params={"nodeId": f"run:{event['run']['runId']}"})
                assert read.status_code == 200, read.text
        assert "3 worker processes" in log.read_text()
        # /metrics sums the workers' counters (a shared multiprocess folder), whichever worker answers
        answered: set[str] = set()
        for _ in range(30):
            metrics = httpx.get(f"{url}/metrics", timeout=30).text
            assert 'headwater_events_acknowledged_total{outcome="stored"} 120.0' in metrics, metrics
            answered |= {line.split('pid="')[1].split('"')[0] for line in metrics.splitlines() if 'pid="' in line}
            if len(answered) > 1:
                break
        assert len(answered) > 1, "every scrape reached the same worker"
    finally:
        engine.dispose()
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_serve_workers_needs_postgresql(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from headwater.cli.serve import command

    result = CliRunner().invoke(
        command, ["--db", f"sqlite:///{tmp_path / 'h.db'}", "--port", str(free_port()), "--workers", "2"]
    )
    assert result.exit_code == 1
    assert "--workers above 1 needs a PostgreSQL store" in result.output


def test_events_a_killed_server_did_not_derive_are_derived_with_no_request(fresh_pg_url: str, tmp_path: Path) -> None:
    """Server A acknowledges a batch and is killed before its projector derives it (it lets events gather
    for 50 ms first); server B gets no request at all, yet derives them: its idle projector looks at the log."""
    engine = sa.create_engine(fresh_pg_url.replace("postgresql://", "postgresql+psycopg://", 1))
    position = sa.text(
        "SELECT (SELECT COALESCE(MAX(seq), 0) FROM events), (SELECT COALESCE(MAX(event_seq), 0) FROM observations)"
    )
    try:
        with servers(fresh_pg_url, tmp_path, 2) as pool, httpx.Client(timeout=30) as client:
            a, b = pool
            left_behind = 0
            for attempt in range(5):  # the kill must land before A's projector steps: it nearly always does
                sent = run_events(100, seed=100 + attempt)
                answer = client.post(f"{a.url}/api/v1/lineage/batch", json=sent)
                os.kill(a.pid, signal.SIGKILL)
                assert answer.status_code == 200, answer.text
                a.proc.wait()
                with engine.connect() as conn:
                    head, done = conn.execute(position).one()
                left_behind = head - done
                if left_behind:
                    break
                a = Server(fresh_pg_url, tmp_path, f"again{attempt}")
                pool.append(a)  # stopped with the others
                a.wait_ready()
            assert left_behind > 0, "the kill never came before the derivation"
            deadline = time.monotonic() + 30
            while True:  # no request to B: only its projector's look at the log can derive them
                with engine.connect() as conn:
                    head, done = conn.execute(position).one()
                if done == head:
                    break
                assert time.monotonic() < deadline, f"{head - done} events never derived"
                time.sleep(0.2)
            assert b.proc.poll() is None
    finally:
        engine.dispose()
