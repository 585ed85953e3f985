"""Deterministic synthetic lineage: OpenLineage RunEvents describing a layered graph of chosen size.

Shape: datasets are spread over layers; each job reads ``inputs_per_job`` datasets from the layer
below and writes ``outputs_per_job`` datasets in its own layer; every output column depends on one
or two input columns (column lineage facet 1-2-0). Half-way through time a slice of the jobs is
re-run with a changed input, so that ``at=`` a past timestamp answers differently from now.

Sizes: ``datasets`` = sources + jobs × outputs_per_job; column edges ≈ jobs × outputs_per_job ×
columns × 1.5. The defaults give ~100,000 datasets, 50,000 jobs and ~1,050,000 column edges;
``jobs=500_000`` gives ~1,000,000 datasets and ~10,500,000 column edges.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

PRODUCER = "https://github.com/headwater-lineage/headwater/bench"
SCHEMA_URL = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"
FACET = "https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json#/$defs/ColumnLineageDatasetFacet"
SCHEMA_FACET = "https://openlineage.io/spec/facets/1-1-0/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet"
T0 = datetime(2026, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class Shape:
    jobs: int = 50_000
    outputs_per_job: int = 2
    inputs_per_job: int = 2
    columns: int = 7
    layers: int = 40
    seed: int = 7

    @property
    def per_layer(self) -> int:
        return max(1, self.jobs // self.layers)

    @property
    def sources(self) -> int:
        """Source datasets read by the first layer of jobs (each read once)."""
        return self.per_layer * self.inputs_per_job

    @property
    def datasets(self) -> int:
        return self.sources + self.jobs * self.outputs_per_job

    @property
    def column_edges_estimate(self) -> int:
        return int(self.jobs * self.outputs_per_job * self.columns * 1.5)


def dataset_name(i: int) -> str:
    return f"warehouse/layer/ds_{i:07d}"


def column(i: int) -> str:
    return f"col_{i:02d}"


def _dataset(i: int, shape: Shape, lineage: dict[str, Any] | None = None) -> dict[str, Any]:
    facets: dict[str, Any] = {
        "schema": {
            "_producer": PRODUCER,
            "_schemaURL": SCHEMA_FACET,
            "fields": [{"name": column(c), "type": "string"} for c in range(shape.columns)],
        }
    }
    if lineage is not None:
        facets["columnLineage"] = lineage
    return {"namespace": "s3://bench", "name": dataset_name(i), "facets": facets}


def _lineage(inputs: list[int], rng: random.Random, shape: Shape) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    for c in range(shape.columns):
        sources = [(rng.choice(inputs), c)]
        if c % 2 == 0:
            sources.append((rng.choice(inputs), (c + 1) % shape.columns))
        fields[column(c)] = {
            "inputFields": [
                {
                    "namespace": "s3://bench",
                    "name": dataset_name(d),
                    "field": column(f),
                    "transformations": [
                        {"type": "DIRECT", "subtype": "IDENTITY" if len(sources) == 1 else "TRANSFORMATION"}
                    ],
                }
                for d, f in sources
            ]
        }
    return {"_producer": PRODUCER, "_schemaURL": FACET, "fields": fields}


def _event(
    job: int, inputs: list[int], outputs: list[int], when: datetime, rng: random.Random, shape: Shape
) -> dict[str, Any]:
    run_id = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    return {
        "eventType": "COMPLETE",
        "eventTime": when.isoformat().replace("+00:00", "Z"),
        "producer": PRODUCER,
        "schemaURL": SCHEMA_URL,
        "run": {"runId": run_id, "facets": {}},
        "job": {"namespace": "bench", "name": f"job_{job:07d}", "facets": {}},
        "inputs": [_dataset(i, shape) for i in inputs],
        "outputs": [_dataset(o, shape, _lineage(inputs, rng, shape)) for o in outputs],
    }


def events(shape: Shape = Shape(), *, changes: float = 0.1) -> Iterator[dict[str, Any]]:
    """All events, oldest first. A ``changes`` fraction of jobs runs again later with another input."""
    rng = random.Random(shape.seed)
    per_layer = shape.per_layer
    plan: list[tuple[int, list[int], list[int]]] = []
    next_ds = shape.sources
    previous_layer = list(range(shape.sources))
    for job in range(shape.jobs):
        if job and job % per_layer == 0:
            previous_layer = list(range(next_ds - per_layer * shape.outputs_per_job, next_ds))
        if job < per_layer:  # first layer: every source is read exactly once
            inputs = list(range(job * shape.inputs_per_job, (job + 1) * shape.inputs_per_job))
        else:
            inputs = sorted(set(rng.sample(previous_layer, min(shape.inputs_per_job, len(previous_layer)))))
        outputs = list(range(next_ds, next_ds + shape.outputs_per_job))
        next_ds += shape.outputs_per_job
        plan.append((job, inputs, outputs))
    for n, (job, inputs, outputs) in enumerate(plan):
        yield _event(job, inputs, outputs, T0 + timedelta(seconds=n), rng, shape)
    later = T0 + timedelta(days=30)
    for n, (job, inputs, outputs) in enumerate(plan[:: max(1, int(1 / changes))] if changes else []):
        changed = sorted(set(inputs[:-1] + [rng.randrange(shape.sources)]))
        yield _event(job, changed, outputs, later + timedelta(seconds=n), rng, shape)


def event_count(shape: Shape = Shape(), *, changes: float = 0.1) -> int:
    """How many events :func:`events` yields (without generating them)."""
    return shape.jobs + (len(range(0, shape.jobs, max(1, int(1 / changes)))) if changes else 0)


def midpoint() -> datetime:
    """A timestamp between the first wave of runs and the later changes."""
    return T0 + timedelta(days=15)
