"""Avro: the writer schema from the container file's header (fastavro) and the row count from the blocks'
headers (each block starts with its record count and byte size: the data is skipped, never decoded)."""

from __future__ import annotations

from typing import IO, TYPE_CHECKING

from headwater.model.jsontypes import JSONValue

if TYPE_CHECKING:
    from fsspec import AbstractFileSystem

from headwater.crawl.limits import Limits
from headwater.crawl.model import Column, FileSchema
from headwater.crawl.types import struct_type

_PRIMITIVES = {
    "null": "string",
    "boolean": "boolean",
    "int": "int",
    "long": "bigint",
    "float": "float",
    "double": "double",
    "bytes": "binary",
    "string": "string",
}
_LOGICAL = {
    "date": "date",
    "timestamp-millis": "timestamp",
    "timestamp-micros": "timestamp",
    "local-timestamp-millis": "timestamp",
    "local-timestamp-micros": "timestamp",
    "uuid": "string",
    "time-millis": "string",
    "time-micros": "string",
}


def avro_column(name: str, schema: JSONValue, description: str | None = None) -> Column:
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


def _column(name: str, schema: JSONValue, description: str | None) -> Column:
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


MAX_BLOCKS = 100_000  # blocks counted per file; a file with more gives no row count (each block is a seek)


def _long(handle: IO[bytes]) -> int | None:
    """One zig-zag varint (Avro ``long``), or None at the end of the file."""
    shift = result = 0
    while True:
        byte = handle.read(1)
        if not byte:
            if shift:
                raise ValueError("truncated block header")
            return None
        result |= (byte[0] & 0x7F) << shift
        if not byte[0] & 0x80:
            return int((result >> 1) ^ -(result & 1))
        shift += 7
        if shift > 63:
            raise ValueError("invalid block header")


def count_records(handle: IO[bytes], sync: bytes, size: int | None = None) -> int | None:
    """Records in the blocks from ``handle``'s position (just after the header), from each block's count;
    None when the file has more than :data:`MAX_BLOCKS` blocks. A block that runs past the end of the file
    or does not end with the header's sync marker is an error (a truncated or corrupt file)."""
    rows = 0
    for _ in range(MAX_BLOCKS):
        count = _long(handle)
        if count is None:
            return rows
        length = _long(handle)
        if length is None or count < 0 or length < 0:
            raise ValueError("invalid block header")
        end = handle.tell() + length
        if size is not None and end + len(sync) > size:
            raise ValueError("truncated block")
        handle.seek(end)
        if handle.read(len(sync)) != sync:
            raise ValueError("block does not end with the file's sync marker")
        rows += count
    return None


def infer(fs: AbstractFileSystem, path: str, limits: Limits) -> FileSchema:
    import fastavro

    with fs.open(path, "rb") as handle:
        reader = fastavro.reader(handle)
        schema = reader.writer_schema
        size = getattr(handle, "size", None)
        rows = count_records(handle, reader._header["sync"], size if isinstance(size, int) else None)
    if not isinstance(schema, dict) or schema.get("type") != "record":
        return FileSchema((avro_column("value", schema),), rows)
    fields = tuple(avro_column(f["name"], f["type"], f.get("doc")) for f in schema.get("fields", []))
    return FileSchema(fields, rows)
