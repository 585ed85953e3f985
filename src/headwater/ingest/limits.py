"""What an event may hold, checked before it is acknowledged: structure limits and storable text.

Pure functions over parsed JSON. Every problem names its JSON path and, for a limit, the setting
that sets it, so a producer knows what to change:

- **structure** (:func:`structure_problems`): nesting depth (``max_json_depth``), string length
  (``max_string_length``), array length (``max_array_length``), keys per object
  (``max_object_keys``); numbers must be finite (``1e999`` reads as infinity, which JSON cannot
  write back and RFC 8785 cannot hash); text must not hold NUL (U+0000), which PostgreSQL's text
  cannot store — refused on every database alike, so an event accepted on SQLite is accepted on
  PostgreSQL too.
- **names** (:func:`name_problems`): the names the graph indexes — a dataset's or job's namespace
  and name (events, ``inputs``/``outputs``, ``parent``, column-lineage sources), schema field paths
  and column-lineage field names — must not be empty (namespace and name) and must fit
  ``max_name_bytes`` UTF-8 bytes, so every event the log accepts can be projected on PostgreSQL,
  whose B-tree index rows hold at most about 2,700 bytes.

The walk is iterative (no recursion, whatever the depth) and stops descending below the depth limit.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import jsonschema_rs

from headwater.model.jsontypes import JSONMapping, JSONValue
from headwater.model.times import from_micros, parse_time, to_micros
from headwater.spec import Problem
from headwater.spec.validator import FastValidator


@dataclass(frozen=True)
class Limits:
    """The ingest limits, one per setting of the same name (docs/settings.md)."""

    max_json_depth: int = 64
    max_string_length: int = 1_048_576
    max_array_length: int = 100_000
    max_object_keys: int = 10_000
    max_name_bytes: int = 512

    @classmethod
    def from_settings(cls, settings: object) -> Limits:
        """The limits named as the settings name them (any object with those attributes: the server's Settings)."""
        return cls(**{name: int(getattr(settings, name)) for name in cls.__dataclass_fields__})


MAX_PROBLEMS = 100  # as the validator: a body full of mistakes is described by its first hundred


def key_path(where: str, key: str) -> str:
    """``where.key``, or ``where["key"]`` when the key is not an identifier (as the validator writes paths); a
    key holding a lone UTF-16 surrogate is written with JSON escapes (``["\\ud800"]``), so every path is text
    an answer can hold."""
    if key.isidentifier():
        return f"{where}.{key}"
    lone = any("\ud800" <= c <= "\udfff" for c in key)
    return f"{where}[{json.dumps(key, ensure_ascii=lone)}]"


_Entry = tuple[JSONValue, int, "_Entry | None", "str | int"]
"""A value met by the structure walk: (value, depth, the entry it is in, its key or index there)."""


def _path(entry: _Entry | None) -> str:
    parts: list[str | int] = []
    while entry is not None:
        _value, _depth, parent, step = entry
        parts.append(step)
        entry = parent
    root, *rest = reversed(parts)
    path = str(root)  # the walk starts at a path (``$``, ``$[3]``)
    for step in rest:
        path = f"{path}[{step}]" if isinstance(step, int) else key_path(path, step)
    return path


def _shown(text: str) -> str:
    return text if len(text) <= 40 else f"{text[:40]}..."


@functools.cache
def _structure_validator(
    max_depth: int, max_keys: int, max_items: int, max_string: int | None, nul: bool
) -> FastValidator:
    """A compiled JSON Schema that holds exactly when no container is nested ``max_depth`` deep or deeper (the
    root is at depth 0), no object has more than ``max_keys`` keys and no array more than ``max_items`` items,
    (``max_string`` given) no string or key is longer than ``max_string`` characters, and (``nul``) none holds
    NUL: one definition per depth. jsonschema-rs answers in Rust (~33 µs for a 24 kB Spark event; the walk below takes
    ~190 µs in Python); a non-finite number is not valid there either."""
    text: dict[str, Any] = {"type": "string"}
    if max_string is not None:
        text = {"type": "string", "maxLength": max_string}
    if nul:
        text = {**text, "not": {"pattern": "\u0000"}}  # a regex per string: only when the JSON text escapes a NUL
    scalar = {"anyOf": [text, {"type": ["number", "boolean", "null"]}]}
    defs: dict[str, Any] = {f"d{max_depth}": scalar}
    for depth in range(max_depth - 1, -1, -1):
        deeper = {"$ref": f"#/$defs/d{depth + 1}"}
        obj: dict[str, Any] = {"type": "object", "maxProperties": max_keys, "additionalProperties": deeper}
        if max_string is not None:
            obj["propertyNames"] = text
        defs[f"d{depth}"] = {"anyOf": [scalar, obj, {"type": "array", "maxItems": max_items, "items": deeper}]}
    return jsonschema_rs.Draft202012Validator({"$defs": defs, "$ref": "#/$defs/d0"})


def within_structure_limits(value: JSONValue, limits: Limits, check_text: bool = False, nul: bool = True) -> bool:
    """True when ``value`` certainly breaks no structure limit (depth, keys, items, finite numbers; with
    ``check_text`` the text rules too: length, and NUL unless ``nul`` is False because the JSON text holds no
    ``\\u0000`` escape); False when it may (then :func:`structure_problems` walks it and says where)."""
    if not isinstance(value, (dict, list)):
        return False  # a bare value (not an event): the walk looks at it, strings included
    try:
        validator = _structure_validator(
            limits.max_json_depth,
            limits.max_object_keys,
            limits.max_array_length,
            limits.max_string_length if check_text else None,
            check_text and nul,
        )
        return bool(validator.is_valid(value))
    except (ValueError, TypeError, OverflowError, RecursionError):  # what it cannot convert: the walk decides
        return False


def within_limits_at(value: JSONValue, depth: int, limits: Limits, check_text: bool) -> bool:
    """:func:`within_structure_limits` for a part of an event that sits ``depth`` levels below its root (a facet):
    True when the part certainly breaks no limit there (the text holds no NUL escape: the caller checked)."""
    if depth >= limits.max_json_depth or not isinstance(value, (dict, list)):
        return False
    try:  # within_structure_limits with the depth left (a Limits copy per call cost more than the check)
        validator = _structure_validator(
            limits.max_json_depth - depth,
            limits.max_object_keys,
            limits.max_array_length,
            limits.max_string_length if check_text else None,
            False,
        )
        return bool(validator.is_valid(value))
    except (ValueError, TypeError, OverflowError, RecursionError):
        return False


def structure_problems(
    value: JSONValue, root: str, limits: Limits, check_text: bool = True, *, nul: bool = True
) -> list[Problem]:
    """Every place ``value`` exceeds a structure limit or holds what no store can keep (NUL, a non-finite number).

    ``check_text=False`` skips the strings (length, NUL): the caller knows from the JSON text that no
    string can be too long (the text is shorter than the limit) and none holds NUL (JSON text can
    only carry NUL as a ``\\u0000`` escape) — see :func:`text_needs_checking`. A value that
    :func:`within_structure_limits` finds within the limits is not walked (``nul=False``: the JSON text
    holds no NUL escape, so the fast path need not look for NUL).
    """
    if within_structure_limits(value, limits, check_text, nul):
        return []
    problems: list[Problem] = []
    # entries: (value, depth, parent entry, step); paths are written only for problems
    stack: list[_Entry] = [(value, 0, None, root)]
    max_depth, max_string = limits.max_json_depth, limits.max_string_length
    walked = (str, dict, list, float) if check_text else (dict, list, float)
    while stack and len(problems) < MAX_PROBLEMS:
        entry = stack.pop()
        item, depth = entry[0], entry[1]
        kind = type(item)
        if kind is str:
            if len(item) > max_string:
                problems.append(
                    Problem(
                        _path(entry),
                        f"text of {len(item)} characters is longer than the limit of "
                        f"{max_string} (setting max_string_length)",
                    )
                )
            if "\x00" in item:
                problems.append(
                    Problem(_path(entry), "text holds a NUL character (U+0000), which cannot be stored; remove it")
                )
        elif kind is float:
            if not math.isfinite(item):
                problems.append(
                    Problem(
                        _path(entry),
                        "number is out of range (beyond a 64-bit float: JSON cannot represent it); send it as a string",
                    )
                )
        elif kind is dict or kind is list:
            if depth >= max_depth:
                problems.append(
                    Problem(
                        _path(entry),
                        f"JSON is nested deeper than the limit of {max_depth} levels (setting max_json_depth)",
                    )
                )
                continue
            if kind is dict:
                if len(item) > limits.max_object_keys:
                    problems.append(
                        Problem(
                            _path(entry),
                            f"object has {len(item)} keys; the limit is "
                            f"{limits.max_object_keys} (setting max_object_keys)",
                        )
                    )
                    continue
                for key, child in item.items():
                    if check_text and (len(key) > max_string or "\x00" in key):
                        problems.append(
                            Problem(
                                f"{_path(entry)} (a key)",
                                f"key {_shown(key)!r} is longer than {max_string} characters (setting "
                                "max_string_length) or holds a NUL character (U+0000)",
                            )
                        )
                        continue
                    if type(child) in walked:
                        stack.append((child, depth + 1, entry, key))
            else:
                if len(item) > limits.max_array_length:
                    problems.append(
                        Problem(
                            _path(entry),
                            f"array has {len(item)} items; the limit is "
                            f"{limits.max_array_length} (setting max_array_length)",
                        )
                    )
                    continue
                for i, child in enumerate(item):
                    if type(child) in walked:
                        stack.append((child, depth + 1, entry, i))
    return sorted(problems, key=lambda p: p.path)


_NUL_ESCAPE = re.compile(r"\\u0000", re.IGNORECASE)


def nul_escaped(text: str) -> bool:
    """Whether JSON ``text`` may hold a NUL character (the only way JSON text carries one is ``\\u0000``)."""
    return _NUL_ESCAPE.search(text) is not None


def text_needs_checking(text: str, limits: Limits) -> bool:
    """Whether the strings parsed from JSON ``text`` may break a text rule (too long, NUL)."""
    return len(text) > limits.max_string_length or _NUL_ESCAPE.search(text) is not None


# --- the names the graph indexes ---------------------------------------------------------------


def _map(value: JSONValue) -> JSONMapping:
    return value if isinstance(value, dict) else {}


def _list(value: JSONValue) -> list[JSONValue]:
    return value if isinstance(value, list) else []


def _named(event: JSONMapping, root: str) -> Iterator[tuple[str, JSONMapping]]:
    """(path, object with ``namespace`` and ``name``) for every dataset or job reference in the event."""
    if "job" in event:
        yield f"{root}.job", _map(event["job"])
    if "dataset" in event:
        yield f"{root}.dataset", _map(event["dataset"])
    parent = _map(_map(_map(event.get("run")).get("facets")).get("parent"))
    if "job" in parent:
        yield f"{root}.run.facets.parent.job", _map(parent["job"])
    for io in ("inputs", "outputs"):
        for i, ds in enumerate(_list(event.get(io))):
            yield f"{root}.{io}[{i}]", _map(ds)


def _datasets(event: JSONMapping, root: str) -> Iterator[tuple[str, JSONMapping]]:
    if "dataset" in event:
        yield f"{root}.dataset", _map(event["dataset"])
    for io in ("inputs", "outputs"):
        for i, ds in enumerate(_list(event.get(io))):
            yield f"{root}.{io}[{i}]", _map(ds)


def _schema_field_paths(fields: JSONValue, where: str, prefix: str = "") -> Iterator[tuple[str, int, str, str]]:
    """(where the list is, index, dotted path, own name) of every named field, nested ones included."""
    stack = [(fields, where, prefix)]
    while stack:
        items, at, pre = stack.pop()
        for i, f in enumerate(_list(items)):
            f = _map(f)
            name = f.get("name")
            if isinstance(name, str):
                yield at, i, pre + name, name
                if f.get("fields"):
                    stack.append((f["fields"], f"{at}[{i}].fields", f"{pre}{name}."))


def _fields_fine(fields: JSONValue, short: int, prefix: int = 0) -> bool:
    """True when no named field in ``fields`` (a schema facet's list, nested ones included) can be a name
    problem: each is an object whose name is a non-empty string of at most ``short`` characters with its
    parents' dotted path (``prefix`` characters of it). False says only "look closer" (the walk decides)."""
    if type(fields) is not list:
        return False
    for f in fields:
        if type(f) is not dict:
            return False
        name = f.get("name")
        if type(name) is not str or name == "" or prefix + len(name) > short:
            return False
        inner = f.get("fields")
        if inner and not _fields_fine(inner, short, prefix + len(name) + 1):
            return False
    return True


def _lineage_fine(fields: JSONValue, short: int) -> bool:
    """True when no output field of a column-lineage facet's ``fields`` and none of their inputs can be a name
    problem; False says only "look closer" (the walk decides, output field by output field)."""
    return type(fields) is dict and all(_lineage_field_fine(out, spec, short) for out, spec in fields.items())


def _lineage_field_fine(out_field: str, spec: JSONValue, short: int) -> bool:
    """True when neither one output field of column lineage nor its inputs can be a name problem: non-empty
    names, each short enough (a namespace and name together, with the ``:`` between them)."""
    if out_field == "" or len(out_field) > short or type(spec) is not dict:
        return False
    inputs = spec.get("inputFields")
    if inputs is None:
        return True
    if type(inputs) is not list:
        return False
    for item in inputs:
        if type(item) is not dict:
            return False
        namespace, name, field = item.get("namespace"), item.get("name"), item.get("field")
        if (
            isinstance(namespace, str)
            and isinstance(name, str)
            and (namespace == "" or name == "" or len(namespace) + len(name) >= short)
        ):
            return False
        if type(field) is str and (field == "" or len(field) > short):
            return False
    return True


def _too_long(text: str, limit: int) -> int | None:
    if len(text) * 4 <= limit:  # never too long: a character is at most 4 bytes
        return None
    size = len(text.encode("utf-8", "surrogatepass"))
    return size if size > limit else None


def name_problems(event: JSONValue, root: str, limits: Limits) -> list[Problem]:
    """Names that are empty or too long to index (see the module's docstring), and an ``eventTime`` outside
    the store's time axis (a valid RFC 3339 time whose UTC form falls before year 1 or after 9999);
    ``event`` passed the schema."""
    if not isinstance(event, dict):
        return []
    limit = limits.max_name_bytes
    problems: list[Problem] = []

    def check_pair(at: str, obj: JSONMapping) -> None:
        namespace, name = obj.get("namespace"), obj.get("name")
        if not isinstance(namespace, str) or not isinstance(name, str):
            return
        for key, text in (("namespace", namespace), ("name", name)):
            if text == "":
                problems.append(Problem(f"{at}.{key}", f"{key} is empty: a dataset or job needs a {key}"))
        size = _too_long(f"{namespace}:{name}", limit)
        if size is not None:
            problems.append(
                Problem(
                    f"{at}.name",
                    f"namespace and name take {size} bytes (UTF-8); the limit is {limit} (setting max_name_bytes)",
                )
            )

    def check_field(at: str, text: str, own: str | None = None) -> None:
        own = text if own is None else own
        if own == "":  # "" stands for the whole dataset in column lineage
            problems.append(Problem(at, "field name is empty: a field needs a name"))
        size = _too_long(text, limit)
        if size is not None:
            problems.append(
                Problem(at, f"field name takes {size} bytes (UTF-8); the limit is {limit} (setting max_name_bytes)")
            )

    when = event.get("eventTime")
    if isinstance(when, str):
        try:
            from_micros(to_micros(parse_time(when)))
        except (ValueError, OverflowError):
            problems.append(
                Problem(
                    f"{root}.eventTime", "time is outside the range the store keeps (0001-01-01 to 9999-12-31 in UTC)"
                )
            )
    short = limit // 4  # a text of at most this many characters is never too long (4 bytes a character at most)

    def fine(text: str) -> bool:  # no problem for check_field: its path need not be written
        return text != "" and len(text) <= short

    for at, obj in _named(event, root):
        check_pair(at, obj)
    for at, ds in _datasets(event, root):
        facets = _map(ds.get("facets"))
        fields = _map(facets.get("schema")).get("fields")
        if fields and not _fields_fine(fields, short):  # the usual schema: nothing to say, no path written
            for where, i, dotted, own in _schema_field_paths(fields, f"{at}.facets.schema.fields"):
                if not (fine(own) and len(dotted) <= short):
                    check_field(f"{where}[{i}].name", dotted, own)
        lineage = _map(facets.get("columnLineage"))
        lineage_fields = lineage.get("fields")
        for out_field, spec in ({} if _lineage_fine(lineage_fields, short) else _map(lineage_fields)).items():
            if _lineage_field_fine(out_field, spec, short):
                continue  # the usual case: nothing to say, no path written
            inputs = _list(_map(spec).get("inputFields"))
            here = key_path(f"{at}.facets.columnLineage.fields", out_field)
            check_field(f"{here} (a key)", out_field)
            for i, item in enumerate(inputs):
                item = _map(item)
                check_pair(f"{here}.inputFields[{i}]", item)
                if isinstance(item.get("field"), str):
                    check_field(f"{here}.inputFields[{i}].field", item["field"])
        for i, item in enumerate(_list(lineage.get("dataset"))):
            item = _map(item)
            check_pair(f"{at}.facets.columnLineage.dataset[{i}]", item)
            if isinstance(item.get("field"), str):
                check_field(f"{at}.facets.columnLineage.dataset[{i}].field", item["field"])
    return sorted(problems, key=lambda p: p.path)[:MAX_PROBLEMS]
