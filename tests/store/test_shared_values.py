"""Values many events share (ingest/shared.py): what the projector notes on them changes no derived text.

The ingest door's facet cache lists the facets it keeps and the observation memo its answers; the derived parts
(store/parts.py) and the memo then take a listed value's text, part key and answer from its notes instead of
writing it again per event. These tests compare, for a daily Spark job's events accepted through the door (so
their facets are the shared objects), the packed observation texts and parts with those of the same events
parsed again from their text (no value listed, a fresh memo): they must be the same, byte for byte. And the
listing follows its owners: a facet the cache drops, a cache or memo that goes, is no longer listed.
"""

from __future__ import annotations

import gc
import json
import sys
from pathlib import Path

from headwater.ingest import Policy, accept
from headwater.ingest.decode import FacetCache
from headwater.ingest.shared import listed, notes, share
from headwater.spec import EventValidator
from headwater.store.canonical import event_id
from headwater.store.observe import ObserveMemo, observe
from headwater.store.parts import pack_observation

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from spark_events import Pipeline


def _packed(payloads: list[dict[str, object]], memo: ObserveMemo) -> tuple[list[str], dict[str, str]]:
    found: dict[str, str] = {}
    texts = [pack_observation(o.data, found) for p in payloads for o in observe(p, event_id(p), memo)]
    return texts, found


def test_shared_facets_give_the_same_observation_texts_and_parts() -> None:
    events = Pipeline("shared", jobs=3).events(36)  # 3 jobs run 6 times each: START and COMPLETE repeat facets
    body = json.dumps(events)
    validator = EventValidator()
    accepted = [e.payload for e in accept(body, Policy(), validator, batch=True)]
    assert all(e.decoded is not None for e in accept(body, Policy(), validator, batch=True))  # the fast path's
    schema = accepted[-1]["outputs"][0]["facets"]["schema"]
    assert notes(schema) is not None  # the door's facet, listed
    again = [json.loads(json.dumps(e)) for e in events]  # equal values, none of them listed
    assert notes(again[-1]["outputs"][0]["facets"]["schema"]) is None

    memo = ObserveMemo()
    first = _packed(accepted, memo)
    second = _packed(accepted, memo)  # the notes are set now: the texts come from them
    plain = _packed(again, ObserveMemo())
    assert first == plain
    assert second == plain
    fields = notes(schema)["observe:fields"]  # type: ignore[index]  # the memo's answer, noted on the facet
    assert "part" in notes(fields)  # type: ignore[operator]  # and its text and part key noted on it
    assert memo.hits > 0


def test_the_listing_follows_its_owners() -> None:
    gc.collect()  # owners left by earlier tests go now, not in the middle of this count
    before = listed()
    cache = FacetCache(max_facets=2)
    facets = [cache.facet(json.dumps({"_producer": "p", "n": i}).encode()) for i in range(3)]
    assert all(f is not None for f in facets)
    values = [f.value for f in facets if f is not None]
    assert notes(values[0]) is None  # dropped by the cache (at most 2 kept): no longer listed
    assert notes(values[1]) is not None and notes(values[2]) is not None
    assert notes(dict(values[2])) is None  # an equal copy is another object
    assert listed() == before + 2
    del cache, facets
    gc.collect()
    assert notes(values[1]) is None and notes(values[2]) is None
    assert listed() == before

    memo = ObserveMemo(size=1)
    field_lists = [{"fields": [{"name": f"c{i}", "type": "string"}]} for i in range(2)]
    answers = [memo.get("fields", s["fields"], lambda v: [dict(f) for f in v]) for s in field_lists]  # type: ignore[union-attr]
    assert notes(answers[0]) is None and notes(answers[1]) is not None  # size 1: the first answer dropped
    del memo
    gc.collect()
    assert notes(answers[1]) is None
    assert share(None) == {} and notes(None) is None  # only dicts and lists are listed
