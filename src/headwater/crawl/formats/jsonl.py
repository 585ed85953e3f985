"""JSON lines and JSON arrays: nested objects become struct fields, arrays array types."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from headwater.model.jsontypes import JSONObject, JSONValue

if TYPE_CHECKING:
    from fsspec import AbstractFileSystem

from headwater.crawl.formats.sample import read_sample
from headwater.crawl.limits import Limits
from headwater.crawl.model import Column, FileSchema
from headwater.crawl.types import merge_column, merge_columns, struct_type


def value_column(name: str, value: JSONValue) -> Column:
    """The column one JSON value makes (``null`` is a placeholder type, widened by any other)."""
    if value is None:
        return Column(name, "null", True)
    if isinstance(value, bool):
        return Column(name, "boolean", False)
    if isinstance(value, int):
        return Column(name, "bigint" if -(2**63) <= value < 2**63 else "double", False)
    if isinstance(value, float):
        return Column(name, "double", False)
    if isinstance(value, str):
        return Column(name, "string", False)
    if isinstance(value, dict):
        fields = object_columns(value)
        return Column(name, struct_type(fields), False, None, fields)
    if isinstance(value, list):
        element: Column | None = None
        for item in value:
            col = value_column("element", item)
            element = col if element is None else merge_column(element, col)
        if element is None:
            return Column(name, "array<null>", False)
        return Column(name, f"array<{element.type}>", False, None, element.fields)
    return Column(name, "string", False)


def object_columns(obj: JSONObject) -> tuple[Column, ...]:
    return tuple(value_column(str(k), v) for k, v in obj.items())


def finish(col: Column) -> Column:
    """Types still ``null`` after the sample (only nulls, empty arrays) become ``string``."""
    fields = tuple(finish(f) for f in col.fields)
    type_ = col.type
    if type_ == "null":
        type_ = "string"
    elif fields and type_.startswith("struct<"):
        type_ = struct_type(fields)
    elif fields and type_.startswith("array<struct<"):
        type_ = f"array<{struct_type(fields)}>"
    else:
        while "array<null>" in type_:
            type_ = type_.replace("array<null>", "array<string>")
    return Column(col.name, type_, col.nullable or col.type == "null", col.description, fields)


def _array_items(text: str, limit: int, truncated: bool) -> list[JSONValue]:
    decoder = json.JSONDecoder()
    pos = text.index("[") + 1
    items: list[Any] = []
    while len(items) < limit:
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        if pos >= len(text) or text[pos] == "]":
            break
        try:
            item, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            if truncated:
                break  # the sample ended inside this element
            raise ValueError(f"invalid JSON at character {exc.pos}: {exc.msg}") from None
        items.append(item)
    return items


def _lines(text: str, limit: int, truncated: bool) -> list[JSONValue]:
    items: list[Any] = []
    lines = text.splitlines()
    for number, line in enumerate(lines, 1):
        if len(items) >= limit:
            break
        if not line.strip():
            continue
        try:
            items.append(json.loads(line))
        except json.JSONDecodeError as exc:
            if truncated and number == len(lines):
                break
            raise ValueError(f"line {number}: invalid JSON ({exc.msg})") from None
    return items


def rows_columns(rows: Sequence[JSONValue]) -> tuple[Column, ...]:
    objects = [r if isinstance(r, dict) else {"value": r} for r in rows]
    return tuple(finish(c) for c in merge_columns(object_columns(o) for o in objects))


def infer(fs: AbstractFileSystem, path: str, limits: Limits) -> FileSchema:
    text, truncated = read_sample(fs, path, limits)
    stripped = text.lstrip()
    if not stripped:
        raise ValueError("empty file")
    if stripped.startswith("["):
        rows = _array_items(text, limits.sample_rows, truncated)
    else:
        rows = _lines(text, limits.sample_rows, truncated)
    if not rows:
        raise ValueError("no JSON records in the sample")
    return FileSchema(rows_columns(rows))
