"""What the py4j side reads about a relation or a command: plain data, JSON round-trip safe.

Shared by :mod:`.snapshot` (which stores it), :mod:`.handlers` (which fills it in) and the pure analysis
(which reads it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class RelationInfo:
    """A leaf relation or write target, described by what naming needs."""

    kind: str  # files | table | jdbc | v2 | dataset | none | unknown
    cls: str = ""
    paths: list[str] = field(default_factory=list)
    format: str | None = None
    table: str | None = None  # "db.table" (catalog tables) or "ns.table" (V2 identifiers)
    catalog: str | None = None  # V2 catalog name, "spark_catalog" for the session catalog
    metastore: str | None = None  # symlink namespace of catalog tables
    jdbc_url: str | None = None
    jdbc_table: str | None = None
    provider: str | None = None
    # kind "dataset": a dataset named outright (streaming sources and sinks: Kafka topics, rate, memory)
    names: list[list[str]] = field(default_factory=list)  # [namespace, name] pairs

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> RelationInfo:
        return cls(**raw)


@dataclass
class CommandInfo:
    name: str
    target: RelationInfo | None = None
    mode: str | None = None  # Spark SaveMode name, or "Overwrite"/"Append" for SQL inserts
    previous: RelationInfo | None = None
    output_columns: list[str] | None = None
    schema: Any = None  # Spark StructType JSON, for DDL without a query

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> CommandInfo:
        data = dict(raw)
        for key in ("target", "previous"):
            if data.get(key) is not None:
                data[key] = RelationInfo.from_dict(data[key])
        return cls(**data)
