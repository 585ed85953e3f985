"""The demo's catalog against a real ``headwater serve``: domain, projects, members, publication, subscription."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import httpx

from headwater.demo import projects
from headwater.demo import server as servers

DATASET = "dataset:file:/demo/warehouse/employee_compensation"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def _event() -> dict[str, object]:
    return {
        "eventType": "COMPLETE",
        "eventTime": "2026-11-27T10:00:00Z",
        "producer": "https://example.org/test",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/definitions/RunEvent",
        "run": {"runId": "0193a1b2-0000-7000-8000-000000000001"},
        "job": {"namespace": "spark", "name": "hr_employee_compensation"},
        "inputs": [],
        "outputs": [{"namespace": "file", "name": "/demo/warehouse/employee_compensation"}],
    }


def test_set_up_makes_an_explorable_catalog_and_is_idempotent(tmp_path: Path) -> None:
    server = servers.start(tmp_path, "127.0.0.1", _free_port())
    try:
        sent = httpx.post(server.url + "/api/v1/lineage", json=_event(), timeout=10)
        assert sent.status_code < 300, sent.text
        made = projects.set_up(server.url, tmp_path, DATASET)
        assert sorted(made.tokens) == ["finance-analyst", "payroll-owner"]
        assert json.loads((tmp_path / "catalog-tokens.json").read_text()) == made.tokens

        api = httpx.Client(base_url=server.url + "/api/v1/catalog", timeout=10)
        owner = {"Authorization": f"Bearer {made.tokens['payroll-owner']}"}
        analyst = {"Authorization": f"Bearer {made.tokens['finance-analyst']}", "Headwater-Project": "finance"}
        assert [d["id"] for d in api.get("/domains").json()["domains"]] == ["people"]
        payroll = api.get("/projects/payroll", headers=owner).json()
        assert payroll["domain"] == "people"
        assert [(m["user"], m["role"]) for m in payroll["members"]] == [("payroll-owner", "owner")]
        finance = api.get("/projects/finance", headers=analyst).json()
        assert finance["domain"] == "people"
        assert [(m["user"], m["role"]) for m in finance["members"]] == [("finance-analyst", "contributor")]

        me = api.get("/me", headers=analyst).json()
        assert me["user"] == "finance-analyst" and me["context"] == "finance"
        # the consumer sees the producer's asset as published
        seen = api.get(f"/assets/{made.asset}", headers=analyst).json()
        assert (seen["project"], seen["state"], seen["access"]) == ("payroll", "published", "published")
        # the producer's member view names the dataset the demo's job wrote
        asset = api.get(f"/assets/{made.asset}", headers=owner).json()
        assert (asset["state"], asset["access"], asset["dataset"]) == ("published", "member", DATASET)
        anonymous = api.get("/assets").json()["assets"]
        assert [(a["id"], a["state"]) for a in anonymous] == [(made.asset, "published")]
        # the demo's server makes its projects public (setting public_projects): a reader who is not signed
        # in sees the inventory node and its lineage on to the published node, as a payroll viewer would
        node = httpx.get(server.url + "/api/v1/graph/node", params={"nodeId": DATASET}, timeout=10)
        assert node.status_code == 200, node.text
        assert node.json()["name"] == "/demo/warehouse/employee_compensation"
        down = httpx.get(
            server.url + "/api/v1/graph/lineage", params={"nodeId": DATASET, "direction": "downstream"}, timeout=10
        ).json()
        assert any(n["type"] == "JOB" for n in down["nodes"]) and not any(
            n["type"] == "RESTRICTED" for n in down["nodes"]
        ), down["nodes"]

        subs = api.get("/subscriptions", headers=analyst).json()["subscriptions"]
        assert [(s["id"], s["asset"], s["project"], s["state"], s["target"]) for s in subs] == [
            (made.subscription, made.asset, "finance", "approved", "finance-warehouse")
        ]

        again = projects.set_up(server.url, tmp_path, DATASET)  # a re-run of the demo changes nothing
        assert again == made
        assert len(api.get("/subscriptions", headers=owner).json()["subscriptions"]) == 1
        api.close()
    finally:
        server.stop()
