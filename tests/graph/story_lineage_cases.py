"""The lineage questions asked of the HR payroll story whose answers tests/graph/golden/lineage_hr_story.json
freezes (tests/graph/test_lineage_story_golden.py compares; tests/graph/make_lineage_golden.py writes)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

from fixtures.stories.load import COMP, DAY1, DAY2, DAY3, EA, EMP, J1, J2, REP, RX, fid

GOLDEN_FILE = "lineage_hr_story.json"
ROOTS = [COMP, EA, EMP, REP, J1, J2, RX, fid(COMP, "Name")]
MOMENTS: list[datetime | None] = [None, DAY1, DAY2, DAY3]


def key(case: dict[str, Any]) -> str:
    """A readable, unique name of a case: the file's keys."""
    at = case.get("at")
    parts = [case["node"], case["direction"], f"depth={case['depth']}", f"at={at.isoformat() if at else 'now'}"]
    parts += [name for name in ("datasets_only", "columns") if case.get(name)]
    if "max_nodes" in case:
        parts.append(f"max_nodes={case['max_nodes']}")
    return " ".join(parts)


def cases() -> Iterator[dict[str, Any]]:
    for root in ROOTS:
        for at in MOMENTS:
            for direction in ("upstream", "downstream"):
                yield {"node": root, "direction": direction, "depth": 20, "at": at}
        yield {"node": root, "direction": "both", "depth": 20, "at": None, "datasets_only": True}
        yield {"node": root, "direction": "both", "depth": 20, "at": None, "columns": True}
        yield {"node": root, "direction": "both", "depth": 20, "at": None, "max_nodes": 4}
