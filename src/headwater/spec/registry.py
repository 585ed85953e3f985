"""Load the OpenLineage schema files into a ``referencing`` Registry keyed by their ``$id``."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from headwater.model.jsontypes import JSONMapping, JSONValue

CORE_ID = "https://openlineage.io/spec/2-0-2/OpenLineage.json"


def schema_dir() -> Path:
    """The folder holding the packaged schemas (``OpenLineage.json`` and ``facets/*.json``)."""
    return Path(__file__).resolve().parent / "schemas"


def load_schemas(directory: Path | None = None) -> dict[str, JSONMapping]:
    """Read ``OpenLineage.json`` and ``facets/*.json`` from ``directory``: ``{$id: schema}``."""
    folder = directory or schema_dir()
    files = [folder / "OpenLineage.json", *sorted((folder / "facets").glob("*.json"))]
    schemas: dict[str, Mapping[str, Any]] = {}
    for path in files:
        with path.open(encoding="utf-8") as fh:
            schema = json.load(fh)
        schema_id = schema.get("$id")
        if not isinstance(schema_id, str):
            raise ValueError(f"schema file {path} has no $id")
        schemas[schema_id] = schema
    if CORE_ID not in schemas:
        raise ValueError(f"{folder} does not hold the core schema {CORE_ID}")
    return schemas


def build_registry(schemas: Mapping[str, JSONMapping]) -> Registry[JSONValue]:
    """A Registry resolving every schema by its ``$id`` (draft 2020-12), and nothing from the network."""
    resources = [(sid, Resource.from_contents(s, default_specification=DRAFT202012)) for sid, s in schemas.items()]
    return Registry().with_resources(resources)
