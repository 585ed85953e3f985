"""The fast read paths give the answers of the plain ones: time formatting and field search."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from headwater.graph import GraphReader
from headwater.store import IncomingEvent, Store

PRODUCER = "https://example.com/read-paths-test"
SCHEMA_FACET = "https://openlineage.io/spec/facets/1-1-0/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet"


def _event(i: int, namespace: str, name: str, fields: list[str], day: int) -> dict[str, Any]:
    return {
        "eventType": "COMPLETE",
        "eventTime": f"2026-02-{day:02d}T10:00:{i % 60:02d}Z",
        "producer": PRODUCER,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": f"00000000-0000-4000-8000-{day:04d}{i:08d}"},
        "job": {"namespace": "search", "name": f"writer_{i}"},
        "inputs": [],
        "outputs": [
            {
                "namespace": namespace,
                "name": name,
                "facets": {
                    "schema": {
                        "_producer": PRODUCER,
                        "_schemaURL": SCHEMA_FACET,
                        "fields": [{"name": f, "type": "string"} for f in fields],
                    }
                },
            }
        ],
    }


@pytest.fixture(scope="module")
def fields_store(new_store_url: Callable[[], str]) -> Iterator[tuple[Store, list[tuple[str, str, str]]]]:
    """60 datasets over two namespaces with overlapping field names; a third later drop a field."""
    store = Store.open(new_store_url())
    events: list[dict[str, Any]] = []
    current: dict[tuple[str, str], list[str]] = {}
    for i in range(60):
        ns = "s3://a" if i % 2 else "postgres://db:5432"
        name = f"warehouse.t_{i:02d}"
        fields = ["id", f"name_{i}", f"Amount{i % 5}", "created_at", f"x{i % 3}_name"]
        events.append(_event(i, ns, name, fields, 1))
        current[(ns, name)] = fields
        if i % 3 == 0:  # schema change: name_<i> is dropped (its field row is closed)
            fields = [f for f in fields if not f.startswith("name_")]
            events.append(_event(i, ns, name, fields, 2))
            current[(ns, name)] = fields
    store.append([IncomingEvent(e, json.dumps(e)) for e in events])
    rows = [(ns, name, f) for (ns, name), fs in current.items() for f in fs]
    yield store, rows
    store.close()


def _rank(value: str, q: str) -> int:
    low = value.lower()
    if low == q:
        return 0
    if low.startswith(q):
        return 1
    base = low.rsplit("/", 1)[-1]
    return 2 if base.startswith(q) or base.rsplit(".", 1)[-1].startswith(q) else 3


@pytest.mark.parametrize(
    ("q", "namespace", "limit"),
    [
        ("name", None, 20),
        ("NAME", "s3://a", 50),
        ("amount", None, 7),
        ("id", None, 100),
        ("_1", None, 30),
        ("x1_", "postgres://db:5432", 20),
        ("name_3", None, 20),
        ("nothing", None, 20),
        ("a", "s3://a", 5),
    ],
)
def test_field_search_matches_a_scan_of_every_current_field(
    fields_store: tuple[Store, list[tuple[str, str, str]]], q: str, namespace: str | None, limit: int
) -> None:
    store, rows = fields_store
    want = sorted(
        (
            (_rank(f, q.lower()), len(f), f"datasetField:{ns}:{name}:{f}")
            for ns, name, f in rows
            if q.lower() in f.lower() and namespace in (None, ns)
        )
    )
    got = GraphReader(store).search(q, types=["field"], namespace=namespace, limit=limit)["results"]
    assert [r["id"] for r in got] == [w[2] for w in want[:limit]]
    assert all(r["type"] == "FIELD" and r["kind"] == ("file" if r["namespace"] == "s3://a" else "jdbc") for r in got)
