"""``observe`` with an :class:`ObserveMemo` gives exactly the observations it gives without one.

The memo only saves work (repeated schema fields and column-lineage facets are normalized once);
these tests compare both ways on the story fixtures, the benchmark's Spark events (which repeat
byte for byte from run to run, so the memo is hit) and odd inputs (legacy lineage, nested fields,
values orjson refuses), and check that the memo stays within its bound.
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Any

from fixtures.stories.load import story
from headwater.model.jsontext import dumps
from headwater.store.canonical import event_id
from headwater.store.observe import ObserveMemo, observe

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from spark_events import Pipeline


def _as_json(events: list[dict[str, Any]], memo: ObserveMemo | None) -> list[str]:
    return [dumps([o.__dict__ for o in observe(e, event_id(e), memo)]) for e in events]


def test_same_observations_with_and_without_the_memo() -> None:
    events = story() + Pipeline("memo", jobs=3).events(24) + Pipeline("memo2", jobs=2).events(8)
    before = copy.deepcopy(events)
    memo = ObserveMemo()
    assert _as_json(events, memo) == _as_json(events, None)
    assert _as_json(events, memo) == _as_json(events, None)  # again: answers come from the memo
    assert memo.hits > memo.misses > 0
    assert events == before  # the events are not changed


def test_odd_inputs_are_answered_exactly() -> None:
    base = Pipeline("odd", jobs=1).events(2)[1]
    variants: list[dict[str, Any]] = []
    for fields in (
        [],
        None,
        [{"name": "a", "fields": [{"name": "b", "type": "int"}]}],
        [{"name": "big", "type": 2**70}],
        [{"type": "no name"}, "not a field"],
    ):
        e = copy.deepcopy(base)
        e["outputs"][0]["facets"]["schema"]["fields"] = fields
        variants.append(e)
    legacy = copy.deepcopy(base)
    legacy["outputs"][0]["facets"]["columnLineage"] = {
        "fields": {
            "x": {
                "inputFields": [{"namespace": "s3://b", "name": "t", "field": "y"}],
                "transformationType": "IDENTITY",
                "transformationDescription": "copy",
            }
        }
    }
    not_a_map = copy.deepcopy(base)
    not_a_map["outputs"][0]["facets"]["columnLineage"] = ["not", "a", "facet"]
    variants += [legacy, not_a_map, legacy]
    memo = ObserveMemo()
    for e in variants * 2:
        assert _as_json([e], memo) == _as_json([e], None)


def test_the_memo_is_bounded() -> None:
    memo = ObserveMemo(size=3)
    for i in range(10):
        assert memo.get("k", {"i": i}, lambda v: v["i"] * 2) == i * 2
    assert len(memo) == 3
    assert memo.get("k", {"i": 9}, lambda v: -1) == 18  # still there: the most recent ones stay


def test_json_memo_parses_like_loads_text_and_is_bounded() -> None:
    from headwater.model.jsontext import loads_text
    from headwater.store.canonical import JsonMemo

    memo = JsonMemo(size=2, min_length=4)
    texts = [
        '{"a": [1, 2.5, null]}',
        '{"big": 123456789012345678901234567890}',
        "[]",
        '"\\u00e9"',
        '{"a": [1, 2.5, null]}',
    ]
    for text in texts * 2:
        assert memo.loads(text) == loads_text(text)
    assert memo.loads(None) is None
    assert len(memo) <= 2
    assert memo.loads(texts[0]) is memo.loads(texts[0])  # parsed once, then shared
