"""Canonical JSON and content hashes (event ids, version ids), and the projector's parse memo.

``canonical_json`` (and so every id) is the standard library's key-sorted compact form
(``json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)``);
it is a stored contract (an event's id must not change between versions). ``canonical_bytes``
produces exactly those bytes (UTF-8) faster: orjson with ``OPT_SORT_KEYS`` where its output is
provably the same, the standard library for everything else (see :func:`canonical_bytes`).
Plain JSON in and out (derived columns, the observation index) is :mod:`headwater.model.jsontext`.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

import orjson

from headwater.model.jsontext import loads_text


def canonical_json(value: Any) -> str:
    """Key-sorted, compact, UTF-8 JSON: equal values give equal text (the standard library's form)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


# orjson options: sort keys like sort_keys=True; subclasses of str/int/dict/list, datetimes and
# dataclasses are not serialized natively but refused (TypeError), so they go to the standard library.
_ORJSON_CANONICAL = (orjson.OPT_SORT_KEYS | orjson.OPT_PASSTHROUGH_SUBCLASS | orjson.OPT_PASSTHROUGH_DATETIME
                     | orjson.OPT_PASSTHROUGH_DATACLASS)


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


def canonical_bytes(value: Any) -> bytes:
    """``canonical_json(value).encode("utf-8")``, computed with orjson where that is provably identical.

    orjson's key-sorted output equals the standard library's for dicts with ASCII ``str`` keys,
    lists, ASCII strings without escapes, integers, ``true``/``false``: both write those
    byte-for-byte the same (keys in code-point order, which is byte order for ASCII; integers
    in decimal). Everything that *could* differ goes to the standard library:

    - any backslash in the output (a string with ``"``, ``\\`` or a control character: escapes);
    - any non-ASCII byte (non-ASCII text; lone surrogates make orjson fail);
    - ``null`` after a value start (orjson writes NaN and infinities as ``null``; the standard
      library refuses them, and so does this function);
    - anything that looks like a float token (``1e-05`` vs ``0.00001``, ``1e+16``...);
    - a top-level value that is not an object or array;
    - whatever orjson refuses (integers beyond 64 bits, non-``str`` keys, subclasses...).

    False alarms (e.g. ``":null"`` or ``":1.5,"`` inside a string) only cost the slower path.
    ``tests/store/test_canonical.py`` compares both on many odd values.
    """
    try:
        out = orjson.dumps(value, option=_ORJSON_CANONICAL)
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        return canonical_json(value).encode("utf-8")
    if out[:1] not in (b"{", b"["):
        return canonical_json(value).encode("utf-8")
    shape = out.translate(_SHAPE)
    if b"\\" in shape or b":null" in shape or _FLOAT_SHAPE.search(shape) is not None:
        return canonical_json(value).encode("utf-8")
    return out


def content_hash(value: Any) -> str:
    """SHA-256 (hex) of the canonical JSON of ``value``."""
    return hashlib.sha256(canonical_bytes(value)).hexdigest()


def event_id(payload: Any) -> str:
    """An event's stable id: the content hash of its canonical JSON (same event twice, same id)."""
    return content_hash(payload)


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

    def loads(self, text: str | None) -> Any:
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
