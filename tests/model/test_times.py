"""headwater.model.times: the one place times are parsed and written."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta, timezone

import pytest

from headwater.model.times import InvalidTime, from_micros, iso, iso_millis, parse_time, to_micros


def _reference_iso(micros: int) -> str:
    """The written form, spelled out the slow way: strftime + the fraction the time needs."""
    value = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=micros)
    text = value.strftime("%Y-%m-%dT%H:%M:%S")
    if value.microsecond % 1000:
        text += f".{value.microsecond:06d}"
    elif value.microsecond:
        text += f".{value.microsecond // 1000:03d}"
    return text + "Z"


@pytest.mark.parametrize(
    ("micros", "text"),
    [
        (0, "1970-01-01T00:00:00Z"),
        (1, "1970-01-01T00:00:00.000001Z"),
        (1000, "1970-01-01T00:00:00.001Z"),
        (1_767_225_600_000_000, "2026-01-01T00:00:00Z"),
        (1_767_225_600_123_000, "2026-01-01T00:00:00.123Z"),
        (1_767_225_600_123_456, "2026-01-01T00:00:00.123456Z"),
        (-1_000_000, "1969-12-31T23:59:59Z"),
        (-1, "1969-12-31T23:59:59.999999Z"),
    ],
)
def test_iso_writes_the_shortest_exact_form(micros: int, text: str) -> None:
    assert iso(micros) == text
    assert to_micros(parse_time(text)) == micros


def test_iso_fast_path_agrees_with_the_general_form() -> None:
    rng = random.Random(4)
    values = [
        *(rng.randrange(-(10**15), 4_102_444_800_000_000) for _ in range(3000)),
        *(rng.randrange(0, 4_102_444_800_000) * 1000 for _ in range(1000)),
    ]
    for value in values:
        assert iso(value) == _reference_iso(value), value
    assert iso(None) is None


def test_iso_millis_from_datetimes_and_epoch_seconds() -> None:
    assert iso_millis(datetime(2026, 11, 22, 5, 10, 10, 123456, tzinfo=UTC)) == "2026-11-22T05:10:10.123Z"
    assert iso_millis(datetime(2026, 11, 22, 5, 10, 10)) == "2026-11-22T05:10:10.000Z"  # naive is UTC
    assert (
        iso_millis(datetime(2026, 11, 22, 7, 10, 10, tzinfo=timezone(timedelta(hours=2)))) == "2026-11-22T05:10:10.000Z"
    )
    assert iso_millis(1_763_788_210.5) == "2025-11-22T05:10:10.500Z"
    assert iso_millis(None) is None


def test_parse_time_reads_offsets_nanoseconds_and_naive_times() -> None:
    assert parse_time("2026-11-22T05:10:10.123456789Z") == datetime(2026, 11, 22, 5, 10, 10, 123456, tzinfo=UTC)
    assert parse_time("2026-11-22T07:10:10+02:00") == datetime(2026, 11, 22, 5, 10, 10, tzinfo=UTC)
    assert parse_time("2026-11-22T05:10:10") == datetime(2026, 11, 22, 5, 10, 10, tzinfo=UTC)
    assert from_micros(to_micros(datetime(2026, 1, 1, tzinfo=UTC))) == datetime(2026, 1, 1, tzinfo=UTC)
    with pytest.raises(InvalidTime, match="not an ISO 8601 timestamp: 'yesterday'"):
        parse_time("yesterday")
