"""Time, in one place: parsing ISO 8601, the store's axis, and the two ways Headwater writes times.

The store's axis is integer microseconds since the Unix epoch, UTC: integers keep comparisons
exact and identical on SQLite and PostgreSQL (no driver-specific time-zone handling); conversion
happens only at the edges, with these functions.

Written forms (all ISO 8601 UTC with ``Z``):

- :func:`iso` — the shortest exact form of a stored time: seconds, milliseconds when the time has
  them, microseconds when it needs them (``2026-11-22T05:10:10Z``, ``…10.123Z``, ``…10.123456Z``).
  Graph answers and the event log use it.
- :func:`iso_millis` — always milliseconds (``2026-11-22T05:10:10.123Z``), from a datetime or epoch
  seconds: API parameters echoed back, and the events the PySpark agent emits.
- :func:`iso_micros` — always microseconds: the events Headwater's own producers build (SQL engine,
  harvesters, crawler, catalog, Spline translator).
"""

from __future__ import annotations

import functools
import re
from datetime import UTC, datetime, timedelta
from typing import overload

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_LONG_FRACTION = re.compile(r"(\.\d{6})\d+")


class InvalidTime(ValueError):
    """A timestamp that cannot be read; the message shows the value."""


class TimeOutOfRange(InvalidTime):
    """A timestamp that is written correctly but lies outside years 1 to 9999 UTC."""


def parse_time(text: str) -> datetime:
    """Parse an ISO 8601 timestamp (``Z`` or offset; naive means UTC) into an aware UTC datetime.

    More than six fractional digits (Java's nanoseconds) are cut to microseconds.
    """
    if not isinstance(text, str):
        raise InvalidTime(f"expected an ISO 8601 timestamp string, got {text!r}")
    return _parsed_cached(text) if len(text) <= 64 else _parsed(text)


def _parsed(text: str) -> datetime:
    cleaned = _LONG_FRACTION.sub(r"\1", text.strip())
    if cleaned.endswith(("z", "Z")):
        cleaned = cleaned[:-1] + "+00:00"
    try:
        value = datetime.fromisoformat(cleaned)
    except ValueError:
        raise InvalidTime(f"not an ISO 8601 timestamp: {text!r}") from None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    try:
        return value.astimezone(UTC)
    except OverflowError:  # 0001-01-01T00:00+01:00 is before the first representable moment
        raise TimeOutOfRange(f"{text!r} is out of the representable range (years 1 to 9999 UTC)") from None


# An event's time is read by the ingest checks and by the log row's header (~2.5 µs each): remembered for the
# latest few thousand strings (a datetime is immutable; a refusal is raised each time, never remembered).
_parsed_cached = functools.lru_cache(maxsize=4096)(_parsed)


def to_micros(value: datetime) -> int:
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    delta = value - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def from_micros(micros: int) -> datetime:
    return _EPOCH + timedelta(microseconds=micros)


_NAIVE_EPOCH = datetime(1970, 1, 1)


@overload
def iso(micros: int) -> str: ...
@overload
def iso(micros: None) -> None: ...
@overload
def iso(micros: int | None) -> str | None: ...
def iso(micros: int | None) -> str | None:
    """Epoch microseconds → ISO 8601 UTC with ``Z``: seconds, then milliseconds or microseconds as needed.

    Graph answers format thousands of these: naive arithmetic and ``isoformat`` (about twice as fast
    as ``strftime``); years before 1970 take the general path.
    """
    if micros is None:
        return None
    if micros < 0:
        value = from_micros(micros)
        text = value.strftime("%Y-%m-%dT%H:%M:%S")
        if value.microsecond % 1000:
            text += f".{value.microsecond:06d}"
        elif value.microsecond:
            text += f".{value.microsecond // 1000:03d}"
        return text + "Z"
    naive = _NAIVE_EPOCH + timedelta(microseconds=micros)
    if not naive.microsecond:
        return naive.isoformat(timespec="seconds") + "Z"
    return naive.isoformat(timespec="microseconds" if naive.microsecond % 1000 else "milliseconds") + "Z"


def iso_millis(value: datetime | float | None) -> str | None:
    """A datetime (naive = UTC) or epoch seconds → ISO 8601 UTC with milliseconds and ``Z``."""
    if value is None:
        return None
    if not isinstance(value, datetime):
        value = datetime.fromtimestamp(value, tz=UTC)
    elif value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def iso_micros(value: datetime) -> str:
    """A datetime (naive = UTC) → ISO 8601 UTC with microseconds and ``Z``: the events Headwater's own
    producers build (``model/openlineage.py``)."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def now_micros() -> int:
    return to_micros(datetime.now(UTC))
