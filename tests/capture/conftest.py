"""Fixtures shared by the capture tests (agent runtime and plan analysis)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from headwater.spec import EventValidator


@pytest.fixture(scope="session")
def official_validator(spec_dir: Path) -> EventValidator:
    """Validates events against the official OpenLineage spec in tests/fixtures/openlineage-spec."""
    return EventValidator(spec_dir)


@pytest.fixture(scope="session")
def assert_valid_events(official_validator: EventValidator) -> Any:
    def check(events: list[dict[str, Any]]) -> None:
        for i, event in enumerate(events):
            problems = official_validator.validate(event, root=f"$[{i}]")
            assert not problems, (
                f"event {i} ({event.get('eventType')} {event.get('job', {}).get('name')}) "
                f"is not valid OpenLineage: {problems}"
            )

    return check


@pytest.fixture
def spool_dir(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "spool"
    yield path
