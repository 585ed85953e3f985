"""Pure mappings from Headwater's graph answers (docs/api.md) to Marquez's shapes.

Shapes follow Marquez's ``spec/openapi.yml``: Dataset, Job, Run, DatasetVersion, LineageGraph
(``{"graph": [{id, type, data, inEdges, outEdges}]}``), column lineage (``DATASET_FIELD`` nodes
with ``inputFields``) and Namespace. Fields Headwater does not track (owners, tags, run args)
answer empty values.
"""

from __future__ import annotations

from typing import Any

from headwater.model.nodeid import FIELD, parse_node_id

RUN_STATES = {
    "START": "RUNNING",
    "RUNNING": "RUNNING",
    "COMPLETE": "COMPLETED",
    "FAIL": "FAILED",
    "ABORT": "ABORTED",
    "OTHER": "RUNNING",
}
_STREAMING = ("stream", "kafka", "kinesis", "pubsub")


def _dataset_id(node_id: str) -> dict[str, str]:
    ref = parse_node_id(node_id)
    return {"namespace": ref.namespace, "name": ref.name}


def _fields(node: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {"name": f.get("name"), "type": f.get("type"), "tags": [], "description": f.get("description")}
        for f in node.get("fields") or []
    ]


def _dataset_type(node: dict[str, Any]) -> str:
    kind = str(node.get("kind") or "").lower()
    return "STREAM" if kind in _STREAMING else "DB_TABLE"


def _version_id(version: Any) -> str | None:
    if isinstance(version, dict):
        value = version.get("version")
        return None if value is None else str(value)
    return None


def to_marquez_run(run: dict[str, Any] | None) -> dict[str, Any] | None:
    """Headwater Run -> Marquez Run."""
    if not run:
        return None
    job = run.get("job")
    job_ref = parse_node_id(job) if isinstance(job, str) else None
    return {
        "id": run.get("runId"),
        "createdAt": run.get("startedAt") or run.get("endedAt"),
        "updatedAt": run.get("endedAt") or run.get("startedAt"),
        "nominalStartTime": None,
        "nominalEndTime": None,
        "state": RUN_STATES.get(str(run.get("state")), "NEW"),
        "startedAt": run.get("startedAt"),
        "endedAt": run.get("endedAt"),
        "durationMs": run.get("durationMs"),
        "args": {},
        "jobVersion": ({"namespace": job_ref.namespace, "name": job_ref.name, "version": None} if job_ref else None),
        "inputDatasetVersions": [
            {"datasetVersionId": {**_dataset_id(i), "version": None}, "facets": {}} for i in run.get("inputs") or []
        ],
        "outputDatasetVersions": [
            {"datasetVersionId": {**_dataset_id(o), "version": None}, "facets": {}} for o in run.get("outputs") or []
        ],
        "context": {},
        "facets": run.get("facets") or {},
    }


def to_marquez_dataset(node: dict[str, Any]) -> dict[str, Any]:
    """Headwater dataset Node (or node details) -> Marquez Dataset."""
    facets = node.get("facets") or {}
    lifecycle = facets.get("lifecycleStateChange") if isinstance(facets, dict) else None
    documentation = facets.get("documentation") if isinstance(facets, dict) else None
    return {
        "id": {"namespace": node.get("namespace"), "name": node.get("name")},
        "type": _dataset_type(node),
        "name": node.get("name"),
        "physicalName": node.get("name"),
        "createdAt": node.get("createdAt") or node.get("updatedAt"),
        "updatedAt": node.get("updatedAt"),
        "namespace": node.get("namespace"),
        "sourceName": node.get("namespace"),
        "fields": _fields(node),
        "tags": [],
        "lastModifiedAt": node.get("updatedAt"),
        "lastLifecycleState": lifecycle.get("lifecycleStateChange") if isinstance(lifecycle, dict) else None,
        "description": documentation.get("description") if isinstance(documentation, dict) else None,
        "facets": facets,
        "currentVersion": _version_id(node.get("currentVersion")),
        "columnLineage": None,
        "deleted": bool(node.get("deleted")),
    }


def to_marquez_job(node: dict[str, Any]) -> dict[str, Any]:
    """Headwater job Node (or node details) -> Marquez Job."""
    job_type = node.get("jobType") or {}
    processing = str(job_type.get("processingType") or "BATCH").upper()
    facets = node.get("facets") or {}
    location = facets.get("sourceCodeLocation") if isinstance(facets, dict) else None
    documentation = facets.get("documentation") if isinstance(facets, dict) else None
    parent = node.get("parent")
    latest = node.get("latestRun")
    return {
        "id": {"namespace": node.get("namespace"), "name": node.get("name")},
        "type": "STREAM" if processing == "STREAMING" else "BATCH",
        "name": node.get("name"),
        "simpleName": str(node.get("name") or "").rsplit(".", 1)[-1],
        "parentJobName": parse_node_id(parent).name if isinstance(parent, str) else None,
        "createdAt": node.get("createdAt") or node.get("updatedAt"),
        "updatedAt": node.get("updatedAt"),
        "namespace": node.get("namespace"),
        "inputs": [_dataset_id(i) for i in node.get("inputs") or []],
        "outputs": [_dataset_id(o) for o in node.get("outputs") or []],
        "location": location.get("url") if isinstance(location, dict) else None,
        "description": documentation.get("description") if isinstance(documentation, dict) else None,
        "latestRun": to_marquez_run({**latest, "job": node.get("id")}) if isinstance(latest, dict) else None,
        "facets": facets,
        "currentVersion": _version_id(node.get("currentVersion")),
        "tags": [],
        "labels": [],
    }


def to_marquez_dataset_version(node: dict[str, Any], version: dict[str, Any]) -> dict[str, Any]:
    """One Headwater Version of a dataset -> Marquez DatasetVersion."""
    run_id = version.get("runId")
    return {
        "id": {"namespace": node.get("namespace"), "name": node.get("name"), "version": version.get("version")},
        "type": _dataset_type(node),
        "name": node.get("name"),
        "physicalName": node.get("name"),
        "createdAt": version.get("validFrom"),
        "version": version.get("version"),
        "namespace": node.get("namespace"),
        "sourceName": node.get("namespace"),
        "fields": _fields(version),
        "tags": [],
        "lifecycleState": None,
        "description": None,
        "createdByRun": {"id": run_id} if run_id else None,
        "facets": version.get("facets") or {},
    }


def to_marquez_lineage(answer: dict[str, Any]) -> dict[str, Any]:
    """Headwater lineage answer -> Marquez LineageGraph ``{"graph": [GraphNode]}``."""
    in_edges: dict[str, list[dict[str, str]]] = {}
    out_edges: dict[str, list[dict[str, str]]] = {}
    for edge in answer.get("edges") or []:
        pair = {"origin": edge["source"], "destination": edge["target"]}
        out_edges.setdefault(edge["source"], []).append(pair)
        in_edges.setdefault(edge["target"], []).append(pair)
    graph = []
    for node in answer.get("nodes") or []:
        is_job = node.get("type") == "JOB"
        if is_job and "inputs" not in node:  # graph nodes carry no inputs/outputs: take them from the edges
            node = {
                **node,
                "inputs": sorted(e["origin"] for e in in_edges.get(node["id"], [])),
                "outputs": sorted(e["destination"] for e in out_edges.get(node["id"], [])),
            }
        data = to_marquez_job(node) if is_job else to_marquez_dataset(node)
        graph.append(
            {
                "id": node["id"],
                "type": "JOB" if is_job else "DATASET",
                "data": data,
                "inEdges": in_edges.get(node["id"], []),
                "outEdges": out_edges.get(node["id"], []),
            }
        )
    return {"graph": graph}


def to_marquez_column_lineage(answer: dict[str, Any]) -> dict[str, Any]:
    """Headwater column-lineage answer -> Marquez column lineage ``{"graph": [...]}`` of DATASET_FIELD nodes."""
    inputs: dict[str, list[dict[str, Any]]] = {}
    in_edges: dict[str, list[dict[str, str]]] = {}
    out_edges: dict[str, list[dict[str, str]]] = {}
    for edge in answer.get("edges") or []:
        source, target = edge.get("source"), edge.get("target")
        if not (isinstance(source, str) and isinstance(target, str)) or not target.startswith(FIELD):
            continue  # dataset-level dependencies have no column node in Marquez's graph
        src = parse_node_id(source)
        transformations = edge.get("transformations") or []
        first = transformations[0] if transformations else {}
        inputs.setdefault(target, []).append(
            {
                "namespace": src.namespace,
                "dataset": src.name,
                "datasetVersion": None,
                "field": src.field,
                "transformationDescription": first.get("description"),
                "transformationType": first.get("type"),
                "transformations": transformations,
            }
        )
        pair = {"origin": source, "destination": target}
        out_edges.setdefault(source, []).append(pair)
        in_edges.setdefault(target, []).append(pair)
    graph = []
    for node in answer.get("nodes") or []:
        node_id = node["id"]
        own = inputs.get(node_id, [])
        graph.append(
            {
                "id": node_id,
                "type": "DATASET_FIELD",
                "data": {
                    "namespace": node.get("namespace"),
                    "dataset": node.get("name"),
                    "datasetVersion": None,
                    "field": node.get("field"),
                    "fieldType": node.get("type"),
                    "transformationDescription": own[0]["transformationDescription"] if own else None,
                    "transformationType": own[0]["transformationType"] if own else None,
                    "inputFields": own,
                },
                "inEdges": in_edges.get(node_id, []),
                "outEdges": out_edges.get(node_id, []),
            }
        )
    return {"graph": graph}


def to_marquez_namespace(item: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": item.get("name"),
        "createdAt": item.get("createdAt") or item.get("updatedAt"),
        "updatedAt": item.get("updatedAt"),
        "ownerName": "",
        "description": None,
        "isHidden": False,
    }
