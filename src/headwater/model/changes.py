"""Proposed changes to datasets and jobs: the vocabulary of an impact check (pure).

A change says what a pull request would do to something the lineage graph knows. Readers of what
people have in a pull request make them (the SQL engine reads DDL and changed scripts, the CLI reads
dbt manifests and schema files); the graph layer answers what each one affects downstream
(:mod:`headwater.graph.impactcheck`); the API takes them as JSON. Kinds:

- ``drop_column``: ``column`` of the dataset disappears;
- ``rename_column``: ``column`` is renamed to ``new_name`` (readers of the old name break like a drop);
- ``retype_column``: ``column`` gets the type ``new_type``;
- ``drop_dataset``: the dataset (table, view, model) disappears;
- ``new_schema``: the dataset's schema becomes ``fields`` (compared with what the graph holds:
  columns missing are dropped, columns with another type are retyped);
- ``new_lineage``: a job (``job``, or whichever jobs write the dataset today) would write the dataset's
  ``columns`` from these sources (a changed SQL script, ``CREATE OR REPLACE VIEW``): compared with the
  column lineage the graph holds, a column no longer written is dropped and a column computed from other
  sources changes its values. ``replaces``: the statement defines the whole dataset (``CREATE [OR
  REPLACE]``), so every column the graph knows of it and the statement does not write is dropped.

:func:`change_from_json` checks a JSON document and raises :class:`ValueError` naming the path of the
first problem; :meth:`Change.to_json` writes the same shape.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from headwater.model.jsontypes import JSONMapping, JSONObject, JSONValue
from headwater.model.nodeid import format_node_id, node_kind

DROP_COLUMN = "drop_column"
RENAME_COLUMN = "rename_column"
RETYPE_COLUMN = "retype_column"
DROP_DATASET = "drop_dataset"
NEW_SCHEMA = "new_schema"
NEW_LINEAGE = "new_lineage"

KINDS = (DROP_COLUMN, RENAME_COLUMN, RETYPE_COLUMN, DROP_DATASET, NEW_SCHEMA, NEW_LINEAGE)
_NEEDS_COLUMN = (DROP_COLUMN, RENAME_COLUMN, RETYPE_COLUMN)


@dataclass(frozen=True)
class SourceColumn:
    """An input column a proposed output column depends on, with the column-lineage kind of the dependency."""

    namespace: str
    name: str
    field: str
    type: str = "DIRECT"  # DIRECT | INDIRECT (model/column_lineage.py)
    subtype: str = "IDENTITY"
    masking: bool = False

    def to_json(self) -> JSONObject:
        return {
            "namespace": self.namespace,
            "name": self.name,
            "field": self.field,
            "type": self.type,
            "subtype": self.subtype,
            "masking": self.masking,
        }


@dataclass(frozen=True)
class ProposedColumn:
    """One output column of a ``new_lineage`` change and what it would be computed from."""

    name: str
    sources: tuple[SourceColumn, ...] = ()

    def to_json(self) -> JSONObject:
        return {"name": self.name, "sources": [s.to_json() for s in self.sources]}


@dataclass(frozen=True)
class SchemaField:
    name: str
    type: str | None = None

    def to_json(self) -> JSONObject:
        return {"name": self.name, "type": self.type}


@dataclass(frozen=True)
class Change:
    kind: str
    namespace: str  # the dataset's namespace and name (OpenLineage naming)
    name: str
    column: str | None = None
    new_name: str | None = None
    new_type: str | None = None
    fields: tuple[SchemaField, ...] = ()  # new_schema
    columns: tuple[ProposedColumn, ...] = ()  # new_lineage
    job: str | None = None  # new_lineage: the job node id (job:<ns>:<name>) the script is, when known
    replaces: bool = False  # new_lineage: the statement defines the whole dataset
    origin: str = ""  # where the change was read (file:line, manifest model), for the report
    notes: tuple[str, ...] = field(default=())  # what the reader could not resolve

    @property
    def dataset_id(self) -> str:
        return format_node_id("dataset", self.namespace, self.name)

    def to_json(self) -> JSONObject:
        out: dict[str, Any] = {"kind": self.kind, "namespace": self.namespace, "name": self.name}
        for key, value in (("column", self.column), ("newName", self.new_name), ("newType", self.new_type)):
            if value is not None:
                out[key] = value
        if self.kind == NEW_SCHEMA:
            out["fields"] = [f.to_json() for f in self.fields]
        if self.kind == NEW_LINEAGE:
            out["columns"] = [c.to_json() for c in self.columns]
            out["replaces"] = self.replaces
            if self.job is not None:
                out["job"] = self.job
        if self.origin:
            out["origin"] = self.origin
        if self.notes:
            out["notes"] = list(self.notes)
        return out


def _text(doc: JSONMapping, key: str, where: str, *, required: bool = True) -> str | None:
    value = doc.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value:
        raise ValueError(f"{where}.{key}: a non-empty string is required")
    return value


def _object(value: JSONValue, where: str) -> JSONMapping:
    if not isinstance(value, Mapping):
        raise ValueError(f"{where}: an object is required")
    return value


def _list(value: JSONValue, where: str) -> Sequence[JSONValue]:
    if not isinstance(value, list):
        raise ValueError(f"{where}: a list is required")
    return value


def _source(value: JSONValue, where: str) -> SourceColumn:
    doc = _object(value, where)
    kind = doc.get("type", "DIRECT")
    if kind not in ("DIRECT", "INDIRECT"):
        raise ValueError(f"{where}.type: DIRECT or INDIRECT, got {kind!r}")
    subtype = doc.get("subtype", "IDENTITY" if kind == "DIRECT" else "")
    masking = doc.get("masking", False)
    if not isinstance(subtype, str) or not isinstance(masking, bool):
        raise ValueError(f"{where}: subtype must be a string and masking a boolean")
    return SourceColumn(
        str(_text(doc, "namespace", where)), str(_text(doc, "name", where)), str(_text(doc, "field", where)),
        kind, subtype, masking,
    )  # fmt: skip


def change_from_json(value: JSONValue, where: str = "change") -> Change:
    """One change from its JSON form (``to_json``'s shape); ValueError naming the path of a problem."""
    doc = _object(value, where)
    kind = doc.get("kind")
    if kind not in KINDS:
        raise ValueError(f"{where}.kind: one of {', '.join(KINDS)}, got {kind!r}")
    namespace = str(_text(doc, "namespace", where))
    name = str(_text(doc, "name", where))
    column = _text(doc, "column", where, required=kind in _NEEDS_COLUMN)
    new_name = _text(doc, "newName", where, required=kind == RENAME_COLUMN)
    new_type = _text(doc, "newType", where, required=kind == RETYPE_COLUMN)
    fields: list[SchemaField] = []
    if kind == NEW_SCHEMA:
        for i, f in enumerate(_list(doc.get("fields"), f"{where}.fields")):
            fw = f"{where}.fields[{i}]"
            fdoc = _object(f, fw)
            fields.append(SchemaField(str(_text(fdoc, "name", fw)), _text(fdoc, "type", fw, required=False)))
    columns: list[ProposedColumn] = []
    if kind == NEW_LINEAGE:
        for i, c in enumerate(_list(doc.get("columns"), f"{where}.columns")):
            cw = f"{where}.columns[{i}]"
            cdoc = _object(c, cw)
            sources = tuple(
                _source(s, f"{cw}.sources[{j}]") for j, s in enumerate(_list(cdoc.get("sources", []), f"{cw}.sources"))
            )
            columns.append(ProposedColumn(str(_text(cdoc, "name", cw)), sources))
    job = _text(doc, "job", where, required=False)
    if job is not None and node_kind(job) != "job":
        raise ValueError(f"{where}.job: a job node id (job:<namespace>:<name>), got {job!r}")
    replaces = doc.get("replaces", False)
    if not isinstance(replaces, bool):
        raise ValueError(f"{where}.replaces: a boolean is required")
    origin = doc.get("origin", "")
    notes = doc.get("notes", [])
    if not isinstance(origin, str) or not isinstance(notes, list) or not all(isinstance(n, str) for n in notes):
        raise ValueError(f"{where}: origin must be a string and notes a list of strings")
    return Change(
        kind, namespace, name, column, new_name, new_type, tuple(fields), tuple(columns), job, replaces, origin,
        tuple(notes),
    )  # fmt: skip


def changes_from_json(value: JSONValue, where: str = "changes") -> list[Change]:
    return [change_from_json(c, f"{where}[{i}]") for i, c in enumerate(_list(value, where))]
