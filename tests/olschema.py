"""Validate OpenLineage events against the official JSON Schemas (reusable test helper).

Uses the official spec copy in ``tests/fixtures/openlineage-spec`` (or any folder with ``OpenLineage.json``
and ``facets/*.json``): every schema is registered by its ``$id`` so ``$ref``s resolve offline.
An event is checked against its event type (RunEvent, DatasetEvent, JobEvent) and every *standard*
facet it carries against that facet's schema (matched by facet name and where the facet sits:
run, job, dataset, input or output facets). Unknown (custom) facets are left alone.

    from olschema import event_errors, assert_valid_event
    assert event_errors(event) == []
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource

DEFAULT_SPEC_DIR = Path(__file__).resolve().parent / "fixtures" / "openlineage-spec"
CORE_ID = "https://openlineage.io/spec/2-0-2/OpenLineage.json"
_BASES = {
    "RunFacet": "run",
    "JobFacet": "job",
    "DatasetFacet": "dataset",
    "InputDatasetFacet": "input",
    "OutputDatasetFacet": "output",
}


class Spec:
    def __init__(self, spec_dir: Path) -> None:
        resources: list[tuple[str, Resource[Any]]] = []
        self.facets: dict[tuple[str, str], str] = {}
        core = json.loads((spec_dir / "OpenLineage.json").read_text())
        resources.append((core["$id"], Resource.from_contents(core)))
        for path in sorted((spec_dir / "facets").glob("*.json")):
            text = path.read_text()
            schema = json.loads(text)
            resources.append((schema["$id"], Resource.from_contents(schema)))
            for base, location in _BASES.items():
                if f'OpenLineage.json#/$defs/{base}"' in text:
                    for key in schema.get("properties", {}):
                        self.facets[(location, key)] = f"{schema['$id']}#/properties/{key}"
        self.registry: Registry[Any] = Registry().with_resources(resources)
        self.core_id = core["$id"]

    @cache  # noqa: B019 - one Spec per folder, kept for the session
    def validator(self, ref: str) -> Draft202012Validator:
        return Draft202012Validator(
            {"$ref": ref}, registry=self.registry, format_checker=Draft202012Validator.FORMAT_CHECKER
        )


@lru_cache(maxsize=4)
def load_spec(spec_dir: Path = DEFAULT_SPEC_DIR) -> Spec:
    return Spec(spec_dir)


def _facet_groups(event: Mapping[str, Any]) -> Iterator[tuple[str, str, Mapping[str, Any]]]:
    def facets(obj: Any, key: str = "facets") -> Mapping[str, Any]:
        value = obj.get(key) if isinstance(obj, Mapping) else None
        return value if isinstance(value, Mapping) else {}

    yield "run", "$.run.facets", facets(event.get("run"))
    yield "job", "$.job.facets", facets(event.get("job"))
    yield "dataset", "$.dataset.facets", facets(event.get("dataset"))
    for group in ("inputs", "outputs"):
        for i, ds in enumerate(event.get(group) or []):
            yield "dataset", f"$.{group}[{i}].facets", facets(ds)
            extra = "inputFacets" if group == "inputs" else "outputFacets"
            yield group[:-1], f"$.{group}[{i}].{extra}", facets(ds, extra)


def event_errors(event: Mapping[str, Any], spec_dir: Path = DEFAULT_SPEC_DIR) -> list[str]:
    """Every schema violation of ``event`` as ``"<json path>: <message>"`` (empty when valid)."""
    spec = load_spec(spec_dir)
    kind = "RunEvent" if "run" in event else "DatasetEvent" if "dataset" in event else "JobEvent"
    errors = [
        f"$.{'.'.join(map(str, e.absolute_path))}: {e.message}"
        for e in spec.validator(f"{spec.core_id}#/$defs/{kind}").iter_errors(event)
    ]
    for location, path, group in _facet_groups(event):
        for key, value in group.items():
            ref = spec.facets.get((location, key))
            if ref is None:
                continue
            for e in spec.validator(ref).iter_errors(value):
                errors.append(f"{path}.{key}.{'.'.join(map(str, e.absolute_path))}: {e.message}")
    return errors


def assert_valid_event(event: Mapping[str, Any], spec_dir: Path = DEFAULT_SPEC_DIR) -> None:
    errors = event_errors(event, spec_dir)
    assert not errors, "event violates the OpenLineage schema:\n" + "\n".join(errors)
