"""Avro: the writer schema from the container file's header (fastavro; no records decoded)."""

from __future__ import annotations

from typing import Any

from headwater.crawl.limits import Limits
from headwater.crawl.model import Column, FileSchema
from headwater.crawl.types import struct_type

_PRIMITIVES = {"null": "string", "boolean": "boolean", "int": "int", "long": "bigint", "float": "float",
               "double": "double", "bytes": "binary", "string": "string"}
_LOGICAL = {"date": "date", "timestamp-millis": "timestamp", "timestamp-micros": "timestamp",
            "local-timestamp-millis": "timestamp", "local-timestamp-micros": "timestamp", "uuid": "string",
            "time-millis": "string", "time-micros": "string"}


def avro_column(name: str, schema: Any, description: str | None = None) -> Column:
    """An Avro field's schema → :class:`Column` (a union with ``null`` makes it nullable)."""
    nullable = False
    if isinstance(schema, list):
        branches = [b for b in schema if b != "null"]
        nullable = len(branches) < len(schema)
        if len(branches) != 1:
            return Column(name, "string", nullable, description)
        schema = branches[0]
    col = _column(name, schema, description)
    return Column(col.name, col.type, nullable, description, col.fields)


def _column(name: str, schema: Any, description: str | None) -> Column:
    if isinstance(schema, str):
        return Column(name, _PRIMITIVES.get(schema, schema), False, description)
    kind = schema.get("type")
    logical = schema.get("logicalType")
    if logical == "decimal":
        return Column(name, f"decimal({schema.get('precision')},{schema.get('scale', 0)})", False, description)
    if logical in _LOGICAL:
        return Column(name, _LOGICAL[logical], False, description)
    if kind == "record":
        fields = tuple(avro_column(f["name"], f["type"], f.get("doc")) for f in schema.get("fields", []))
        return Column(name, struct_type(fields), False, description, fields)
    if kind == "array":
        element = avro_column("element", schema["items"])
        return Column(name, f"array<{element.type}>", False, description, element.fields)
    if kind == "map":
        return Column(name, f"map<string,{avro_column('value', schema['values']).type}>", False, description)
    if kind == "enum":
        return Column(name, "string", False, description)
    if kind == "fixed":
        return Column(name, "binary", False, description)
    return _column(name, kind, description) if isinstance(kind, str) else Column(name, "string", False, description)


def infer(fs: Any, path: str, limits: Limits) -> FileSchema:
    import fastavro

    with fs.open(path, "rb") as handle:
        schema = fastavro.reader(handle).writer_schema
    if not isinstance(schema, dict) or schema.get("type") != "record":
        return FileSchema((avro_column("value", schema),))
    return FileSchema(tuple(avro_column(f["name"], f["type"], f.get("doc")) for f in schema.get("fields", [])))
