"""PostgreSQL restarts under load, for real: a private PostgreSQL server (never the shared one) is restarted
with ``pg_ctl restart -m fast`` and then ``-m immediate`` (a crash) while clients send events to a real
``headwater serve``.

Requests caught by a restart answer ``503 store_unavailable`` with ``Retry-After``; the HTTP client
(``headwater.client``, what the SQL engine, crawlers and harvesters send with) retries and every batch ends
acknowledged; the PySpark agent's delivery spools what a stopped database refuses and sends it once it is
back; the server's pool reconnects by itself; every acknowledged event is in the log once and
observed once (derivation resumed exactly once); the graph equals a rebuild.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import sqlalchemy as sa
from openlineage.client.transport import Transport

from fixtures.stories.load import derived_state
from headwater.capture.config import load_config
from headwater.capture.delivery import Emitter
from headwater.capture.events import AppContext, EventType, application_event
from headwater.capture.spool import Spool
from headwater.capture.transports import build_transport
from headwater.client import HttpClient
from headwater.model.jsontext import loads_text
from headwater.store import Store, codec
from headwater.store.observe import observe
from headwater.store.schema import events, observations
from live_server import ServeProcess, serve_env

from .faults import big_event, ids, wait_caught_up
from .private_pg import PrivatePostgres

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

AGENT = AppContext(
    namespace="ops", app_job="restart_app", app_run_id="01890000-0000-7000-8000-0000000000b2", spark_version="4.0.0"
)


def agent_transport(url: str) -> Transport:
    """The PySpark agent's HTTP transport, configured as a Spark job configures it."""
    env = {"HOME": "/nonexistent-home"}
    settings = {"spark.openlineage.transport.type": "http", "spark.openlineage.transport.url": url}
    return build_transport(load_config(settings, env), env)


@pytest.fixture
def private_pg() -> Iterator[PrivatePostgres]:
    server = PrivatePostgres()
    try:
        server.start()
        yield server
    finally:
        server.close()


def test_postgresql_restarts_under_load_lose_and_double_nothing(private_pg: PrivatePostgres, tmp_path: Path) -> None:
    acknowledged: set[str] = set()
    seen: list[tuple[int, str | None]] = []  # what the probing sender got: (status, Retry-After)
    failures: list[BaseException] = []
    lock = threading.Lock()
    stop = threading.Event()

    with ServeProcess(private_pg.url, tmp_path / "serve.log", serve_env(tmp_path / "data")) as server:

        def sender(k: int) -> None:  # batches of 10 through the HTTP client, which retries 5xx
            try:
                with HttpClient(server.url, batch_size=10, retries=10) as client:
                    n = 0
                    while not stop.is_set():
                        batch = [big_event(100_000 * k + n + i, size=2_000) for i in range(10)]
                        n += 10
                        client.send(batch)
                        with lock:
                            acknowledged.update(ids(batch))
                        stop.wait(0.05)  # a steady load, not a flood: less to derive at the end
            except BaseException as exc:  # noqa: BLE001 - reported by the test thread
                failures.append(exc)

        def prober() -> None:  # single events, raw HTTP: records the answers a restart gives
            try:
                with httpx.Client(timeout=30) as client:
                    n = 0
                    while not stop.is_set():
                        event = big_event(900_000 + n, size=500)
                        n += 1
                        while True:
                            answer = client.post(f"{server.url}/api/v1/lineage", json=event)
                            seen.append((answer.status_code, answer.headers.get("Retry-After")))
                            if answer.status_code in (200, 201):
                                with lock:
                                    acknowledged.update(ids([event]))
                                break
                            assert answer.status_code == 503, answer.text
                            assert answer.json()["error"]["code"] == "store_unavailable", answer.text
                            time.sleep(0.2)  # sooner than Retry-After: to see the restart's answers
            except BaseException as exc:  # noqa: BLE001 - reported by the test thread
                failures.append(exc)

        threads = [threading.Thread(target=sender, args=(k,)) for k in range(3)]
        threads.append(threading.Thread(target=prober))
        for t in threads:
            t.start()
        try:
            time.sleep(2)
            private_pg.restart("fast")
            time.sleep(3)
            private_pg.restart("immediate")
            time.sleep(3)
        finally:
            stop.set()
            for t in threads:
                t.join(180)
        assert not failures, failures
        assert (503, "5") in seen, "no request was caught by a restart"
        assert seen[-1][0] in (200, 201)

        projection = wait_caught_up(server.url)
        assert projection["failed"] == 0, projection  # a restart is no event's fault
        assert httpx.get(f"{server.url}/readyz", timeout=10).status_code == 200
        metrics = httpx.get(f"{server.url}/metrics", timeout=10).text
        assert 'headwater_ingest_refused_total{reason="store_unavailable"}' in metrics

        # the PySpark agent's delivery while the database is down: its 503s are spooled, sent once it is back
        private_pg.stop()
        ready = httpx.get(f"{server.url}/readyz", timeout=10)
        assert ready.status_code == 503 and "store does not answer" in ready.json()["reason"], ready.text
        emitter = Emitter(agent_transport(server.url), Spool(tmp_path / "spool"))
        for n in range(3):
            assert emitter.submit(application_event(AGENT, EventType.OTHER, 1_780_000_000 + n))
        assert emitter.flush(30)
        assert emitter.stats.sent == 0 and Spool(tmp_path / "spool").count() == 3
        private_pg.start()
        deadline = time.monotonic() + 60
        while Spool(tmp_path / "spool").count():  # the agent's backoff retry finds the server answering again
            assert time.monotonic() < deadline, emitter.stats
            time.sleep(0.2)
        emitter.close(10)
        assert emitter.stats.sent == 3

    with Store.open(private_pg.url) as store:
        with store.engine.connect() as conn:
            logged = codec.log_rows(conn, conn.execute(sa.select(events.c.seq, events.c.id, *codec.TEXT_COLUMNS)).all())
            stored = sorted(
                tuple(r)
                for r in conn.execute(sa.select(observations.c.node, observations.c.event_seq, observations.c.role))
            )
        agent = sorted(r.id for r in logged if loads_text(r.raw)["job"]["name"] == AGENT.app_job)
        assert len(agent) == 3  # the agent's events, each once
        assert sorted(r.id for r in logged if r.id not in agent) == sorted(acknowledged)  # each once, no other
        recomputed = sorted((o.node, r.seq, o.role) for r in logged for o in observe(loads_text(r.raw), r.id))
        assert stored == recomputed  # each observed exactly once
        before = derived_state(store)
        store.rebuild()
        assert derived_state(store) == before
