"""Pure mappings from Headwater's graph answers (docs/api.md) to Marquez's shapes.

Shapes follow Marquez's ``spec/openapi.yml``: Dataset, Job, Run, DatasetVersion, LineageGraph
(``{"graph": [{id, type, data, inEdges, outEdges}]}``), column lineage (``DATASET_FIELD`` nodes
with ``inputFields``) and Namespace. Fields Headwater does not track (owners, tags, run args)
answer empty values.

Version ids: Marquez's are UUIDs; Headwater's are content hashes. :func:`marquez_version` writes a
Headwater version id as a UUID (its first 128 bits), the form every Marquez answer gives; the version
paths accept either form. Job names follow Marquez for nested jobs (the ``parent`` run facet,
:func:`marquez_names`): ``simpleName`` is the job's name without its parent's name as a prefix, ``name``
is the parent's Marquez name + ``.`` + the simple name (recursively, as Marquez's ``jobs_view``), and
``parentJobName`` the parent's Marquez name.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from headwater.model.jsontypes import JSONMapping, JSONObject, JSONValue
from headwater.model.naming import scheme
from headwater.model.nodeid import FIELD, field_prefix, format_node_id, parse_node_id

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


def _fields(node: JSONMapping) -> list[JSONObject]:
    return [
        {"name": f.get("name"), "type": f.get("type"), "tags": [], "description": f.get("description")}
        for f in node.get("fields") or []
    ]


def _dataset_type(node: JSONMapping) -> str:
    kind = str(node.get("kind") or "").lower()
    return "STREAM" if kind in _STREAMING else "DB_TABLE"


def marquez_version(version: JSONValue) -> str | None:
    """A Headwater version id (hex digest) as the UUID Marquez answers carry; other text unchanged."""
    if not isinstance(version, str):
        return None
    try:
        return str(uuid.UUID(hex=version[:32])) if len(version) >= 32 else version
    except ValueError:
        return version


def same_version(given: str, version: JSONValue) -> bool:
    """Whether ``given`` (from a path: a UUID or a Headwater version id) names ``version``."""
    return isinstance(version, str) and given.lower() in (version.lower(), str(marquez_version(version)))


def _version_id(version: JSONValue) -> str | None:
    if isinstance(version, dict):
        return marquez_version(version.get("version"))
    return None


def marquez_job_name(name: str, parent_name: str | None) -> str:
    """Marquez's name of a job: ``parent.name`` for a nested job, unless its name already starts so."""
    if not parent_name or name.startswith(parent_name + "."):
        return name
    return f"{parent_name}.{name}"


def marquez_names(own: str, chain: Sequence[str] = ()) -> tuple[str, str, str | None]:
    """``(name, simpleName, parentJobName)`` of a job named ``own`` whose ancestors are named ``chain``
    (OpenLineage names, nearest first), as Marquez names nested jobs: the simple name is the job's name
    without its parent's name as a prefix, the name is the parent's Marquez name, a dot and the simple
    name — so an Airflow task's Spark application's action is ``dag.task.app.action``."""
    if not chain:
        return own, own, None
    parent, _, _ = marquez_names(chain[0], chain[1:])
    simple = own[len(chain[0]) + 1 :] if own.startswith(chain[0] + ".") and len(own) > len(chain[0]) + 1 else own
    return f"{parent}.{simple}", simple, parent


def column_lineage_of(answer: JSONMapping, dataset_id: str) -> list[JSONObject] | None:
    """Marquez's Dataset ``columnLineage`` (``[{name, inputFields}]``) from an upstream column-lineage answer
    of the dataset: the edges into its own fields; None when it has none."""
    into: dict[str, list[dict[str, Any]]] = {}
    prefix = field_prefix(dataset_id)
    for edge in answer.get("edges") or []:
        target, source = edge.get("target"), edge.get("source")
        if not (isinstance(target, str) and isinstance(source, str)) or not target.startswith(prefix):
            continue
        src = parse_node_id(source)
        transformations = edge.get("transformations") or []
        first = transformations[0] if transformations else {}
        into.setdefault(target[len(prefix) :], []).append(
            {
                "namespace": src.namespace,
                "dataset": src.name,
                "field": src.field,
                "transformationDescription": first.get("description"),
                "transformationType": first.get("type"),
                "transformations": transformations,
            }
        )
    return [{"name": name, "inputFields": fields} for name, fields in sorted(into.items())] or None


def _nominal(facets: JSONValue) -> tuple[JSONValue, JSONValue]:
    nominal = facets.get("nominalTime") if isinstance(facets, dict) else None
    if not isinstance(nominal, dict):
        return None, None
    return nominal.get("nominalStartTime"), nominal.get("nominalEndTime")


def to_marquez_run(
    run: JSONMapping | None,
    job_version: str | None = None,
    job_name: str | None = None,
    dataset_versions: dict[str, str] | None = None,
) -> JSONObject | None:
    """Headwater Run -> Marquez Run (``job_version``/``job_name``: its job's version id and Marquez name;
    ``dataset_versions``: dataset id -> the version id the run read or wrote; each when known)."""
    if not run:
        return None
    versions = dataset_versions or {}
    job = run.get("job")
    job_ref = parse_node_id(job) if isinstance(job, str) else None
    start, end = _nominal(run.get("facets"))
    return {
        "id": run.get("runId"),
        "createdAt": run.get("startedAt") or run.get("endedAt"),
        "updatedAt": run.get("endedAt") or run.get("startedAt"),
        "nominalStartTime": start,
        "nominalEndTime": end,
        "state": RUN_STATES.get(str(run.get("state")), "NEW"),
        "startedAt": run.get("startedAt"),
        "endedAt": run.get("endedAt"),
        "durationMs": run.get("durationMs"),
        "args": {},
        "jobVersion": (
            {
                "namespace": job_ref.namespace,
                "name": job_name or job_ref.name,
                "version": marquez_version(job_version),
            }
            if job_ref
            else None
        ),
        "inputDatasetVersions": [
            {"datasetVersionId": {**_dataset_id(i), "version": marquez_version(versions.get(i))}, "facets": {}}
            for i in run.get("inputs") or []
        ],
        "outputDatasetVersions": [
            {"datasetVersionId": {**_dataset_id(o), "version": marquez_version(versions.get(o))}, "facets": {}}
            for o in run.get("outputs") or []
        ],
        "context": {},
        "facets": run.get("facets") or {},
    }


def to_marquez_dataset(
    node: JSONMapping, sent_facets: JSONMapping | None = None, column_lineage: Sequence[JSONValue] | None = None
) -> JSONObject:
    """Headwater dataset Node (or node details) -> Marquez Dataset.

    ``sent_facets``: the facets of the dataset's newest event (graph ``dataset_facets``), over the
    version's lasting ones; ``column_lineage``: :func:`column_lineage_of`."""
    facets = {**(node.get("facets") or {}), **(sent_facets or {})}
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
        "columnLineage": column_lineage,
        "deleted": bool(node.get("deleted")),
    }


def to_marquez_job(node: JSONMapping, chain: Sequence[str] | None = None) -> JSONObject:
    """Headwater job Node (or node details) -> Marquez Job; ``chain``: its ancestors' OpenLineage names, nearest
    first (default: its ``parent`` only)."""
    job_type = node.get("jobType") or {}
    processing = str(job_type.get("processingType") or "BATCH").upper()
    facets = node.get("facets") or {}
    location = facets.get("sourceCodeLocation") if isinstance(facets, dict) else None
    documentation = facets.get("documentation") if isinstance(facets, dict) else None
    parent = node.get("parent")
    if chain is None:
        chain = [parse_node_id(parent).name] if isinstance(parent, str) else []
    name, simple, parent_name = marquez_names(str(node.get("name") or ""), chain)
    latest = node.get("latestRun")
    version = _version_id(node.get("currentVersion"))
    return {
        "id": {"namespace": node.get("namespace"), "name": name},
        "type": "STREAM" if processing == "STREAMING" else "BATCH",
        "name": name,
        "simpleName": simple,
        "parentJobName": parent_name,
        "parentJobUuid": None,
        "createdAt": node.get("createdAt") or node.get("updatedAt"),
        "updatedAt": node.get("updatedAt"),
        "namespace": node.get("namespace"),
        "inputs": [_dataset_id(i) for i in node.get("inputs") or []],
        "outputs": [_dataset_id(o) for o in node.get("outputs") or []],
        "location": location.get("url") if isinstance(location, dict) else None,
        "description": documentation.get("description") if isinstance(documentation, dict) else None,
        "latestRun": (
            to_marquez_run({**latest, "job": node.get("id")}, None, name) if isinstance(latest, dict) else None
        ),
        "latestRuns": (
            [to_marquez_run({**latest, "job": node.get("id")}, None, name)] if isinstance(latest, dict) else []
        ),
        "facets": facets,
        "currentVersion": version,
        "tags": [],
        "labels": [],
    }


def to_marquez_job_version(
    job: JSONMapping, version: JSONMapping, at_version: JSONMapping, chain: Sequence[str] | None = None
) -> JSONObject:
    """One Headwater Version of a job -> Marquez JobVersion (``at_version``: the job's node details as of it;
    ``chain``: as for :func:`to_marquez_job`)."""
    marquez = to_marquez_job(at_version, chain)
    run_id = version.get("runId")
    facets = version.get("facets") or {}
    location = facets.get("sourceCodeLocation") if isinstance(facets, dict) else None
    return {
        "id": {
            "namespace": job.get("namespace"),
            "name": marquez["name"],
            "version": marquez_version(version.get("version")),
        },
        "name": marquez["name"],
        "namespace": job.get("namespace"),
        "version": marquez_version(version.get("version")),
        "createdAt": version.get("validFrom"),
        "updatedAt": version.get("validTo") or version.get("validFrom"),
        "location": location.get("url") if isinstance(location, dict) else None,
        "inputs": marquez["inputs"],
        "outputs": marquez["outputs"],
        "facets": facets,
        "latestRun": {"id": run_id} if run_id else None,
        "context": {},
    }


def to_marquez_dataset_version(
    node: JSONMapping, version: JSONMapping, made_by: JSONMapping | None = None
) -> JSONObject:
    """One Headwater Version of a dataset -> Marquez DatasetVersion (``made_by``: the Run that made it, when known)."""
    run_id = version.get("runId")
    marquez_id = marquez_version(version.get("version"))
    facets = version.get("facets") or {}
    lifecycle = facets.get("lifecycleStateChange") if isinstance(facets, dict) else None
    documentation = facets.get("documentation") if isinstance(facets, dict) else None
    created_by = to_marquez_run(made_by) if made_by else ({"id": run_id} if run_id else None)
    return {
        "id": {"namespace": node.get("namespace"), "name": node.get("name"), "version": marquez_id},
        "type": _dataset_type(node),
        "name": node.get("name"),
        "physicalName": node.get("name"),
        "createdAt": version.get("validFrom"),
        "version": marquez_id,
        "namespace": node.get("namespace"),
        "sourceName": node.get("namespace"),
        "fields": _fields(version),
        "tags": [],
        "lifecycleState": lifecycle.get("lifecycleStateChange") if isinstance(lifecycle, dict) else None,
        "description": documentation.get("description") if isinstance(documentation, dict) else None,
        "createdByRun": created_by,
        "facets": facets,
    }


def to_marquez_lineage(answer: JSONMapping, chains: dict[str, list[str]] | None = None) -> JSONObject:
    """Headwater lineage answer -> Marquez LineageGraph ``{"graph": [GraphNode]}``.

    ``chains``: job id -> its ancestors' job ids, nearest first: a nested job's node is
    ``job:<ns>:<Marquez name>`` (:func:`marquez_names`) in its id, its data and every edge."""
    known = chains or {}
    names = {job: [parse_node_id(a).name for a in chain] for job, chain in known.items()}
    ids: dict[str, str] = {}
    for node in answer.get("nodes") or []:
        if node.get("type") == "JOB" and names.get(node["id"]):
            name = marquez_names(str(node.get("name")), names[node["id"]])[0]
            ids[node["id"]] = format_node_id("job", str(node.get("namespace")), name)
    in_edges: dict[str, list[dict[str, str]]] = {}
    out_edges: dict[str, list[dict[str, str]]] = {}
    sources: dict[str, list[str]] = {}
    targets: dict[str, list[str]] = {}
    for edge in answer.get("edges") or []:
        source, target = edge["source"], edge["target"]
        pair = {"origin": ids.get(source, source), "destination": ids.get(target, target)}
        out_edges.setdefault(source, []).append(pair)
        in_edges.setdefault(target, []).append(pair)
        sources.setdefault(target, []).append(source)
        targets.setdefault(source, []).append(target)
    graph = []
    for node in answer.get("nodes") or []:
        is_job = node.get("type") == "JOB"
        if is_job and "inputs" not in node:  # graph nodes carry no inputs/outputs: take them from the edges
            node = {
                **node,
                "inputs": sorted(sources.get(node["id"], [])),
                "outputs": sorted(targets.get(node["id"], [])),
            }
        data = to_marquez_job(node, names.get(node["id"], [])) if is_job else to_marquez_dataset(node)
        graph.append(
            {
                "id": ids.get(node["id"], node["id"]),
                "type": "JOB" if is_job else "DATASET",
                "data": data,
                "inEdges": in_edges.get(node["id"], []),
                "outEdges": out_edges.get(node["id"], []),
            }
        )
    return {"graph": graph}


def to_marquez_column_lineage(answer: JSONMapping) -> JSONObject:
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


def to_marquez_source(item: JSONMapping) -> JSONObject:
    """A dataset namespace as a Marquez Source (Headwater has no sources: the namespace is where data lives)."""
    name = str(item.get("name") or "")
    return {
        "type": scheme(name).upper() or "UNKNOWN",
        "name": name,
        "createdAt": item.get("createdAt") or item.get("updatedAt"),
        "updatedAt": item.get("updatedAt"),
        "connectionUrl": name,
        "description": None,
    }


def to_marquez_upstream(steps: Sequence[JSONMapping], job_names: dict[str, str] | None = None) -> JSONObject:
    """The graph's upstream runs (``[{run, inputs: [{dataset, producedByRunId}]}]``) -> UpstreamRunLineage."""
    names = job_names or {}
    runs = []
    for step in steps:
        run = step["run"]
        job = parse_node_id(run["job"])
        runs.append(
            {
                "job": {"namespace": job.namespace, "name": names.get(run["job"], job.name), "version": None},
                "run": {
                    "id": run.get("runId"),
                    "start": run.get("startedAt"),
                    "end": run.get("endedAt"),
                    "status": RUN_STATES.get(str(run.get("state")), "NEW"),
                },
                "inputs": [
                    {**_dataset_id(i["dataset"]), "version": None, "producedByRunId": i.get("producedByRunId")}
                    for i in step.get("inputs") or []
                ],
            }
        )
    return {"runs": runs}


def to_marquez_namespace(item: JSONMapping) -> JSONObject:
    return {
        "name": item.get("name"),
        "createdAt": item.get("createdAt") or item.get("updatedAt"),
        "updatedAt": item.get("updatedAt"),
        "ownerName": "",
        "description": None,
        "isHidden": False,
    }
