"""The one builder of the events Headwater's own producers write (headwater.model.openlineage)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from importlib import resources

import pytest

from headwater import __version__
from headwater.model import openlineage as ol


def test_every_facet_schema_url_is_a_schema_the_server_validates_with() -> None:
    folder = resources.files("headwater.spec") / "schemas" / "facets"
    ids = {json.loads(f.read_text())["$id"] for f in folder.iterdir() if f.name.endswith(".json")}
    for name, url in ol.FACET_SCHEMAS.items():
        document, _, anchor = url.partition("#")
        assert document in ids, f"{name}: {document} is not among the bundled schemas"
        assert anchor == "/$defs/" + document.rsplit("/", 1)[1].removesuffix(".json"), name


def test_producer_and_docs_are_versioned() -> None:
    assert ol.producer("sql") == f"https://github.com/headwater-lineage/headwater/tree/{__version__}/src/headwater/sql"
    assert ol.docs_url("producers.md#spline") == (
        f"https://github.com/headwater-lineage/headwater/blob/{__version__}/docs/producers.md#spline"
    )


def test_facet_names_its_schema_or_refuses() -> None:
    assert ol.facet("https://p", "sql", query="select 1") == {
        "_producer": "https://p",
        "_schemaURL": "https://openlineage.io/spec/facets/1-1-0/SQLJobFacet.json#/$defs/SQLJobFacet",
        "query": "select 1",
    }
    assert (
        ol.facet("https://p", "run")["_schemaURL"]
        == "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunFacet"
    )
    assert ol.facet("https://p", "https://x/doc#f")["_schemaURL"] == "https://x/doc#f"
    with pytest.raises(KeyError, match="no schema URL for facet 'nominalTime'"):
        ol.facet("https://p", "nominalTime")


def test_event_times_have_one_form() -> None:
    assert ol.event_time(datetime(2026, 11, 22, 5, 10, 10, tzinfo=UTC)) == "2026-11-22T05:10:10.000000Z"
    assert ol.event_time(datetime(2026, 11, 22, 5, 10, 10, 123000)) == "2026-11-22T05:10:10.123000Z"  # naive: UTC
    plus_two = timezone(timedelta(hours=2))
    assert ol.event_time(datetime(2026, 11, 22, 7, 10, 10, 5, tzinfo=plus_two)) == "2026-11-22T05:10:10.000005Z"


def test_batch_body_refuses_nothing_silently() -> None:
    assert ol.batch_body([{"v": float("inf")}]) == '[{"v":Infinity}]'  # the server answers 400 invalid_json
    # compact, non-ASCII as it is (each event is stored as its text in the batch); a lone surrogate, which has no
    # UTF-8 form, escaped (the server refuses it naming the surrogate)
    assert ol.batch_body([{"n": "café", "m": 1}]) == '[{"n":"café","m":1}]'
    assert ol.batch_body([{"n": "é\ud800"}]) == '[{"n":"\\u00e9\\ud800"}]'
