"""Helpers to look at captured OpenLineage events in tests."""

from __future__ import annotations

from collections import defaultdict
from typing import Any


def app_events(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e["job"]["facets"].get("jobType", {}).get("jobType") == "APPLICATION"]


def exec_events(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e["job"]["facets"].get("jobType", {}).get("jobType") == "SQL_JOB"]


def by_run(events: list[dict[str, Any]]) -> dict[str, list[str]]:
    runs: dict[str, list[str]] = defaultdict(list)
    for e in events:
        runs[e["run"]["runId"]].append(e["eventType"])
    return dict(runs)


def assert_start_then_end(events: list[dict[str, Any]]) -> None:
    """Every run has exactly one START, first, then exactly one COMPLETE or FAIL, last."""
    for run_id, types in by_run(events).items():
        assert types[0] == "START", f"run {run_id}: {types}"
        assert types[-1] in ("COMPLETE", "FAIL"), f"run {run_id}: {types}"
        assert types.count("START") == 1 and len(types) == 2, f"run {run_id}: {types}"


def assert_parented(events: list[dict[str, Any]]) -> None:
    """Every execution run's parent facet points at the application run of the same events."""
    apps = {e["run"]["runId"]: e["job"] for e in app_events(events)}
    assert len(apps) == 1, f"expected one application run, got {sorted(apps)}"
    ((app_run, app_job),) = apps.items()
    for e in exec_events(events):
        parent = e["run"]["facets"]["parent"]
        assert parent["run"]["runId"] == app_run
        assert (parent["job"]["namespace"], parent["job"]["name"]) == (app_job["namespace"], app_job["name"])
        assert e["job"]["name"].startswith(app_job["name"] + ".")
