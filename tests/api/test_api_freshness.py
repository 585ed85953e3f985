"""What a read reflects is said, never hidden: the graph-position headers, and 503 for read-your-writes.

Every read route waits for the projector at most ``projector_wait`` seconds (once per request), then
answers with ``Headwater-Log-Position`` / ``Headwater-Graph-Position`` / ``Headwater-Graph-Behind``.
To make the graph really fall behind, the PostgreSQL test holds the store's writer lock from another
connection (as a second server busy writing would) and appends to the log under it: the projector
cannot derive those events until the lock is released.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest
import sqlalchemy as sa
from api_events import Story
from api_helpers import assert_error, client_for, make_settings

from headwater.api import create_app
from headwater.model.times import now_micros
from headwater.store import IncomingEvent, Store
from headwater.store.eventlog import insert_events, prepare
from headwater.store.store import PG_WRITER_LOCK

pytestmark = pytest.mark.anyio
SEARCH = "/api/v1/graph/search?q=employees"


async def test_a_caught_up_read_says_where_it_stands(store: Store) -> None:
    app = create_app(make_settings(), store)
    async with client_for(app) as client:
        for event in Story().events:
            assert (await client.post("/api/v1/lineage", json=event)).status_code == 201
        answer = await client.get(SEARCH)
        assert answer.status_code == 200
        log, graph = int(answer.headers["headwater-log-position"]), int(answer.headers["headwater-graph-position"])
        assert log == graph == len(Story().events)
        assert answer.headers["headwater-graph-behind"] == "0"
        assert "preference-applied" not in answer.headers
        fresh = await client.get(SEARCH, headers={"Prefer": "return=minimal, read-your-writes"})
        assert fresh.status_code == 200 and fresh.headers["preference-applied"] == "read-your-writes"
        for path in (
            "/api/v1/namespaces",
            "/api/v1/events",
            f"/api/v1/events/{(await client.get('/api/v1/events')).json()['events'][0]['id']}",
        ):
            assert (await client.get(path)).headers["headwater-graph-behind"] == "0", path
        ingest = await client.post("/api/v1/lineage", json=Story().events[0])  # writes say nothing of the graph
        assert "headwater-graph-position" not in ingest.headers


@pytest.fixture
def pg_store(fresh_pg_url: str) -> Iterator[Store]:
    opened = Store.open(fresh_pg_url, projector_wait=1.0)
    yield opened
    opened.close()


@pytest.mark.postgres
async def test_a_read_behind_the_log_says_so_or_refuses_when_asked_for_read_your_writes(pg_store: Store) -> None:
    app = create_app(make_settings(projector_wait=1.0), pg_store)
    events = Story().events
    with pg_store.engine.connect() as writer:  # another writer, holding the lock the projector needs
        writer.execute(sa.text("SELECT pg_advisory_lock(:k)"), {"k": PG_WRITER_LOCK})
        insert_events(writer, prepare([IncomingEvent(e, json.dumps(e)) for e in events]), now_micros())
        writer.commit()
        try:
            async with client_for(app) as client:
                started = time.monotonic()
                stale = await client.get(SEARCH)
                waited = time.monotonic() - started
                assert stale.status_code == 200 and stale.json()["results"] == []  # the graph as it is: empty
                assert stale.headers["headwater-log-position"] == str(len(events))
                assert stale.headers["headwater-graph-position"] == "0"
                assert stale.headers["headwater-graph-behind"] == str(len(events))
                assert waited >= 1.0  # it did wait for the projector, projector_wait seconds
                # a request missing a required parameter reads nothing: it is answered at once, not after the wait
                mistake = await client.get("/api/v1/lineage")
                assert_error(mistake, 400, "invalid_parameter")
                assert "headwater-graph-position" not in mistake.headers
                refused = await client.get(SEARCH, headers={"Prefer": "read-your-writes"})
                error = assert_error(refused, 503, "graph_behind")
                assert refused.headers["retry-after"] == "1"
                assert f"{len(events)} event(s) behind" in error["message"] and "projector_wait" in error["message"]
        finally:
            writer.execute(sa.text("SELECT pg_advisory_unlock(:k)"), {"k": PG_WRITER_LOCK})
            writer.commit()
    # once the lock is free the projector catches up; the read may wait for it longer than the 1 s above (a
    # loaded machine derives the story more slowly): what is checked is that it then answers, not how fast
    patient = create_app(make_settings(projector_wait=60.0), pg_store)
    async with client_for(patient) as client:
        caught_up = await client.get(SEARCH, headers={"Prefer": "read-your-writes"})
        assert caught_up.status_code == 200 and caught_up.json()["results"]
        assert caught_up.headers["headwater-graph-behind"] == "0"
        assert caught_up.headers["preference-applied"] == "read-your-writes"


def test_store_catch_up_reports_the_positions(store: Store) -> None:
    assert store.catch_up().caught_up
    store.append([IncomingEvent(e, json.dumps(e)) for e in Story().events])
    position = store.catch_up()
    assert (position.log, position.graph, position.behind) == (len(Story().events),) * 2 + (0,)


def test_projector_wait_is_a_checked_setting() -> None:
    assert make_settings().projector_wait == 60.0
    assert make_settings(projector_wait="2.5").projector_wait == 2.5
    for bad in ("0", "-1", "soon", "inf", "nan"):
        with pytest.raises(ValueError, match="projector_wait.*must be a positive number"):
            make_settings(projector_wait=bad)
