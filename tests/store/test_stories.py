"""The story fixtures are valid OpenLineage (official schema, with facet schemas)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fixtures.stories.load import HERE, story
from olschema import event_errors

STORIES = sorted(p.stem for p in HERE.glob("*.json"))


@pytest.mark.parametrize("name", STORIES)
def test_story_events_are_valid(name: str, spec_dir: Path) -> None:
    events = story(name)
    assert events, f"story {name} is empty"
    problems = {i: event_errors(e, spec_dir) for i, e in enumerate(events)}
    assert {i: p for i, p in problems.items() if p} == {}


def test_validator_finds_errors(spec_dir: Path) -> None:
    event = story()[1]
    broken = {
        **event,
        "run": {
            "runId": "not-a-uuid",
            "facets": {"errorMessage": {"_producer": "https://x", "_schemaURL": "https://y", "message": 3}},
        },
    }
    errors = event_errors(broken, spec_dir)
    assert "$.run.runId: 'not-a-uuid' is not a 'uuid'" in errors
    assert any(e.startswith("$.run.facets.errorMessage.message: 3 is not of type 'string'") for e in errors)
    assert any("'programmingLanguage' is a required property" in e for e in errors)


def test_story_covers_the_cases() -> None:
    events = story()
    kinds = {("run" in e, "dataset" in e) for e in events}
    assert kinds == {(True, False), (False, True), (False, False)}  # RunEvent, DatasetEvent, JobEvent
    types = {e.get("eventType") for e in events if "run" in e}
    assert {"START", "COMPLETE", "FAIL"} <= types
    assert any("errorMessage" in e["run"]["facets"] for e in events if "run" in e)
    assert any("parent" in e["run"]["facets"] for e in events if "run" in e)


def test_golden_events_are_valid(spec_dir: Path) -> None:
    events = json.loads((HERE / "golden" / "small_pipeline.input.json").read_text())
    assert {i: event_errors(e, spec_dir) for i, e in enumerate(events) if event_errors(e, spec_dir)} == {}
