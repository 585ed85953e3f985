"""Canonical JSON and content hashes (event ids, version ids), and the projector's parse memo.

**The id scheme** (docs/store.md, "Event ids"): an event's id is the SHA-256 (hex) of its canonical
JSON, and the canonical form is **RFC 8785, the JSON Canonicalization Scheme** (JCS): object keys
sorted by their UTF-16 code units, no whitespace, strings with JSON's minimal escapes (quote,
backslash, ``\\b \\f \\n \\r \\t``, other control characters as ``\\u00xx``) and every other
character as UTF-8, numbers as ECMAScript writes them (``1``, ``1e+21``, ``1e-7``, ``0.1``). One
documented extension: an integer beyond JCS's safe range (±(2^53 − 1)) is written in full decimal
instead of being refused (JCS would have to round it, and two different events could then share an
id). Any JCS implementation (Java, Go, JavaScript ...) recomputes the same ids.

:func:`canonical_bytes` computes those bytes fast: orjson with sorted keys where its output provably
*is* the JCS form (ASCII keys and strings without escapes, integers in the safe range, no floats),
the ``rfc8785`` library for everything else. A value JCS cannot represent (a lone surrogate, NaN)
raises :class:`NotCanonical`. Plain JSON in and out is :mod:`headwater.model.jsontext`.
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from typing import Any

import orjson
import rfc8785

from headwater.ingest.decode import Decoded, Facet
from headwater.model.jsontext import loads_text
from headwater.model.jsontypes import JSONValue

MAX_SAFE_INTEGER = 2**53 - 1  # JCS's integers: the ones an IEEE 754 double holds exactly


class NotCanonical(ValueError):
    """A value with no canonical JSON form (a lone surrogate in a string, NaN or an infinity)."""


def _plain(value: JSONValue) -> JSONValue:
    """Subclasses of JSON's types (an IntEnum, a str subclass) and tuples as the plain values they stand for."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, str):
        return str(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise NotCanonical(f"object keys must be strings, got {sorted({type(k).__name__ for k in value})}")
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    raise NotCanonical(f"{type(value).__name__} is not a JSON value")


def jcs_bytes(value: JSONValue) -> bytes:
    """The RFC 8785 form of ``value`` (the ``rfc8785`` library), integers beyond the safe range in full."""
    value = _plain(value)
    try:
        return rfc8785.dumps(value)
    except rfc8785.IntegerDomainError:
        pass
    except rfc8785.CanonicalizationError as exc:
        raise NotCanonical(f"no canonical JSON form: {exc}") from None
    # the extension: each big integer stands in as a unique string, then its digits replace that string
    token = uuid.uuid4().hex
    numbers: dict[str, int] = {}

    def stand_in(v: JSONValue) -> JSONValue:
        if isinstance(v, int) and not isinstance(v, bool) and abs(v) > MAX_SAFE_INTEGER:
            key = f"{token}-{len(numbers)}"
            numbers[key] = v
            return key
        if isinstance(v, dict):
            return {k: stand_in(x) for k, x in v.items()}
        if isinstance(v, list):
            return [stand_in(x) for x in v]
        return v

    try:
        out = rfc8785.dumps(stand_in(value))
    except rfc8785.CanonicalizationError as exc:
        raise NotCanonical(f"no canonical JSON form: {exc}") from None
    for key, number in numbers.items():
        out = out.replace(f'"{key}"'.encode(), str(number).encode(), 1)
    return out


# orjson options: sort keys; subclasses of str/int/dict/list, datetimes and dataclasses are not
# serialized natively but refused (TypeError), so they go to the JCS library.
_ORJSON_CANONICAL = (
    orjson.OPT_SORT_KEYS
    | orjson.OPT_PASSTHROUGH_SUBCLASS
    | orjson.OPT_PASSTHROUGH_DATETIME
    | orjson.OPT_PASSTHROUGH_DATACLASS
)
# 16 digits in a row: an integer that may lie beyond the safe range (2^53 has 16 digits)
_SIXTEEN_DIGITS = b"0" * 16


def _shape_table() -> bytes:
    """A byte map that turns orjson output into a 'shape' where the few risky tokens are substrings.

    ``,`` and ``[`` (which, like ``:``, can precede a value) become ``:``; ``}`` and ``]`` (which,
    like ``,``, can end one) become ``,``; digits become ``0``; ``e``/``E`` become ``.``; every
    non-ASCII byte becomes a backslash.
    """
    table = bytearray(range(256))
    for ch in b",[":
        table[ch] = ord(":")
    for ch in b"}]":
        table[ch] = ord(",")
    for ch in b"0123456789":
        table[ch] = ord("0")
    for ch in b"eE":
        table[ch] = ord(".")
    for ch in range(0x80, 0x100):
        table[ch] = ord("\\")
    return bytes(table)


_SHAPE = _shape_table()
# A float token in the shape: after a value start (":", from ":", "," or "["), optional "-",
# digits, then "." (a fraction or an exponent), ending before a value end (":" from ",", or ","
# from "}" and "]"). Inside a string the same bytes are a false alarm only (the standard
# library then answers).
_FLOAT_SHAPE = re.compile(rb":-?0+\.[-+.0]*[:,]")


def canonical_bytes(value: JSONValue, *, parsed: bool = False) -> bytes:
    """The RFC 8785 bytes of ``value`` (see the module docstring), with orjson where that is provably the same.

    orjson's key-sorted output *is* the JCS form for objects with ASCII keys (UTF-16 order is byte
    order there), lists, ASCII strings without escapes, integers in the safe range,
    ``true``/``false``. Everything that *could* differ goes to the ``rfc8785`` library:

    - any backslash in the output (a string with a quote, a backslash or a control character);
    - any non-ASCII byte (non-ASCII keys sort by UTF-16 units; lone surrogates make orjson fail);
    - ``null`` after a value start when the value holds a NaN or an infinity (orjson writes them as
      ``null``; JCS refuses them): checked with the standard library's C encoder, which refuses them;
    - anything that looks like a float token (``1.0`` is ``1`` in JCS, ``1e16`` is ``10000000000000000``);
    - a run of 16 digits (an integer that may be beyond the safe range);
    - a top-level value that is not an object or array;
    - whatever orjson refuses (integers beyond 64 bits, non-``str`` keys, subclasses...).

    False alarms (e.g. ``":null"`` or ``":1.5,"`` inside a string) only cost the slower path.
    ``tests/store/test_canonical.py`` compares both on many odd values.

    ``parsed``: the caller knows ``value`` was read from JSON text (the derivation's content, from the
    stored events), which has no NaN or infinity: the check for them is skipped (it costs as much as
    encoding the value again, and derived content has a ``null`` wherever a field has no description).
    """
    try:
        out = orjson.dumps(value, option=_ORJSON_CANONICAL)
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        return jcs_bytes(value)
    if out[:1] not in (b"{", b"["):
        return jcs_bytes(value)
    shape = out.translate(_SHAPE)
    if b"\\" in shape or _SIXTEEN_DIGITS in shape or _FLOAT_SHAPE.search(shape) is not None:
        return jcs_bytes(value)
    if not parsed and b":null" in shape and not _finite(value):
        return jcs_bytes(value)  # raises NotCanonical: NaN and infinities have no JSON form
    return out


def _finite(value: JSONValue) -> bool:
    """No NaN or infinity anywhere in ``value``: orjson writes those as ``null``, like a real ``None``
    (common in derived content: a field with no type). The standard library's C encoder refuses them."""
    try:
        json.dumps(value, allow_nan=False, check_circular=False)
    except ValueError:
        return False
    return True


def canonical_json(value: JSONValue) -> str:
    """The canonical form as text."""
    return canonical_bytes(value).decode("utf-8")


def content_hash(value: JSONValue, *, parsed: bool = False) -> str:
    """SHA-256 (hex) of the canonical JSON of ``value`` (``parsed``: as in :func:`canonical_bytes`)."""
    return hashlib.sha256(canonical_bytes(value, parsed=parsed)).hexdigest()


# A string JCS writes as it is: printable ASCII without a quote or a backslash.
_PLAIN_TEXT = re.compile(r"[\x20\x21\x23-\x5b\x5d-\x7e]*\Z")


def version_id(node: str, time: int, content: JSONValue) -> str:
    """A derived version's id: ``content_hash([node, time, content_hash(content)])[:40]`` (``content`` read from
    JSON text, as :func:`content_hash`'s ``parsed``). The outer list's canonical bytes are written directly when
    they are plain (an ASCII node id without escapes, an integer time: JCS writes it in decimal, and so does the
    extension beyond the safe range) instead of through the JCS library, which a 16-digit microsecond time sends
    every version to; the same bytes, so the same ids."""
    inner = content_hash(content, parsed=True)
    if type(time) is int and _PLAIN_TEXT.match(node) is not None:
        outer = b'["%s",%d,"%s"]' % (node.encode("ascii"), time, inner.encode("ascii"))
        return hashlib.sha256(outer).hexdigest()[:40]
    return content_hash([node, time, inner])[:40]


def event_id(payload: JSONValue) -> str:
    """An event's stable id: the content hash of its canonical JSON (same event twice, same id)."""
    return content_hash(payload)


def _facet_jcs(facet: Facet) -> bytes:
    """A distinct facet's RFC 8785 bytes, computed once (kept on the shared facet)."""
    if facet.jcs is None:
        sorted_bytes = facet.canonical()
        facet.jcs = sorted_bytes if _plain_shape(sorted_bytes) else jcs_bytes(facet.value)
    return facet.jcs


def _plain_shape(out: bytes) -> bool:
    """Whether orjson's key-sorted output of a value read from JSON text is its RFC 8785 form (the checks of
    :func:`canonical_bytes`; a value read from text holds no NaN or infinity)."""
    if out[:1] not in (b"{", b"["):
        return False
    shape = out.translate(_SHAPE)
    return b"\\" not in shape and _SIXTEEN_DIGITS not in shape and _FLOAT_SHAPE.search(shape) is None


def _empty(_: Facet) -> orjson.Fragment:
    return _EMPTY


_EMPTY = orjson.Fragment(b"{}")


def decoded_event_id(decoded: Decoded) -> str:
    """:func:`event_id` of an event the ingest fast path decoded, with each distinct facet's canonical bytes
    computed once: RFC 8785 is recursive, so the event's form is its core's, keys sorted, with each facet's own
    canonical bytes in its place. The core's part is checked as :func:`canonical_bytes` checks the whole (with
    each facet an empty object there); when it is not plainly canonical the whole event goes the usual way."""
    core = decoded.core
    skeleton = orjson.dumps(core, default=_empty, option=_ORJSON_CANONICAL)
    if not _plain_shape(skeleton):
        return event_id(_payload(core))
    out = orjson.dumps(core, default=_fragment, option=_ORJSON_CANONICAL)
    return hashlib.sha256(out).hexdigest()


def _fragment(facet: Facet) -> orjson.Fragment:
    return orjson.Fragment(_facet_jcs(facet))


def _payload(value: Any) -> Any:
    """The event's value (each :class:`Facet` as its value)."""
    if isinstance(value, Facet):
        return value.value
    if isinstance(value, dict):
        return {k: _payload(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_payload(v) for v in value]
    return value


_MISSING = object()


class JsonMemo:
    """Parses JSON text like :func:`loads_text`, remembering the answers for repeated texts (bounded, LRU).

    The projector reads the same stored JSON again and again (a hot job's open version with its
    column lineage, a dataset's open version with its 50 fields, a run's START observation when
    its COMPLETE arrives): equal text gives an equal value, so the parse is done once. Answers are
    shared: callers must not mutate them (the derivation copies what it changes). Texts shorter
    than ``min_length`` are parsed every time (cheap). Owned by one projector thread.
    """

    def __init__(self, size: int = 512, min_length: int = 256) -> None:
        self.size = size
        self.min_length = min_length
        self._answers: dict[str, Any] = {}

    def __len__(self) -> int:
        """How many parsed texts are remembered (at most ``size``)."""
        return len(self._answers)

    def loads(self, text: str | None) -> JSONValue:
        if text is None:
            return None
        if len(text) < self.min_length:
            return loads_text(text)
        answers = self._answers
        found = answers.pop(text, _MISSING)
        if found is _MISSING:
            found = loads_text(text)
            if len(answers) >= self.size:
                del answers[next(iter(answers))]  # the least recently used
        answers[text] = found
        return found
