"""A search still fills its page when most matches are hidden, and the hidden set follows catalog changes at
once (it is cached per viewer, keyed by the catalog's newest change and the graph's watermark)."""

from __future__ import annotations

import uuid
from typing import Any

from headwater.catalog import Catalog
from headwater.catalog.access import ADMIN
from headwater.client import StoreClient
from headwater.graph import ANONYMOUS, GraphReader, Viewer
from headwater.ingest import Door, Policy
from headwater.spec import EventValidator
from headwater.store import Store


def _event(i: int) -> dict[str, Any]:
    return {
        "eventType": "COMPLETE",
        "eventTime": "2026-11-20T00:00:00Z",
        "producer": "https://test.test",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": str(uuid.uuid5(uuid.NAMESPACE_URL, str(i)))},
        "job": {"namespace": "etl", "name": f"load_{i}"},
        "inputs": [],
        "outputs": [{"namespace": "wh", "name": f"tbl_{i:02d}"}],
    }


def test_search_fills_its_page_and_the_hidden_set_follows_changes(store_url: str) -> None:
    store = Store.open(store_url)
    try:
        events = [_event(i) for i in range(40)]
        StoreClient(store).send(events)
        graph = GraphReader(store)
        catalog = Catalog(store, graph, Door(Policy(), EventValidator()))
        catalog.organisation.create_domain(ADMIN, "dom", "", "")
        catalog.organisation.create_project(ADMIN, "p", "dom", "", "")
        anonymous, member = graph.viewing(ANONYMOUS), graph.viewing(Viewer(projects=frozenset({"p"})))
        assert len(anonymous.search("tbl", types=["dataset"], limit=5)["results"]) == 5
        catalog.source_runs.claim_outputs(ADMIN.with_context("p"), "p", events[:36])  # 36 of 40 hidden from others
        results = anonymous.search("tbl", types=["dataset"], limit=5)["results"]
        assert [r["name"] for r in results] == ["tbl_36", "tbl_37", "tbl_38", "tbl_39"]  # all the visible ones
        assert len(member.search("tbl", types=["dataset"], limit=5)["results"]) == 5
        assert len(anonymous.hidden().datasets) == 36
        # a published asset shows its published node at once (the cache is keyed by the newest change)
        asset = catalog.assets.assets(ADMIN, project="p")[0]
        catalog.assets.publish(ADMIN.with_context("p"), asset.id)
        store.catch_up()
        published = catalog.assets.asset(ADMIN, asset.id).published_node
        assert [r["id"] for r in anonymous.search("p/tbl", types=["dataset"], limit=5)["results"]] == [published]
    finally:
        store.close()
