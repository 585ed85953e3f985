"""ingest/limits.py: what an event may hold, at the exact boundaries of each limit."""

from __future__ import annotations

import json

import pytest
from ingest_events import run_event

from headwater.ingest import IngestError, parse_batch, parse_event
from headwater.ingest.limits import Limits, name_problems, structure_problems, text_needs_checking
from headwater.spec import EventValidator

SMALL = Limits(max_json_depth=5, max_string_length=10, max_array_length=3, max_object_keys=2, max_name_bytes=20)


def paths(problems: list) -> list[str]:  # type: ignore[type-arg]
    return [p.path for p in problems]


def test_each_structure_limit_at_its_boundary() -> None:
    assert structure_problems({"a": [[[1]]]}, "$", SMALL) == []  # depth 4 containers
    assert paths(structure_problems({"a": [[[[[1]]]]]}, "$", SMALL)) == ["$.a[0][0][0][0]"]
    assert structure_problems({"s": "x" * 10}, "$", SMALL) == []
    assert paths(structure_problems({"s": "x" * 11}, "$", SMALL)) == ["$.s"]
    assert structure_problems({"l": [1, 2, 3]}, "$", SMALL) == []
    assert paths(structure_problems({"l": [1, 2, 3, 4]}, "$", SMALL)) == ["$.l"]
    assert paths(structure_problems({"o": {"a": 1, "b": 2, "c": 3}}, "$", SMALL)) == ["$.o"]
    assert paths(structure_problems({"n": [1.0, float("inf")]}, "$", SMALL)) == ["$.n[1]"]
    assert paths(structure_problems({"t": "a\x00b", "k": {"\x00": 1}}, "$", SMALL)) == ["$.k (a key)", "$.t"]
    assert paths(structure_problems({"my key": ["\x00"]}, "$[2]", SMALL)) == ['$[2]["my key"][0]']


def test_the_text_fast_path_is_taken_only_when_no_string_can_break_a_rule() -> None:
    limits = Limits(max_string_length=100)
    assert not text_needs_checking(json.dumps({"a": "plain"}), limits)
    assert text_needs_checking(json.dumps({"a": "\x00"}), limits)  # written as \u0000
    assert text_needs_checking('{"a": "\\U0000"}', limits)
    assert text_needs_checking(json.dumps({"a": "x" * 101}), limits)
    # skipping text checks still finds depth, sizes and numbers
    assert paths(structure_problems({"a": [1.0, float("-inf")]}, "$", limits, check_text=False)) == ["$.a[1]"]


def test_names_fit_the_index_limit_in_bytes() -> None:
    event = run_event()
    event["job"]["namespace"] = "ns"
    event["job"]["name"] = "é" * 8 + "x"  # "ns:" + 17 bytes = 20

    def job_problems() -> list:  # type: ignore[type-arg]
        return [p for p in name_problems(event, "$", SMALL) if p.path.startswith("$.job.")]

    assert job_problems() == []
    event["job"]["name"] += "y"
    assert paths(job_problems()) == ["$.job.name"] and "max_name_bytes" in job_problems()[0].message
    event["job"]["name"] = ""
    assert "empty" in job_problems()[0].message


def test_parse_refuses_with_paths_and_settings(validator: EventValidator) -> None:
    event = run_event()
    event["job"]["facets"]["custom"] = {"_producer": "https://p", "_schemaURL": "https://s", "deep": [[[[[[1]]]]]]}
    with pytest.raises(IngestError) as info:
        parse_event(json.dumps(event), validator, Limits(max_json_depth=6))
    assert info.value.status == 422 and "max_json_depth" in info.value.message
    with pytest.raises(IngestError) as info:
        parse_batch(json.dumps([run_event(), event]), validator, 10, Limits(max_json_depth=6))
    assert info.value.details[0].path.startswith("$[1].job.facets.custom.deep")
    with pytest.raises(IngestError) as info:
        parse_event("[" * 5000 + "]" * 5000, validator)  # deeper than the parsers go
    assert (info.value.status, info.value.code) == (422, "invalid_event") and "max_json_depth" in info.value.message
    with pytest.raises(IngestError) as info:
        parse_event('{"a": ' * 5000 + "1" + "}" * 5000, validator)
    assert "max_json_depth" in info.value.message
