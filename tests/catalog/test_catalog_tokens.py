"""The server's own tokens keep working beside the catalog's (docs/catalog.md, "Who is asking"): with
read_tokens set, the read token is an anonymous reader (what is not cataloged and published assets), no
token is refused, the write token is an admin; on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from headwater.api import create_app
from headwater.settings import load_settings
from headwater.store import Store

WRITE, READ = "the-write-token", "the-read-token"


@pytest.fixture
def http(store_url: str) -> Iterator[TestClient]:
    store = Store.open(store_url)
    settings = load_settings({"write_tokens": WRITE, "read_tokens": READ}, environ={})
    with TestClient(create_app(settings, store), base_url="http://headwater.test") as client:
        yield client
    store.close()


def test_the_global_tokens_beside_the_catalog(http: TestClient) -> None:
    admin = {"Authorization": f"Bearer {WRITE}"}
    reader = {"Authorization": f"Bearer {READ}"}
    assert http.post("/api/v1/catalog/domains", json={"id": "people"}, headers=admin).status_code == 201
    assert (
        http.post("/api/v1/catalog/projects", json={"id": "hr", "domain": "people"}, headers=admin).status_code == 201
    )
    body = {"project": "hr", "namespace": "warehouse", "name": "secret_table", "custom": True}
    asset = http.post("/api/v1/catalog/assets", json=body, headers=admin)
    assert asset.status_code == 201, asset.text
    node = {"nodeId": "dataset:warehouse:secret_table"}
    assert http.get("/api/v1/graph/node", params=node, headers=admin).status_code == 200
    assert http.get("/api/v1/graph/node", params=node, headers=reader).status_code == 404
    assert http.get("/api/v1/graph/node", params=node).status_code == 401
    assert http.get("/api/v1/catalog/assets", headers=reader).json() == {"assets": []}
    me = http.get("/api/v1/catalog/me", headers=reader).json()
    assert me == {"user": "anonymous", "admin": False, "context": None, "memberships": []}
    assert http.get("/api/v1/catalog/me", headers=admin).json()["admin"] is True
    # the read token cannot manage the catalog, nor send events
    assert (
        http.post("/api/v1/catalog/projects", json={"id": "x", "domain": "people"}, headers=reader).status_code == 403
    )
    assert http.post("/api/v1/lineage", json={}, headers=reader).status_code == 403
    # published, the reader sees it
    published = http.post(f"/api/v1/catalog/assets/{asset.json()['id']}/publish", headers=admin)
    assert published.status_code == 200, published.text
    answer = http.get("/api/v1/graph/node", params={"nodeId": published.json()["publishedNode"]}, headers=reader)
    assert answer.status_code == 200 and answer.json()["name"] == "hr/secret_table"
