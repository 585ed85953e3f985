"""Small OpenLineage events as dicts for the ingest tests."""

from __future__ import annotations

import uuid
from typing import Any

PRODUCER = "https://github.com/headwater-lineage/headwater/tests"
CORE_URL = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"


def facet(**fields: Any) -> dict[str, Any]:
    return {"_producer": PRODUCER, "_schemaURL": "https://openlineage.io/spec/facets/1-0-0/X.json", **fields}


def run_event(**overrides: Any) -> dict[str, Any]:
    """A small valid RunEvent as a dict; keys in ``overrides`` replace top-level keys."""
    event: dict[str, Any] = {
        "eventType": "COMPLETE",
        "eventTime": "2026-11-22T05:10:10.123Z",
        "producer": PRODUCER,
        "schemaURL": CORE_URL,
        "run": {"runId": str(uuid.uuid4()), "facets": {}},
        "job": {"namespace": "spark", "name": "payroll.build", "facets": {}},
        "inputs": [{"namespace": "file", "name": "/data/employees.csv", "facets": {}}],
        "outputs": [{"namespace": "file", "name": "/data/payroll", "facets": {}}],
    }
    event.update(overrides)
    return event
