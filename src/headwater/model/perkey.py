"""One object per key, made on first ask and kept for the key's life.

The store keeps a codec and a parts cache per database engine, and the ingest door a facet cache per validator:
each is made once, shared by every thread, and forgotten with the key (a weak reference, so a disposed engine
or validator does not keep its cache alive).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class PerKey(Generic[K, V]):
    """``of(key)``: the value made by ``make()`` for ``key`` (the same one on every call while ``key`` lives)."""

    def __init__(self, make: Callable[[], V]) -> None:
        self._make = make
        self._found: weakref.WeakKeyDictionary[K, V] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    def of(self, key: K) -> V:
        with self._lock:
            found = self._found.get(key)
            if found is None:
                found = self._found[key] = self._make()
            return found
