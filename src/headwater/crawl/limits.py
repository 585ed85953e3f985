"""Sampling limits for schema inference, with their documented defaults (docs/crawl.md)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    sample_bytes: int = 1024 * 1024  # CSV/JSON: bytes read from the start of each file
    sample_rows: int = 1000  # CSV/JSON: rows (lines, array elements) inferred from per file
    files_per_table: int = 100  # new or changed files whose schema is read per table and crawl
    compatibility: float = 0.5  # files share a table when their column names overlap this much (Jaccard)


DEFAULT_LIMITS = Limits()
