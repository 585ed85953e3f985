"""A stored event read again with its repeated facets recognized (``decode.read_stored``, what the projector
process reads the log with) is the value of its text, keys in the same order, or None (then it is parsed whole)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from ingest_events import facet, run_event

from headwater.ingest.decode import FacetCache, read_stored
from headwater.model.jsontext import loads_text


def same(a: Any, b: Any) -> bool:
    """Equal values with keys in the same order (what the derivation would write)."""
    return json.dumps(a) == json.dumps(b)


def test_repeated_facets_are_recognized_and_shared() -> None:
    cache = FacetCache()
    schema = facet(fields=[{"name": "id", "type": "long"}, {"name": "amount", "type": "decimal(10,2)"}])
    texts = []
    for run in ("3f1c5d8e-0000-4000-8000-000000000001", "3f1c5d8e-0000-4000-8000-000000000002"):
        event = run_event()
        event["run"] = {"runId": run, "facets": {"custom": facet(attempt=1, tags=["a", "b"], ok=True, x=None)}}
        event["outputs"][0]["facets"] = {"schema": schema}
        texts.append(json.dumps(event, separators=(",", ":")))
    first, second = (read_stored(t, cache) for t in texts)
    assert first is not None and second is not None
    assert same(first, json.loads(texts[0])) and same(second, json.loads(texts[1]))
    assert first["run"]["runId"] != second["run"]["runId"]
    # the second event's facets are the first's objects: recognized by their bytes, not parsed again
    assert second["outputs"][0]["facets"]["schema"] is first["outputs"][0]["facets"]["schema"]
    assert second["run"]["facets"]["custom"] is first["run"]["facets"]["custom"]
    assert cache.hits == 2


def test_texts_it_does_not_read_the_same_way_are_left_to_the_whole_parse() -> None:
    cache = FacetCache()
    event = run_event()
    number_in_core = json.dumps({**event, "attempt": 3})
    facet_not_an_object = json.dumps({**event, "run": {"runId": "r", "facets": {"custom": [1, 2]}}})
    long_number = json.dumps({**event, "run": {"runId": "r", "facets": {"custom": facet(n=10**20)}}})
    escaped_nul = json.dumps({**event, "producer": "a\u0000b"})
    for text in (number_in_core, facet_not_an_object, long_number, escaped_nul, "[1, 2]", '"text"'):
        assert read_stored(text, cache) is None, text


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=12,
)
containers = st.dictionaries(st.text(max_size=5), json_values, max_size=3)  # often facets, sometimes not
objects = st.dictionaries(st.text(max_size=5), st.text(max_size=8) | containers, max_size=4)
events = st.dictionaries(st.text(max_size=6), st.text(max_size=8) | objects | st.lists(objects, max_size=3), max_size=5)


@settings(max_examples=100, deadline=None)
@given(events, st.booleans())
def test_a_value_read_is_the_texts_value(event: dict[str, Any], ascii_only: bool) -> None:
    text = json.dumps(event, ensure_ascii=ascii_only)
    cache = FacetCache()
    for _ in range(2):  # the second time from the facets kept
        value = read_stored(text, cache)
        assert value is None or same(value, loads_text(text))
