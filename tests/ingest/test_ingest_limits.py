"""ingest/limits.py: what an event may hold, at the exact boundaries of each limit."""

from __future__ import annotations

import json

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from ingest_events import run_event

from headwater.ingest import IngestError, parse_batch, parse_event
from headwater.ingest import limits as limits_module
from headwater.ingest.limits import (
    Limits,
    name_problems,
    structure_problems,
    text_needs_checking,
    within_structure_limits,
)
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


# --- the fast paths: jsonschema-rs for the structure limits, paths written only for problems -------------------

_TEXT = st.text(st.characters(codec="utf-8") | st.just("\x00"), max_size=12)  # around SMALL's 10 characters
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.floats() | _TEXT,
    lambda children: st.lists(children, max_size=5) | st.dictionaries(_TEXT, children, max_size=4),
    max_leaves=40,
)


@settings(max_examples=500, deadline=None)
@given(_JSON, st.booleans())
def test_the_structure_fast_path_agrees_with_the_walk(value: object, check_text: bool) -> None:
    """Depth, keys, items, finite numbers (and with ``check_text`` string and key length, NUL): the compiled
    schema accepts exactly what the walk finds nothing in; so its answer "within" never hides a problem."""
    walked = _walk(value, check_text)
    within = within_structure_limits(value, SMALL, check_text)
    if isinstance(value, (dict, list)):
        assert within == (walked == []), (value, walked)
    else:
        assert not within  # a bare value (never an event) is left to the walk


def _walk(value: object, check_text: bool) -> list[str]:
    """structure_problems without its fast path (the walk alone)."""
    original = limits_module.within_structure_limits
    limits_module.within_structure_limits = lambda *_: False  # type: ignore[assignment]
    try:
        return paths(structure_problems(value, "$", SMALL, check_text=check_text))
    finally:
        limits_module.within_structure_limits = original


def test_the_structure_fast_path_at_each_boundary() -> None:
    for value, fits in (
        ({"a": [[[1]]]}, True),  # containers at depths 0..3; 4 would be the limit of 5
        ({"a": [[[[1]]]]}, True),  # the deepest container at depth 4
        ({"a": [[[[[1]]]]]}, False),  # one at depth 5
        ({"l": [1, 2, 3]}, True),
        ({"l": [1, 2, 3, 4]}, False),
        ({"o": {"a": 1, "b": 2}}, True),
        ({"o": {"a": 1, "b": 2, "c": 3}}, False),
        ({"n": [1.0, float("inf")]}, False),
        ({"n": float("nan")}, False),
        ({"i": 10**40}, True),  # a big integer is no problem (only floats can be out of range)
    ):
        assert within_structure_limits(value, SMALL) == fits, value
    assert structure_problems({"i": 10**40}, "$", SMALL, check_text=False) == []
    assert within_structure_limits({"a": object()}, SMALL) is False  # what it cannot read: the walk decides
    # the text rules: length always; NUL only when the JSON text may hold one (an escaped \u0000)
    assert within_structure_limits({"a": "x" * 11}, SMALL, True, nul=False) is False
    assert within_structure_limits({"a": "x\x00"}, SMALL, True) is False
    assert within_structure_limits({"a": "x\x00"}, SMALL, True, nul=False) is True  # the caller's promise
    assert paths(structure_problems({"a": "x\x00"}, "$", SMALL, nul=False)) == []
    assert paths(structure_problems({"a": "x" * 11}, "$", SMALL, nul=False)) == ["$.a"]


def test_name_problems_reports_the_same_with_and_without_long_names() -> None:
    """The name check writes a path only for a name that may be too long or is empty: a long name deep in
    column lineage is still found, at its path."""
    event = run_event()
    event["outputs"] = [
        {
            "namespace": "ns",
            "name": "out",
            "facets": {
                "schema": {"fields": [{"name": "a", "fields": [{"name": "b" * 30}]}, {"name": ""}]},
                "columnLineage": {
                    "fields": {
                        "ok": {"inputFields": [{"namespace": "ns", "name": "in", "field": "x"}]},
                        "c": {"inputFields": [{"namespace": "ns", "name": "in", "field": "y" * 21}]},
                    }
                },
            },
        }
    ]
    assert [p for p in paths(name_problems(event, "$", SMALL)) if p.startswith("$.outputs")] == [
        "$.outputs[0].facets.columnLineage.fields.c.inputFields[0].field",
        "$.outputs[0].facets.schema.fields[0].fields[0].name",
        "$.outputs[0].facets.schema.fields[1].name",
    ]


# names around SMALL's boundary (max_name_bytes 20: 5 characters are never too long, 4 bytes a character at most)
# (mostly fine ones, so that one name at a boundary among fine ones is common)
_FINE = st.sampled_from(["a", "ab", "abc", "ns", "in", "é", "😀"])
_NAMES = st.one_of(
    _FINE,
    _FINE,
    _FINE,
    st.sampled_from(["", "abcde", "abcdef", "é" * 5, "é" * 6, "😀" * 2, "😀" * 3, "😀" * 5, "x" * 21]),
    st.text(alphabet="ab.é😀", max_size=8),
    st.integers(),
    st.none(),
)
_FIELDS = st.recursive(
    st.lists(st.one_of(st.fixed_dictionaries({"name": _NAMES}), st.integers()), max_size=3),
    lambda inner: st.lists(
        st.one_of(st.fixed_dictionaries({"name": _NAMES}, optional={"fields": inner}), st.text(max_size=2)),
        max_size=3,
    ),
    max_leaves=8,
)
_INPUT = st.one_of(
    st.fixed_dictionaries({}, optional={"namespace": _NAMES, "name": _NAMES, "field": _NAMES}), st.integers()
)
_LINEAGE = st.one_of(
    st.dictionaries(
        st.one_of(_FINE, _FINE, st.sampled_from(["", "abcde", "abcdef", "é" * 6, "😀" * 5, "x" * 21])),
        st.one_of(st.fixed_dictionaries({}, optional={"inputFields": st.one_of(st.lists(_INPUT, max_size=3), _NAMES)}),
                  st.integers()),
        max_size=3,
    ),
    st.lists(st.integers(), max_size=1),
)  # fmt: skip


@given(_FIELDS, _LINEAGE)
@settings(max_examples=1000, deadline=None)
# each boundary by hand (random names reach some of them rarely): an empty name, a dotted path or a pair that
# fits in characters but not in bytes, and the largest that fits
@example([{"name": ""}], {})
@example([{"name": "ab", "fields": [{"name": "😀"}]}], {})
@example([{"name": "😀😀", "fields": [{"name": "😀😀😀"}]}], {})
@example([{"name": "😀" * 5}, {"name": "😀" * 6}], {})
@example([], {"": {"inputFields": []}})
@example([], {"😀" * 5: {"inputFields": [{"namespace": "ns", "name": "in", "field": "😀" * 5}]}})
@example([], {"a": {"inputFields": [{"namespace": "ns", "name": "in", "field": ""}]}})
@example([], {"a": {"inputFields": [{"namespace": "ns", "name": "in", "field": "😀" * 6}]}})
@example([], {"a": {"inputFields": [{"namespace": "😀😀", "name": "😀😀😀", "field": "a"}]}})
@example([], {"a": {"inputFields": [{"namespace": "😀😀", "name": "😀😀", "field": "a"}]}})
@example([], {"a": {"inputFields": [{"namespace": "", "name": "in"}]}})
def test_the_name_checks_shortcuts_never_change_the_answer(fields: object, lineage: object) -> None:
    """A schema's fields and a column-lineage facet's names are first looked at in one tight pass that only says
    "nothing here" or "look closer"; the problems found are the same as the walk's over every name."""
    event = run_event()
    event["outputs"] = [
        {
            "namespace": "ns",
            "name": "out",
            "facets": {"schema": {"fields": fields}, "columnLineage": {"fields": lineage}},
        }
    ]
    found = name_problems(event, "$", SMALL)
    shortcuts = limits_module._fields_fine, limits_module._lineage_field_fine
    limits_module._fields_fine = limits_module._lineage_field_fine = lambda *a, **k: False  # type: ignore[assignment]
    try:
        walked = name_problems(event, "$", SMALL)  # every name looked at with its path
    finally:
        limits_module._fields_fine, limits_module._lineage_field_fine = shortcuts
    assert found == walked
