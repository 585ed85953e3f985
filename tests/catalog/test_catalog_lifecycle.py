"""What the story does not walk through, on its own world (SQLite and PostgreSQL): custom and hand-made
assets, unpublish and publish again, reject, revoke — each visible to exactly whom it should be."""

from __future__ import annotations

from catalog_world import World

REPORT = "dataset:warehouse:reports.payroll_summary"


def _lineage_ids(w: World, role: str, node: str) -> dict[str, str]:
    answer = w.ok(w.get(role, "/api/v1/graph/lineage", params={"nodeId": node, "depth": 6, "direction": "upstream"}))
    return {n["id"]: n["type"] for n in answer["nodes"]}


def test_a_custom_asset_is_a_graph_node_its_project_sees(world: World) -> None:
    w = world
    body = {
        "project": "producer",
        "namespace": "warehouse",
        "name": "planned.headcount",
        "custom": True,
        "fields": [{"name": "dept", "type": "TEXT"}],
        "metadata": {"businessName": "Planned headcount"},
    }
    asset = w.ok(w.post("contributor", "/api/v1/catalog/assets", body), 201)
    assert asset["custom"] and asset["dataset"] == "dataset:warehouse:planned.headcount"
    node = w.ok(w.get("viewer", "/api/v1/graph/node", params={"nodeId": asset["dataset"]}))
    assert [f["name"] for f in node["fields"]] == ["dept"] and node["facets"]["headwater_catalog"][
        "state"
    ] == "inventory"
    assert w.get("anonymous", "/api/v1/graph/node", params={"nodeId": asset["dataset"]}).status_code == 404
    assert w.ok(w.get("other", "/api/v1/graph/search", params={"q": "headcount"}))["results"] == []
    (version,) = w.ok(w.get("owner", f"/api/v1/catalog/assets/{asset['id']}/versions"))["versions"]
    assert version["eventId"] and w.get("owner", f"/api/v1/events/{version['eventId']}").status_code == 200
    assert w.get("anonymous", f"/api/v1/events/{version['eventId']}").status_code == 404
    # a custom asset for a dataset the graph has is refused, and so is cataloging one twice
    again = w.post("contributor", "/api/v1/catalog/assets", {**body, "name": "reports.payroll_summary"})
    assert again.status_code == 409
    twice = w.post("contributor", "/api/v1/catalog/assets", {"project": "producer", "nodeId": asset["dataset"]})
    assert twice.status_code == 409


def test_cataloging_a_visible_dataset_hides_it_from_other_projects(world: World) -> None:
    w = world
    assert w.get("other", "/api/v1/graph/node", params={"nodeId": REPORT}).status_code == 200
    taken = w.post("other", "/api/v1/catalog/assets", {"nodeId": REPORT, "project": "producer"})
    assert taken.status_code == 403  # not a member of producer
    asset = w.ok(w.post("contributor", "/api/v1/catalog/assets", {"nodeId": REPORT, "project": "producer"}), 201)
    assert asset["state"] == "inventory"
    assert w.get("other", "/api/v1/graph/node", params={"nodeId": REPORT}).status_code == 404
    assert w.get("viewer", "/api/v1/graph/node", params={"nodeId": REPORT}).status_code == 200
    # for the other project the dataset is now one the graph does not hold: cataloging it is "not found"
    mine = w.post("other", "/api/v1/catalog/assets", {"nodeId": REPORT, "project": "consumer"})
    assert mine.status_code == 404
    assert mine.json()["error"]["message"] == (
        f"no dataset {REPORT!r} in the graph (custom: true catalogs one no producer reported)"
    )


def test_unpublish_hides_the_published_node_and_publishing_again_shows_it(world: World) -> None:
    w = world
    asset_url = f"/api/v1/catalog/assets/{w.ids['asset']}"
    published = w.ids["published_node"]
    gone = w.ok(w.post("contributor", f"{asset_url}/unpublish"))
    assert gone["state"] == "unpublished" and gone["publishedNode"] == published
    assert w.get("anonymous", "/api/v1/graph/node", params={"nodeId": published}).status_code == 404
    assert w.get("anonymous", asset_url).status_code == 404
    # the consumer's target stays, its upstream is now opaque; the producer sees the node dropped
    upstream = _lineage_ids(w, "other", w.ids["target_node"])
    assert published not in upstream and "RESTRICTED" in upstream.values()
    history = w.ok(w.get("owner", "/api/v1/graph/history", params={"nodeId": published}))["versions"]
    assert history[0]["changes"] == ["dropped"]
    again = w.ok(w.post("contributor", f"{asset_url}/publish"))
    assert again["state"] == "published"
    assert w.ok(w.get("anonymous", "/api/v1/graph/node", params={"nodeId": published}))["deleted"] is False
    changes = [v["change"] for v in w.ok(w.get("owner", f"{asset_url}/versions"))["versions"]]
    assert changes[:2] == ["published", "unpublished"]


def test_reject_and_revoke(world: World) -> None:
    w = world
    asset_url = f"/api/v1/catalog/assets/{w.ids['asset']}"
    asked = w.ok(w.post("other", f"{asset_url}/subscriptions", {"target": "sandbox"}), 201)
    rejected = w.ok(w.post("owner", f"/api/v1/catalog/subscriptions/{asked['id']}/reject", {"reason": "no PII there"}))
    assert rejected["state"] == "rejected" and rejected["targetNode"] is None and rejected["decidedBy"] == "alice"
    assert w.post("owner", f"/api/v1/catalog/subscriptions/{asked['id']}/approve").status_code == 409
    revoked = w.ok(w.post("other", f"/api/v1/catalog/subscriptions/{w.ids['subscription']}/revoke"))
    assert revoked["state"] == "revoked" and revoked["eventId"]
    node = w.ok(w.get("other", "/api/v1/graph/node", params={"nodeId": w.ids["target_node"]}))
    assert node["deleted"] is True
    assert w.get("anonymous", f"/api/v1/catalog/subscriptions/{asked['id']}").status_code == 404
    actions = [e["action"] for e in w.ok(w.get("owner", "/api/v1/catalog/audit", params={"limit": 1000}))["entries"]]
    assert "subscription.reject" in actions and "subscription.revoke" in actions


def test_a_failed_event_s_error_is_listed_only_to_who_may_see_the_event(world: World) -> None:
    """GET /api/v1/status lists the events the projector could not derive with their error messages, which
    may name any table of the event: a reader who may not see the event (the payroll job's, which reads
    inventory tables) gets the count, not the event or its message."""
    import sqlalchemy as sa

    from headwater.store.projection_failures import mark_failed
    from headwater.store.schema import events, observations

    w = world
    payroll = w.ids["payroll_event"]
    with w.store.engine.begin() as conn:
        row = conn.execute(sa.select(events.c.seq, events.c.id).where(events.c.id == payroll)).one()
        mark_failed(conn, row, "KeyError: 'hr.salary_bands' while deriving payroll_job")
    try:
        for role in ("admin", "owner", "viewer"):
            projection = w.ok(w.get(role, "/api/v1/status"))["projection"]
            assert projection["failed"] >= 1 and payroll in {e["id"] for e in projection["failedEvents"]}, role
        for role in ("other", "anonymous"):
            answer = w.get(role, "/api/v1/status")
            projection = w.ok(answer)["projection"]
            assert projection["failed"] >= 1, role  # the count is whole
            assert payroll not in {e["id"] for e in projection["failedEvents"]}, role
            assert "salary_bands" not in answer.text and "payroll_job" not in answer.text, role
    finally:
        with w.store.engine.begin() as conn:
            conn.execute(observations.delete().where(observations.c.node == f"error:{payroll}"))
