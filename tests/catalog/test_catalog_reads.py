"""Catalog reads take no write lock: on SQLite every catalog read answers while another writer holds the store's
write lock (a translator's write transaction, a projector step), instead of queueing behind it.

A real ``headwater serve`` app (uvicorn in a thread) over a SQLite file; the writer is a real write transaction
held open on another connection (``Store.write_connection``, whose ``BEGIN`` takes the main file's write lock);
the reads run in a thread of their own and must all answer before the writer lets go.
"""

from __future__ import annotations

import threading
from pathlib import Path

import httpx
import sqlalchemy as sa

from headwater.api import create_app
from headwater.settings import load_settings
from headwater.store import Store
from live_server import ThreadServer

ADMIN = {"Authorization": "Bearer admin-token"}
READS = [
    "/api/v1/catalog/me",
    "/api/v1/catalog/domains",
    "/api/v1/catalog/domains/d/glossary",
    "/api/v1/catalog/projects",
    "/api/v1/catalog/projects/p",
    "/api/v1/catalog/assets",
    "/api/v1/catalog/subscriptions",
    "/api/v1/catalog/projects/p/source-runs",
    "/api/v1/catalog/audit",
]


def test_catalog_reads_answer_while_a_writer_holds_the_write_lock(tmp_path: Path) -> None:
    store = Store.open(f"sqlite:///{tmp_path / 'headwater.db'}")
    app = create_app(load_settings({"write_tokens": "admin-token"}, environ={}), store)
    try:
        with ThreadServer(app) as served, httpx.Client(base_url=served.url, headers=ADMIN, timeout=60) as http:
            assert http.post("/api/v1/catalog/domains", json={"id": "d"}).status_code == 201
            assert http.post("/api/v1/catalog/projects", json={"id": "p", "domain": "d"}).status_code == 201
            assert http.put("/api/v1/catalog/domains/d/glossary/pay", json={"definition": "salary"}).status_code == 200
            body = {"project": "p", "namespace": "wh", "name": "curated", "custom": True}
            asset = http.post("/api/v1/catalog/assets", json=body).json()["id"]
            reads = [*READS, f"/api/v1/catalog/assets/{asset}", f"/api/v1/catalog/assets/{asset}/versions"]
            store.catch_up()  # the custom asset's event is in the graph: no read waits for the projector
            answers: dict[str, tuple[int, str]] = {}
            done = threading.Event()

            def read() -> None:
                with httpx.Client(base_url=served.url, headers=ADMIN, timeout=60) as client:
                    for path in reads:
                        answer = client.get(path)
                        answers[path] = (answer.status_code, answer.text[:200])
                done.set()

            writer = store.write_connection()
            transaction = writer.begin()  # on SQLite: the main file's write lock, held until the rollback
            try:
                writer.execute(sa.text("SELECT 1"))
                reader = threading.Thread(target=read)
                reader.start()
                held = done.wait(20)  # a read queued behind the writer would wait up to busy_timeout (30 s)
                in_time = sorted(answers)
            finally:
                transaction.rollback()
                writer.close()
            reader.join(60)
            assert held, f"catalog reads waited for the writer; answered before it let go: {in_time}"
            assert {path: status for path, (status, _) in answers.items()} == dict.fromkeys(reads, 200), answers
            assert f'"id":"{asset}"' in answers[f"/api/v1/catalog/assets/{asset}"][1]
    finally:
        store.close()
