"""Values many events share by reference, read-only: what is derived from each (its text...) is kept with it, once.

A producer repeats itself (a job's schema, column lineage and Spark facets are the same bytes run after run), and
the ingest door and the projector then hand the same Python object to every event that repeats it: the facet
cache's parsed facets (``ingest.decode``), the observation memo's answers (``store.observe``). Whoever writes such
a value as text again, or derives something from it, may note the answer here instead of computing it per event
(the projector's derived parts: ``store.parts``).

Contract:

- :func:`share` lists a value (a dict or a list) under its identity and answers its notes (a dict, empty at first, the same dict
  while it is listed); :func:`unshare` forgets it; its owner (a cache) lists what it keeps and unlists what it
  drops, so the listing holds a value alive only as long as its owner does, and an id names no other object
  meanwhile.
- :func:`notes` answers the notes of this very object (identity, not equality), or None when it is not listed.
- A listed value is never mutated (the owners' contract already: parsed events and memo answers are read only).
  A note is a pure function of the value (a second writer computes the same answer), named by its writer.
- Thread-safe by the interpreter lock: each call is a dict operation or two, and a note is set whole.
"""

from __future__ import annotations

from typing import Any

_LISTED: dict[int, tuple[object, dict[str, Any]]] = {}


def share(value: object) -> dict[str, Any]:
    """List ``value`` (again: the same notes) and answer its notes (a value that is not a dict or list is not
    listed: None and the like are singletons anyone may hold)."""
    if type(value) is not dict and type(value) is not list:
        return {}
    found = _LISTED.get(id(value))
    if found is not None and found[0] is value:
        return found[1]
    fresh: dict[str, Any] = {}
    _LISTED[id(value)] = (value, fresh)
    return fresh


def unshare(value: object) -> None:
    """Forget ``value`` (nothing when it is not listed)."""
    found = _LISTED.get(id(value))
    if found is not None and found[0] is value:
        _LISTED.pop(id(value), None)


def notes(value: object) -> dict[str, Any] | None:
    """The notes of ``value`` itself when it is listed, else None."""
    found = _LISTED.get(id(value))
    return found[1] if found is not None and found[0] is value else None


def listed() -> int:
    """How many values are listed now (to check an owner's bounds)."""
    return len(_LISTED)
