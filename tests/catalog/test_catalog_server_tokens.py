"""Tokens an operator manages (``headwater token``, docs/deploy.md "Tokens"): created, rotated and revoked on a
running server without a restart, the settings' token working throughout, each change in the audit log; and
events are bound to their project when they arrive (a project-bound token, a catalog user's only project): never
visible to another reader first. On SQLite and PostgreSQL, through the real command line and the HTTP API."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from headwater.api import create_app
from headwater.catalog.tokens import create_token, settle_uses
from headwater.cli import cli
from headwater.model.times import now_micros
from headwater.settings import load_settings
from headwater.store import Store

ENV_TOKEN = "settings-write-token"


def event(namespace: str, name: str) -> dict[str, Any]:
    return {
        "eventType": "COMPLETE",
        "eventTime": datetime.now(UTC).isoformat(),
        "producer": "https://example.test/producer",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": str(uuid.uuid4())},
        "job": {"namespace": "etl", "name": f"load_{name}"},
        "inputs": [],
        "outputs": [{"namespace": namespace, "name": name}],
    }


def bearer(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


@pytest.fixture
def served(store_url: str) -> Iterator[tuple[str, Store, TestClient]]:
    store = Store.open(store_url)
    client = TestClient(create_app(load_settings({"write_tokens": ENV_TOKEN}, environ={}), store))
    try:
        yield store_url, store, client
    finally:
        client.close()
        store.close()


def token_cli(url: str, *args: str) -> str:
    result = CliRunner().invoke(cli, ["token", *args, "--db", url])
    assert result.exit_code == 0, result.output
    return result.output


def test_rotation_without_a_restart(served: tuple[str, Store, TestClient]) -> None:
    url, store, http = served
    old = token_cli(url, "create", "--name", "spark producers", "--expires", "90d").strip().splitlines()[-1]
    assert old.startswith("hw_")
    assert http.post("/api/v1/lineage", json=event("lake", "a"), headers=bearer(old)).status_code == 201
    # rollover: a second token; both are valid until the first is revoked
    new = token_cli(url, "create", "--name", "spark producers (rotated)").strip().splitlines()[-1]
    for token in (old, new, ENV_TOKEN):
        assert http.post("/api/v1/lineage", json=event("lake", "b"), headers=bearer(token)).status_code == 201
    settle_uses()  # a use is written in the background: a request never waits for it
    listed = [json.loads(line) for line in token_cli(url, "list", "--json").splitlines()]
    assert [(t["name"], t["kind"], t["valid"]) for t in listed] == [
        ("spark producers", "write", True),
        ("spark producers (rotated)", "write", True),
    ]
    assert all(t["lastUsedAt"] for t in listed) and listed[0]["expiresAt"] and listed[1]["expiresAt"] is None
    out = token_cli(url, "revoke", listed[0]["id"])
    assert f"token {listed[0]['id']} (spark producers) revoked" in out
    refused = http.post("/api/v1/lineage", json=event("lake", "c"), headers=bearer(old))
    assert refused.status_code == 401 and refused.json()["error"]["message"].startswith("unknown token: ")
    for token in (new, ENV_TOKEN):
        assert http.post("/api/v1/lineage", json=event("lake", "d"), headers=bearer(token)).status_code == 201
    again = CliRunner().invoke(cli, ["token", "revoke", listed[0]["id"], "--db", url])
    assert again.exit_code != 0 and "was revoked at" in again.output
    # each change is in the audit log, with who made it
    audit = http.get("/api/v1/catalog/audit", headers=bearer(ENV_TOKEN)).json()["entries"]
    changes = [(e["action"], e["target"]) for e in audit if e["action"].startswith("token.")]
    assert changes == [
        ("token.create", listed[0]["id"]),
        ("token.create", listed[1]["id"]),
        ("token.revoke", listed[0]["id"]),
    ]
    assert all(e["actor"].startswith("cli:") for e in audit if e["action"].startswith("token."))
    # a read token reads, and may not write
    reader = token_cli(url, "create", "--name", "dashboard", "--kind", "read").strip().splitlines()[-1]
    assert http.get("/api/v1/graph/datasets", headers=bearer(reader)).status_code == 200
    assert http.post("/api/v1/lineage", json=event("lake", "e"), headers=bearer(reader)).status_code == 403
    assert http.get("/api/v1/graph/datasets").status_code == 401  # a read token exists: reads need one now


def test_an_expired_token_is_refused(served: tuple[str, Store, TestClient]) -> None:
    url, store, http = served
    with store.engine.begin() as conn:
        text, _ = create_token(conn, name="short", kind="write", actor="test", expires_at=now_micros() + 1_500_000)
    assert http.post("/api/v1/lineage", json=event("lake", "x"), headers=bearer(text)).status_code == 201
    time.sleep(1.6)  # the expiry passes (what is checked is the refusal after it, not a duration)
    late = http.post("/api/v1/lineage", json=event("lake", "y"), headers=bearer(text))
    assert late.status_code == 401
    past = CliRunner().invoke(cli, ["token", "create", "--name", "x", "--expires", "2000-01-01T00:00:00Z", "--db", url])
    assert past.exit_code != 0 and "is not in the future" in past.output


def test_events_are_bound_to_their_project_when_they_arrive(served: tuple[str, Store, TestClient]) -> None:
    url, _, http = served
    admin = bearer(ENV_TOKEN)
    assert http.post("/api/v1/catalog/domains", json={"id": "people"}, headers=admin).status_code == 201
    for project in ("producer", "consumer"):
        answer = http.post("/api/v1/catalog/projects", json={"id": project, "domain": "people"}, headers=admin)
        assert answer.status_code == 201
    users = {}
    for user, memberships in (
        ("bob", {"producer": "contributor"}),
        ("zed", {"producer": "owner", "consumer": "owner"}),
    ):
        users[user] = http.post("/api/v1/catalog/users", json={"id": user}, headers=admin).json()["token"]
        for project, role in memberships.items():
            put = http.put(f"/api/v1/catalog/projects/{project}/members/{user}", json={"role": role}, headers=admin)
            assert put.status_code == 200
    bound = token_cli(url, "create", "--name", "hr crawler", "--project", "producer").strip().splitlines()[-1]

    def seen_by(token: str | None, dataset: str) -> int:
        return http.get("/api/v1/graph/node", params={"nodeId": dataset}, headers=bearer(token)).status_code

    # a project-bound token and a user of one project, without naming the project: the project's from the start
    assert http.post("/api/v1/lineage", json=event("hr", "salaries"), headers=bearer(bound)).status_code == 201
    assert http.post("/api/v1/lineage", json=event("hr", "bonuses"), headers=bearer(users["bob"])).status_code == 201
    for name in ("salaries", "bonuses"):
        assert seen_by(None, f"dataset:hr:{name}") == 404
        assert seen_by(users["bob"], f"dataset:hr:{name}") == 200
    # a user of several projects chooses
    several = http.post("/api/v1/lineage", json=event("hr", "x"), headers=bearer(users["zed"]))
    assert several.status_code == 403 and "Headwater-Project" in several.json()["error"]["message"]
    chosen = {**bearer(users["zed"]), "Headwater-Project": "consumer"}
    assert http.post("/api/v1/lineage", json=event("mart", "kpis"), headers=chosen).status_code == 201
    assert seen_by(users["bob"], "dataset:mart:kpis") == 404
    # the bound token may not send for another project
    other = http.post(
        "/api/v1/lineage", json=event("hr", "z"), headers={**bearer(bound), "Headwater-Project": "consumer"}
    )
    assert other.status_code == 403
    # the server's write token still sends lineage no project owns (visible to all, as before the catalog)
    assert http.post("/api/v1/lineage", json=event("public", "calendar"), headers=admin).status_code == 201
    assert seen_by(None, "dataset:public:calendar") == 200
