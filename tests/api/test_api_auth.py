"""Bearer-token auth: off by default; write tokens guard ingest, read tokens guard reads."""

from __future__ import annotations

import pytest
from api_events import dataset_event
from api_helpers import assert_error, client_for, make_settings

from headwater.api import create_app
from headwater.store import Store

pytestmark = pytest.mark.anyio

WRITE, READ = "w-token-1", "r-token-1"


async def test_auth_is_off_by_default(store: Store) -> None:
    async with client_for(create_app(make_settings(), store)) as client:
        assert (await client.post("/api/v1/lineage", json=dataset_event())).status_code == 201
        assert (await client.get("/api/v1/events")).status_code == 200


async def test_write_tokens_guard_ingest(store: Store) -> None:
    app = create_app(make_settings(write_tokens=f"other, {WRITE}"), store)
    async with client_for(app) as client:
        error = assert_error(await client.post("/api/v1/lineage", json=dataset_event()), 401, "unauthorized")
        assert "Bearer" in error["message"]
        missing = await client.post("/api/v1/lineage/batch", json=[dataset_event()])
        assert_error(missing, 401, "unauthorized")
        assert missing.headers["www-authenticate"].startswith("Bearer")
        wrong = await client.post("/api/v1/lineage", json=dataset_event(), headers={"Authorization": "Bearer nope"})
        assert_error(wrong, 401, "unauthorized")
        basic = await client.post("/api/v1/lineage", json=dataset_event(), headers={"Authorization": f"Basic {WRITE}"})
        assert_error(basic, 401, "unauthorized")
        assert (await client.get("/api/v1/events")).json()["events"] == []  # reads stay open: no read tokens

        ok = await client.post("/api/v1/lineage", json=dataset_event(), headers={"Authorization": f"Bearer {WRITE}"})
        assert ok.status_code == 201
        assert len((await client.get("/api/v1/events")).json()["events"]) == 1


async def test_an_unknown_token_is_refused_where_reads_are_open_and_ignored_only_where_no_token_exists(
    store: Store,
) -> None:
    nope = {"Authorization": "Bearer hwu_no-such-token"}
    async with client_for(create_app(make_settings(), store)) as client:  # no token of any kind: nothing to check
        assert (await client.get("/api/v1/events", headers=nope)).status_code == 200
        assert (await client.post("/api/v1/lineage", json=dataset_event(), headers=nope)).status_code == 201
        # a catalog user made (on a server without write tokens anyone may manage the catalog): tokens exist now
        assert (await client.post("/api/v1/catalog/users", json={"id": "ann"})).status_code == 201
        for answer in (
            await client.get("/api/v1/events", headers=nope),
            await client.get("/api/v1/catalog/me", headers=nope),
            await client.post("/api/v1/lineage", json=dataset_event(), headers=nope),
        ):
            error = assert_error(answer, 401, "unauthorized")
            assert error["message"].startswith("unknown token: ") and "revoked" in error["message"]
        assert (await client.get("/api/v1/events")).status_code == 200  # without a token: the open reads, as before
    app = create_app(make_settings(write_tokens=WRITE), store)  # reads need no token, writes do
    async with client_for(app) as client:
        assert_error(await client.get("/api/v1/events", headers={"Authorization": "Bearer x"}), 401, "unauthorized")
        assert len((await client.get("/api/v1/events")).json()["events"]) == 1


async def test_read_tokens_guard_reads_and_may_not_write(store: Store) -> None:
    app = create_app(make_settings(write_tokens=WRITE, read_tokens=READ), store)
    async with client_for(app) as client:
        assert_error(await client.get("/api/v1/events"), 401, "unauthorized")
        assert_error(await client.get("/api/v1/events", headers={"Authorization": "Bearer x"}), 401, "unauthorized")
        assert (await client.get("/api/v1/events", headers={"Authorization": f"Bearer {READ}"})).status_code == 200
        assert (await client.get("/api/v1/events", headers={"Authorization": f"Bearer {WRITE}"})).status_code == 200
        error = assert_error(
            await client.post("/api/v1/lineage", json=dataset_event(), headers={"Authorization": f"Bearer {READ}"}),
            403,
            "forbidden",
        )
        assert "write token" in error["message"]
        # the API description stays public so clients can discover the API
        assert (await client.get("/openapi.json")).status_code == 200
        assert (await client.get("/api/v1/events", headers={"Authorization": f"Bearer {READ}"})).json()["events"] == []
