"""The golden cases of the pure derivation: each ``<name>.input.json`` in tests/fixtures/stories/golden and
the function whose answer ``<name>.expected.json`` freezes. tests/store/test_golden.py only compares;
tests/store/make_golden.py is the one place that writes expected files."""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

from fixtures.stories.load import HERE
from headwater.model.times import iso
from headwater.store.canonical import event_id
from headwater.store.derive_datasets import DatasetObservation, derive_dataset_versions, derive_field_spans
from headwater.store.derive_jobs import JobSample, derive_column_edges, derive_edges, derive_job_versions
from headwater.store.derive_runs import RunObservation, derive_run, job_content
from headwater.store.observe import column_lineage_edges, observe

GOLDEN = HERE / "golden"


def derive_everything(events: list[dict[str, Any]]) -> dict[str, Any]:
    """The whole derivation without a database: events → runs, job and dataset versions, edges."""
    by_node: dict[str, list[Any]] = defaultdict(list)
    for e in events:
        for o in observe(e, event_id(e)):
            by_node[o.node].append(o)
    out: dict[str, Any] = {"runs": {}, "jobs": {}, "datasets": {}}
    samples: dict[str, list[JobSample]] = defaultdict(list)
    for node in sorted(n for n in by_node if n.startswith("run:")):
        run = derive_run(
            node[4:], [RunObservation(o.time, o.event_id, o.data) for o in by_node[node] if o.role == "run"]
        )
        out["runs"][node] = run
        samples[run["job"]].append(
            JobSample(
                run["started_at"],
                run["run_id"],
                run["run_id"],
                job_content(run["inputs"], run["outputs"], run["job_facets"], run["column_lineage"]),
                run["job_facets"],
            )
        )
    for job in sorted(samples):
        versions = derive_job_versions(job, samples[job])
        out["jobs"][job] = {
            "versions": versions,
            "edges": derive_edges(job, versions),
            "columnEdges": derive_column_edges(job, versions),
        }
    for node in sorted(n for n in by_node if n.startswith("dataset:")):
        obs = [DatasetObservation(o.time, o.event_id, o.role, o.data) for o in by_node[node]]
        versions = derive_dataset_versions(node, obs)
        out["datasets"][node] = {"versions": versions, "fields": derive_field_spans(node, "file", node[13:], versions)}
    return json.loads(json.dumps(out, default=str), object_hook=_readable_times)


def _readable_times(obj: dict[str, Any]) -> dict[str, Any]:
    for key in ("started_at", "ended_at", "updated_at", "valid_from", "valid_to"):
        if isinstance(obj.get(key), int):
            obj[key] = iso(obj[key])
    return obj


CASES = {
    "column_lineage_1_2_0": column_lineage_edges,
    "column_lineage_legacy": column_lineage_edges,
    "small_pipeline": derive_everything,
}
