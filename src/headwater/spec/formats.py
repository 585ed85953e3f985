"""Format checks for the formats the OpenLineage schemas use: ``uuid``, ``date-time``, ``uri``.

jsonschema only checks ``date-time`` and ``uri`` when optional third-party packages are
installed and silently accepts anything otherwise; these small, explicit checks make the
result the same everywhere (and both validation engines use them).

``uri`` is checked as an RFC 3986 *URI reference*, not only an absolute URI: the OpenLineage
Spark integration sends ``dataSource.uri`` equal to the dataset namespace, which is ``"file"``
for files, and real producers' events must be accepted. What is refused: whitespace, control
characters and ``%`` not followed by two hex digits. Non-ASCII letters are allowed (IRIs).
"""

from __future__ import annotations

import functools
import re
import uuid
from datetime import datetime

from jsonschema import FormatChecker

# RFC 3339 section 5.6 date-time: full-date "T" full-time, with a mandatory zone (Z or +hh:mm).
_DATE_TIME = re.compile(
    r"(?P<date>\d{4}-\d{2}-\d{2})[Tt ]"
    r"(?P<time>\d{2}:\d{2}:\d{2})(?P<frac>\.\d+)?"
    r"(?P<zone>[Zz]|[+-]\d{2}:\d{2})\Z"
)
# RFC 3986 URI-reference, leniently: no whitespace/control characters, well-formed %-escapes,
# and when there is a scheme ("x:" before any "/", "?" or "#") it starts with a letter.
_URI_CHARS = re.compile(r"(?:[^\s\x00-\x1f\x7f%]|%[0-9A-Fa-f]{2})*\Z")
_SCHEME = re.compile(r"[^/?#]*?:")
_VALID_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")


def is_date_time(value: object) -> bool:
    if not isinstance(value, str):
        return True
    return _date_time_ok_cached(value) if len(value) <= 64 else _date_time_ok(value)


def _date_time_ok(value: str) -> bool:
    m = _DATE_TIME.match(value)
    if not m:
        return False
    zone = m["zone"].upper()
    text = f"{m['date']}T{m['time']}{(m['frac'] or '')[:7]}{'+00:00' if zone == 'Z' else zone}"
    try:
        datetime.fromisoformat(text)
    except ValueError:
        return False
    return True


def is_uuid(value: object) -> bool:
    if not isinstance(value, str):
        return True
    return _uuid_ok_cached(value) if len(value) <= 64 else _uuid_ok(value)


def _uuid_ok(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return len(value) == 36 and all(value[i] == "-" for i in (8, 13, 18, 23))


def _uri_ok(value: str) -> bool:
    if not _URI_CHARS.match(value):
        return False
    scheme = _SCHEME.match(value)
    return scheme is None or bool(_VALID_SCHEME.fullmatch(scheme.group(0)))


# Every facet carries `_producer` and `_schemaURL`: the same few URIs in every event (~60 per
# Spark event). Remembering the answer for short strings saves most of the regex work. Likewise a run's id
# and an event's time, checked in its START and COMPLETE and again by each check that reads them (~2 µs each).
_uri_ok_cached = functools.lru_cache(maxsize=4096)(_uri_ok)
_uuid_ok_cached = functools.lru_cache(maxsize=4096)(_uuid_ok)
_date_time_ok_cached = functools.lru_cache(maxsize=4096)(_date_time_ok)


def is_uri(value: object) -> bool:
    if not isinstance(value, str):
        return True
    return _uri_ok_cached(value) if len(value) <= 512 else _uri_ok(value)


def format_checker() -> FormatChecker:
    """A checker knowing exactly ``uuid``, ``date-time`` and ``uri`` (other formats are not asserted)."""
    checker = FormatChecker(formats=())
    checker.checks("uuid")(is_uuid)
    checker.checks("date-time")(is_date_time)
    checker.checks("uri")(is_uri)
    return checker
