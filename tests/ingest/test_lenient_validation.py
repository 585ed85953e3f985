"""Lenient validation: the core stays strict, the rest becomes warnings.

Marquez's own test events (tests/fixtures/marquez/events, Apache-2.0, from Marquez's repository) are
accepted as Marquez accepts them; strictly, the five that do not match the OpenLineage schema are refused.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from ingest_events import facet, run_event

from headwater.ingest import IngestError, parse_batch, parse_event
from headwater.spec import EventValidator
from headwater.spec.validator import is_lenient

MARQUEZ_EVENTS = Path(__file__).resolve().parent.parent / "fixtures" / "marquez" / "events"
# The events of Marquez's suite that the OpenLineage schema refuses, and the one problem of each
OFF_SCHEMA = {
    "listener_1.json": "$.schemaURL",
    "listener_2.json": "$.schemaURL",
    "event_without_schema_url.json": "$.schemaURL",
    "event_required_no_timezone.json": "$.eventTime",
    "event_full.json": "$.inputs[0].inputFacets.dataQualityMetrics.columnMetrics",
}


def marquez_files() -> list[Path]:
    files = sorted(MARQUEZ_EVENTS.glob("*.json"))
    assert len(files) >= 14
    return files


@pytest.mark.parametrize("path", marquez_files(), ids=lambda p: p.name)
def test_every_marquez_test_event_is_accepted_leniently(validator: EventValidator, path: Path) -> None:
    text = path.read_text()
    parsed = parse_event(text, validator, lenient=True)
    assert parsed.raw == text  # stored as sent
    expected = OFF_SCHEMA.get(path.name)
    assert [w.path for w in parsed.warnings] == ([expected] if expected else [])


@pytest.mark.parametrize("name", sorted(OFF_SCHEMA))
def test_strict_mode_refuses_the_off_schema_ones(validator: EventValidator, name: str) -> None:
    with pytest.raises(IngestError) as caught:
        parse_event((MARQUEZ_EVENTS / name).read_text(), validator)
    assert caught.value.status == 422
    assert [p.path for p in caught.value.details] == [OFF_SCHEMA[name]]


def _mutated(change: Any) -> str:
    event = run_event()
    change(event)
    return json.dumps(event)


CORE_MISTAKES = [
    ("eventType", lambda e: e.update(eventType="FINISHED"), "$.eventType"),
    ("runId", lambda e: e["run"].update(runId="not-a-uuid"), "$.run.runId"),
    ("no runId", lambda e: e["run"].pop("runId"), "$.run.runId"),
    ("job name", lambda e: e["job"].pop("name"), "$.job.name"),
    ("job namespace type", lambda e: e["job"].update(namespace=5), "$.job.namespace"),
    ("input name", lambda e: e["inputs"][0].pop("name"), "$.inputs[0].name"),
    ("output namespace", lambda e: e["outputs"][0].pop("namespace"), "$.outputs[0].namespace"),
    ("unreadable eventTime", lambda e: e.update(eventTime="yesterday"), "$.eventTime"),
    ("no eventTime", lambda e: e.pop("eventTime"), "$.eventTime"),
    ("facets not an object", lambda e: e["run"].update(facets=[]), "$.run.facets"),
    (
        "parent facet run id",
        lambda e: e["run"]["facets"].update(
            parent=facet(run={"runId": "x"}, job={"namespace": "airflow", "name": "dag"})
        ),
        "$.run.facets.parent.run.runId",
    ),
    (
        "schema facet field",
        lambda e: e["outputs"][0]["facets"].update(schema=facet(fields=[{"name": "a", "type": 5}])),
        "$.outputs[0].facets.schema.fields[0].type",
    ),
    (
        "column lineage source",
        lambda e: e["outputs"][0]["facets"].update(
            columnLineage=facet(fields={"a": {"inputFields": [{"namespace": "file", "field": "a"}]}})
        ),
        "$.outputs[0].facets.columnLineage.fields.a.inputFields[0].name",
    ),
]


@pytest.mark.parametrize(
    ("change", "path"), [(c, p) for _, c, p in CORE_MISTAKES], ids=[n for n, _, _ in CORE_MISTAKES]
)
def test_the_core_stays_strict_when_lenient(validator: EventValidator, change: Any, path: str) -> None:
    with pytest.raises(IngestError) as caught:
        parse_event(_mutated(change), validator, lenient=True)
    assert caught.value.status == 422
    assert path in [p.path for p in caught.value.details]


LENIENT_PROBLEMS = [
    ("no producer", lambda e: e.pop("producer"), "$.producer"),
    ("no schemaURL", lambda e: e.pop("schemaURL"), "$.schemaURL"),
    ("eventTime without zone", lambda e: e.update(eventTime="2026-11-22T05:10:10.123"), "$.eventTime"),
    (
        "bad nominalTime facet",
        lambda e: e["run"]["facets"].update(nominalTime=facet(nominalStartTime=42)),
        "$.run.facets.nominalTime.nominalStartTime",
    ),
    (
        "facet without _producer",
        lambda e: e["job"]["facets"].update(documentation={"description": "d", "_schemaURL": "https://x/y.json"}),
        "$.job.facets.documentation._producer",
    ),
    (
        "schema facet without _schemaURL",
        lambda e: e["outputs"][0]["facets"].update(schema={"_producer": "p", "fields": [{"name": "a"}]}),
        "$.outputs[0].facets.schema._schemaURL",
    ),
    (
        "custom facet without _producer",
        lambda e: e["run"]["facets"].update(myFacet={"a": 1}),
        "$.run.facets.myFacet._producer",
    ),
]


@pytest.mark.parametrize(
    ("change", "path"), [(c, p) for _, c, p in LENIENT_PROBLEMS], ids=[n for n, _, _ in LENIENT_PROBLEMS]
)
def test_problems_outside_the_core_are_warnings(validator: EventValidator, change: Any, path: str) -> None:
    text = _mutated(change)
    with pytest.raises(IngestError) as caught:  # strictly, a refusal naming the same place
        parse_event(text, validator)
    assert path in [p.path for p in caught.value.details]
    parsed = parse_event(text, validator, lenient=True)
    assert path in [w.path for w in parsed.warnings]
    assert parsed.raw == text


def test_a_core_error_refuses_and_lists_no_warnings(validator: EventValidator) -> None:
    event = run_event(eventType="NOPE")
    event.pop("schemaURL")
    with pytest.raises(IngestError) as caught:
        parse_event(json.dumps(event), validator, lenient=True)
    assert [p.path for p in caught.value.details] == ["$.eventType"]


def test_batch_warnings_carry_the_event_index(validator: EventValidator) -> None:
    good, off = run_event(), run_event()
    off.pop("schemaURL")
    parsed = parse_batch(json.dumps([good, off]), validator, 10, lenient=True)
    assert [list(p.warnings) for p in parsed][0] == []
    assert [w.path for w in parsed[1].warnings] == ["$[1].schemaURL"]
    with pytest.raises(IngestError):
        parse_batch(json.dumps([good, copy.deepcopy(off)]), validator, 10)


def test_valid_events_take_the_fast_path_and_have_no_warnings(validator: EventValidator) -> None:
    event = run_event()
    assert validator.check(event, lenient=True) == ([], [])
    assert validator.check(event) == ([], [])


def _combinations() -> list[dict[str, Any]]:
    """Every mistake above alone, pairs of them, and the Marquez events: the inputs of the oracle test."""
    changes = [c for _, c, _ in CORE_MISTAKES + LENIENT_PROBLEMS]
    events = []
    for i, first in enumerate(changes):
        for second in [None, *changes[i + 1 :]]:
            event = run_event()
            first(event)
            try:
                if second is not None:
                    second(event)
            except (AttributeError, KeyError, TypeError, IndexError):
                continue  # the first change took away what the second changes (facets=[] then a facet)
            events.append(event)
    events += [json.loads(p.read_text()) for p in marquez_files()]
    no_base = run_event()  # every facet without _schemaURL: the common lenient case, with a big schema facet
    no_base["outputs"][0]["facets"]["schema"] = facet(fields=[{"name": f"c{i}", "type": "string"} for i in range(300)])
    for ds in no_base["inputs"] + no_base["outputs"]:
        for f in ds.get("facets", {}).values():
            f.pop("_schemaURL", None)
    events.append(no_base)
    broken = copy.deepcopy(no_base)  # ... and one facet also wrong inside: the shortcut must not hide it
    broken["outputs"][0]["facets"]["schema"]["fields"][7]["type"] = 5
    events.append(broken)
    return events


def test_the_shortcuts_find_what_a_full_walk_finds(validator: EventValidator) -> None:
    """check() walks with jsonschema only what jsonschema-rs finds invalid (the core with facets cut to
    their BaseFacet keys; a standard facet whose only fault is a missing _producer/_schemaURL is reported
    without a walk). validate_thorough() walks everything: on every combination both give the same problems
    and the same split into errors and warnings."""
    events = _combinations()
    assert len(events) > 150
    for event in events:
        thorough = validator.validate_thorough(event)
        assert validator.validate(event) == thorough, event
        errors: set[Any] = set()
        warnings: set[Any] = set()
        for parts, kind, problem in validator._problems(event, "$", shortcuts=False):
            (warnings if is_lenient(parts, kind, event) else errors).add(problem)
        expected = (sorted(errors)[:100], [] if errors else sorted(warnings)[:100])
        assert validator.check(event, lenient=True) == expected, event
