"""Which standard facet schema applies to a facet, by where it sits and its name.

Each facet schema file declares its facet name(s) as top-level ``properties`` (``"schema":
{"$ref": "#/$defs/SchemaDatasetFacet"}``); each facet definition extends one of the core
bases (``RunFacet``, ``JobFacet``, ``DatasetFacet``, ``InputDatasetFacet``,
``OutputDatasetFacet``), which says where the facet may sit. Together they give the map
``slot -> facet name -> schema reference`` built here (pure function of the schema files).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Literal

from headwater.model.jsontypes import JSONMapping

Slot = Literal["run", "job", "dataset", "input", "output"]

BASE_TO_SLOT: Mapping[str, Slot] = {
    "RunFacet": "run",
    "JobFacet": "job",
    "DatasetFacet": "dataset",
    "InputDatasetFacet": "input",
    "OutputDatasetFacet": "output",
}


def _refs(node: JSONMapping) -> Iterator[str]:
    if "$ref" in node:
        yield node["$ref"]
    for key in ("anyOf", "oneOf"):
        for sub in node.get(key, []):
            yield from _refs(sub)


def _local_def(schema: JSONMapping, ref: str) -> tuple[str, JSONMapping] | None:
    if not ref.startswith("#/$defs/"):
        return None
    name = ref.removeprefix("#/$defs/")
    definition = schema.get("$defs", {}).get(name)
    return (name, definition) if isinstance(definition, Mapping) else None


def _slots(definition: JSONMapping) -> set[Slot]:
    found: set[Slot] = set()
    for part in definition.get("allOf", []):
        ref = part.get("$ref", "") if isinstance(part, Mapping) else ""
        base = ref.rsplit("/", 1)[-1]
        if base in BASE_TO_SLOT:
            found.add(BASE_TO_SLOT[base])
    return found


def _definitions(schema: JSONMapping, node: JSONMapping, depth: int = 0) -> Iterator[tuple[str, Slot]]:
    """(definition name, slot) for each facet definition reachable through local refs/anyOf/oneOf."""
    for ref in _refs(node):
        local = _local_def(schema, ref)
        if local is None or depth > 4:
            continue
        def_name, definition = local
        slots = _slots(definition)
        if slots:
            for slot in sorted(slots):
                yield def_name, slot
        else:  # e.g. "subset": oneOf [InputSubset..., OutputSubset...]
            yield from _definitions(schema, definition, depth + 1)


def facet_catalog(schemas: Mapping[str, JSONMapping]) -> dict[Slot, dict[str, str]]:
    """``{slot: {facet name: "<schema $id>#/$defs/<Definition>"}}`` for every standard facet."""
    catalog: dict[Slot, dict[str, str]] = {slot: {} for slot in BASE_TO_SLOT.values()}
    for schema_id, schema in schemas.items():
        if "/facets/" not in schema_id:
            continue
        for facet_name, prop in schema.get("properties", {}).items():
            if not isinstance(prop, Mapping):
                continue
            for def_name, slot in _definitions(schema, prop):
                existing = catalog[slot].get(facet_name)
                target = f"{schema_id}#/$defs/{def_name}"
                if existing is not None and existing != target:
                    raise ValueError(f"two standard schemas for {slot} facet {facet_name!r}: {existing} and {target}")
                catalog[slot][facet_name] = target
    return catalog
