"""The catalog's "Done when" story, on SQLite and PostgreSQL: the producer project catalogs the
HR tables from a crawl, curates and publishes employee_compensation; the consumer project finds only the
published asset, subscribes, gets approved and sees its subscription target in the lineage."""

from __future__ import annotations

from catalog_world import CATALOG_NS, INVENTORY_MARKERS, World


def test_the_consumer_sees_only_the_published_asset_and_its_target_in_lineage(world: World) -> None:
    w = world
    target = w.ids["target_node"]
    assert target == f"dataset:{CATALOG_NS}:consumer/analytics/hr.employee_compensation"
    lineage = w.ok(
        w.get("other", "/api/v1/graph/lineage", params={"nodeId": target, "depth": 4, "direction": "upstream"})
    )
    ids = {n["id"] for n in lineage["nodes"]}
    assert target in ids and w.ids["published_node"] in ids
    assert f"job:{CATALOG_NS}:subscription/{w.ids['subscription']}" in ids
    # upstream of the published node: the publish job, then the inventory node — opaque to the consumer
    restricted = [n for n in lineage["nodes"] if n["type"] == "RESTRICTED"]
    assert restricted and all(n["name"] == "" and n["fields"] == [] for n in restricted)
    text = lineage.__repr__()
    assert not any(m in text for m in INVENTORY_MARKERS)
    # the UI learns which nodes are the catalog's, to draw them apart
    roles = w.ok(w.get("other", "/api/v1/catalog/nodes", params={"nodeId": sorted(ids)}))["nodes"]
    assert {r["node"]: r["role"] for r in roles} == {
        target: "target",
        w.ids["published_node"]: "published",
        f"job:{CATALOG_NS}:subscription/{w.ids['subscription']}": "subscribe_job",
        f"job:{CATALOG_NS}:publish/producer/hr.employee_compensation": "publish_job",
    }
    # the producer's members see the same path with the inventory node named
    mine = w.ok(
        w.get("viewer", "/api/v1/graph/lineage", params={"nodeId": target, "depth": 4, "direction": "upstream"})
    )
    assert "dataset:headwater:hr.employee_compensation" in {n["id"] for n in mine["nodes"]}
    assert not [n for n in mine["nodes"] if n["type"] == "RESTRICTED"]


def test_the_consumer_finds_only_the_published_asset(world: World) -> None:
    w = world
    results = w.ok(w.get("other", "/api/v1/graph/search", params={"q": "employee"}))["results"]
    found = {r["id"] for r in results if r["type"] == "DATASET"}
    assert found == {w.ids["published_node"], w.ids["target_node"]}  # its own subscription target too
    results = w.ok(w.get("anonymous", "/api/v1/graph/search", params={"q": "employee"}))["results"]
    assert [r["id"] for r in results if r["type"] == "DATASET"] == [w.ids["published_node"]]
    fields = w.ok(w.get("anonymous", "/api/v1/graph/search", params={"q": "salary", "type": "field"}))["results"]
    assert [r["id"] for r in fields] == [f"datasetField:{w.ids['published_node'][len('dataset:') :]}:salary"]
    assets = w.ok(w.get("anonymous", "/api/v1/catalog/assets"))["assets"]
    assert [a["id"] for a in assets] == [w.ids["asset"]]
    assert assets[0]["access"] == "published" and assets[0]["dataset"] is None
    mine = w.ok(w.get("owner", "/api/v1/catalog/assets"))["assets"]
    assert len(mine) == 3 and {a["state"] for a in mine} == {"inventory", "published"}
    assert w.get("other", f"/api/v1/catalog/assets/{w.ids['bands_asset']}").status_code == 404


def test_publishing_is_a_versioned_graph_node_and_metadata_edits_are_versions(world: World) -> None:
    w = world
    node = w.ok(w.get("anonymous", "/api/v1/graph/node", params={"nodeId": w.ids["published_node"]}))
    facet = node["facets"]["headwater_catalog"]
    assert facet["businessName"] == "Employee compensation" and facet["state"] == "published"
    assert [f["name"] for f in node["fields"]] == ["employee_id", "salary", "bonus"]
    # the inventory node carries the curation history: the crawl's version, then the metadata edit
    history = w.ok(
        w.get("owner", "/api/v1/graph/history", params={"nodeId": "dataset:headwater:hr.employee_compensation"})
    )
    assert len(history["versions"]) >= 2
    versions = w.ok(w.get("owner", f"/api/v1/catalog/assets/{w.ids['asset']}/versions"))["versions"]
    assert [(v["version"], v["change"]) for v in versions] == [(3, "published"), (2, "metadata"), (1, "imported")]
    assert all(v["changedBy"] for v in versions) and versions[0]["changedBy"] == "bob"
    # the public sees the published versions only
    public = w.ok(w.get("anonymous", f"/api/v1/catalog/assets/{w.ids['asset']}/versions"))["versions"]
    assert [v["version"] for v in public] == [3]
    # as of the curation, the asset was in the inventory (members only)
    then = w.ok(w.get("owner", f"/api/v1/catalog/assets/{w.ids['asset']}", params={"at": w.ids["curated_at"]}))
    assert then["state"] == "inventory" and then["version"] == 2
    assert (
        w.get("other", f"/api/v1/catalog/assets/{w.ids['asset']}", params={"at": w.ids["curated_at"]}).status_code
        == 404
    )


def test_the_description_is_rendered_safely(world: World) -> None:
    asset = world.ok(world.get("other", f"/api/v1/catalog/assets/{world.ids['asset']}"))
    html = asset["metadata"]["descriptionHtml"]
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "javascript:" not in html.replace("[x](javascript:alert(1))", "")


def test_the_source_run_report_names_each_event(world: World) -> None:
    w = world
    report = w.ok(w.get("viewer", f"/api/v1/catalog/source-runs/{w.ids['source_run']}"))
    assert report["added"] == 3 and report["name"] == "crawl HR"
    event = w.get("viewer", f"/api/v1/events/{w.ids['crawl_event']}")
    assert event.status_code == 200 and "hr.employee_compensation" in event.text
    assert w.get("other", f"/api/v1/catalog/source-runs/{w.ids['source_run']}").status_code == 404
    assert w.get("other", f"/api/v1/events/{w.ids['crawl_event']}").status_code == 404


def test_every_catalog_change_is_in_the_audit_log(world: World) -> None:
    w = world
    entries = w.ok(w.get("admin", "/api/v1/catalog/audit", params={"limit": 1000}))["entries"]
    actions = [(e["actor"], e["action"]) for e in entries]
    for expected in (
        ("admin", "domain.create"),
        ("admin", "project.create"),
        ("admin", "user.create"),
        ("admin", "member.set"),
        ("bob", "source_run.import"),
        ("alice", "glossary.set"),
        ("bob", "asset.metadata"),
        ("bob", "asset.publish"),
        ("erin", "subscription.request"),
        ("alice", "subscription.approve"),
    ):
        assert expected in actions, expected
    assert all(e["at"] for e in entries)
    consumer = w.ok(w.get("other", "/api/v1/catalog/audit"))["entries"]
    assert consumer and all(e["project"] == "consumer" for e in consumer)
    assert w.ok(w.get("anonymous", "/api/v1/catalog/audit"))["entries"] == []


def test_restricted_nodes_are_valid_lineage_answers(world: World) -> None:
    """The answer with restricted nodes still matches the documented model (the UI's generated types)."""
    from pydantic import TypeAdapter

    from headwater.api.models import LineageAnswer

    w = world
    answer = w.ok(w.get("anonymous", "/api/v1/graph/lineage", params={"nodeId": w.ids["published_node"], "depth": 4}))
    assert any(n["type"] == "RESTRICTED" for n in answer["nodes"])
    TypeAdapter(LineageAnswer).validate_python(answer, strict=True)
    ids = {n["id"] for n in answer["nodes"]}
    assert all(e["source"] in ids and e["target"] in ids for e in answer["edges"])


def test_refusals_say_what_and_why(world: World) -> None:
    w = world
    asset = f"/api/v1/catalog/assets/{w.ids['asset']}"
    bands = f"/api/v1/catalog/assets/{w.ids['bands_asset']}"
    answer = w.http.patch(bands, json={"glossaryTerms": ["Nope"]}, headers=w.headers("contributor"))
    assert answer.status_code == 400 and "'Nope'" in answer.json()["error"]["message"]
    answer = w.post("viewer", f"{bands}/publish")
    assert answer.status_code == 403 and "contributor" in answer.json()["error"]["message"]
    answer = w.post("other", f"{bands}/publish")
    assert answer.status_code == 404  # the consumer cannot even see it
    answer = w.post("other", f"{asset}/subscriptions", {"target": "analytics"})
    assert answer.status_code == 409 and w.ids["subscription"] in answer.json()["error"]["message"]
    answer = w.post("contributor", f"/api/v1/catalog/subscriptions/{w.ids['subscription']}/approve")
    assert answer.status_code == 403 and "owner" in answer.json()["error"]["message"]
    answer = w.post("anonymous", "/api/v1/catalog/projects", {"id": "x", "domain": "people"})
    assert answer.status_code == 403
    answer = w.get(
        "other",
        "/api/v1/graph/lineage",
        params={"nodeId": w.ids["published_node"]},
        headers={"Headwater-Project": "producer"},
    )
    assert answer.status_code == 403 and "not a member" in answer.json()["error"]["message"]
    answer = w.post("admin", "/api/v1/catalog/projects", {"id": "Bad Id", "domain": "people"})
    assert answer.status_code == 400 and "Bad Id" in answer.json()["error"]["message"]
    answer = w.post("admin", "/api/v1/catalog/projects", {"domain": "people"})
    assert answer.status_code == 400 and "id" in answer.text


def test_counts_count_only_what_the_reader_sees(world: World) -> None:
    """Marquez's /stats count datasets and jobs as the reader's lists do: none of the inventory for others."""
    w = world
    seen = {}
    for role in ("admin", "owner", "other", "anonymous"):
        for kind, listing in (("datasets", "/api/v1/graph/datasets"), ("jobs", "/api/v1/graph/jobs")):
            stats = w.get(role, f"/api/v1/stats/{kind}", params={"period": "WEEK", "timezone": "UTC"})
            if stats.status_code == 404:  # an app without Marquez's stats
                return
            counted = w.ok(stats)[-1]["count"]
            assert counted == w.ok(w.get(role, listing, params={"limit": 1000}))["total"], (role, kind)
            seen[(role, kind)] = counted
    assert seen[("anonymous", "datasets")] < seen[("other", "datasets")] < seen[("owner", "datasets")]
    assert seen[("owner", "datasets")] == seen[("admin", "datasets")]


def test_a_rebuild_keeps_the_catalog_and_redraws_its_nodes(world: World) -> None:
    """The catalog's tables are not derived (db rebuild leaves them); the nodes it drew come back from the log."""
    w = world
    before = w.ok(w.get("owner", "/api/v1/catalog/assets"))
    replayed = w.store.rebuild()
    assert replayed > 0
    assert w.ok(w.get("owner", "/api/v1/catalog/assets")) == before
    lineage = w.ok(
        w.get(
            "other",
            "/api/v1/graph/lineage",
            params={"nodeId": w.ids["target_node"], "depth": 4, "direction": "upstream"},
        )
    )
    ids = {n["id"] for n in lineage["nodes"]}
    assert w.ids["published_node"] in ids and any(n["type"] == "RESTRICTED" for n in lineage["nodes"])
