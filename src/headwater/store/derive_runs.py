"""Pure derivation: a run's observations → the run (state, times, facets, inputs, outputs)."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from headwater.ingest.shared import notes
from headwater.model.jsontypes import JSONMapping, JSONObject, JSONValue
from headwater.model.nodeid import format_node_id
from headwater.spec import live_facets
from headwater.store.canonical import content_hash
from headwater.store.observe import RUN_STATES, TERMINAL_STATES


@dataclass(frozen=True)
class RunObservation:
    time: int
    event_id: str
    data: Mapping[str, Any]


def _mapping(value: JSONValue) -> JSONMapping:
    """``value`` when it is a JSON object, else an empty one (facets are what producers sent)."""
    return value if isinstance(value, Mapping) else {}


def _rank(event_type: str | None) -> int:
    if event_type in TERMINAL_STATES:
        return 2
    if event_type == "START":
        return 0
    return 1


def sort_key(o: RunObservation) -> tuple[int, int, str]:
    return (o.time, _rank(o.data.get("eventType")), o.event_id)


def job_code(job_facets: JSONMapping) -> JSONObject:
    """The parts of the job facets that define what the job does (SQL, source code)."""
    code: dict[str, Any] = {}
    sql = job_facets.get("sql")
    if isinstance(sql, Mapping) and "query" in sql:
        code["sql"] = sql["query"]
    src = job_facets.get("sourceCode")
    if isinstance(src, Mapping) and "sourceCode" in src:
        code["sourceCode"] = {"language": src.get("language"), "sourceCode": src["sourceCode"]}
    return code


def job_content(
    inputs: Sequence[str], outputs: Sequence[str], job_facets: JSONMapping, column_lineage: JSONMapping
) -> JSONObject:
    """What makes a job version: inputs, outputs, SQL/source code and column lineage."""
    return {
        "inputs": sorted(inputs),
        "outputs": sorted(outputs),
        "code": job_code(job_facets),
        "columnLineage": {k: column_lineage[k] for k in sorted(column_lineage)},
    }


def run_state(obs: Sequence[RunObservation]) -> tuple[str, int | None]:
    """A run's state and end from its observations (in :func:`sort_key` order): its last terminal event (COMPLETE,
    FAIL, ABORT) once it has one — an OTHER event only adds metadata (the spec's example: "to send additional
    metadata after the run is complete") and a RUNNING with a later time than the end (the Spark integration's
    job-end events can carry one) does not reopen it; before an end, its last START or RUNNING; OTHER when it said
    nothing else (an event without ``eventType`` says nothing of the state either)."""
    moving: RunObservation | None = None
    for o in reversed(obs):
        event_type = o.data.get("eventType")
        if event_type in TERMINAL_STATES:
            return str(event_type), o.time
        if moving is None and event_type in RUN_STATES and event_type != "OTHER":
            moving = o
    return (str(moving.data["eventType"]), None) if moving is not None else ("OTHER", None)


def derive_run(run_id: str, observations: Sequence[RunObservation]) -> JSONObject:
    """The run as a dict of ``runs`` table columns (JSON values still as Python objects)."""
    obs = sorted(observations, key=sort_key)
    if not obs:
        raise ValueError(f"run {run_id} has no observations")
    last = obs[-1]
    state, ended_at = run_state(obs)
    starts = [o.time for o in obs if o.data.get("eventType") == "START"]
    started_at = min(starts) if starts else obs[0].time
    run_facets: dict[str, Any] = {}
    job_facets: dict[str, Any] = {}
    lineage: dict[str, Any] = {}
    inputs: set[str] = set()
    outputs: set[str] = set()
    for o in obs:
        run_facets.update(o.data.get("runFacets") or {})
        job_facets.update(o.data.get("jobFacets") or {})
        lineage.update(o.data.get("columnLineage") or {})
        inputs.update(o.data.get("inputs") or [])
        outputs.update(o.data.get("outputs") or [])
    job_facets = live_facets("job", job_facets)  # a marker removes what the run's earlier events sent
    error = _mapping(run_facets.get("errorMessage"))
    parent = _mapping(run_facets.get("parent"))
    parent_run = _mapping(parent.get("run"))
    parent_job = _mapping(parent.get("job"))
    content = job_content(sorted(inputs), sorted(outputs), job_facets, lineage)
    return {
        "run_id": run_id,
        "job": last.data["job"],
        "state": state,
        "started_at": started_at,
        "ended_at": ended_at,
        "updated_at": max(o.time for o in obs),
        "error_message": error.get("message"),
        "stack_trace": error.get("stackTrace"),
        "parent_run_id": parent_run.get("runId"),
        "parent_job": (
            format_node_id("job", parent_job["namespace"], parent_job["name"])
            if {"namespace", "name"} <= parent_job.keys()
            else None
        ),
        "facets": run_facets,
        "job_facets": job_facets,
        "inputs": sorted(inputs),
        "outputs": sorted(outputs),
        "column_lineage": content["columnLineage"],
        "content_hash": _content_hash(content),
    }


class _ContentHashes:
    """Content hashes of run contents whose column lineage is made of values shared by reference (the observation
    memo's answers: ``ingest.shared``): a daily job's run says the same as yesterday's, and hashing its column
    lineage (kilobytes of canonical JSON) again was most of deriving the run. Keyed by the lists' identity, which
    the entry keeps alive (so no other list takes its id; their owner, the memo, mostly keeps them anyway); shared
    values are never mutated. Bounded."""

    SIZE = 256

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._known: dict[tuple[Any, ...], tuple[str, list[Any]]] = {}

    def of(self, content: JSONMapping) -> str:
        lineage = content["columnLineage"]
        if not lineage or any(notes(edges) is None for edges in lineage.values()):
            return content_hash(content, parsed=True)  # not (all) shared values: nothing to recognize
        try:
            code = orjson.dumps(content["code"])
        except TypeError:
            return content_hash(content, parsed=True)
        key = (
            tuple(content["inputs"]),
            tuple(content["outputs"]),
            code,
            tuple((name, id(edges)) for name, edges in lineage.items()),
        )
        with self._lock:
            found = self._known.get(key)
        if found is not None:
            return found[0]
        answer = content_hash(content, parsed=True)
        with self._lock:
            if len(self._known) >= self.SIZE:
                del self._known[next(iter(self._known))]  # the oldest
            self._known[key] = (answer, list(lineage.values()))
        return answer


_content_hash = _ContentHashes().of
