"""Golden files: a real Spark plan snapshot (input) and the lineage it must give (output)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from openlineage.client.serde import Serde

from headwater.capture.lineage import QueryLineage

GOLDEN = Path(__file__).resolve().parent / "golden"


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k != "_producer"}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def lineage_document(ql: QueryLineage) -> dict[str, Any]:
    """A stable JSON view of a QueryLineage (the producer URL, which carries a version, is dropped)."""
    return _strip(
        {
            "action": ql.action,
            "output_name": ql.output_name,
            "sql": ql.sql,
            "inputs": [json.loads(Serde.to_json(i)) for i in ql.inputs],
            "outputs": [json.loads(Serde.to_json(o)) for o in ql.outputs],
        }
    )
