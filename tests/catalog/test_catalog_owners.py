"""Owners write their own (docs/catalog.md, "Who may write a node"): an event from another project — or from
any door — never changes what a published asset says, and a dataset a project catalogued is written only by
its members; on SQLite and PostgreSQL, through the HTTP API."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from typing import Any

from catalog_world import CATALOG_NS, DZ_DOMAIN, World

PRODUCER = "https://example.test/forger"
SCHEMA_URL = "https://openlineage.io/spec/facets/1-1-1/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet"
PUBLISHED_NAME = "producer/hr.employee_compensation"
INVENTORY = ("headwater", "hr.employee_compensation")
FORGED = {"_producer": PRODUCER, "_schemaURL": SCHEMA_URL, "fields": [{"name": "forged_column", "type": "TEXT"}]}
CONSUMER = {"Headwater-Project": "consumer"}


def run_event(*, outputs: list[Any] = (), inputs: list[Any] = (), job: str = "forger") -> dict[str, Any]:  # type: ignore[assignment]
    return {
        "eventType": "COMPLETE",
        "eventTime": datetime.now(UTC).isoformat(),
        "producer": PRODUCER,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": str(uuid.uuid4())},
        "job": {"namespace": "consumer-jobs", "name": job},
        "inputs": list(inputs),
        "outputs": list(outputs),
    }


def dataset_event(namespace: str, name: str, facets: dict[str, Any]) -> dict[str, Any]:
    return {
        "eventTime": datetime.now(UTC).isoformat(),
        "producer": PRODUCER,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/DatasetEvent",
        "dataset": {"namespace": namespace, "name": name, "facets": facets},
    }


def _published_view(w: World) -> tuple[list[str], Any, list[str]]:
    """What every reader sees of the published asset: its columns, its business name, its producers."""
    node = w.ok(w.get("anonymous", "/api/v1/graph/node", params={"nodeId": w.ids["published_node"]}))
    return (
        [f["name"] for f in node["fields"]],
        node["facets"]["headwater_catalog"].get("businessName"),
        sorted(node.get("producers") or []),
    )


def _refused(answer: Any, path: str) -> str:
    assert answer.status_code == 403, answer.text
    error = answer.json()["error"]
    assert error["code"] == "forbidden" and path in [d["path"] for d in error["details"]], error
    return str(error["message"])


def test_no_event_rewrites_a_published_asset(world: World) -> None:
    w = world
    before = _published_view(w)
    assert before[0] == ["employee_id", "salary", "bonus"] and before[1] == "Employee compensation"
    forged_write = run_event(outputs=[{"namespace": CATALOG_NS, "name": PUBLISHED_NAME, "facets": {"schema": FORGED}}])
    forged_facet = dataset_event(
        CATALOG_NS,
        PUBLISHED_NAME,
        {"headwater_catalog": {"_producer": PRODUCER, "_schemaURL": "https://x.test/c.json", "businessName": "Forged"}},
    )
    forged_read = run_event(inputs=[{"namespace": CATALOG_NS, "name": PUBLISHED_NAME, "facets": {"schema": FORGED}}])
    forged_job = {**run_event(), "job": {"namespace": CATALOG_NS, "name": f"publish/{PUBLISHED_NAME}"}}
    # a consumer's contributor, in its project and without one, and even the server's write token
    for role, headers in (("other", CONSUMER), ("other", {}), ("admin", {})):
        message = _refused(w.post(role, "/api/v1/lineage", forged_write, headers=headers), "$.outputs[0]")
        assert "drawn by the catalog" in message and "forged_column" not in message
        _refused(w.post(role, "/api/v1/lineage", forged_facet, headers=headers), "$.dataset")
        _refused(w.post(role, "/api/v1/lineage", forged_read, headers=headers), "$.inputs[0]")
        _refused(w.post(role, "/api/v1/lineage", forged_job, headers=headers), "$.job")
    # a batch is all or nothing: one forged event refuses it, at its index
    batch = [run_event(outputs=[{"namespace": "consumer-data", "name": "ok_table"}]), forged_write]
    _refused(w.post("other", "/api/v1/lineage/batch", batch, headers=CONSUMER), "$[1].outputs[0]")
    # the catalog's scheme spelled with a JSON escape, in a batch of usual events (read once, by their values)
    escaped = json.dumps([run_event(), forged_write]).replace(CATALOG_NS[:10], CATALOG_NS[:9] + "\\u002d", 1)
    assert "\\u002dcatalog" in escaped
    sent = w.http.post(
        "/api/v1/lineage/batch", content=escaped, headers=w.headers("admin", **{"Content-Type": "application/json"})
    )
    _refused(sent, "$[1].outputs[0]")
    # a body of 256 kB or more is parsed in a worker process: refused the same way, at the same index
    big = run_event(outputs=[{"namespace": "consumer-data", "name": "big_table"}])
    big["run"]["facets"] = {
        "notes": {"_producer": PRODUCER, "_schemaURL": "https://x.test/n.json", "text": "x" * 300_000}
    }
    quiet = run_event(outputs=[{"namespace": "consumer-data", "name": "other_table"}])
    _refused(w.post("admin", "/api/v1/lineage/batch", [big, quiet, forged_write]), "$[2].outputs[0]")
    # the DataZone door refuses it the same way (AccessDeniedException)
    dz = w.http.post(
        f"/v2/domains/{DZ_DOMAIN}/lineage/events", content=json.dumps(forged_write), headers=w.headers("other")
    )
    assert dz.status_code == 403 and "drawn by the catalog" in dz.text, dz.text
    assert _published_view(w) == before
    # reading the published asset (lineage, no facets about it) is what consumers do: accepted
    plain_read = run_event(
        inputs=[{"namespace": CATALOG_NS, "name": PUBLISHED_NAME}],
        outputs=[{"namespace": "consumer-data", "name": "dashboard_feed"}],
    )
    w.ok(w.post("other", "/api/v1/lineage", plain_read, headers=CONSUMER), 201)
    assert _published_view(w) == before


def test_another_project_s_inventory_is_written_only_by_its_members(world: World) -> None:
    w = world
    inventory = f"dataset:{INVENTORY[0]}:{INVENTORY[1]}"

    def fields(role: str) -> list[str]:
        return [f["name"] for f in w.ok(w.get(role, "/api/v1/graph/node", params={"nodeId": inventory}))["fields"]]

    assert fields("owner") == ["employee_id", "salary", "bonus"]
    write = run_event(outputs=[{"namespace": INVENTORY[0], "name": INVENTORY[1], "facets": {"schema": FORGED}}])
    describe = run_event(inputs=[{"namespace": INVENTORY[0], "name": INVENTORY[1], "facets": {"schema": FORGED}}])
    for headers in (CONSUMER, {}):
        message = _refused(w.post("other", "/api/v1/lineage", write, headers=headers), "$.outputs[0]")
        assert "another project" in message and "producer" not in message.replace(PRODUCER, "")
        _refused(w.post("other", "/api/v1/lineage", describe, headers=headers), "$.inputs[0]")
    assert fields("owner") == ["employee_id", "salary", "bonus"]
    # its contributor may, in the producer's context or with none; so may the server's write token
    change = {"_producer": PRODUCER, "_schemaURL": SCHEMA_URL, "fields": [{"name": "employee_id"}, {"name": "salary"}]}
    mine = run_event(outputs=[{"namespace": INVENTORY[0], "name": INVENTORY[1], "facets": {"schema": change}}])
    w.ok(w.post("contributor", "/api/v1/lineage", mine, headers={"Headwater-Project": "producer"}), 201)
    assert fields("owner") == ["employee_id", "salary"]
    restore = {**change, "fields": [{"name": "employee_id"}, {"name": "salary"}, {"name": "bonus"}]}
    back = run_event(outputs=[{"namespace": INVENTORY[0], "name": INVENTORY[1], "facets": {"schema": restore}}])
    w.ok(w.post("admin", "/api/v1/lineage", back), 201)
    assert fields("owner") == ["employee_id", "salary", "bonus"]
