"""Time on the store's axis: integer microseconds since the Unix epoch, UTC.

Storing times as integers keeps comparisons exact and identical on SQLite and PostgreSQL
(no driver-specific time-zone handling). Conversion happens only at the edges.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_LONG_FRACTION = re.compile(r"(\.\d{6})\d+")


class InvalidTime(ValueError):
    """A timestamp that cannot be read; the message shows the value."""


def parse_time(text: str) -> datetime:
    """Parse an ISO 8601 timestamp (``Z`` or offset; naive means UTC) into an aware UTC datetime.

    More than six fractional digits (Java's nanoseconds) are cut to microseconds.
    """
    if not isinstance(text, str):
        raise InvalidTime(f"expected an ISO 8601 timestamp string, got {text!r}")
    cleaned = _LONG_FRACTION.sub(r"\1", text.strip())
    if cleaned.endswith(("z", "Z")):
        cleaned = cleaned[:-1] + "+00:00"
    try:
        value = datetime.fromisoformat(cleaned)
    except ValueError:
        raise InvalidTime(f"not an ISO 8601 timestamp: {text!r}") from None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def to_micros(value: datetime) -> int:
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    delta = value - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def from_micros(micros: int) -> datetime:
    return _EPOCH + timedelta(microseconds=micros)


def iso(micros: int | None) -> str | None:
    """Format epoch microseconds as ISO 8601 UTC with ``Z`` (milliseconds kept when present)."""
    if micros is None:
        return None
    value = from_micros(micros)
    text = value.strftime("%Y-%m-%dT%H:%M:%S")
    if value.microsecond % 1000:
        text += f".{value.microsecond:06d}"
    elif value.microsecond:
        text += f".{value.microsecond // 1000:03d}"
    return text + "Z"


def now_micros() -> int:
    return to_micros(datetime.now(UTC))
