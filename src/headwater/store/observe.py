"""Pure derivation step 1: one OpenLineage event → what it says about each node it touches.

``observe(event, event_id)`` returns :class:`Observation` rows, one per (node, role):

- ``run``      (``run:<runId>``): event type, run/job facets, inputs, outputs, column lineage;
- ``job``      (``job:<ns>:<name>``) for RunEvents: only indexes the event (runs carry the content);
- ``jobevent`` (``job:<ns>:<name>``) for JobEvents: inputs, outputs (and which of the two it sends), job facets,
  column lineage;
- ``input`` / ``output`` / ``dataset`` (``dataset:<ns>:<name>``): schema fields and facets.

A dataset facet sent as a deletion marker (``_deleted: true``, :func:`headwater.spec.is_deletion`) is read for
no content: a deleted ``schema`` gives no fields, a deleted ``columnLineage`` no column edges; other markers are
kept in the observation's facets, where the fold (``derive_datasets``) removes the facet of their name.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

from headwater.ingest.shared import notes, share, unshare
from headwater.model.jsontypes import JSONMapping, JSONObject, JSONValue
from headwater.model.nodeid import format_node_id, parse_node_id, run_node_id
from headwater.model.times import parse_time, to_micros
from headwater.spec import is_deletion

if TYPE_CHECKING:
    from headwater.store.codec import Encoded

# dict first: isinstance against the Mapping ABC alone is slow, and JSON payloads are dicts.
_MAP = (dict, Mapping)
# Dataset facets that change with every run/write and so never make a new dataset version.
VOLATILE_DATASET_FACETS = frozenset(
    {
        "outputStatistics",
        "inputStatistics",
        "dataQualityMetrics",
        "dataQualityAssertions",
        "columnLineage",
        "lifecycleStateChange",
        "version",
        "datasetVersion",
        "columnMetrics",
        "stats",
        "statistics",
    }
)
# Job facets that define "what the job does" (a change makes a new job version).
CODE_FACETS = ("sql", "sourceCode")
TERMINAL_STATES = frozenset({"COMPLETE", "FAIL", "ABORT"})
RUN_STATES = frozenset({"START", "RUNNING", "COMPLETE", "FAIL", "ABORT", "OTHER"})


@dataclass(frozen=True)
class Observation:
    node: str
    role: str
    time: int
    event_id: str
    data: Mapping[str, Any]
    # ``data``'s stored text and the parts it names (key -> text, or its stored form), when made ahead in another
    # process (a bulk load's workers: :func:`headwater.store.parts.pack_observation`, :class:`codec.Encoder`);
    # None: the store packs ``data`` itself
    stored: tuple[str, Mapping[str, str | Encoded]] | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class EventHeader:
    kind: str  # RUN | DATASET | JOB
    event_time: int
    event_type: str | None
    job: str | None
    run_id: str | None


def event_kind(payload: JSONMapping) -> str:
    if "run" in payload:
        return "RUN"
    if "dataset" in payload:
        return "DATASET"
    if "job" in payload:
        return "JOB"
    raise ValueError("not an OpenLineage event: it has none of 'run', 'job' or 'dataset'")


def header(payload: JSONMapping) -> EventHeader:
    kind = event_kind(payload)
    job = payload.get("job")
    job_id = format_node_id("job", job["namespace"], job["name"]) if isinstance(job, _MAP) else None
    run_id = payload["run"]["runId"] if kind == "RUN" else None
    event_type = payload.get("eventType") if kind == "RUN" else None
    return EventHeader(kind, to_micros(parse_time(payload["eventTime"])), event_type, job_id, run_id)


def dataset_id(ds: JSONMapping) -> str:
    return format_node_id("dataset", ds["namespace"], ds["name"])


def normalize_fields(fields: JSONValue) -> list[JSONObject]:
    out: list[dict[str, Any]] = []
    for f in fields or []:
        if not isinstance(f, _MAP) or "name" not in f:
            continue
        nested = f.get("fields")
        out.append(
            {
                "name": f["name"],
                "type": f.get("type"),
                "description": f.get("description"),
                "fields": normalize_fields(nested) if nested else [],
            }
        )
    return out


def _transformations(item: JSONMapping, legacy: JSONMapping) -> list[JSONObject]:
    given = item.get("transformations")
    if isinstance(given, list) and given:
        return [
            {
                "type": t.get("type"),
                "subtype": t.get("subtype"),
                "description": t.get("description"),
                "masking": bool(t.get("masking", False)),
            }
            for t in given
            if isinstance(t, _MAP)
        ]
    old_type = str(legacy.get("transformationType") or "").upper()
    old_description = legacy.get("transformationDescription") or None
    if old_type or old_description:
        return [
            {
                "type": "DIRECT",
                "subtype": "IDENTITY" if old_type == "IDENTITY" else "TRANSFORMATION",
                "description": old_description,
                "masking": old_type == "MASKED",
            }
        ]
    return []


def column_lineage_edges(facet: JSONValue) -> list[JSONObject]:
    """A ``columnLineage`` facet → sorted edges ``{src, srcField, dstField, transformations}``.

    ``dstField`` is ``""`` for the dataset-level (INDIRECT) dependencies of the ``dataset`` list.
    Accepts schema 1-2-0 ``transformations`` and the older ``transformationType`` strings.
    """
    if not isinstance(facet, _MAP):
        return []
    edges: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    ids: dict[tuple[Any, Any], str] = {}  # (namespace, name) -> dataset id: the same few inputs recur

    def source(item: JSONValue) -> str | None:
        if not isinstance(item, _MAP) or "namespace" not in item or "name" not in item or "field" not in item:
            return None
        pair = (item["namespace"], item["name"])
        if type(pair[0]) is not str or type(pair[1]) is not str:
            return dataset_id(item)
        found = ids.get(pair)
        if found is None:
            found = ids[pair] = dataset_id(item)
        return found

    fields = facet.get("fields")
    if isinstance(fields, _MAP):
        for out_field, spec in fields.items():
            if not isinstance(spec, _MAP):
                continue
            for item in spec.get("inputFields") or []:
                src = source(item)
                if src is not None:
                    key = (src, str(item["field"]), str(out_field))
                    edges.setdefault(key, []).extend(_transformations(item, spec))
    for item in facet.get("dataset") or []:
        src = source(item)
        if src is not None:
            key = (src, str(item["field"]), "")
            edges.setdefault(key, []).extend(_transformations(item, {}))
    return [
        {"src": src, "srcField": src_field, "dstField": dst_field, "transformations": _dedupe(ts)}
        for (src, src_field, dst_field), ts in sorted(edges.items())
    ]


def _dedupe(items: list[JSONObject]) -> list[JSONObject]:
    if len(items) < 2:
        return items
    seen: list[JSONObject] = []
    for item in items:
        if item not in seen:
            seen.append(item)
    return seen


class ObserveMemo:
    """Remembers the costly parts of :func:`observe` that repeat from run to run (bounded, LRU).

    A job that runs again sends the same ``schema`` fields and the same ``columnLineage`` facet
    byte for byte; normalizing them is most of ``observe``'s work. The memo keys each answer by
    the exact JSON bytes of its input (orjson; subclasses, big integers and anything orjson
    refuses are simply not memoized), so equal bytes mean an equal input and so an equal answer.
    Answers are shared between observations: nothing downstream mutates them (they are read,
    copied and serialized). Owned by one projector; not thread-safe (one projector thread).
    Its answers are listed as shared values while it keeps them (``ingest.shared``: the derived parts write
    each one's text once), and an answer whose input is a facet the ingest door parsed is noted on that facet.
    """

    _OPTIONS = orjson.OPT_PASSTHROUGH_SUBCLASS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS

    def __init__(self, size: int = 512) -> None:
        self.size = size
        self._answers: dict[tuple[str, bytes], Any] = {}
        self.hits = 0
        self.misses = 0
        weakref.finalize(self, _unshare_all, self._answers)  # a memo that goes unlists its answers

    def __len__(self) -> int:
        """How many answers are remembered (at most ``size``)."""
        return len(self._answers)

    def get(
        self, kind: str, value: JSONValue, compute: Callable[[JSONValue], JSONValue], on: object = None
    ) -> JSONValue:
        """``compute(value)``, remembered. ``on``: the value the answer is a function of (default ``value``): when it
        is one many events share (a facet the ingest door parsed: ``ingest.shared``), the answer is noted on it
        and found again without writing ``value`` as bytes."""
        noted = notes(value if on is None else on)
        note = "observe:" + kind
        if noted is not None:
            known = noted.get(note)
            if known is not None:
                self.hits += 1
                return known
        try:
            key = (kind, orjson.dumps(value, option=self._OPTIONS))
        except TypeError:
            return compute(value)
        answers = self._answers
        found = answers.pop(key, _MISSING)
        if found is _MISSING:
            self.misses += 1
            found = compute(value)
            if len(answers) >= self.size:
                unshare(answers.pop(next(iter(answers))))  # the least recently used
            share(found)  # read only, and many observations hold it: its text is written once (store.parts)
        else:
            self.hits += 1
        answers[key] = found
        if noted is not None:
            noted[note] = found
        return found


_MISSING = object()


def _unshare_all(answers: dict[tuple[str, bytes], Any]) -> None:
    for answer in list(answers.values()):
        unshare(answer)


def _fields_of(schema: JSONValue, memo: ObserveMemo | None) -> list[JSONObject] | None:
    if not isinstance(schema, _MAP):
        return None
    fields = schema.get("fields")
    if memo is None or not fields:
        return normalize_fields(fields)
    answer: list[dict[str, Any]] = memo.get("fields", fields, normalize_fields, on=schema)
    return answer


def _lineage_of(facet: JSONValue, memo: ObserveMemo | None) -> list[JSONObject]:
    if is_deletion("dataset", facet):
        return []  # a deleted columnLineage facet: no column edges (and no content is read from a marker)
    if memo is None or not isinstance(facet, _MAP):
        return column_lineage_edges(facet)
    answer: list[dict[str, Any]] = memo.get("columnLineage", facet, column_lineage_edges)
    return answer


def _dataset_observation(ds: JSONMapping, run_id: str | None, memo: ObserveMemo | None = None) -> JSONObject:
    raw_facets = ds.get("facets")
    facets: Mapping[str, Any] = raw_facets if isinstance(raw_facets, _MAP) else {}
    schema = facets.get("schema")
    fields = [] if is_deletion("dataset", schema) else _fields_of(schema, memo)  # a deleted schema: no columns
    lifecycle = facets.get("lifecycleStateChange")
    dropped = isinstance(lifecycle, _MAP) and str(lifecycle.get("lifecycleStateChange", "")).upper() == "DROP"
    kept = {k: v for k, v in facets.items() if k not in VOLATILE_DATASET_FACETS and k != "schema"}
    return {
        "namespace": ds["namespace"],
        "name": ds["name"],
        "runId": run_id,
        "fields": fields,
        "facets": kept,
        "dropped": dropped,
    }


def _facets(obj: JSONValue) -> JSONObject:
    if isinstance(obj, _MAP) and isinstance(obj.get("facets"), _MAP):
        return dict(obj["facets"])
    return {}


def _io(payload: JSONMapping, key: str) -> list[JSONMapping]:
    items = payload.get(key) or []
    return [d for d in items if isinstance(d, _MAP) and "namespace" in d and "name" in d]


def observe(payload: JSONMapping, event_id: str, memo: ObserveMemo | None = None) -> list[Observation]:
    """Everything one event says, as observations per node (pure; ``memo`` only saves work)."""
    head = header(payload)
    t = head.event_time
    obs: list[Observation] = []
    inputs, outputs = _io(payload, "inputs"), _io(payload, "outputs")
    lineage = {dataset_id(d): _lineage_of(_facets(d).get("columnLineage"), memo) for d in outputs}
    lineage = {k: v for k, v in lineage.items() if v}
    implied = _implied_inputs(lineage, {dataset_id(d) for d in (*inputs, *outputs)})
    input_ids = sorted({dataset_id(d) for d in inputs} | set(implied))
    if head.kind == "RUN":
        assert head.run_id is not None and head.job is not None
        job = payload["job"]
        obs.append(
            Observation(
                run_node_id(head.run_id),
                "run",
                t,
                event_id,
                {
                    "eventType": head.event_type,
                    "job": head.job,
                    "jobNamespace": job["namespace"],
                    "jobName": job["name"],
                    "runFacets": _facets(payload["run"]),
                    "jobFacets": _facets(job),
                    "inputs": input_ids,
                    "outputs": sorted({dataset_id(d) for d in outputs}),
                    "columnLineage": lineage,
                },
            )
        )
        obs.append(
            Observation(
                head.job,
                "job",
                t,
                event_id,
                {"runId": head.run_id, "jobNamespace": job["namespace"], "jobName": job["name"]},
            )
        )
    elif head.kind == "JOB":
        assert head.job is not None
        job = payload["job"]
        obs.append(
            Observation(
                head.job,
                "jobevent",
                t,
                event_id,
                {
                    "jobNamespace": job["namespace"],
                    "jobName": job["name"],
                    "jobFacets": _facets(job),
                    "inputs": input_ids,
                    "outputs": sorted({dataset_id(d) for d in outputs}),
                    "columnLineage": lineage,
                    # which it sends: one left out is the job's before it (store/derive_jobs.py, resolve)
                    "stated": [key for key in ("inputs", "outputs") if key in payload],
                },
            )
        )
    else:
        ds = payload["dataset"]
        obs.append(Observation(dataset_id(ds), "dataset", t, event_id, _dataset_observation(ds, None, memo)))
    for role, items in (("input", inputs), ("output", outputs)):
        seen: set[str] = set()
        for d in items:
            node = dataset_id(d)
            if node not in seen:
                seen.add(node)
                obs.append(Observation(node, role, t, event_id, _dataset_observation(d, head.run_id, memo)))
    for node, columns in sorted(implied.items()):
        ref = parse_node_id(node)
        obs.append(
            Observation(
                node,
                "input",
                t,
                event_id,
                {
                    "namespace": ref.namespace,
                    "name": ref.name,
                    "runId": head.run_id,
                    "fields": None,
                    "facets": {},
                    "dropped": False,
                    "seen": sorted(columns),
                },
            )
        )
    return obs


def _implied_inputs(lineage: Mapping[str, Sequence[JSONMapping]], named: set[str]) -> dict[str, set[str]]:
    """Datasets an output's column lineage reads that the event does not list as inputs (dbt-ol seeds,
    other producers that name a source only in ``inputFields``) → the columns read from each. They
    become inputs of the run, with those columns, so the graph has them as nodes."""
    found: dict[str, set[str]] = {}
    for edges in lineage.values():
        for edge in edges:
            src = edge["src"]
            if src not in named:
                found.setdefault(src, set()).add(edge["srcField"])
    return found
