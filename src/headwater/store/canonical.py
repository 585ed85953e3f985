"""Canonical JSON and content hashes (event ids, version ids), and fast JSON for derived columns.

``canonical_json`` (and so every id) is the standard library's key-sorted compact form; it is a
stored contract (an event's id must not change between versions). ``dumps``/``loads`` serve the
derived columns and the observation index, where only the value matters: they use orjson (about
10x faster on 25 kB Spark events) and fall back to the standard library for what orjson does not
handle exactly (integers beyond 64 bits, which it would read as floats; non-string keys).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import orjson

# orjson reads integers beyond 64 bits as floats; any such integer has at least 20 digits.
# Finding 20 digits in a row: map every digit to "0", then one substring search (~30x faster than a regex).
_DIGITS_TO_ZERO = bytes.maketrans(b"123456789", b"000000000")
_TWENTY_DIGITS = b"0" * 20


def has_long_digit_run(text: str) -> bool:
    """True when ``text`` holds 20 or more ASCII digits in a row (a number orjson might not read exactly)."""
    return _TWENTY_DIGITS in text.encode("utf-8", "surrogatepass").translate(_DIGITS_TO_ZERO)


def canonical_json(value: Any) -> str:
    """Key-sorted, compact, UTF-8 JSON: equal values give equal text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def content_hash(value: Any) -> str:
    """SHA-256 (hex) of the canonical JSON of ``value``."""
    return hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()


def event_id(payload: Any) -> str:
    """An event's stable id: the content hash of its canonical JSON (same event twice, same id)."""
    return content_hash(payload)


def dumps(value: Any) -> str:
    """Compact JSON for derived columns (key order kept)."""
    try:
        return orjson.dumps(value).decode()
    except TypeError:  # a non-string key, an integer beyond 64 bits: the standard library handles it
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def loads_text(text: str) -> Any:
    """Parse JSON text exactly as ``json.loads`` would (orjson when that gives the same value)."""
    if not has_long_digit_run(text):
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            pass  # let the standard library decide (and word the error)
    return json.loads(text)


def loads(text: str | None) -> Any:
    return None if text is None else loads_text(text)
