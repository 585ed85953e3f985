"""Events for the deployment tests: a few jobs run many times over shared datasets, in shuffled arrival order.

Each run is a START and a COMPLETE; a COMPLETE writes its outputs with a schema (a column is sometimes
added) and column lineage, so the graph has job and dataset versions, edges and column edges; event
times are spread over days and the arrival order is shuffled, so late events take the projector's
full path too.
"""

from __future__ import annotations

import random
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

PRODUCER = "https://github.com/headwater-lineage/headwater/tests/deploy"
SCHEMA_URL = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"
SCHEMA_FACET = "https://openlineage.io/spec/facets/1-1-1/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet"
LINEAGE_FACET = (
    "https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json#/$defs/ColumnLineageDatasetFacet"
)
T0 = datetime(2026, 3, 1, tzinfo=UTC)
NAMESPACE = "deploy"


def _time(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def _dataset(i: int, columns: list[str], lineage_from: list[tuple[int, list[str]]] | None = None) -> dict[str, Any]:
    facets: dict[str, Any] = {
        "schema": {
            "_producer": PRODUCER,
            "_schemaURL": SCHEMA_FACET,
            "fields": [{"name": c, "type": "string"} for c in columns],
        }
    }
    if lineage_from:
        facets["columnLineage"] = {
            "_producer": PRODUCER,
            "_schemaURL": LINEAGE_FACET,
            "fields": {
                c: {
                    "inputFields": [
                        {"namespace": NAMESPACE, "name": f"table_{src}", "field": cols[n % len(cols)]}
                        for src, cols in lineage_from
                    ]
                }
                for n, c in enumerate(columns)
            },
        }
    return {"namespace": NAMESPACE, "name": f"table_{i}", "facets": facets}


def run_events(
    n_runs: int, *, seed: int = 22, jobs: int = 8, datasets: int = 16, start: datetime = T0
) -> list[dict[str, Any]]:
    """``2 * n_runs`` events (START and COMPLETE of each run), shuffled."""
    rng = random.Random(seed)
    columns = {d: ["id", "name", "value"] for d in range(datasets)}
    out: list[dict[str, Any]] = []
    for n in range(n_runs):
        job = rng.randrange(jobs)
        inputs = sorted(rng.sample(range(datasets // 2), 2))
        output = datasets // 2 + (job % (datasets // 2))
        if rng.random() < 0.1:
            columns[output] = [*columns[output], f"c{n}"]
        began = start + timedelta(minutes=5 * n + rng.randrange(5))
        run_id = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        head = {"producer": PRODUCER, "schemaURL": SCHEMA_URL, "job": {"namespace": NAMESPACE, "name": f"job_{job}"}}
        ins = [_dataset(i, columns[i]) for i in inputs]
        out.append({**head, "eventType": "START", "eventTime": _time(began), "run": {"runId": run_id}, "inputs": ins})
        lineage = [(i, columns[i]) for i in inputs]
        out.append(
            {
                **head,
                "eventType": "COMPLETE",
                "eventTime": _time(began + timedelta(minutes=2)),
                "run": {"runId": run_id},
                "inputs": ins,
                "outputs": [_dataset(output, columns[output], lineage)],
            }
        )
    rng.shuffle(out)
    return out
