"""Canonical JSON and content hashes (event ids, version ids)."""

from __future__ import annotations

import hashlib
import json
from typing import Any


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
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def loads(text: str | None) -> Any:
    return None if text is None else json.loads(text)
