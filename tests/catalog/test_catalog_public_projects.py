"""The ``public_projects`` setting (docs/catalog.md, "Who is asking"): every read is made as a viewer member of
the public projects — a catalogued inventory node stays in the lineage a signed-out reader sees — while writes
are decided by the reader's own memberships alone. Without the setting the same node is hidden (the catalog's
visibility rules)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from fastapi.testclient import TestClient

from headwater.api import create_app
from headwater.settings import load_settings
from headwater.store import Store

ADMIN = {"Authorization": "Bearer the-admin"}
NODE = "dataset:file:/warehouse/compensation"
API = "/api/v1/catalog"


def _event() -> dict[str, object]:
    return {
        "eventType": "COMPLETE",
        "eventTime": datetime.now(UTC).isoformat(),
        "producer": "https://example.test/producer",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": str(uuid.uuid4())},
        "job": {"namespace": "etl", "name": "write_compensation"},
        "inputs": [{"namespace": "file", "name": "/landing/employees"}],
        "outputs": [{"namespace": "file", "name": "/warehouse/compensation"}],
    }


def test_public_projects_are_read_by_everyone_and_written_by_members_only(store_url: str) -> None:
    store = Store.open(store_url)
    public = TestClient(
        create_app(load_settings({"write_tokens": "the-admin", "public_projects": "payroll"}, environ={}), store)
    )
    private = TestClient(create_app(load_settings({"write_tokens": "the-admin"}, environ={}), store))
    try:
        assert public.post("/api/v1/lineage", json=_event(), headers=ADMIN).status_code < 300
        public.post(f"{API}/domains", json={"id": "people", "name": "People"}, headers=ADMIN).raise_for_status()
        for project in ("payroll", "finance"):
            public.post(
                f"{API}/projects", json={"id": project, "domain": "people", "name": project}, headers=ADMIN
            ).raise_for_status()
        tokens = {}
        for user, project, role in (("pay", "payroll", "owner"), ("fin", "finance", "contributor")):
            tokens[user] = {
                "Authorization": f"Bearer {public.post(f'{API}/users', json={'id': user}, headers=ADMIN).json()['token']}"
            }
            public.put(
                f"{API}/projects/{project}/members/{user}", json={"role": role}, headers=ADMIN
            ).raise_for_status()
        made = public.post(f"{API}/assets", json={"project": "payroll", "nodeId": NODE}, headers=tokens["pay"])
        assert made.status_code < 300, made.text
        asset = made.json()["id"]

        # the inventory node (not published): hidden from non-members on the server without the setting ...
        assert private.get("/api/v1/graph/node", params={"nodeId": NODE}).status_code == 404
        assert private.get("/api/v1/graph/node", params={"nodeId": NODE}, headers=tokens["fin"]).status_code == 404
        # ... read by everyone, signed in or not, where payroll is public, with its lineage
        for who in ({}, tokens["fin"]):
            seen = public.get("/api/v1/graph/node", params={"nodeId": NODE}, headers=who)
            assert seen.status_code == 200 and seen.json()["name"] == "/warehouse/compensation", seen.text
        up = public.get("/api/v1/graph/lineage", params={"nodeId": NODE, "direction": "upstream"}).json()
        assert {n["id"] for n in up["nodes"]} == {NODE, "job:etl:write_compensation", "dataset:file:/landing/employees"}
        # a write is not a read: it is decided by the writer's own memberships, so to finance's contributor and to a
        # signed-out reader (on a server with write tokens) payroll's unpublished asset is not one they may act on
        # — the answer any non-member gets, as without the setting
        for who in (tokens["fin"], {}):
            refused = public.post(f"{API}/assets/{asset}/publish", headers=who)
            assert refused.status_code == 404 and "no asset" in refused.text, refused.text
        assert public.post(f"{API}/assets/{asset}/publish", headers=tokens["pay"]).status_code < 300
        # and finance is still the contributor's only project to act for: no project context needed
        sub = public.post(f"{API}/assets/{asset}/subscriptions", json={"target": "fin-dwh"}, headers=tokens["fin"])
        assert sub.status_code < 300 and sub.json()["project"] == "finance", sub.text
    finally:
        public.close()
        private.close()
        store.close()
