"""Pure derivation: a job's runs (and JobEvents) → its versions, lineage edges and column edges.

A job version is what the job does: inputs, outputs, SQL/source code and column lineage.
Samples (one per run, at the run's start; one per JobEvent, at its event time) are ordered by
(time, key); consecutive samples with the same content collapse into one version.

A run's sample is the whole job as the run saw it. A JobEvent's (static metadata) says only what it sends
(:func:`resolve`): its job facets are laid over the job's facets before it (a facet not sent is kept, one sent
as ``{"_deleted": true}`` removed: the OpenLineage spec's reading of facets), and ``inputs`` / ``outputs`` it
leaves out are the job's before it (an empty list states "none"), so a JobEvent adding ownership or
documentation does not wipe the job's lineage or SQL.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from headwater.model.jsontypes import JSONMapping, JSONObject, JSONValue
from headwater.spec import live_facets
from headwater.store.canonical import content_hash, version_id
from headwater.store.derive_runs import job_content
from headwater.store.intervals import merge_intervals


@dataclass(frozen=True)
class JobSample:
    time: int
    key: str  # run id, or "event:<id>" for a JobEvent
    run_id: str | None
    content: Mapping[str, Any]  # derive_runs.job_content(...)
    facets: Mapping[str, Any]  # job facets
    # a JobEvent's: which of ``inputs`` / ``outputs`` it sends (the rest, and the facets it does not send, are the
    # job's before it: resolve); None: a run's sample, the whole job
    stated: frozenset[str] | None = None


_NOTHING = job_content([], [], {}, {})


def resolve(
    samples: Sequence[JobSample],
    facets_before: Mapping[str, Any] | None = None,
    content_before: JSONMapping | None = None,
) -> list[JobSample]:
    """``samples`` in (time, key) order, each JobEvent's made whole from the job before it (module docstring);
    ``facets_before`` / ``content_before``: the job's facets and content before the first (a continued
    derivation's; none for a job's whole history)."""
    facets: Mapping[str, Any] = facets_before or {}
    content: JSONMapping = content_before or _NOTHING
    out: list[JobSample] = []
    for s in sorted(samples, key=lambda s: (s.time, s.key)):
        if s.stated is not None:
            facets = live_facets("job", {**facets, **s.facets})
            own = s.content
            io = "outputs" in s.stated
            content = job_content(
                own["inputs"] if "inputs" in s.stated else content["inputs"],
                own["outputs"] if io else content["outputs"],
                facets,
                own["columnLineage"] if io else content["columnLineage"],
            )
            s = JobSample(s.time, s.key, s.run_id, content, facets)
        else:
            facets, content = s.facets, s.content
        out.append(s)
    return out


def _changes(prev: JSONMapping | None, cur: JSONMapping) -> list[str]:
    if prev is None:
        return ["created"]
    changes = [name for name in ("inputs", "outputs") if prev[name] != cur[name]]
    if prev["code"] != cur["code"]:
        changes.append("sql")
    if prev["columnLineage"] != cur["columnLineage"]:
        changes.append("columnLineage")
    return changes


def version_content(version: JSONMapping) -> JSONObject:
    """The content a stored version was made from (what ``job_content`` gave for its first sample)."""
    return job_content(version["inputs"], version["outputs"], version["facets"], version["column_lineage"])


def derive_job_versions(job: str, samples: Sequence[JobSample], start: JSONMapping | None = None) -> list[JSONObject]:
    """Versions oldest first, as ``job_versions`` rows (JSON values as Python objects).

    ``start`` continues from a stored version (all ``samples`` come after it); the answer then
    begins with that version. ``samples`` are made whole (:func:`resolve`, from the job before them).
    """
    assert all(s.stated is None for s in samples), "a JobEvent's sample is made whole first (resolve)"
    versions: list[dict[str, Any]] = []
    prev_content: Mapping[str, Any] | None = None
    if start is not None:
        versions.append({**start, "valid_to": None})
        prev_content = version_content(start)
    for s in sorted(samples, key=lambda s: (s.time, s.key)):
        if prev_content is not None and s.content == prev_content:
            # The same content: compare the next sample with this one (equal), whose members are a daily job's
            # shared values, found equal by identity, rather than deeply with the stored version's parsed content.
            prev_content = s.content
            continue
        if versions:
            versions[-1]["valid_to"] = s.time
        versions.append(
            {
                "id": version_id(job, s.time, s.content),
                "job": job,
                "valid_from": s.time,
                "valid_to": None,
                "run_id": s.run_id,
                "inputs": list(s.content["inputs"]),
                "outputs": list(s.content["outputs"]),
                "facets": dict(s.facets),
                "column_lineage": dict(s.content["columnLineage"]),
                "changes": _changes(prev_content, s.content),
            }
        )
        prev_content = s.content
    # Two samples at the same instant: only the last one is visible.
    return [v for v in versions if v["valid_to"] is None or v["valid_to"] > v["valid_from"]]


def derive_edges(job: str, versions: Sequence[JSONMapping]) -> list[JSONObject]:
    """``edges`` rows: dataset→job (INPUT) and job→dataset (OUTPUT) with merged validity."""
    spans = merge_intervals(
        [
            (
                v["valid_from"],
                v["valid_to"],
                [(d, "INPUT") for d in v["inputs"]] + [(d, "OUTPUT") for d in v["outputs"]],
            )
            for v in versions
        ]
    )
    return [
        {"job": job, "dataset": d, "direction": direction, "valid_from": f, "valid_to": t}
        for (d, direction), f, t in spans
    ]


# Transformation lists' bytes → their content hash, across calls: a wide job repeats a few lists 100,000 times,
# and every job of a platform the same few (a pure function's answers; emptied when it reaches its bound).
_TRANSFORMATION_HASHES: dict[bytes, str] = {}
_TRANSFORMATION_HASHES_KEPT = 4096


def derive_column_edges(job: str, versions: Sequence[JSONMapping]) -> list[JSONObject]:
    """``column_edges`` rows from the versions' column lineage, with merged validity."""

    transformations: dict[str, Any] = {}  # content hash → the transformations
    hashes = _TRANSFORMATION_HASHES

    def hashed(value: JSONValue) -> str:
        try:
            raw = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
        except TypeError:  # not plain JSON: no shortcut
            return content_hash(value)
        found = hashes.get(raw)
        if found is None:
            if len(hashes) >= _TRANSFORMATION_HASHES_KEPT:
                hashes.clear()
            found = hashes[raw] = content_hash(value)
        return found

    def keys(v: JSONMapping) -> list[tuple[str, str, str, str, str]]:
        out = []
        for dst, items in v["column_lineage"].items():
            for e in items:
                out.append((e["src"], e["srcField"], dst, e["dstField"], hashed(e["transformations"])))
        return out

    for v in versions:
        for items in v["column_lineage"].values():
            for e in items:
                transformations.setdefault(hashed(e["transformations"]), e["transformations"])
    spans = merge_intervals([(v["valid_from"], v["valid_to"], keys(v)) for v in versions])
    return [
        {
            "job": job,
            "src_dataset": src,
            "src_field": sf,
            "dst_dataset": dst,
            "dst_field": df,
            "valid_from": f,
            "valid_to": t,
            "transformations": transformations[th],
        }
        for (src, sf, dst, df, th), f, t in spans
    ]
