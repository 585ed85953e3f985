"""Validity intervals: turn per-version memberships into merged ``[valid_from, valid_to)`` spans (pure)."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import TypeVar

K = TypeVar("K", bound=Hashable)


def merge_intervals(
    versions: Sequence[tuple[int, int | None, Iterable[K]]],
) -> list[tuple[K, int, int | None]]:
    """``versions`` = ``(valid_from, valid_to, keys)`` in time order, contiguous.

    Returns ``(key, valid_from, valid_to)`` with the spans of consecutive versions that hold the
    same key merged into one.
    """
    open_since: dict[K, int] = {}
    open_until: dict[K, int | None] = {}
    spans: list[tuple[K, int, int | None]] = []
    for valid_from, valid_to, keys in versions:
        present = set(keys)
        for key in list(open_since):
            if key not in present or open_until[key] != valid_from:
                spans.append((key, open_since.pop(key), open_until.pop(key)))
        for key in present:
            if key in open_since:
                open_until[key] = valid_to
            else:
                open_since[key] = valid_from
                open_until[key] = valid_to
    for key, since in open_since.items():
        spans.append((key, since, open_until[key]))
    return sorted(spans, key=lambda s: (s[1], repr(s[0])))
