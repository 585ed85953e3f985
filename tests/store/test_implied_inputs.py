"""Datasets named only inside another output's columnLineage ``inputFields`` (dbt-ol seeds).

They become nodes with the columns seen, inputs of the run that read them (so lineage and impact go
through them), found by search; a real schema reported later replaces the seen columns, and a rebuild
derives the same graph.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from fixtures.stories.load import derived_state
from headwater.graph import GraphReader
from headwater.model.nodeid import parse_node_id
from headwater.store import IncomingEvent, Store

NS = "postgres://warehouse:5432"
SEED = f"dataset:{NS}:analytics.public.country_codes"
MODEL = f"dataset:{NS}:analytics.public.customers_enriched"
RAW = f"dataset:{NS}:analytics.public.raw_customers"
JOB = "job:dbt:analytics.customers_enriched"
PRODUCER = "https://github.com/OpenLineage/OpenLineage/tree/1.30.0/integration/dbt"
LINEAGE_URL = "https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json#/$defs/ColumnLineageDatasetFacet"
SCHEMA_URL = "https://openlineage.io/spec/facets/1-1-1/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet"


def _field(dataset: str, field: str, subtype: str = "IDENTITY") -> dict[str, Any]:
    ref = parse_node_id(dataset)
    return {
        "namespace": ref.namespace,
        "name": ref.name,
        "field": field,
        "transformations": [{"type": "DIRECT", "subtype": subtype}],
    }


def _dbt_run(time: str) -> dict[str, Any]:
    """A model built from raw_customers and the seed country_codes; the seed is named only in inputFields."""
    return {
        "eventType": "COMPLETE",
        "eventTime": time,
        "producer": PRODUCER,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": str(uuid.uuid5(uuid.NAMESPACE_URL, time))},
        "job": {"namespace": "dbt", "name": "analytics.customers_enriched"},
        "inputs": [{"namespace": NS, "name": "analytics.public.raw_customers"}],
        "outputs": [
            {
                "namespace": NS,
                "name": "analytics.public.customers_enriched",
                "facets": {
                    "columnLineage": {
                        "_producer": PRODUCER,
                        "_schemaURL": LINEAGE_URL,
                        "fields": {
                            "id": {"inputFields": [_field(RAW, "id")]},
                            "country": {
                                "inputFields": [_field(SEED, "name", "TRANSFORMATION"), _field(RAW, "country_code")]
                            },
                            "region": {"inputFields": [_field(SEED, "region")]},
                        },
                    }
                },
            }
        ],
    }


def _seed_event(time: str) -> dict[str, Any]:
    """The seed reported with its real schema (a dbt seed run, say)."""
    return {
        "eventType": "COMPLETE",
        "eventTime": time,
        "producer": PRODUCER,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": str(uuid.uuid5(uuid.NAMESPACE_URL, "seed" + time))},
        "job": {"namespace": "dbt", "name": "analytics.country_codes"},
        "outputs": [
            {
                "namespace": NS,
                "name": "analytics.public.country_codes",
                "facets": {
                    "schema": {
                        "_producer": PRODUCER,
                        "_schemaURL": SCHEMA_URL,
                        "fields": [
                            {"name": "code", "type": "text"},
                            {"name": "name", "type": "text"},
                            {"name": "region", "type": "text"},
                        ],
                    }
                },
            }
        ],
    }


def _append(store: Store, *events: dict[str, Any]) -> None:
    store.append([IncomingEvent(e, json.dumps(e)) for e in events])


def test_a_dataset_named_only_in_column_lineage_is_a_node_with_its_columns(store_url: str) -> None:
    with Store.open(store_url) as store:
        _append(store, _dbt_run("2026-11-01T10:00:00Z"))
        graph = GraphReader(store)
        seed = graph.node(parse_node_id(SEED))
        assert [f["name"] for f in seed["fields"]] == ["name", "region"] and seed["consumers"] == [JOB]
        assert [r["id"] for r in graph.search("country_codes", types=["dataset"])["results"]] == [SEED]
        upstream = graph.lineage(parse_node_id(MODEL), direction="upstream", depth=2)
        assert {(e["source"], e["target"]) for e in upstream["edges"]} == {(SEED, JOB), (RAW, JOB), (JOB, MODEL)}
        impacted = {i["id"] for i in graph.impact(parse_node_id(SEED))["items"]}
        assert {JOB, MODEL} <= impacted
        before = derived_state(store)
        store.rebuild()
        assert derived_state(store) == before


def test_a_real_schema_replaces_the_seen_columns(store_url: str) -> None:
    with Store.open(store_url) as store:
        _append(
            store,
            _dbt_run("2026-11-01T10:00:00Z"),
            _seed_event("2026-11-02T10:00:00Z"),
            _dbt_run("2026-11-03T10:00:00Z"),
        )
        graph = GraphReader(store)
        assert [f["name"] for f in graph.node(parse_node_id(SEED))["fields"]] == ["code", "name", "region"]
        history = graph.history(parse_node_id(SEED))["versions"]
        assert len(history) == 2  # seen columns, then the real schema; the later run's columns are in it already
