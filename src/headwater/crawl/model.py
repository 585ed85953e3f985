"""What a crawl finds: columns, tables, skipped files and the run's summary (plain data, no I/O)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from headwater.model.jsontypes import JSONObject


@dataclass(frozen=True)
class Column:
    """A column (or a nested struct field): ``type`` in Hive/Glue notation (``bigint``, ``struct<a:string>``)."""

    name: str
    type: str
    nullable: bool = True
    description: str | None = None
    fields: tuple[Column, ...] = ()  # a struct's fields (also an array of structs' element fields)
    primary_key: bool = False

    def to_json(self) -> JSONObject:
        return {
            "name": self.name,
            "type": self.type,
            "nullable": self.nullable,
            "description": self.description,
            "fields": [f.to_json() for f in self.fields],
            "primaryKey": self.primary_key,
        }

    @staticmethod
    def from_json(data: JSONObject) -> Column:
        return Column(
            data["name"],
            data["type"],
            bool(data.get("nullable", True)),
            data.get("description"),
            tuple(Column.from_json(f) for f in data.get("fields") or []),
            bool(data.get("primaryKey")),
        )


@dataclass(frozen=True)
class FileSchema:
    """What one file says: its columns, and its row count when the format's metadata has it for free."""

    columns: tuple[Column, ...]
    rows: int | None = None


@dataclass(frozen=True)
class FileEntry:
    """A file as listed: path (fsspec form, no scheme for local files), size and a change marker."""

    path: str
    size: int
    marker: str  # mtime (local, hdfs), ETag (object stores): what changes when the content does


@dataclass(frozen=True)
class Skipped:
    path: str
    reason: str
    failure: bool = True  # False for files skipped by rule (``_SUCCESS``, ``.crc``, hidden files)


@dataclass
class Table:
    """A table the crawl found: where it lives, its format, its merged schema and cheap statistics."""

    name: str  # catalog table name (folder name, or schema_table for databases)
    location: str  # storage location: a folder URL/path, or the database table's SQLAlchemy URL
    namespace: str  # the storage location's dataset namespace (headwater.model.naming)
    dataset: str  # ... and name
    format: str  # csv | json | parquet | orc | avro | table | view
    columns: tuple[Column, ...]
    partition_keys: tuple[str, ...] = ()
    files: int = 0
    bytes: int = 0
    rows: int | None = None
    description: str | None = None
    view_sql: str | None = None
    view_sources: tuple[tuple[str, str], ...] = ()  # (namespace, name) of the tables a view reads
    view_column_lineage: dict[str, Any] = field(default_factory=dict)  # columnLineage facet fields, from the SQL engine


@dataclass
class Summary:
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)

    @property
    def failures(self) -> list[Skipped]:
        return [s for s in self.skipped if s.failure]

    def to_json(self) -> JSONObject:
        return {
            "added": sorted(self.added),
            "updated": sorted(self.updated),
            "unchanged": len(self.unchanged),
            "removed": sorted(self.removed),
            "skipped": [{"path": s.path, "reason": s.reason} for s in self.skipped if s.failure],
            "ignored": sum(1 for s in self.skipped if not s.failure),
        }
