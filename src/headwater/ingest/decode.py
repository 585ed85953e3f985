"""The usual event, accepted in one pass: its core decoded into typed records, each distinct facet checked once.

Producers repeat themselves: a Spark application sends the same ``schema``, ``columnLineage``, ``symlinks``,
``parent`` and ``processing_engine`` facets in the START and COMPLETE of a run and in every daily run of the
same job. :func:`fast_accept` decodes an event's core (``eventTime``, ``eventType``, ``run``, ``job``,
``inputs``, ``outputs``, ``producer``, ``schemaURL``) with msgspec into the typed records below, each facet kept
as its raw JSON bytes; a :class:`FacetCache` turns each distinct facet's bytes, once, into what every check
needs (its value, the verdicts of the structure limits, of the name checks and of its official schema, keyed by
the SHA-256 of its canonical bytes), so a facet seen before costs a hash and a lookup.

Contract: :func:`fast_accept` returns exactly what :func:`headwater.ingest.accept.accept` returns for the same
body (the same payloads as values, the same stored text, kinds ``RUN``, no warnings) or None, and then the
caller runs :func:`~headwater.ingest.accept.accept`, which says what is wrong. None is the answer for anything
outside the usual case: a body that is not a batch of RunEvents with exactly the core's keys, any key or string
that is not plain (a ``\\u0000`` or surrogate escape, a run of 20 digits), and every event that is invalid or
would be accepted with warnings (so refusals and their messages are the full path's, unchanged). The checks it
runs are the full path's checks on the same values, split at the facets:

- the official schema: the event's kind definition on the core with each facet container emptied, each
  distinct facet's BaseFacet keys once on its slot's ``<Slot>Facet`` definition (all the core schema asks of a
  facet: every container is an object each of whose values is that definition, ``spec.validator``'s
  ``_core_view``), and each standard facet on its own definition — together what
  :meth:`EventValidator.fast_accepts` asks of the whole event;
- the structure limits (``limits.within_structure_limits``) on the core, on each container's keys and on each
  facet at its depth;
- the name checks (``limits.name_problems``) on the core and on each ``parent`` run facet and dataset facet.

A batch of usual events is decoded in one msgspec pass over the body; a batch with any other event is read
again item by item, each item the fast or the full way.

Each accepted event carries its :class:`Decoded` parts, from which the store computes the RFC 8785 id with each
distinct facet's canonical bytes computed once (``store.canonical.decoded_event_id``), and hands the payload
to the projector in the same process instead of parsing the stored text again.
"""

from __future__ import annotations

import re
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgspec
import orjson
import xxhash

from headwater.ingest.limits import Limits, name_problems, within_limits_at
from headwater.ingest.parse import batch_items
from headwater.ingest.shared import share, unshare
from headwater.model.jsontext import has_long_digit_run
from headwater.model.perkey import PerKey
from headwater.model.times import from_micros, parse_time, to_micros
from headwater.spec import EventValidator, is_deletion
from headwater.spec.facets import Slot

# --- the core's shape: which keys each object may have, and of what type (anything else leaves the fast path) ---


@dataclass(frozen=True)
class _FacetsAt:
    """A facet container: its slot, its facets' depth in the event, and its number among the core's containers
    (with the checks' token, a facet's pass there is one small integer: :func:`_facet_passes`)."""

    slot: Slot
    depth: int
    index: int


@dataclass(frozen=True)
class _Object:
    """An object of the core: its keys (each a string, a facet container, an object or a list of objects) and
    the keys it must have."""

    fields: dict[str, Any]
    required: frozenset[str]


@dataclass(frozen=True)
class _ListOf:
    item: _Object


_STRING = "string"


def _dataset_shape(extra_key: str, extra_slot: Slot, index: int) -> _Object:
    return _Object(
        {
            "namespace": _STRING,
            "name": _STRING,
            "facets": _FacetsAt("dataset", 4, 2),
            extra_key: _FacetsAt(extra_slot, 4, index),
        },
        frozenset({"namespace", "name"}),
    )


_PLACES = 5  # the containers' indexes: run 0, job 1, dataset 2, input 3, output 4


_RUN_EVENT = _Object(
    {
        "eventTime": _STRING,
        "producer": _STRING,
        "schemaURL": _STRING,
        "eventType": _STRING,
        "run": _Object({"runId": _STRING, "facets": _FacetsAt("run", 3, 0)}, frozenset({"runId"})),
        "job": _Object(
            {"namespace": _STRING, "name": _STRING, "facets": _FacetsAt("job", 3, 1)}, frozenset({"namespace", "name"})
        ),
        "inputs": _ListOf(_dataset_shape("inputFacets", "input", 3)),
        "outputs": _ListOf(_dataset_shape("outputFacets", "output", 4)),
    },
    frozenset({"eventTime", "producer", "schemaURL", "run", "job"}),
)

# An event is decoded in one pass over its bytes into its objects' keys (in the order sent: a batch's stored
# text keeps it) down to the facet containers, whose facets stay raw bytes (not decoded unless the cache has
# not seen them). The types say only how deep objects go; which key may hold what is the walk's check.
_Container = dict[str, msgspec.Raw]  # name -> a facet's bytes
_Inner = dict[str, str | _Container]  # run, job, a dataset: strings and facet containers
_Core = dict[str, str | _Inner | list[_Inner]]
_EVENT = msgspec.json.Decoder(_Core)


class _CoresEnvelope(msgspec.Struct):
    events: list[_Core]


# A batch of usual events decoded in one pass (its events' cores, not each event's bytes first and then each
# event): when any event is not of the usual shape, the batch is read again item by item (parse.batch_items).
_CORES = msgspec.json.Decoder(list[_Core] | _CoresEnvelope)

# An escaped UTF-16 surrogate or NUL anywhere: the full path looks (lone surrogates, NUL are refused there).
_UNUSUAL_ESCAPE = re.compile(rb"\\u(?:[dD][89a-fA-F]|0000)")


def _unusual_escape(data: bytes) -> bool:
    """Whether ``data`` holds an escaped surrogate or NUL. Most events hold no backslash at all: looking for one
    byte (memchr) is ~20x cheaper than the pattern's scan of a 24 kB event, which then runs only when needed."""
    return b"\\" in data and _UNUSUAL_ESCAPE.search(data) is not None


# --- one distinct facet, checked once ----------------------------------------------------------------------


@dataclass
class Facet:
    """One distinct facet (by its bytes as sent): its value, shared by every event that sends it (read-only:
    nobody mutates a parsed event), its BaseFacet keys (what the core schema sees of it), its canonical bytes
    once computed, and its verdicts (kind of check -> passed)."""

    value: dict[str, Any]
    meta: dict[str, Any]
    data: bytes = b""  # its bytes as sent (set by the cache that keeps it)
    sent: msgspec.Raw = field(default_factory=lambda: msgspec.Raw(b""))  # the same bytes, to compare a Raw with
    sorted_bytes: bytes | None = None  # compact, keys sorted (set on first use): RFC 8785 for plain content
    jcs: bytes | None = None  # the exact RFC 8785 bytes, set by the store on first use
    verdicts: dict[tuple[Any, ...], bool] = field(default_factory=dict)
    # where it passed every check: the place (checks' token and container, _Parts.container) -> the names it had
    passes: dict[int, set[str]] = field(default_factory=dict)
    used: bool = False  # looked up since the cache's eviction last came round to it (FacetCache._evict)

    def canonical(self) -> bytes:
        """The value's bytes with keys sorted, computed once: equal bytes mean equal values; for plain content
        (ASCII, no escapes, no floats: what the store checks) they are its RFC 8785 bytes."""
        if self.sorted_bytes is None:
            self.sorted_bytes = orjson.dumps(self.value, option=orjson.OPT_SORT_KEYS)
        return self.sorted_bytes


_META = ("_producer", "_schemaURL", "_deleted")


class FacetCache:
    """Distinct facets by their bytes as sent (bounded: the oldest not looked up since the eviction last came
    round to it goes first, a "second chance" order that costs a hit one flag instead of moving the facet), and
    schema verdicts by (slot, name, canonical bytes): equal content sent with other whitespace or key order is
    validated once too. Thread-safe (requests run in a thread pool): a hit is one dict lookup (atomic under the
    interpreter lock), what changes the cache takes the lock.

    A facet is found by its bytes' XXH3 hash, computed on msgspec's slice of the body (no copy), then compared
    with the kept bytes: only equal bytes are a hit (a hash shared by other bytes is a miss, and the newer
    facet takes the place), so a crafted collision costs its sender a miss, never another facet's value. A
    copy of the bytes and Python's hash of them cost ~1.3 µs per 1.5 kB facet, XXH3 and the comparison ~0.3.

    When few facets repeat (producers that share nothing between events), checking facet by facet costs more
    than checking each event whole: :meth:`cold` says so from the recent hit rate (looked at before each
    event), and the fast path then leaves bodies to the full path, but for one in ``SAMPLE``
    (:meth:`sampled`), which it takes to notice when facets repeat again."""

    def __init__(self, max_facets: int = 2048, max_bytes: int = 8 * 1024 * 1024) -> None:
        self.max_facets, self.max_bytes = max_facets, max_bytes
        self._facets: dict[int, Facet] = {}  # by the XXH3 hash of its bytes
        self._size = 0
        self._verdicts: dict[tuple[str, str, bytes], bool] = {}
        self._verdict_bytes = 0
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0
        self._rate = 1.0  # the hit rate lately: a moving average over about the last 128 lookups
        self._lookups = 0
        self._bodies = 0
        weakref.finalize(self, _unshare_all, self._facets)  # a cache that goes (with its validator) unlists its facets

    SAMPLE = 16
    MIN_HIT_RATE = 0.3

    def __len__(self) -> int:
        return len(self._facets)

    def cold(self) -> bool:
        """True when too few facets repeated lately for the fast path to pay (judged after 256 lookups)."""
        return self._lookups >= 256 and self._rate < self.MIN_HIT_RATE

    def sampled(self) -> bool:
        """A new body: whether it is the one in ``SAMPLE`` the fast path takes however cold the cache is."""
        with self._lock:
            self._bodies += 1
            return self._bodies % self.SAMPLE == 0

    def counted(self, hits: int, lookups: int) -> None:
        """Count ``hits`` among ``lookups`` (an event's, counted at once): the recent hit rate moves as if they
        were counted one by one, in any order (a moving average over about the last 128 lookups)."""
        if lookups:
            self.hits += hits
            self._lookups += lookups
            keep = (1 - 1 / 128) ** lookups
            self._rate = self._rate * keep + hits / lookups * (1 - keep)

    def known(self, raw: msgspec.Raw) -> Facet | None:
        """The facet of these bytes (a slice of a decoded body) when the cache holds it (not counted:
        :meth:`counted`), else None."""
        found = self._facets.get(_hash(raw))
        if found is None or found.sent != raw:
            return None
        found.used = True
        return found

    def add(self, raw: bytes) -> Facet | None:
        """The facet of bytes the cache does not hold, made and kept (None: not a plain JSON object the fast path
        takes); counted as a miss when kept."""
        made = _make_facet(raw)
        if made is None or len(raw) > self.max_bytes // 64:
            return made  # a very large facet is checked, not kept: it would push out many small ones
        made.data, made.sent = raw, msgspec.Raw(raw)
        key = _hash(raw)
        with self._lock:
            found = self._facets.get(key)
            if found is not None:
                if found.data == raw:  # another thread kept it meanwhile: one value for equal bytes
                    return found
                self._drop(key)  # other bytes of the same hash: the newer takes the place
            self.misses += 1
            self._facets[key] = made
            share(made.value)  # kept: the projector may note what it derives from the value (ingest.shared)
            self._size += len(raw)
            self._evict()
        return made

    def _drop(self, key: int) -> None:
        facet = self._facets.pop(key)
        unshare(facet.value)
        self._size -= len(facet.data)

    def _evict(self) -> None:
        """Drop facets, oldest first, until the bounds hold; one looked up since it last came round goes to the
        newest end instead, once per call (so this ends even while other threads look facets up)."""
        facets = self._facets
        chances = len(facets)
        while facets and (len(facets) > self.max_facets or self._size > self.max_bytes):
            oldest = next(iter(facets))
            facet = facets[oldest]
            if facet.used and chances > 0:
                chances -= 1
                facet.used = False
                del facets[oldest]
                facets[oldest] = facet
                continue
            self._drop(oldest)

    def facet(self, raw: bytes) -> Facet | None:
        """The facet of these bytes (None: not a plain JSON object the fast path takes), counted."""
        found = self._facets.get(_hash(raw))
        if found is not None and found.data == raw:
            found.used = True
            self.counted(1, 1)
            return found
        made = self.add(raw)
        if made is not None and made.data:
            self.counted(0, 1)
        return made

    def verdict(self, key: tuple[str, str, bytes], compute: Callable[[], bool]) -> bool:
        with self._lock:
            found = self._verdicts.get(key)
        if found is None:
            found = compute()
            with self._lock:
                self._verdicts[key] = found
                self._verdict_bytes += len(key[2])
                while len(self._verdicts) > 4 * self.max_facets or self._verdict_bytes > self.max_bytes:
                    oldest = next(iter(self._verdicts))
                    del self._verdicts[oldest]
                    self._verdict_bytes -= len(oldest[2])
        return found


_hash = xxhash.xxh3_64_intdigest  # of bytes or of any buffer (msgspec.Raw): the same number for the same bytes


def _unshare_all(facets: dict[int, Facet]) -> None:
    for facet in list(facets.values()):
        unshare(facet.value)


def _make_facet(raw: bytes) -> Facet | None:
    if has_long_digit_run(raw.decode("utf-8")):
        return None  # orjson would read a 20-digit integer as a float: the full path's parser decides
    try:
        value = orjson.loads(raw)
    except (orjson.JSONDecodeError, RecursionError):
        return None
    if not isinstance(value, dict):
        return None
    return Facet(value, {k: value[k] for k in _META if k in value})


# --- one decoded event ---------------------------------------------------------------------------------------

Place = tuple[Slot, str, int]  # where a facet sits: its slot, its name, its depth in the event


@dataclass(frozen=True)
class Decoded:
    """What the fast path knows of an accepted event besides its payload: the core as plain values with a
    :class:`Facet` where each facet sits (the store serializes it with each facet's canonical bytes put in,
    to compute the id) and the facets themselves."""

    core: dict[str, Any]
    facets: tuple[Facet, ...]


@dataclass(frozen=True)
class FastEvent:
    """An event the fast path accepted: its payload, its stored text and its decoded parts."""

    payload: dict[str, Any]
    raw: str
    decoded: Decoded


class _Refused(Exception):
    """Leave the fast path: the full path decides (and says what is wrong, if anything is)."""


@dataclass(frozen=True)
class _Checks:
    validator: EventValidator
    limits: Limits
    check_text: bool  # strings may be longer than max_string_length (the body is longer than that)
    cache: FacetCache
    token: int = 0  # (limits, check_text) as a small number: with a container's index, where a facet passed


_TOKENS: dict[tuple[Limits, bool], int] = {}  # (limits, check_text) -> its token, for the process's life


def _checks(validator: EventValidator, limits: Limits, check_text: bool, cache: FacetCache) -> _Checks:
    token = _TOKENS.setdefault((limits, check_text), len(_TOKENS) + 1)
    return _Checks(validator, limits, check_text, cache, token)


class _Parts:
    """The forms of one event built in one walk: its payload (the facets' values), the core schema's view
    (each facet container emptied: every facet was checked where it sits, its BaseFacet keys included) and the
    core (a :class:`Facet` where each facet sits)."""

    def __init__(self, checks: _Checks) -> None:
        self.checks = checks
        self.facets: list[Facet] = []
        self.hits = 0  # facets the cache knew (counted once per event: FacetCache.counted)

    def container(self, items: Any, at: _FacetsAt) -> Three:
        if type(items) is not dict:
            raise _Refused
        checks = self.checks
        limits = checks.limits
        # what the structure limits ask of the container itself besides its depth (which the view's empty
        # object still has): its keys, their number and length
        if len(items) > limits.max_object_keys or (
            checks.check_text and items and max(map(len, items)) > limits.max_string_length
        ):
            raise _Refused
        values: dict[str, Any] = {}
        core: dict[str, Any] = {}
        cache = checks.cache
        known = cache.known
        place = checks.token * _PLACES + at.index  # where: the limits and this container's slot and depth
        facets = self.facets
        for name, facet_raw in items.items():
            facet = known(facet_raw)
            if facet is None:
                facet = cache.add(bytes(facet_raw))
                if facet is None:
                    raise _Refused
            else:
                self.hits += 1
            # a facet that passed every check here under this name is not checked again (one set lookup)
            names = facet.passes.get(place)
            if names is None or name not in names:
                if not _facet_checks(facet, at.slot, name, at.depth, checks):
                    raise _Refused
                facet.passes.setdefault(place, set()).add(name)
            values[name] = facet.value
            core[name] = facet
            facets.append(facet)
        return values, {}, core

    def walk(self, items: Any, shape: _Object) -> Three:
        """An object of the core (as decoded) in its three forms, keys in the order sent."""
        if type(items) is not dict or not shape.required <= items.keys() or not items.keys() <= shape.fields.keys():
            raise _Refused
        payload: dict[str, Any] = {}
        view: dict[str, Any] = {}
        core: dict[str, Any] = {}
        for key, value in items.items():
            kind = shape.fields[key]
            if kind is _STRING:
                if type(value) is not str:
                    raise _Refused
                payload[key] = view[key] = core[key] = value
            elif isinstance(kind, _FacetsAt):
                payload[key], view[key], core[key] = self.container(value, kind)
            elif isinstance(kind, _Object):
                payload[key], view[key], core[key] = self.walk(value, kind)
            else:
                if type(value) is not list:
                    raise _Refused
                done = [self.walk(item, kind.item) for item in value]
                payload[key], view[key], core[key] = [d[0] for d in done], [d[1] for d in done], [d[2] for d in done]
        return payload, view, core


Three = tuple[dict[str, Any], dict[str, Any], dict[str, Any]]  # payload, view, core


def _facet_checks(facet: Facet, slot: Slot, name: str, depth: int, checks: _Checks) -> bool:
    limits = checks.limits
    key = ("limits", slot, name, depth, limits, checks.check_text)
    verdict = facet.verdicts.get(key)
    if verdict is None:
        verdict = within_limits_at(facet.value, depth, limits, checks.check_text) and _names_pass(
            facet.value, slot, name, limits
        )
        facet.verdicts[key] = verdict
    if not verdict:
        return False
    if not checks.validator.fast_slot_base(slot).is_valid(facet.meta):
        return False  # the core schema's check of every facet there (the view holds the container emptied)
    fast = checks.validator.fast_facet(slot, name)
    if fast is None or is_deletion(slot, facet.meta):
        return True  # a custom facet or a deletion marker: the core schema checks only its BaseFacet keys (just done)
    return checks.cache.verdict((slot, name, facet.canonical()), lambda: bool(fast.is_valid(facet.value)))


def _names_pass(value: dict[str, Any], slot: Slot, name: str, limits: Limits) -> bool:
    """The name checks of one facet where the full path runs them: ``parent`` run facets and dataset facets."""
    if slot == "run":
        return not name_problems({"run": {"facets": {name: value}}}, "$", limits)
    if slot == "dataset":
        return not name_problems({"dataset": {"facets": {name: value}}}, "$", limits)
    return True


def _core_names_pass(view: dict[str, Any], limits: Limits) -> bool:
    """``not name_problems(view)`` for a valid core view (its facet containers emptied: the facets' names were
    checked where they sit): its job's and datasets' names and its ``eventTime``. Names far below
    ``max_name_bytes`` are answered here; any other, by ``name_problems``, which says what is wrong."""
    limit = limits.max_name_bytes
    pairs = [view["job"], *view.get("inputs", ()), *view.get("outputs", ())]
    if not all(
        p["namespace"] != "" and p["name"] != "" and (len(p["namespace"]) + len(p["name"]) + 1) * 4 <= limit
        for p in pairs
    ):
        return not name_problems(view, "$", limits)
    try:  # the time axis's check, as name_problems makes it
        from_micros(to_micros(parse_time(view["eventTime"])))
    except (ValueError, OverflowError):
        return False
    return True


def _one(raw: bytes, text: str, checks: _Checks) -> FastEvent:
    """One event (``text``: its stored text, as sent: the body, or the event's own text in a batch's body)."""
    try:
        decoded = _EVENT.decode(raw)
    except (msgspec.DecodeError, RecursionError):  # not the usual event (a wrong type, nested too deep...)
        raise _Refused from None
    return _accepted(decoded, text, checks)


def _accepted(decoded: Any, text: str, checks: _Checks) -> FastEvent:
    """:func:`_one` of an event decoded already."""
    parts = _Parts(checks)
    try:
        payload, view, core = parts.walk(decoded, _RUN_EVENT)
    finally:
        checks.cache.counted(parts.hits, len(parts.facets))
    limits = checks.limits
    if not (
        within_limits_at(view, 0, limits, checks.check_text)
        and checks.validator.fast_core("RUN", view)
        and _core_names_pass(view, limits)
    ):
        raise _Refused
    return FastEvent(payload, text, Decoded(core, tuple(parts.facets)))


_CACHES: PerKey[EventValidator, FacetCache] = PerKey(FacetCache)


def cache_for(validator: EventValidator) -> FacetCache:
    """The process's facet cache of ``validator`` (verdicts hold for the schemas it compiled)."""
    return _CACHES.of(validator)


def fast_accept(
    text: str, validator: EventValidator, limits: Limits, max_events: int, cache: FacetCache, *, batch: bool
) -> list[FastEvent | str] | None:
    """The events of one body, each a :class:`FastEvent` when it is a usual, valid RunEvent (module docstring),
    else its own text (of a batch: the caller checks it the full way); None when the body is not split here
    (one event the fast path does not take, or a batch msgspec does not read or that holds too many events)."""
    sampled = cache.sampled()
    if not sampled and cache.cold():  # before reading the body at all: the full path reads it
        return None
    checks = _checks(validator, limits, len(text) > limits.max_string_length, cache)
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        return None
    if not batch:
        if _unusual_escape(data):
            return None
        try:
            return [_one(data, text, checks)]
        except _Refused:
            return None
    whole = _whole_batch(data, checks, max_events, sampled)
    if whole is not None:
        return whole
    raws = batch_items(data)
    if not raws or len(raws) > max_events:
        return None
    out: list[FastEvent | str] = []
    for raw in raws:
        if not sampled and cache.cold():  # facets stopped repeating (maybe in this body): the full path
            return None
        item = bytes(raw)
        try:
            if _unusual_escape(item):
                raise _Refused
            out.append(_one(item, item.decode("utf-8"), checks))
        except _Refused:
            out.append(item.decode("utf-8"))
    return out


def _whole_batch(data: bytes, checks: _Checks, max_events: int, sampled: bool) -> list[FastEvent | str] | None:
    """:func:`fast_accept`'s answer for a batch of usual events only, decoded in one pass; None when any event is
    not taken (then each is read on its own, and those not taken are the full path's)."""
    if _unusual_escape(data):
        return None
    try:
        items = _CORES.decode(data)
    except (msgspec.DecodeError, RecursionError):
        return None
    cores = items.events if isinstance(items, _CoresEnvelope) else items
    raws = batch_items(data)  # each event's own text, stored as sent
    if not cores or len(cores) > max_events or raws is None or len(raws) != len(cores):
        return None
    out: list[FastEvent | str] = []
    cache = checks.cache
    for decoded, raw in zip(cores, raws, strict=True):
        if not sampled and cache.cold():
            return None
        try:
            out.append(_accepted(decoded, bytes(raw).decode("utf-8"), checks))
        except _Refused:
            return None
    return out


# --- a stored event read again, its repeated facets recognized ---------------------------------------------

_STORED = msgspec.json.Decoder(dict[str, str | dict[str, str | _Container] | list[dict[str, str | _Container]]])


def read_stored(text: str, cache: FacetCache) -> dict[str, Any] | None:
    """The value of an event's stored text — equal to ``loads_text(text)`` — with each facet taken from ``cache``
    (a facet seen before is recognized by its bytes, not parsed again: the projector in a process of its own reads
    the log's text, not the door's parsed events). None when the text is not one this reads the same way (the
    caller parses it whole): not an object of strings, objects of strings and facet containers and lists of
    those; an escaped surrogate or NUL; a facet that is not a plain object (or holds a 20-digit number); or a cache
    that finds few facets repeating (:meth:`FacetCache.cold`: facet by facet then costs more than the whole).
    No check runs here: the text was validated before it was stored."""
    if not cache.sampled() and cache.cold():
        return None
    data = text.encode("utf-8")
    if _unusual_escape(data):
        return None
    try:
        decoded = _STORED.decode(data)
    except (msgspec.DecodeError, RecursionError):
        return None
    try:
        return {key: _stored_value(value, cache) for key, value in decoded.items()}
    except _Refused:
        return None


def _stored_value(value: Any, cache: FacetCache) -> Any:
    if type(value) is str:
        return value
    if type(value) is list:
        return [_stored_value(item, cache) for item in value]
    out: dict[str, Any] = {}
    for key, inner in value.items():
        if type(inner) is str:
            out[key] = inner
        elif type(inner) is dict:
            out[key] = _stored_facets(inner, cache)
        else:
            out[key] = _stored_value(inner, cache)
    return out


def _stored_facets(items: dict[str, msgspec.Raw], cache: FacetCache) -> dict[str, Any]:
    facets: dict[str, Any] = {}
    for name, raw in items.items():
        facet = cache.facet(bytes(raw))
        if facet is None:
            raise _Refused
        facets[name] = facet.value
    return facets
