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
