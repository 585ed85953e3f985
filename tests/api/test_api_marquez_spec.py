"""Every GET path of Marquez's spec/openapi.yml answers with the shape the spec documents.

The spec is Marquez's own (tests/fixtures/marquez/openapi.yml, Apache-2.0, copied unchanged). Each
path is called on the HR payroll story (SQLite and PostgreSQL) and its answer validated against the
path's 200 schema, with date-time and uuid formats checked. Marquez's answers and its spec differ in a
few places; the validation follows Marquez's answers there, each listed in ``ERRATA`` with its reason.
The paths Marquez serves beyond its spec (``/jobs``, ``/stats/*``, read from its Java resources) are
checked against schemas written here from Marquez's model classes.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import yaml
from api_events import BUILD, PAYROLL, REPORT_JOB, node_id
from api_helpers import Loaded, assert_error
from jsonschema import Draft202012Validator, FormatChecker

from headwater.spec.formats import is_date_time, is_uuid

pytestmark = pytest.mark.anyio

SPEC_FILE = Path(__file__).resolve().parent.parent / "fixtures" / "marquez" / "openapi.yml"


class _Loader(yaml.SafeLoader):
    """YAML without implicit timestamps: the spec's examples stay text."""


_Loader.yaml_implicit_resolvers = {
    key: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for key, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
SPEC: dict[str, Any] = yaml.load(SPEC_FILE.read_text(), Loader=_Loader)

_FACETS = {"type": "object", "additionalProperties": {"$ref": "#/components/schemas/CustomFacet"}}
# Where Marquez's answers (its Java model, which its clients read) and its spec differ: the answer wins.
ERRATA: dict[str, tuple[list[str], Any, str]] = {
    "FacetsResult.facets": (
        ["FacetsResult", "properties", "facets"],
        _FACETS,
        "RunResource answers the run's facets as a map of name -> facet, not one facet",
    ),
    "InputDatasetVersion.facets": (
        ["InputDatasetVersion", "properties", "facets"],
        {"type": "object"},
        "facets are objects (InputDatasetVersion.facets is ImmutableMap<String, Object>), not strings",
    ),
    "OutputDatasetVersion.facets": (
        ["OutputDatasetVersion", "properties", "facets"],
        {"type": "object"},
        "as InputDatasetVersion.facets",
    ),
    "DatasetVersion.tags": (
        ["DatasetVersion", "properties", "tags"],
        {"type": "array", "items": {"type": "string"}},
        "DatasetVersion.tags is ImmutableSet<TagName>, a JSON array",
    ),
    "NodeType": (
        ["NodeType"],
        {"type": "string", "enum": ["JOB", "DATASET", "DATASET_FIELD"]},
        "/column-lineage answers DATASET_FIELD nodes (ColumnLineageNodeData), documented as a LineageGraph",
    ),
    "GraphNode.data": (
        ["GraphNode", "properties", "data"],
        {"type": "object"},
        "oneOf Dataset/Job matches neither-or-both (neither requires a key); chosen by the node's type below",
    ),
}
_BY_NODE_TYPE = {
    "allOf": [
        {
            "if": {"properties": {"type": {"const": "DATASET"}}},
            "then": {"properties": {"data": {"$ref": "#/components/schemas/Dataset"}}},
        },
        {
            "if": {"properties": {"type": {"const": "JOB"}}},
            "then": {"properties": {"data": {"$ref": "#/components/schemas/Job"}}},
        },
    ]
}
# Beyond the spec: Marquez's JobResource GET /jobs (JobList) and StatsResource (IntervalMetric, LineageMetric)
_INTERVAL = {
    "type": "object",
    "required": ["startInterval", "endInterval"],
    "properties": {"startInterval": {"format": "date-time"}, "endInterval": {"format": "date-time"}},
}
EXTRA: dict[str, Any] = {
    "IntervalMetricList": {
        "type": "array",
        "items": {"allOf": [_INTERVAL, {"required": ["count"], "properties": {"count": {"type": "integer"}}}]},
    },
    "LineageMetricList": {
        "type": "array",
        "items": {
            "allOf": [
                _INTERVAL,
                {
                    "required": ["fail", "start", "complete", "abort"],
                    "properties": {k: {"type": "integer"} for k in ("fail", "start", "complete", "abort")},
                },
            ]
        },
    },
}


def _json_schema(node: Any) -> Any:
    """OpenAPI 3.0 schema -> JSON Schema: every property may also be null (Marquez answers null for what it
    does not know, and its spec marks nothing nullable); ``type: null`` (a spec slip) and OpenAPI-only keys dropped."""
    if isinstance(node, list):
        return [_json_schema(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {
        k: _json_schema(v)
        for k, v in node.items()
        if k not in ("example", "discriminator", "deprecated", "nullable") and not (k == "type" and v is None)
    }
    if out.get("format") == "URL":
        out.pop("format")
    if isinstance(out.get("properties"), dict):
        out["properties"] = {k: {"anyOf": [{"type": "null"}, v]} for k, v in out["properties"].items()}
    return out


def _components() -> dict[str, Any]:
    schemas = copy.deepcopy(SPEC["components"]["schemas"])
    for where, replacement, _ in ERRATA.values():
        parent = schemas
        for key in where[:-1]:
            parent = parent[key]
        parent[where[-1]] = replacement
    converted = _json_schema(schemas)
    converted["GraphNode"] = {**converted["GraphNode"], **_BY_NODE_TYPE}
    converted.update(EXTRA)
    return converted


_CHECKER = FormatChecker(formats=())
_CHECKER.checks("date-time")(is_date_time)
_CHECKER.checks("uuid")(is_uuid)
_ROOT = {"components": {"schemas": _components()}}


def validator_for(schema_name: str) -> Draft202012Validator:
    return Draft202012Validator({**_ROOT, "$ref": f"#/components/schemas/{schema_name}"}, format_checker=_CHECKER)


def spec_get_paths() -> dict[str, str]:
    """Every GET path of the spec -> the name of its 200 answer's schema."""
    found = {}
    for path, operations in SPEC["paths"].items():
        get = operations.get("get")
        if get is None:
            continue
        answers = {str(k): v for k, v in get["responses"].items()}
        ref = answers["200"]["content"]["application/json"]["schema"]["$ref"]
        found[path] = ref.rsplit("/", 1)[-1]
    return found


def enc(text: str) -> str:
    return quote(text, safe="")


async def _get(loaded: Loaded, path: str, params: dict[str, Any] | None = None) -> Any:
    async with loaded.client() as client:
        answer = await client.get(f"/api/v1{path}", params=params)
    assert answer.status_code == 200, f"{path}: {answer.status_code} {answer.text[:500]}"
    return answer.json()


async def _concrete(loaded: Loaded) -> dict[str, tuple[str, dict[str, Any]]]:
    """Each spec path (and the paths beyond it) with values from the story."""
    ns, dataset = PAYROLL
    job_ns, job = BUILD
    dataset_path = f"/namespaces/{enc(ns)}/datasets/{enc(dataset)}"
    job_path = f"/namespaces/{enc(job_ns)}/jobs/{enc(job)}"
    dataset_version = (await _get(loaded, f"{dataset_path}/versions"))["versions"][-1]["version"]
    job_version = (await _get(loaded, f"{job_path}/versions"))["versions"][0]["version"]
    run = loaded.story.build_run_2
    return {
        "/namespaces/{namespace}": (f"/namespaces/{enc(ns)}", {}),
        "/namespaces": ("/namespaces", {"limit": 10}),
        "/events/lineage": ("/events/lineage", {"limit": 5, "sortDirection": "asc"}),
        "/sources/{source}": (f"/sources/{enc(ns)}", {}),
        "/sources": ("/sources", {}),
        "/namespaces/{namespace}/datasets/{dataset}": (dataset_path, {}),
        "/namespaces/{namespace}/datasets/{dataset}/versions/{version}": (
            f"{dataset_path}/versions/{dataset_version}",
            {},
        ),
        "/namespaces/{namespace}/datasets/{dataset}/versions": (f"{dataset_path}/versions", {"limit": 10}),
        "/namespaces/{namespace}/datasets": (f"/namespaces/{enc(ns)}/datasets", {}),
        "/namespaces/{namespace}/jobs/{job}": (job_path, {}),
        "/namespaces/{namespace}/jobs": (f"/namespaces/{enc(job_ns)}/jobs", {}),
        "/namespaces/{namespace}/jobs/{job}/versions/{version}": (f"{job_path}/versions/{job_version}", {}),
        "/namespaces/{namespace}/jobs/{job}/versions": (f"{job_path}/versions", {}),
        "/namespaces/{namespace}/jobs/{job}/runs": (f"{job_path}/runs", {}),
        "/jobs/runs/{id}": (f"/jobs/runs/{run}", {}),
        "/jobs/runs/{id}/facets": (f"/jobs/runs/{loaded.story.report_run}/facets", {"type": "run"}),
        "/lineage": ("/lineage", {"nodeId": node_id("dataset", PAYROLL), "depth": 5}),
        "/runlineage/upstream": ("/runlineage/upstream", {"runId": loaded.story.report_run, "depth": 5}),
        "/column-lineage": ("/column-lineage", {"nodeId": node_id("job", BUILD), "withDownstream": "true"}),
        "/tags": ("/tags", {}),
        "/search": ("/search", {"q": "payroll", "namespace": ns}),
        # beyond the spec
        "/jobs": ("/jobs", {}),
        "/stats/lineage-events": ("/stats/lineage-events", {"period": "WEEK", "timezone": "Europe/Paris"}),
        "/stats/jobs": ("/stats/jobs", {"period": "DAY"}),
        "/stats/datasets": ("/stats/datasets", {"period": "WEEK", "timezone": "UTC"}),
        "/stats/sources": ("/stats/sources", {"period": "DAY"}),
    }


BEYOND_SPEC = {
    "/jobs": "JobList",
    "/stats/lineage-events": "LineageMetricList",
    "/stats/jobs": "IntervalMetricList",
    "/stats/datasets": "IntervalMetricList",
    "/stats/sources": "IntervalMetricList",
}
ALL_PATHS = {**spec_get_paths(), **BEYOND_SPEC}


def test_the_spec_lists_21_get_paths_and_the_errata_apply() -> None:
    assert len(spec_get_paths()) == 21
    for where, _, reason in ERRATA.values():  # every erratum still names a place of the spec
        node = SPEC["components"]["schemas"]
        for key in where:
            assert key in node, (where, reason)
            node = node[key]


@pytest.mark.parametrize("spec_path", sorted(ALL_PATHS))
async def test_every_get_path_answers_the_documented_shape(loaded: Loaded, spec_path: str) -> None:
    concrete = await _concrete(loaded)
    assert set(concrete) == set(ALL_PATHS)
    path, params = concrete[spec_path]
    answer = await _get(loaded, path, params)
    errors = sorted(validator_for(ALL_PATHS[spec_path]).iter_errors(answer), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message[:300]}" for e in errors[:10])
    assert answer, f"{spec_path} answered nothing to check"  # the story fills every answer
    listed = ("namespaces", "events", "sources", "datasets", "versions", "jobs", "runs", "graph", "results")
    if isinstance(answer, dict):  # the items a list answer holds were checked too
        assert all(answer[k] for k in listed if k in answer), f"{spec_path}: an empty list in {answer}"


async def test_the_validation_can_fail(loaded: Loaded) -> None:
    dataset = await _get(loaded, f"/namespaces/file/datasets/{enc(PAYROLL[1])}")
    assert not list(validator_for("Dataset").iter_errors(dataset))
    broken = {**dataset, "createdAt": "yesterday", "fields": [{"name": "a"}], "currentVersion": "v1"}
    assert {e.absolute_path[0] for e in validator_for("Dataset").iter_errors(broken)} == {
        "createdAt",
        "fields",
        "currentVersion",
    }


async def test_dataset_answers_carry_facets_and_column_lineage(loaded: Loaded) -> None:
    dataset = await _get(loaded, f"/namespaces/file/datasets/{enc(PAYROLL[1])}")
    assert "schema" in dataset["facets"]  # as the newest event sent it
    lineage = {c["name"]: c["inputFields"] for c in dataset["columnLineage"]}
    assert [(i["dataset"], i["field"]) for i in lineage["Total"]] == [("/data/employees.csv", "Salary")]
    listed = await _get(loaded, "/namespaces/file/datasets")
    full = {d["name"]: d for d in listed["datasets"]}[PAYROLL[1]]
    assert full == dataset  # list items are whole datasets, as Marquez's


async def test_versions_are_uuids_and_found_either_way(loaded: Loaded) -> None:
    path = f"/namespaces/file/datasets/{enc(PAYROLL[1])}"
    versions = (await _get(loaded, f"{path}/versions"))["versions"]
    newest = versions[0]
    assert is_uuid(newest["version"]) and newest["id"]["version"] == newest["version"]
    assert (await _get(loaded, path))["currentVersion"] == newest["version"]
    one = await _get(loaded, f"{path}/versions/{newest['version']}")
    assert one["version"] == newest["version"] and one["createdByRun"]["id"] == loaded.story.build_run_2
    async with loaded.client() as client:
        assert_error(await client.get(f"/api/v1{path}/versions/{'0' * 8}-0000-0000-0000-{'0' * 12}"), 404, "not_found")
    job_path = f"/namespaces/spark/jobs/{enc(BUILD[1])}"
    job_versions = (await _get(loaded, f"{job_path}/versions"))["versions"]
    assert [v["version"] for v in job_versions] == [
        (await _get(loaded, f"{job_path}/versions/{v['version']}"))["version"] for v in job_versions
    ]
    assert job_versions[0]["inputs"] == [{"namespace": "file", "name": "/data/employees.csv"}]
    run = await _get(loaded, f"/jobs/runs/{loaded.story.build_run_2}")
    assert run["jobVersion"]["version"] == job_versions[0]["version"]
    # the run wrote payroll's newest version; the first build's run wrote the one before
    assert [o["datasetVersionId"]["version"] for o in run["outputDatasetVersions"]] == [newest["version"]]
    first = await _get(loaded, f"/jobs/runs/{loaded.story.build_run_1}")
    assert [o["datasetVersionId"]["version"] for o in first["outputDatasetVersions"]] == [versions[1]["version"]]
    report = await _get(loaded, f"/jobs/runs/{loaded.story.report_run}")  # read payroll between the two builds
    assert [i["datasetVersionId"]["version"] for i in report["inputDatasetVersions"]] == [versions[1]["version"]]


async def test_column_lineage_by_job_is_that_of_its_outputs(loaded: Loaded) -> None:
    by_job = (await _get(loaded, "/column-lineage", {"nodeId": node_id("job", BUILD)}))["graph"]
    by_output = (await _get(loaded, "/column-lineage", {"nodeId": node_id("dataset", PAYROLL)}))["graph"]
    assert sorted(n["id"] for n in by_job) == sorted(n["id"] for n in by_output)
    versioned = f"{node_id('dataset', PAYROLL)}#{'1' * 8}-1111-1111-1111-{'1' * 12}"  # marquez-python's form
    assert (await _get(loaded, "/column-lineage", {"nodeId": versioned}))["graph"] == by_output


async def test_search_filters_by_namespace_and_sorts(loaded: Loaded) -> None:
    everywhere = await _get(loaded, "/search", {"q": "payroll"})
    assert {r["namespace"] for r in everywhere["results"]} >= {"file", "spark"}
    only = await _get(loaded, "/search", {"q": "payroll", "namespace": "spark"})
    assert {r["namespace"] for r in only["results"]} == {"spark"}
    names = [r["name"] for r in everywhere["results"]]
    assert names == sorted(names)
    newest = await _get(loaded, "/search", {"q": "payroll", "sort": "UPDATE_AT"})
    times = [r["updatedAt"] for r in newest["results"]]
    assert times == sorted(times, reverse=True)
    assert (await _get(loaded, "/search", {"q": "payroll", "before": "2000-01-01"}))["results"] == []


async def test_events_sort_direction(loaded: Loaded) -> None:
    newest = await _get(loaded, "/events/lineage", {"limit": 100})
    oldest = await _get(loaded, "/events/lineage", {"limit": 100, "sortDirection": "asc"})
    assert oldest["events"] == list(reversed(newest["events"]))
    assert oldest["totalCount"] == newest["totalCount"] == len(loaded.story.events)
    second = await _get(loaded, "/events/lineage", {"limit": 2, "offset": 1, "sortDirection": "asc"})
    assert second["events"] == oldest["events"][1:3]
    assert second["totalCount"] == newest["totalCount"]  # the window's count, not the page's
    page = await _get(loaded, "/events/lineage", {"limit": 2})
    assert page["totalCount"] == len(loaded.story.events) and len(page["events"]) == 2
    async with loaded.client() as client:
        answer = await client.get("/api/v1/events/lineage", params={"sortDirection": "sideways"})
    assert_error(answer, 400, "invalid_parameter")


async def test_all_jobs_and_run_facets_and_upstream_runs(loaded: Loaded) -> None:
    everything = await _get(loaded, "/jobs")
    assert everything["totalCount"] == len(everything["jobs"]) >= 2
    failed = await _get(loaded, "/jobs", {"lastRunStates": "FAILED"})
    assert [j["simpleName"] for j in failed["jobs"]] == [REPORT_JOB[1]]
    facets = await _get(loaded, f"/jobs/runs/{loaded.story.report_run}/facets", {"type": "run"})
    assert "errorMessage" in facets["facets"] and "parent" in facets["facets"]
    job_facets = await _get(loaded, f"/jobs/runs/{loaded.story.build_run_2}/facets", {"type": "job"})
    assert "sql" in job_facets["facets"]
    upstream = (await _get(loaded, "/runlineage/upstream", {"runId": loaded.story.report_run}))["runs"]
    assert upstream[0]["run"]["id"] == loaded.story.report_run
    # the report read payroll, which the first build wrote before the report started
    assert upstream[0]["inputs"][0]["producedByRunId"] == loaded.story.build_run_1
    assert upstream[1]["run"]["id"] == loaded.story.build_run_1


async def test_stats_count_by_interval(loaded: Loaded) -> None:
    day = await _get(loaded, "/stats/jobs", {"period": "DAY"})
    assert len(day) == 24 and day[-1]["count"] >= 2  # the story's jobs all exist by now
    week = await _get(loaded, "/stats/lineage-events", {"period": "WEEK", "timezone": "UTC"})
    assert len(week) == 7
    async with loaded.client() as client:
        assert_error(await client.get("/api/v1/stats/jobs", params={"period": "MONTH"}), 400, "invalid_parameter")
        assert_error(
            await client.get("/api/v1/stats/lineage-events", params={"period": "WEEK"}), 400, "invalid_parameter"
        )
        assert_error(
            await client.get("/api/v1/stats/jobs", params={"period": "WEEK", "timezone": "Mars/Olympus"}),
            400,
            "invalid_parameter",
        )
        assert_error(await client.get("/api/v1/stats/runs", params={"period": "DAY"}), 404, "not_found")


WRITES = [
    ("PUT", "/namespaces/hr", "POST /api/v1/lineage"),
    ("DELETE", "/namespaces/hr", "append-only"),
    ("PUT", "/sources/pg", "POST /api/v1/lineage"),
    ("PUT", f"/namespaces/file/datasets/{enc(PAYROLL[1])}", "POST /api/v1/lineage"),
    ("DELETE", f"/namespaces/file/datasets/{enc(PAYROLL[1])}", "lifecycleStateChange"),
    ("POST", f"/namespaces/file/datasets/{enc(PAYROLL[1])}/tags/pii", "facets"),
    ("DELETE", f"/namespaces/file/datasets/{enc(PAYROLL[1])}/tags/pii", "facets"),
    ("POST", f"/namespaces/file/datasets/{enc(PAYROLL[1])}/fields/Total/tags/pii", "facets"),
    ("PUT", "/namespaces/spark/jobs/payroll.build", "POST /api/v1/lineage"),
    ("DELETE", "/namespaces/spark/jobs/payroll.build", "append-only"),
    ("POST", "/namespaces/spark/jobs/payroll.build/runs", "POST /api/v1/lineage"),
    ("POST", "/namespaces/spark/jobs/payroll.build/tags/daily", "facets"),
    ("POST", "/jobs/runs/0c8d2e9f-2b1e-4a57-9a38-0e1a3b0ad111/complete", "eventType"),
    ("PUT", "/tags/pii", "facets"),
]


@pytest.mark.parametrize(("method", "path", "names"), WRITES, ids=[f"{m} {p}" for m, p, _ in WRITES])
async def test_marquez_writes_answer_501_naming_the_alternative(
    loaded: Loaded, method: str, path: str, names: str
) -> None:
    async with loaded.client() as client:
        answer = await client.request(
            method, f"/api/v1{path}", json={"ownerName": "me"}, headers={"Content-Type": "application/json"}
        )
    error = assert_error(answer, 501, "not_implemented")
    assert names in error["message"]
