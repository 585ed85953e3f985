"""The store helper's HR payroll story (tests/fixtures/stories) goes through ingest unchanged:
every event is accepted, stored byte for byte, and valid for the shared schema helper too."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from headwater.spec import EventValidator
from olschema import event_errors

pytestmark = pytest.mark.anyio

STORY = Path(__file__).resolve().parent.parent / "fixtures" / "stories" / "hr_payroll.json"


def story_events() -> list[dict[str, object]]:
    events: list[dict[str, object]] = json.loads(STORY.read_text(encoding="utf-8"))
    return events


def test_both_validators_accept_the_story(spec_dir: Path) -> None:
    ours = EventValidator(spec_dir)  # built from the shared official copy, not the packaged one
    events = story_events()
    assert len(events) > 10
    for i, event in enumerate(events):
        assert ours.validate(event, f"$[{i}]") == []
        assert event_errors(event, spec_dir) == []


async def test_story_is_ingested_one_by_one_and_kept_exactly(client: httpx.AsyncClient) -> None:
    texts = [json.dumps(e, indent=2, sort_keys=True) for e in story_events()]
    ids = []
    for text in texts:
        answer = await client.post("/api/v1/lineage", content=text, headers={"Content-Type": "application/json"})
        assert answer.status_code == 201, answer.text
        ids.append(answer.json()["id"])
    assert len(set(ids)) == len(ids)
    for event_id, text in zip(ids, texts, strict=True):
        assert (await client.get(f"/api/v1/events/{event_id}")).text == text
    again = await client.post("/api/v1/lineage/batch", json=story_events())
    assert again.status_code == 200
    assert again.json()["duplicates"] == len(texts) and again.json()["ids"] == ids
