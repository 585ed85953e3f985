"""A dataset's proposed schema from a file in a pull request: the top-level columns and their types.

:func:`read_schema_file` reads, by content (the extension only decides between binary formats):

- a Parquet file (the footer's schema, pyarrow) or an Avro container file (the writer schema, fastavro);
- JSON: an Avro schema (``{"type": "record", "fields": [...]}``, ``.avsc``), a JSON Schema (an object's
  ``properties``; ``type`` and ``format`` give the type), an OpenLineage ``schema`` facet
  (``{"fields": [{"name", "type"}]}``) or a dataset's ``facets`` holding one (``{"schema": {...}}``).

Types are written as the crawler writes them (Hive/Glue notation for Parquet and Avro), so they compare
with what a crawl of the same data put in the graph. :class:`SchemaFileError` names the file and what
is wrong with it.
"""

from __future__ import annotations

import json
from pathlib import Path

from headwater.crawl.formats.avro import avro_column
from headwater.crawl.types import arrow_columns
from headwater.model.changes import SchemaField
from headwater.model.jsontypes import JSONValue

_JSON_SCHEMA_TYPES = {"string": "string", "integer": "bigint", "number": "double", "boolean": "boolean"}
_JSON_SCHEMA_FORMATS = {"date": "date", "date-time": "timestamp"}


class SchemaFileError(ValueError):
    """A schema file that cannot be read."""


def _json_schema_type(prop: JSONValue) -> str | None:
    if not isinstance(prop, dict):
        return None
    kind = prop.get("type")
    if isinstance(kind, list):  # ["string", "null"]: nullable
        kinds = [k for k in kind if k != "null"]
        kind = kinds[0] if len(kinds) == 1 else None
    if kind == "string" and prop.get("format") in _JSON_SCHEMA_FORMATS:
        return _JSON_SCHEMA_FORMATS[prop["format"]]
    if kind == "array":
        return f"array<{_json_schema_type(prop.get('items')) or 'string'}>"
    if kind == "object":
        return "struct"
    return _JSON_SCHEMA_TYPES.get(kind) if isinstance(kind, str) else None


def schema_from_json(doc: JSONValue, where: str) -> tuple[SchemaField, ...]:
    """The columns of a JSON schema document (see the module docstring)."""
    if not isinstance(doc, dict):
        raise SchemaFileError(f"{where}: a JSON object is required")
    if doc.get("type") == "record" and isinstance(doc.get("fields"), list):
        return tuple(SchemaField(c.name, c.type) for c in (avro_column(f["name"], f["type"]) for f in doc["fields"]))
    if isinstance(doc.get("properties"), dict):
        return tuple(SchemaField(name, _json_schema_type(prop)) for name, prop in doc["properties"].items())
    if isinstance(doc.get("schema"), dict):
        return schema_from_json(doc["schema"], where)
    if isinstance(doc.get("fields"), list):
        out = []
        for i, f in enumerate(doc["fields"]):
            if not isinstance(f, dict) or not isinstance(f.get("name"), str):
                raise SchemaFileError(f"{where}: fields[{i}] needs a name")
            out.append(SchemaField(f["name"], f.get("type") if isinstance(f.get("type"), str) else None))
        return tuple(out)
    raise SchemaFileError(
        f"{where}: not a schema: expected an Avro record schema, a JSON Schema with properties, "
        "or an OpenLineage schema facet with fields"
    )


def read_schema_file(path: str | Path) -> tuple[SchemaField, ...]:
    """The top-level columns of the schema in ``path`` (see the module docstring)."""
    p = Path(path)
    try:
        head = p.read_bytes()[:4]
        if head == b"PAR1":
            import pyarrow.parquet as pq

            return tuple(SchemaField(c.name, c.type) for c in arrow_columns(pq.read_schema(p)))
        if head == b"Obj\x01":
            import fastavro

            with p.open("rb") as handle:
                writer = fastavro.reader(handle).writer_schema
            return schema_from_json(writer, str(p))
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SchemaFileError(f"{p}: cannot read: {exc}") from None
    except Exception as exc:  # noqa: BLE001 - pyarrow and fastavro raise their own kinds for a damaged file
        raise SchemaFileError(f"{p}: not a readable Parquet or Avro file: {exc}") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SchemaFileError(f"{p}: not JSON, Parquet or Avro: {exc}") from None
    return schema_from_json(doc, str(p))
