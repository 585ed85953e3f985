"""The ingest benchmark's generator (bench/spark_events.py): valid, deterministic Spark-like events
in time order that load into the graph they describe (runs, 50 columns, column lineage)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from headwater.graph import GraphReader
from headwater.model.nodeid import parse_node_id
from headwater.store import IncomingEvent, Store
from olschema import event_errors

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from spark_events import COLUMNS, Pipeline


def test_events_are_deterministic_valid_and_in_time_order() -> None:
    events = Pipeline("t", jobs=3).events(12)
    assert events == Pipeline("t", jobs=3).events(12)
    assert len(events) == 12
    assert [e["eventType"] for e in events] == ["START", "COMPLETE"] * 6
    assert [e["eventTime"] for e in events] == sorted(e["eventTime"] for e in events)
    for event in events:
        assert event_errors(event) == [], event["eventType"]
    complete = events[1]
    assert 20_000 < len(json.dumps(complete)) < 40_000  # "about 25 kB", like a Spark event of this shape
    output = complete["outputs"][0]
    assert len(output["facets"]["schema"]["fields"]) == COLUMNS
    assert len(output["facets"]["columnLineage"]["fields"]) == COLUMNS
    assert complete["run"]["facets"]["parent"]["job"]["name"] == "etl_t"


def test_events_load_into_the_graph_they_describe(store_url: str) -> None:
    events = Pipeline("g", jobs=2).events(8)  # two runs of each of two jobs
    with Store.open(store_url) as store:
        store.append([IncomingEvent(e, json.dumps(e)) for e in events])
        job = parse_node_id(f"job:spark-g:{events[0]['job']['name']}")
        runs = GraphReader(store).runs(job)
        assert runs["total"] == 2 and {r["state"] for r in runs["runs"]} == {"COMPLETE"}
        out = events[0]["outputs"][0]
        field = parse_node_id(f"datasetField:{out['namespace']}:{out['name']}:o_03")
        upstream = GraphReader(store).column_lineage(field, direction="upstream", depth=1)
        sources = {e["source"] for e in upstream["edges"] if e["target"] == field.id}
        assert sources == {
            "datasetField:s3://lake-g:raw/g/src_00_a:a_03",
            "datasetField:s3://lake-g:raw/g/src_00_b:b_10",
        }
        indirect = {
            e["source"] for e in upstream["edges"] if e["target"] == f"dataset:{out['namespace']}:{out['name']}"
        }
        assert indirect == {
            "datasetField:s3://lake-g:raw/g/src_00_a:a_03",
            "datasetField:s3://lake-g:raw/g/src_00_b:b_00",
        }
