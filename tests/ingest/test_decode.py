"""The fast path (headwater.ingest.decode) gives the full path's answer, or none.

Every body here is accepted by both ways; the fast path's events must equal the full path's (payload, stored
text, kind, warnings, root) and carry their decoded parts. Refusals are the full path's by construction
(the fast path only ever declines); one test checks that a facet found valid before does not make an
invalid event pass.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ingest_events import facet, run_event

from headwater.ingest import IngestError, Policy, accept, accept_usual, decode
from headwater.ingest.decode import FacetCache, cache_for, fast_accept
from headwater.ingest.limits import Limits
from headwater.ingest.parse import parse_batch, parse_event
from headwater.spec import EventValidator, schema_dir
from headwater.spec.facets import BASE_TO_SLOT

SCHEMA_URL = "https://openlineage.io/spec/facets/1-1-0/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet"
POLICY = Policy()


def _schema(*names: str) -> dict[str, Any]:
    return {**facet(), "_schemaURL": SCHEMA_URL, "fields": [{"name": n, "type": "string"} for n in names]}


def _event(run_id: str, **facets: Any) -> dict[str, Any]:
    event = run_event()
    event["run"] = {"runId": run_id, "facets": {"custom": facet(**facets)}}
    event["outputs"][0]["facets"] = {"schema": _schema("id", "name")}
    return event


RUN_A = "0f9a2b1c-0000-4000-8000-000000000001"
RUN_B = "0f9a2b1c-0000-4000-8000-000000000002"


def _both(text: str, validator: EventValidator, *, batch: bool, declined: set[int] = frozenset()) -> None:  # type: ignore[assignment]
    """Both ways accept ``text`` alike; the fast path takes every event but those of ``declined``."""
    fast = accept_usual(text, POLICY, validator, batch=batch)
    assert fast is not None, "the fast path must take this body"
    if batch:
        full = parse_batch(text, validator, POLICY.max_events, POLICY.limits, lenient=True)
    else:
        full = [parse_event(text, validator, POLICY.limits, lenient=True)]
    assert [(e.payload, e.raw, e.kind, e.warnings, e.root) for e in fast] == [
        (e.payload, e.raw, e.kind, e.warnings, e.root) for e in full
    ]
    assert [i for i, e in enumerate(fast) if e.decoded is None] == sorted(declined)
    assert all(e.decoded is None for e in full)


@pytest.mark.parametrize(
    "dump",
    [
        lambda v: json.dumps(v, separators=(",", ":")),  # compact, non-ASCII escaped
        lambda v: json.dumps(v),  # Headwater's client: spaces after , and :
        lambda v: json.dumps(v, indent=2, ensure_ascii=False),  # pretty, UTF-8
    ],
    ids=["compact", "client", "pretty"],
)
def test_the_fast_path_answers_as_the_full_path(validator: EventValidator, dump: Any) -> None:
    odd = {"float": 2.50, "big": 1e16, "neg": -0.0, "text": 'caf\u00e9 \u20ac "q" \\ \n\t/\x01', "n": None}
    events = [_event(RUN_A, **odd), _event(RUN_B, **odd), _event(RUN_A, other=[1, 2, {"x": True}])]
    events[2]["eventType"] = "START"
    _both(dump(events), validator, batch=True)
    _both(dump({"events": events}), validator, batch=True)
    _both(dump(events[0]), validator, batch=False)
    # a character beyond the BMP sent as an escaped surrogate pair: the full path reads it
    pair = dump(_event(RUN_A, text="\U0001f600"))
    if "\\ud83d" in pair:
        assert accept_usual(pair, POLICY, validator, batch=False) is None
        assert (
            accept(pair, POLICY, validator, batch=False)[0].payload["run"]["facets"]["custom"]["text"] == "\U0001f600"
        )
    else:
        _both(pair, validator, batch=False)


def test_a_batch_mixes_both_ways_event_by_event(validator: EventValidator) -> None:
    """Events the fast path does not take (a JobEvent, an extra key, a warning) are checked one by one the full
    way, with their paths in the batch; the others keep the fast path."""
    job_event = {k: v for k, v in _event(RUN_A).items() if k not in ("run", "eventType")}
    extra = {**_event(RUN_A), "x-custom": 1}
    warned = _event(RUN_B)
    del warned["outputs"][0]["facets"]["schema"]["_schemaURL"]
    events = [_event(RUN_A), job_event, extra, warned, _event(RUN_B)]
    _both(json.dumps(events), validator, batch=True, declined={1, 2, 3})
    (answer,) = [e for e in accept(json.dumps({"events": events}), POLICY, validator, batch=True) if e.warnings]
    assert [w.path for w in answer.warnings] == ["$.events[3].outputs[0].facets.schema._schemaURL"]


def test_duplicate_keys_are_read_as_the_full_path_reads_them(validator: EventValidator) -> None:
    one = json.dumps(_event(RUN_A))
    twice = one[:-1] + ', "eventType": "START", "producer": "https://example.com/second"}'
    _both(f"[{twice}]", validator, batch=True)
    (event,) = accept(f"[{twice}]", POLICY, validator, batch=True)
    assert event.payload["eventType"] == "START" and event.payload["producer"] == "https://example.com/second"


def test_each_distinct_facet_is_decoded_and_validated_once(validator: EventValidator) -> None:
    cache = FacetCache()
    events = [_event(RUN_A, x=1), _event(RUN_B, x=1), _event(RUN_B, x=2)]
    text = json.dumps(events)
    accepted = fast_accept(text, validator, Limits(), 100, cache, batch=True)
    assert accepted is not None
    # distinct facets: the schema (in all three), custom x=1 (two), custom x=2 (one)
    assert (cache.misses, cache.hits, len(cache)) == (3, 3, 3)
    schema_of = [e.payload["outputs"][0]["facets"]["schema"] for e in accepted]
    assert schema_of[0] is schema_of[1] is schema_of[2]  # one value, shared


def test_a_facet_seen_valid_in_one_place_is_checked_again_in_another(validator: EventValidator) -> None:
    """The same facet bytes: valid as a job facet (``parent`` is a custom facet there: only its BaseFacet keys
    are checked), invalid as a run facet (the official ParentRunFacet requires ``run`` and ``job``)."""
    cache = FacetCache()
    container = {"parent": facet(x=1)}
    first = _event(RUN_A)
    first["job"]["facets"] = container
    accepted = fast_accept(json.dumps([first, first]), validator, Limits(), 100, cache, batch=True)
    assert accepted is not None and all(not isinstance(e, str) for e in accepted)
    second = _event(RUN_B)
    second["run"]["facets"] = container
    text = json.dumps([second])
    assert fast_accept(text, validator, Limits(), 100, cache, batch=True) in (None, [text[1:-1]])
    with pytest.raises(IngestError) as refused:
        accept(text, POLICY, validator, batch=True)
    assert "run.facets.parent" in str(refused.value)


def test_a_facet_seen_valid_before_does_not_make_an_invalid_event_pass(validator: EventValidator) -> None:
    good = _event(RUN_A)
    accept(json.dumps([good]), POLICY, validator, batch=True)
    bad = _event(RUN_B)
    bad["outputs"][0]["facets"]["schema"] = {**_schema("id"), "fields": "not a list"}
    bad_run = _event("not-a-uuid")
    for body in ([good, bad], [good, bad_run]):
        text = json.dumps(body)
        assert accept_usual(text, POLICY, validator, batch=True) is None
        with pytest.raises(IngestError) as fast_way:
            accept(text, POLICY, validator, batch=True)
        with pytest.raises(IngestError) as full_way:
            parse_batch(text, validator, POLICY.max_events, POLICY.limits, lenient=True)
        assert (fast_way.value.status, fast_way.value.message, fast_way.value.details) == (
            full_way.value.status,
            full_way.value.message,
            full_way.value.details,
        )
    assert "$[1].outputs[0].facets.schema.fields" in str(
        pytest.raises(IngestError, accept, json.dumps([good, bad]), POLICY, validator, batch=True).value
    )


def test_the_core_schema_asks_each_facet_only_its_slot_s_base_definition() -> None:
    """The fast path checks each distinct facet's BaseFacet keys once, against its slot's ``<Slot>Facet``
    definition, and the core with its facet containers emptied: the same verdict as the whole core only while
    every container of the core schema is an object whose every value is that definition."""
    core = json.loads((schema_dir() / "OpenLineage.json").read_text())["$defs"]

    def container(definition: dict[str, Any], key: str) -> Any:
        return definition["properties"][key]["anyOf"]

    def each_value_is(base: str) -> list[dict[str, Any]]:
        return [{"type": "object", "additionalProperties": {"$ref": f"#/$defs/{base}"}}]

    assert container(core["Run"], "facets") == each_value_is("RunFacet")
    assert container(core["Job"], "facets") == each_value_is("JobFacet")
    assert container(core["Dataset"], "facets") == each_value_is("DatasetFacet")
    assert container(core["InputDataset"]["allOf"][1], "inputFacets") == each_value_is("InputDatasetFacet")
    assert container(core["OutputDataset"]["allOf"][1], "outputFacets") == each_value_is("OutputDatasetFacet")
    for base in BASE_TO_SLOT:  # a facet's other keys are its own schema's (or nobody's: a custom facet)
        assert all("additionalProperties" not in part for part in core[base].get("allOf", [core[base]]))


def test_a_facet_s_base_keys_are_checked_where_it_sits(validator: EventValidator) -> None:
    """The same facet bytes: valid as a run facet (RunFacet says nothing of ``_deleted``), not as a job facet
    (JobFacet's ``_deleted`` is a boolean); a custom facet whose ``_producer`` is not a URI; a container with more
    facets than ``max_object_keys``. The fast path declines each; the full path's answer stands."""
    odd = facet(_deleted="yes")
    at_run = _event(RUN_A)
    at_run["run"]["facets"]["custom"] = odd
    _both(json.dumps([at_run]), validator, batch=True)
    at_job = _event(RUN_B)
    at_job["job"]["facets"] = {"custom": odd}
    bad_uri = _event(RUN_B)
    bad_uri["run"]["facets"]["custom"] = {**facet(), "_producer": "not a uri"}
    crowded = _event(RUN_B)
    crowded["run"]["facets"] = {f"f{i}": facet() for i in range(9)}  # the event itself has 8 keys
    for event, policy, said in (
        (at_job, POLICY, "$[1].job.facets.custom._deleted"),  # a facet's problem: a warning (lenient)
        (bad_uri, POLICY, "$[1].run.facets.custom._producer"),
        (crowded, Policy(limits=Limits(max_object_keys=8)), "max_object_keys"),  # a limit: refused
    ):
        text = json.dumps([at_run, event])
        assert accept_usual(text, policy, validator, batch=True, mixed=False) is None
        answer = _outcome(accept, text, policy, validator, batch=True)
        full = _outcome(parse_batch, text, validator, policy.max_events, policy.limits, lenient=policy.lenient)
        assert answer == full and said in json.dumps(answer)


def _outcome(call: Any, *args: Any, **kwargs: Any) -> Any:
    """An ingest answer as plain values: the events (payload, stored text, warnings) or the refusal."""
    try:
        return [(e.payload, e.raw, [w.as_dict() for w in e.warnings]) for e in call(*args, **kwargs)]
    except IngestError as exc:
        return [exc.status, exc.message, [d.as_dict() for d in exc.details]]


def test_a_cache_whose_facets_do_not_repeat_leaves_bodies_to_the_full_path(validator: EventValidator) -> None:
    """Events that share nothing cost more facet by facet than whole: after enough misses the fast path takes one
    body in SAMPLE, and takes them all again once facets repeat."""
    cache = FacetCache()
    answers = []
    for i in range(300):  # 2 new facets per body: 600 misses
        event = _event(RUN_A, body=i)
        event["outputs"][0]["facets"]["schema"] = _schema(f"c{i}")
        body = json.dumps([event])
        answers.append(fast_accept(body, validator, Limits(), 100, cache, batch=True) is not None)
    assert all(answers[:128])  # 256 lookups before the rate is judged
    assert 0 < sum(answers[200:]) <= 100 // FacetCache.SAMPLE + 1
    repeated = json.dumps([_event(RUN_A, body=0)])  # seen before: hits from now on
    taken = [fast_accept(repeated, validator, Limits(), 100, cache, batch=True) is not None for _ in range(400)]
    assert all(taken[-100:])


def test_limits_hold_inside_a_cached_facet_at_its_depth(validator: EventValidator) -> None:
    """A facet within the depth limit at the run (depth 3) is not within it at an output (depth 4)."""
    limits = Limits(max_json_depth=7)  # containers at depth 0-6 (a schema field of an output is at 6)
    nested = {"a": {"b": {}}}  # under a run facet (depth 3): containers at 4, 5, 6; under an output's: 5, 6, 7
    at_run = _event(RUN_A, deep=nested)
    policy = Policy(limits=limits)
    _both_with = accept_usual(json.dumps([at_run]), policy, validator, batch=True)
    assert _both_with is not None
    assert [e.payload for e in _both_with] == [
        e.payload for e in accept(json.dumps([at_run]), policy, validator, batch=True)
    ]
    at_output = _event(RUN_A)
    at_output["outputs"][0]["facets"]["custom"] = facet(deep=nested)
    text = json.dumps([at_output])
    assert accept_usual(text, policy, validator, batch=True) is None
    with pytest.raises(IngestError, match="max_json_depth"):
        accept(text, policy, validator, batch=True)


_text = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=12)
_json_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    _text,
)
_json = st.recursive(
    _json_leaf,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_text, inner, max_size=4),
    max_leaves=12,
)


OWN_VALIDATOR = EventValidator()  # its own facet cache: random facets never repeat, which makes a cache cold


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    contents=st.lists(
        st.dictionaries(st.sampled_from(["a", "b", "\u00e9", "k"]), _json, max_size=3), min_size=1, max_size=4
    ),
    ascii_only=st.booleans(),
    spaced=st.booleans(),
)
def test_any_facet_content_gets_the_same_answer_both_ways(
    contents: list[dict[str, Any]], ascii_only: bool, spaced: bool
) -> None:
    validator = OWN_VALIDATOR
    cache_for(validator)._lookups = 0  # warm: every example takes the fast path (the cold rule is tested below)
    events = [_event(RUN_A if i % 2 else RUN_B, **c) for i, c in enumerate(contents)]
    text = json.dumps(events, ensure_ascii=ascii_only, separators=(", ", ": ") if spaced else (",", ":"))
    if any(len(run) >= 20 for run in "".join(c if c.isdigit() else " " for c in text).split()):
        return  # 20 digits in a row: the full path's parser reads such numbers; the fast path declines
    # an event with an escaped surrogate pair is checked the full way, the others the fast way
    items = [json.dumps(e, ensure_ascii=ascii_only) for e in events]
    _both(text, validator, batch=True, declined={i for i, t in enumerate(items) if re.search(r"\\u[dD][89a-fA-F]", t)})


def test_facets_of_one_hash_are_told_apart_by_their_bytes(
    validator: EventValidator, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cache finds a facet by a hash of its bytes and compares the bytes: with every facet given the same
    hash (as a crafted collision would), each event still gets its own facets, and a facet that collides with
    one that passed is checked itself."""
    monkeypatch.setattr(decode, "_hash", lambda _: 0)
    cache = FacetCache()
    events = [_event(RUN_A, x=1), _event(RUN_B, x=2), _event(RUN_A, x=1)]
    accepted = fast_accept(json.dumps(events), validator, Limits(), 100, cache, batch=True)
    assert accepted is not None and all(not isinstance(e, str) for e in accepted)
    assert [e.payload["run"]["facets"]["custom"]["x"] for e in accepted] == [1, 2, 1]  # type: ignore[union-attr]
    # one place for all: each facet (custom, then schema, in every event) pushed out the one before it
    assert (cache.hits, cache.misses, len(cache)) == (0, 6, 1)

    only_schema = _event(RUN_A)
    only_schema["run"]["facets"] = {}
    assert fast_accept(json.dumps([only_schema]), validator, Limits(), 100, cache, batch=True) is not None
    bad = _event(RUN_B)
    bad["run"]["facets"] = {}
    bad["outputs"][0]["facets"]["schema"]["fields"] = "not a list"  # same hash as the valid schema kept now
    text = json.dumps([bad])
    assert fast_accept(text, validator, Limits(), 100, cache, batch=True) in (None, [text[1:-1]])
    answer = _outcome(accept, text, POLICY, validator, batch=True)
    full = _outcome(parse_batch, text, validator, POLICY.max_events, POLICY.limits, lenient=True)
    assert answer == full and "$[0].outputs[0].facets.schema.fields" in json.dumps(answer)


def test_a_facet_name_longer_than_a_string_may_be_leaves_the_fast_path(validator: EventValidator) -> None:
    """A container's keys are checked against ``max_string_length`` as every other string (here the run facet's
    name, 80 characters against 70): the fast path declines, the full path refuses and names the key."""
    policy = Policy(limits=Limits(max_string_length=70))
    event = _event(RUN_A)
    event["run"]["facets"] = {"f" * 80: facet()}
    event["outputs"][0]["facets"] = {}  # the schema facet's _schemaURL is longer than 70 characters
    text = json.dumps([event])
    assert accept_usual(text, policy, validator, batch=True, mixed=False) is None
    answer = _outcome(accept, text, policy, validator, batch=True)
    assert answer == _outcome(parse_batch, text, validator, policy.max_events, policy.limits, lenient=True)
    assert answer[0] == 422 and [d["path"] for d in answer[2]] == ["$[0].run.facets (a key)"]
