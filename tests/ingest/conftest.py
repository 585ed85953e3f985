"""Fixtures for ingest and validator tests: one compiled validator per session."""

from __future__ import annotations

import pytest

from headwater.spec import EventValidator


@pytest.fixture(scope="session")
def validator() -> EventValidator:
    return EventValidator()
