"""Events handed to the transport in the form openlineage-python's ``Serde`` serialises fastest — same bytes.

Every openlineage-python transport turns an event into JSON with ``Serde.to_json(event)``:
``attr.asdict`` over every facet object, then ``Serde.remove_nulls_and_enums`` (a walk that rebuilds
every dict and list, dropping nulls, turning enums into their values, dropping empty objects from
lists), then ``json.dumps(..., sort_keys=True)``. On a wide output (a 650-column ``columnLineage``
facet: ~7,500 facet objects) the two walks are ~85 % of the cost.

``Serde.to_dict`` skips ``attr.asdict`` when it is given a ``dict`` (what the spool already replays),
and its walk does not enter tuples, which ``json.dumps`` writes exactly like lists. :func:`plain_event`
therefore converts an event in one walk into **the value ``Serde.to_dict`` would produce, with every
JSON array as a tuple**: no ``None`` anywhere, enums as their values, empty objects dropped from
arrays — a fixed point of ``remove_nulls_and_enums`` whether or not a future version walks tuples too
— so ``Serde.to_json(plain_event(e)) == Serde.to_json(e)`` byte for byte (tested on real Spark events,
through the HTTP, file and console transports and the spool).

Facet objects shared between the events of one batch (START and COMPLETE carry the same datasets)
are converted once (:class:`PlainConverter` remembers them by identity for one batch). Anything the
converter does not reproduce exactly (a set, a date, a non-string key, an unknown type) raises
:class:`Unsupported` inside, and that event goes to the transport unchanged.

A batch whose values hold a non-finite float (``NaN``, ``Infinity``) is left as event objects: ``Serde`` writes
them as it always did, and the plain form stays a value whose JSON every writer agrees on (orjson would write
``null``; :mod:`headwater.capture.batch` sends only plain events).

Only transports that do nothing with the event but ``Serde.to_json`` may be given the plain form —
:func:`headwater.capture.transports.accepts_plain` decides (Kafka, for one, reads the event's job
and parent for its message key).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from enum import Enum
from functools import lru_cache
from math import inf as _INF
from operator import attrgetter
from typing import TYPE_CHECKING, Any, TypeAlias

if TYPE_CHECKING:
    from openlineage.client.event_v2 import RunEvent


_SCALARS = frozenset({str, int, float, bool})
_FINITE_OR_OTHER = frozenset({str, int, bool})  # scalars taken as they are without a look (floats are looked at)

PlainEvent: TypeAlias = dict[str, object]
# what the agent hands to a transport or the spool: an event object, its plain form, or (replayed from the spool) its JSON
Outgoing: TypeAlias = "RunEvent | PlainEvent | str"


class Unsupported(TypeError):
    """A value whose ``Serde`` form this module does not reproduce; its event is sent as it is."""


@lru_cache(maxsize=512)
def _attrs_reader(cls: type) -> tuple[tuple[str, ...], Callable[[Any], tuple[Any, ...]]] | None:
    """(field names, a getter of all their values) of an attrs class, in ``attr.asdict``'s order; None if
    ``cls`` is not an attrs class."""
    fields = getattr(cls, "__attrs_attrs__", None)
    if fields is None:
        return None
    names = tuple(a.name for a in fields)
    if len(names) == 1:
        single = attrgetter(names[0])
        return names, lambda obj: (single(obj),)
    if not names:
        return names, lambda obj: ()
    return names, attrgetter(*names)


class PlainConverter:
    """Converts the events of one batch; remembers converted attrs objects by identity while the batch's
    events (which hold those objects) are alive — use one converter per batch, then drop it."""

    def __init__(self) -> None:
        self._memo: dict[int, dict[str, object]] = {}
        self.nonfinite = False  # a NaN or an infinity was met in this batch

    def event(self, event: RunEvent) -> PlainEvent:
        """``event`` (an attrs event) as plain JSON values with arrays as tuples; raises :class:`Unsupported`."""
        value = self._value(event)
        if type(value) is not dict:
            raise Unsupported(type(event).__name__)
        return dict(value)  # each event gets its own top-level dict

    def _value(self, value: Any) -> Any:
        kind: Any = type(value)
        if kind in _SCALARS:
            if kind is float and (value != value or value in (_INF, -_INF)):
                self.nonfinite = True
            return value
        reader = _attrs_reader(kind)
        if reader is not None:
            return self._object(value, reader)
        if kind is list or kind is tuple:
            return self._array(value)
        if kind is dict:
            return self._mapping(value)
        if isinstance(value, Enum):
            # Serde returns an enum's value as it is (no further walk): only plain JSON scalars are safe
            inner = value.value
            if type(inner) in _SCALARS:
                return inner
            raise Unsupported(f"enum {kind.__name__} with a {type(inner).__name__} value")
        raise Unsupported(kind.__name__)

    def _object(
        self, obj: object, reader: tuple[tuple[str, ...], Callable[[Any], tuple[Any, ...]]]
    ) -> dict[str, object]:
        key = id(obj)
        done = self._memo.get(key)
        if done is not None:
            return done
        names, values = reader
        out = self._fields(zip(names, values(obj)))
        self._memo[key] = out
        return out

    def _fields(self, pairs: Iterable[tuple[str, object]]) -> dict[str, object]:
        """An object's fields or a mapping's items, converted; Serde drops null values."""
        out: dict[str, object] = {}
        for name, item in pairs:
            if item is None:
                continue
            if type(item) not in _FINITE_OR_OTHER:
                # a list straight to _array: the common non-scalar field of a wide facet (inputFields, fields)
                item = self._array(item) if type(item) is list else self._value(item)
                if item is None:
                    continue
            out[name] = item
        return out

    def _array(self, items: Iterable[Any]) -> tuple[Any, ...]:
        out: list[Any] = []
        memo = self._memo
        for item in items:
            if item is None:
                continue
            if type(item) not in _FINITE_OR_OTHER:
                # an object already converted in this batch (a shared Transformation: one per input field of a
                # wide facet) is taken from the memo without the dispatch; ids of the batch's live objects are unique
                done = memo.get(id(item))
                item = done if done is not None else self._value(item)
                if item is None or (type(item) is dict and not item):
                    continue  # Serde drops nulls and empty objects from arrays
            out.append(item)
        return tuple(out)

    def _mapping(self, mapping: dict[Any, Any]) -> dict[str, object]:
        for key in mapping:
            if type(key) is not str:
                raise Unsupported(f"{type(key).__name__} key")
        return self._fields(mapping.items())


def plain_events(events: Iterable[Outgoing]) -> list[Outgoing]:
    """The events of one batch in plain form; an event the converter cannot reproduce exactly is kept as it
    is (the transport's ``Serde`` then serialises it the ordinary way), and so is one already plain (a dict).
    A batch holding a non-finite float is kept as it is entirely (objects shared between its events are
    converted once, so the converter cannot tell which events hold it)."""
    events = list(events)
    converter = PlainConverter()
    out: list[Outgoing] = []
    for event in events:
        if isinstance(event, (dict, str)):
            out.append(event)
            continue
        try:
            out.append(converter.event(event))
        except Unsupported:
            out.append(event)
    if converter.nonfinite:
        return events
    return out
