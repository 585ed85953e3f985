"""``canonical_bytes`` (orjson where provably identical) must give exactly the RFC 8785 form that
``jcs_bytes`` (the ``rfc8785`` library, big integers in full) gives: ids depend on it.

A seeded generator builds many odd values (escapes, control characters, DEL, non-ASCII and
astral text, lone surrogates, keys that sort differently by bytes and by UTF-16 units, floats of
every shape, NaN, integers around 2^53 and 64 bits, subclasses, non-string keys, tuples, deep
nesting); for each, both functions must answer the same bytes or refuse with the same exception
type. The RFC's own examples and frozen ids are written by hand below.
"""

from __future__ import annotations

import enum
import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest

from fixtures.stories.load import story
from headwater.store.canonical import (
    NotCanonical,
    canonical_bytes,
    canonical_json,
    content_hash,
    decoded_event_id,
    event_id,
    jcs_bytes,
    version_id,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from spark_events import Pipeline

_ODD_CHARS = [
    "a",
    "Z",
    "0",
    "9",
    " ",
    '"',
    "\\",
    "/",
    "\n",
    "\r",
    "\t",
    "\b",
    "\f",
    "\x00",
    "\x01",
    "\x1f",
    "\x7f",
    "\x80",
    "\xe9",
    "\u00ff",
    "\u0100",
    "\u2028",
    "\u2029",
    "\ud7ff",
    "\ue000",
    "\ufeff",
    "\uffff",
    "\U0001f600",
    "\U00010000",
    "\ud800",
    "\udfff",
    ":",
    ",",
    "[",
    "]",
    "{",
    "}",
    ".",
    "e",
    "E",
    "-",
    "+",
    "null",
    ":1.5,",
    "1e5",
    "0.5]",
    "true",
]
_FLOATS = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    1e16,
    1e15,
    1e-5,
    1e-4,
    123456789.125,
    1.5e300,
    5e-324,
    2.0**53,
    0.1 + 0.2,
    float("nan"),
    float("inf"),
    float("-inf"),
]
_INTS = [
    0,
    1,
    -1,
    7,
    2**31,
    2**53 - 1,
    2**53,
    -(2**53) + 1,
    -(2**53),
    2**53 + 1,
    10**15,
    10**16,
    2**63 - 1,
    2**63,
    2**64 - 1,
    2**64,
    -(2**63),
    -(2**63) - 1,
    10**19,
    10**20,
    10**30,
]


class _Str(str):
    pass


class _Int(int):
    pass


class _Dict(dict):  # type: ignore[type-arg]
    pass


class _Color(enum.IntEnum):
    RED = 1


def _text(rng: random.Random, odd: bool) -> str:
    if not odd:
        return "".join(rng.choice("abcxyz_0189.:/-") for _ in range(rng.randrange(0, 12)))
    return "".join(rng.choice(_ODD_CHARS) for _ in range(rng.randrange(0, 6)))


def _scalar(rng: random.Random, odd: float) -> Any:
    roll = rng.random()
    if roll < 0.35:
        return _text(rng, rng.random() < odd)
    if roll < 0.55:
        return rng.choice(_INTS) if rng.random() < odd else rng.randrange(-1000, 10**9)
    if roll < 0.65 and rng.random() < odd:
        return rng.choice(_FLOATS) if rng.random() < 0.5 else rng.uniform(-1e6, 1e6)
    if roll < 0.75:
        return rng.choice([True, False])
    if roll < 0.8 and rng.random() < odd:
        return None
    if roll < 0.83 and rng.random() < odd:
        return rng.choice([_Str("sub"), _Int(3), _Color.RED])
    return _text(rng, False)


def _key(rng: random.Random, odd: float) -> Any:
    if rng.random() < odd * 0.05:
        return rng.choice([1, None, True, 2.5])  # non-string keys: both refuse (or both coerce)
    return _text(rng, rng.random() < odd)


def _value(rng: random.Random, depth: int, odd: float) -> Any:
    roll = rng.random()
    if depth <= 0 or roll < 0.4:
        return _scalar(rng, odd)
    width = rng.randrange(0, 6)
    if roll < 0.7:
        pairs = {_key(rng, odd): _value(rng, depth - 1, odd) for _ in range(width)}
        return _Dict(pairs) if rng.random() < odd * 0.05 else pairs
    items = [_value(rng, depth - 1, odd) for _ in range(width)]
    return tuple(items) if rng.random() < odd * 0.1 else items


def _outcome(fn: Any, value: Any) -> tuple[str, Any]:
    try:
        return "ok", fn(value)
    except (TypeError, ValueError, UnicodeEncodeError) as exc:
        return "error", type(exc).__name__


def _same(value: Any) -> None:
    expected = _outcome(jcs_bytes, value)
    assert _outcome(canonical_bytes, value) == expected, repr(value)


@pytest.mark.parametrize("odd", [0.0, 0.05, 0.3, 1.0])
def test_same_bytes_as_the_jcs_library_on_random_values(odd: float) -> None:
    rng = random.Random(f"canonical:{odd}")
    for _ in range(3000):
        _same(_value(rng, rng.randrange(0, 6), odd))


@pytest.mark.parametrize(
    "value",
    [
        {},
        [],
        {"a": []},
        [{}],
        {"b": 1, "a": 2, "B": 3, "_": 4, "0": 5},
        {"\u00e9": 1, "z": 2, "\U0001f600": 3, "\uffff": 4},
        {"k": 1.5},
        {"k": -0.0},
        [1e16],
        [1e-5],
        {"k": float("nan")},
        [float("inf")],
        {"k": None},
        [None],
        {"k": 2**64},
        {"k": 2**64 - 1},
        {"k": -(2**63) - 1},
        {1: 2},
        {"a": 1, 1: 2},
        {None: 1},
        {True: 1},
        {"s": 'say "hi"'},
        {"s": "a\\b"},
        {"s": "\x00\x1f\x7f"},
        {"s": "\ud800"},
        {"s": "\u2028"},
        {"s": ":1.5,"},
        {"s": "x:null,"},
        [1, [2, [3, {"d": [True, False]}]]],
        (1, 2),
        {"t": (1, "x")},
        {"k": _Str("x")},
        {"k": _Int(1)},
        _Dict(a=1),
        {"k": _Color.RED},
        1.5,
        7,
        "text",
        None,
        True,
    ],
)
def test_same_bytes_on_edge_values(value: Any) -> None:
    _same(value)


def test_realistic_events_take_the_fast_path() -> None:
    import hashlib

    import orjson

    events = Pipeline("canonical").events(40) + story()
    for event in events:
        expected = jcs_bytes(event)
        assert canonical_bytes(event) == expected
        assert event_id(event) == content_hash(event) == hashlib.sha256(expected).hexdigest()
    # the Spark events hold no floats, escapes or non-ASCII: orjson's bytes are used as they are
    spark = Pipeline("canonical").events(4)
    assert all(orjson.dumps(e, option=orjson.OPT_SORT_KEYS) == canonical_bytes(e) for e in spark)


def test_nulls_take_the_fast_path_unless_a_nan_hides_among_them() -> None:
    """Derived content is full of ``None`` (a field with no type or description): orjson's bytes are
    kept once the standard library's encoder finds no NaN or infinity (orjson writes those as
    ``null`` too). Hashing a wide job's version through the JCS library cost seconds per event."""
    import orjson

    fields = [{"name": f"c{i}", "type": None, "description": None} for i in range(50)]
    value = {"fields": fields, "deleted": False}
    assert canonical_bytes(value) == orjson.dumps(value, option=orjson.OPT_SORT_KEYS) == jcs_bytes(value)
    for hidden in (float("nan"), float("inf"), float("-inf")):
        with pytest.raises(NotCanonical):
            canonical_bytes({"fields": fields, "x": [None, {"y": hidden}]})


def test_the_rfc_8785_examples() -> None:
    """RFC 8785 section 3.2.2 (values) and 3.2.3 (key order by UTF-16 code units), written out by hand."""
    value = json.loads(
        r"""{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],"""
        r""""string":"\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/","literals":[null,true,false]}"""
    )
    expected = (
        r"""{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"""
        r""""string":"€$\u000f\nA'B\"\\\\\"/"}"""
    )
    assert canonical_bytes(value) == expected.encode("utf-8")
    keys = {"\u20ac": 1, "\r": 2, "\ufb33": 3, "1": 4, "\U0001f600": 5, "\u0080": 6, "\u00f6": 7}
    order = json.loads(canonical_bytes(keys), object_pairs_hook=lambda pairs: [k for k, _ in pairs])
    assert order == ["\r", "1", "\u0080", "\u00f6", "\u20ac", "\U0001f600", "\ufb33"]  # not code-point order


def test_integers_beyond_the_safe_range_are_written_in_full() -> None:
    assert canonical_bytes({"n": [2**53 - 1, 2**53, -(2**64) - 1, 10**30]}) == (
        b'{"n":[9007199254740991,9007199254740992,-18446744073709551617,1000000000000000000000000000000]}'
    )
    assert canonical_bytes({"a": 2**60, "b": str(2**60)}) == b'{"a":1152921504606846976,"b":"1152921504606846976"}'


def test_values_without_a_canonical_form_are_refused() -> None:
    for value in ({"s": "\ud800"}, {"x": float("nan")}, [float("inf")], {1: 2}, {"t": object()}):
        with pytest.raises(NotCanonical):
            canonical_bytes(value)
    assert canonical_json({"b": 1.0, "a": "\u00e9"}) == '{"a":"\u00e9","b":1}'


def test_known_event_ids_never_change() -> None:
    """Ids of the current scheme, frozen. An event of ASCII text and integers kept the id it had before
    RFC 8785 (the same bytes); one with a float did not (``2.5`` stays ``2.5``, but ``1.0`` is now ``1``)."""
    event = {
        "eventType": "START",
        "eventTime": "2026-01-01T00:00:00Z",
        "run": {"runId": "r"},
        "job": {"namespace": "ns", "name": "j"},
        "producer": "p",
        "schemaURL": "s",
    }
    assert event_id(event) == "5f7053388228b8e9ffb7fe358c79c66221d78affc8bd2a4bdba9a82932d8346d"  # fast path
    odd = {**event, "n": [1, 2.5, None, "\u00e9"]}
    assert event_id(odd) == "e5e2b0dbbad83fb115b7120d722c4dbb73a906b745951a5dd00c86beaa018a5c"  # the library
    floats = {**event, "n": [1.0, 1e16, 1e-5]}
    assert canonical_bytes(floats).endswith(
        b'"n":[1,10000000000000000,0.00001],"producer":"p","run":{"runId":"r"},"schemaURL":"s"}'
    )


def test_ids_from_the_ingest_fast_path_are_the_same_ids() -> None:
    """The fast path's id (each distinct facet's canonical bytes computed once, put into the core's) is the id of
    the whole event, for plain facets (orjson's bytes) and odd ones (floats, escapes, non-ASCII: the library)."""
    import hashlib

    from headwater.ingest import Policy, accept_usual
    from headwater.spec import EventValidator

    validator = EventValidator()
    facet = {"_producer": "https://p.example/x", "_schemaURL": "https://s.example/F.json"}
    event = {
        "eventType": "START",
        "eventTime": "2026-01-01T00:00:00Z",
        "run": {"runId": "0f9a2b1c-0000-4000-8000-000000000001", "facets": {"z": {**facet, "n": 1}}},
        "job": {"namespace": "ns", "name": "j"},
        "producer": "https://p.example/x",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
    }
    # written by hand: keys sorted at every level, no whitespace
    by_hand = (
        b'{"eventTime":"2026-01-01T00:00:00Z","eventType":"START","job":{"name":"j","namespace":"ns"},'
        b'"producer":"https://p.example/x","run":{"facets":{"z":{"_producer":"https://p.example/x",'
        b'"_schemaURL":"https://s.example/F.json","n":1}},"runId":"0f9a2b1c-0000-4000-8000-000000000001"},'
        b'"schemaURL":"https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"}'
    )
    odd = json.loads(json.dumps(event))
    odd["run"]["facets"]["z"] = {**facet, "n": [1.0, 2.5, 1e16, "\u00e9\u20ac", 'q"\\']}
    odd["run"]["facets"]["\u00e9"] = facet  # a non-ASCII facet name: the core's part is not plain
    spark = Pipeline("ids").events(6)
    for one in [event, odd, *spark]:
        (accepted,) = accept_usual(json.dumps([one]), Policy(), validator, batch=True) or [None]
        assert accepted is not None and accepted.decoded is not None
        assert decoded_event_id(accepted.decoded) == event_id(one) == hashlib.sha256(jcs_bytes(one)).hexdigest()
    (plain,) = accept_usual(json.dumps([event]), Policy(), validator, batch=True) or [None]
    assert plain is not None and plain.decoded is not None
    assert decoded_event_id(plain.decoded) == hashlib.sha256(by_hand).hexdigest()


def test_version_ids_are_the_hash_of_the_canonical_list_of_node_time_and_content_hash() -> None:
    """A version's id: the first 40 hex digits of the SHA-256 of ``[node, time, <content hash>]`` in canonical JSON,
    written here by hand; a node id JCS escapes or writes as UTF-8 gives the JCS library's bytes."""
    content = {"b": [1, 2], "a": None}
    inner = hashlib.sha256(b'{"a":null,"b":[1,2]}').hexdigest()
    plain = b'["dataset:s3://lake:t/x",1767225600000000,"' + inner.encode() + b'"]'
    assert version_id("dataset:s3://lake:t/x", 1767225600000000, content) == hashlib.sha256(plain).hexdigest()[:40]
    for node, written in (
        ('job:ns:a"b', b'"job:ns:a\\"b"'),
        ("job:ns:\u00e9t\u00e9", '"job:ns:\u00e9t\u00e9"'.encode()),
    ):
        expected = b"[" + written + b',-5,"' + inner.encode() + b'"]'
        assert version_id(node, -5, content) == hashlib.sha256(expected).hexdigest()[:40]
