"""Spline execution plan + execution event → OpenLineage RunEvents (pure).

- reads → input datasets, the write → the output dataset, named by :mod:`.sources`; their schemas
  from the attributes the operations output (types from ``extraInfo.dataTypes``);
- attributes and expressions → a ``columnLineage`` facet on the output in
  :mod:`headwater.model.column_lineage`'s vocabulary: an output column depends DIRECTly on the read
  columns its attribute is computed from (alias and union IDENTITY, aggregate functions
  AGGREGATION, hash functions masked, anything else TRANSFORMATION; CASE conditions CONDITIONAL,
  window specs WINDOW) and INDIRECTly on the columns of join conditions (JOIN), filters (FILTER),
  grouping keys (GROUP_BY), sort orders (SORT) and window partitions (WINDOW) of every operation
  between the reads and the write (folded into every output field, OpenLineage's default);
- the plan is the job version: the job is named from the plan's application name and its write
  (stable across runs and plan changes), a ``spline`` job facet names the plan;
- each execution event is a run: START at ``timestamp - durationNs``, COMPLETE (or FAIL with an
  ``errorMessage`` facet) at ``timestamp``; its run id is a UUID derived from the event's content,
  so an event sent again converts to the same OpenLineage events (and the log stores them once).
  The raw execution event rides along in a ``spline_event`` run facet.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterable

from headwater.model.column_lineage import (
    AGGREGATION_T,
    CONDITIONAL,
    FILTER,
    GROUP_BY,
    IDENTITY_T,
    JOIN,
    SORT,
    TRANSFORMATION,
    TRANSFORMATION_T,
    WINDOW,
    TInfo,
    direct,
    indirect,
)
from headwater.model.jsontypes import JSONObject, JSONValue
from headwater.model.openlineage import RUN_EVENT, docs_url, facet, producer, run_event
from headwater.model.times import from_micros
from headwater.spline.shapes import ref_of
from headwater.spline.sources import source_dataset, table_symlink

DEFAULT_NAMESPACE = "spline"
PRODUCER = producer("spline")
FACETS_DOC = docs_url("producers.md#spline")
SCHEMA_URL = RUN_EVENT
# the namespace run ids are derived in (uuid5 of the event's canonical JSON)
RUN_ID_NAMESPACE = uuid.UUID("6c1f3f0e-5b7a-4c55-9d0e-2f6a8a1d3b42")
PLAN_ID_NAMESPACE = uuid.UUID("1d5b0c6a-93f1-4e38-8a4e-7c2d6e9f0b15")

Field = tuple[str, str, str]  # (dataset namespace, dataset name, column)

_AGGREGATES = frozenset(
    {
        "sum",
        "count",
        "avg",
        "mean",
        "min",
        "max",
        "first",
        "last",
        "collect_list",
        "collect_set",
        "approx_count_distinct",
        "count_distinct",
        "stddev",
        "stddev_pop",
        "stddev_samp",
        "variance",
        "var_pop",
        "var_samp",
        "corr",
        "covar_pop",
        "covar_samp",
        "percentile",
        "percentile_approx",
        "median",
        "mode",
        "any_value",
        "bool_and",
        "bool_or",
        "every",
        "some",
        "any",
        "max_by",
        "min_by",
        "kurtosis",
        "skewness",
    }
)
_MASKING = frozenset({"md5", "sha", "sha1", "sha2", "hash", "xxhash64", "crc32", "mask"})
_IDENTITY = frozenset({"alias", "union"})
# operation name → (params holding its INDIRECT inputs, their subtype)
_INDIRECT_PARAMS: dict[str, tuple[tuple[str, ...], str]] = {
    "join": (("condition",), JOIN),
    "filter": (("condition",), FILTER),
    "aggregate": (("groupingExpressions",), GROUP_BY),
    "sort": (("order",), SORT),
    "window": (("partitionSpec", "orderSpec"), WINDOW),
}


def canonical(value: JSONValue) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def plan_id_of(plan: JSONObject) -> str:
    """The plan's id, or (a plan sent without one) a UUID derived from its content, so a resend is the same plan."""
    given = plan.get("id")
    return str(uuid.UUID(given)) if isinstance(given, str) else str(uuid.uuid5(PLAN_ID_NAMESPACE, canonical(plan)))


def _sid(value: JSONValue) -> str:
    return str(value)


def _snake(text: str) -> str:
    text = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", text.strip())
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


class _Plan:
    """Indexes over one execution plan."""

    def __init__(self, plan: JSONObject) -> None:
        self.plan = plan
        ops = plan.get("operations") or {}
        self.write: JSONObject = ops["write"]
        self.reads: list[JSONObject] = list(ops.get("reads") or [])
        self.other: list[JSONObject] = list(ops.get("other") or [])
        self.ops: dict[str, JSONObject] = {_sid(o["id"]): o for o in [*self.reads, *self.other, self.write]}
        self.attrs: dict[str, JSONObject] = {_sid(a["id"]): a for a in plan.get("attributes") or []}
        exprs = plan.get("expressions") or {}
        self.functions: dict[str, JSONObject] = {_sid(f["id"]): f for f in exprs.get("functions") or []}
        extra = plan.get("extraInfo") or {}
        self.types: dict[str, JSONObject] = {
            str(t["id"]): t for t in extra.get("dataTypes") or [] if isinstance(t, dict) and "id" in t
        }
        # read output attribute → the dataset fields it is
        self.read_fields: dict[str, list[Field]] = {}
        self.inputs: list[tuple[str, str]] = []
        self.input_schema: dict[tuple[str, str], list[str]] = {}
        for read in self.reads:
            datasets = [
                d
                for d in (source_dataset(s, read.get("params")) for s in read.get("inputSources") or [])
                if d is not None
            ]
            columns = [_sid(a) for a in read.get("output") or []]
            for ds in datasets:
                if ds not in self.inputs:
                    self.inputs.append(ds)
                    self.input_schema[ds] = columns
            for attr_id in columns:
                name = self.attrs.get(attr_id, {}).get("name")
                if isinstance(name, str):
                    self.read_fields.setdefault(attr_id, []).extend((ns, n, name) for ns, n in datasets)
        self._memo: dict[tuple[str, str], dict[Field, set[TInfo]]] = {}

    # --- what the write writes ---------------------------------------------------------------------------
    def output_of(self, op_id: str, seen: frozenset[str] = frozenset()) -> list[str]:
        """An operation's output attributes; inferred from its first child when the plan leaves them out."""
        op = self.ops.get(op_id)
        if op is None or op_id in seen:
            return []
        if op.get("output"):
            return [_sid(a) for a in op["output"]]
        children = op.get("childIds") or []
        return self.output_of(_sid(children[0]), seen | {op_id}) if children else []

    def written_columns(self) -> list[str]:
        children = self.write.get("childIds") or []
        return self.output_of(_sid(children[0])) if children else []

    def upstream_ops(self) -> list[JSONObject]:
        order: list[JSONObject] = []
        seen: set[str] = set()
        stack = [_sid(c) for c in self.write.get("childIds") or []]
        while stack:
            op_id = stack.pop()
            if op_id in seen or op_id not in self.ops:
                continue
            seen.add(op_id)
            op = self.ops[op_id]
            order.append(op)
            stack.extend(_sid(c) for c in op.get("childIds") or [])
        return order

    # --- column lineage ----------------------------------------------------------------------------------
    def sources(
        self, kind: str, ref_id: str, visiting: frozenset[tuple[str, str]] = frozenset()
    ) -> dict[Field, set[TInfo]]:
        """The read columns an attribute or expression is computed from, with how (outer step first)."""
        key = (kind, ref_id)
        if key in self._memo:
            return self._memo[key]
        if key in visiting:
            return {}
        visiting = visiting | {key}
        out: dict[Field, set[TInfo]] = {}
        if kind == "attr":
            for fld in self.read_fields.get(ref_id, []):
                out.setdefault(fld, set()).add(IDENTITY_T)
            attr = self.attrs.get(ref_id, {})
            for child in attr.get("childRefs") or []:
                ref = ref_of(child)
                if ref is not None:
                    _add(out, IDENTITY_T, self.sources(*ref, visiting))
        else:
            fn = self.functions.get(ref_id)
            if fn is not None:
                children = [ref_of(c) for c in fn.get("childRefs") or []]
                for i, ref in enumerate(children):
                    if ref is not None:
                        _add(out, _step(fn, i, len(children)), self.sources(*ref, visiting))
        self._memo[key] = out
        return out

    def refs_in(self, value: JSONValue) -> Iterable[tuple[str, str]]:
        ref = ref_of(value)
        if ref is not None:
            yield ref
        elif isinstance(value, dict):
            for v in value.values():
                yield from self.refs_in(v)
        elif isinstance(value, list):
            for v in value:
                yield from self.refs_in(v)

    def indirect(self) -> dict[Field, set[TInfo]]:
        out: dict[Field, set[TInfo]] = {}
        for op in self.upstream_ops():
            rule = _INDIRECT_PARAMS.get(str(op.get("name") or "").lower())
            if rule is None:
                continue
            keys, subtype = rule
            params = op.get("params") or {}
            for key in keys:
                for ref in self.refs_in(params.get(key)):
                    _add(out, indirect(subtype), self.sources(*ref))
        return out

    def type_name(self, attr_id: str) -> str | None:
        dt = self.types.get(str(self.attrs.get(attr_id, {}).get("dataType")))
        if dt is None:
            return None
        hint = dt.get("_typeHint")
        if hint == "dt.Struct":
            return "struct"
        if hint == "dt.Array":
            return "array"
        return str(dt["name"]) if isinstance(dt.get("name"), str) else None

    def schema_facet(self, columns: list[str]) -> JSONObject | None:
        fields = []
        for attr_id in columns:
            attr = self.attrs.get(attr_id)
            if attr is None:
                continue
            fld: JSONObject = {"name": attr["name"]}
            type_name = self.type_name(attr_id)
            if type_name:
                fld["type"] = type_name
            fields.append(fld)
        if not fields:
            return None
        return facet(PRODUCER, "schema", fields=fields)


def _step(fn: JSONObject, index: int, count: int) -> TInfo:
    """How a function's value depends on its ``index``-th operand."""
    name = str(fn.get("name") or "").lower()
    extra = fn.get("extra") or {}
    cls = str(extra.get("simpleClassName") or "")
    hint = str(extra.get("_typeHint") or "")
    if name == "windowspecdefinition" or cls.endswith("WindowSpecDefinition"):
        return indirect(WINDOW)
    if name == "casewhen" and index < count - count % 2 and index % 2 == 0:
        return indirect(CONDITIONAL)
    if name == "if" and index == 0:
        return indirect(CONDITIONAL)
    if name in _IDENTITY or hint == "expr.Alias":
        return IDENTITY_T
    if name in _AGGREGATES or cls.startswith("aggregate."):
        return AGGREGATION_T
    if name in _MASKING:
        return direct(TRANSFORMATION, masking=True)
    return TRANSFORMATION_T


def _add(out: dict[Field, set[TInfo]], step: TInfo, inner: dict[Field, set[TInfo]]) -> None:
    for fld, kinds in inner.items():
        out.setdefault(fld, set()).update(step.merge(k) for k in kinds)


def _collapse(kinds: set[TInfo]) -> list[TInfo]:
    """One kind per (type, subtype); masked only when every path masks (one clear path reveals the value)."""
    by_kind: dict[tuple[str, str], bool] = {}
    for k in kinds:
        by_kind[(k.type, k.subtype)] = by_kind.get((k.type, k.subtype), True) and k.masking
    return sorted(TInfo(t, s, m) for (t, s), m in by_kind.items())


def column_lineage_facet(p: _Plan, columns: list[str]) -> JSONObject | None:
    shared = p.indirect()
    fields: JSONObject = {}
    for attr_id in columns:
        name = p.attrs.get(attr_id, {}).get("name")
        if not isinstance(name, str):
            continue
        deps = {k: set(v) for k, v in p.sources("attr", attr_id).items()}
        for fld, kinds in shared.items():
            deps.setdefault(fld, set()).update(kinds)
        if not deps:
            continue
        fields[name] = {
            "inputFields": [
                {
                    "namespace": ns,
                    "name": ds,
                    "field": col,
                    "transformations": [
                        {"type": k.type, "subtype": k.subtype, "description": "", "masking": k.masking}
                        for k in _collapse(kinds)
                    ],
                }
                for (ns, ds, col), kinds in sorted(deps.items())
            ]
        }
    if not fields:
        return None
    return facet(PRODUCER, "columnLineage", fields=fields)


def job_of(plan: JSONObject, namespace: str = DEFAULT_NAMESPACE) -> tuple[str, str]:
    """``(namespace, name)`` of the plan's job: ``<app>.<write operation>.<target>``, the same for every run."""
    extra = plan.get("extraInfo") or {}
    app = plan.get("name") or extra.get("appName") or "spline"
    write = plan["operations"]["write"]
    target = source_dataset(write["outputSource"], write.get("params"))
    tail = (target[1] if target else write["outputSource"]).rstrip("/").rsplit("/", 1)[-1]
    parts = [_snake(str(app)) or "spline", _snake(str(write.get("name") or "write")) or "write", _snake(tail)]
    return namespace, ".".join(p for p in parts if p)


def _error_message(error: JSONValue) -> str:
    if isinstance(error, str):
        return error
    if isinstance(error, dict):
        for key in ("message", "msg", "error"):
            if isinstance(error.get(key), str):
                return str(error[key])
    return canonical(error)


def run_id_of(event: JSONObject) -> str:
    """A UUID derived from the event's content: the same event sent again has the same run id."""
    return str(uuid.uuid5(RUN_ID_NAMESPACE, canonical(event)))


def run_events(
    plan: JSONObject, event: JSONObject, *, api_version: str, namespace: str = DEFAULT_NAMESPACE
) -> list[JSONObject]:
    """The OpenLineage START and COMPLETE/FAIL RunEvents one execution event of ``plan`` becomes."""
    p = _Plan(plan)
    plan_id = plan_id_of(plan)
    job_ns, job_name = job_of(plan, namespace)
    system = plan.get("systemInfo") or {}
    agent = plan.get("agentInfo") or {}

    inputs = []
    for ds in p.inputs:
        facets: JSONObject = {}
        schema = p.schema_facet(p.input_schema.get(ds, []))
        if schema:
            facets["schema"] = schema
        inputs.append({"namespace": ds[0], "name": ds[1], "facets": facets})
    outputs = []
    write = p.write
    target = source_dataset(write["outputSource"], write.get("params"))
    if target is not None:
        columns = p.written_columns()
        facets = {}
        schema = p.schema_facet(columns)
        if schema:
            facets["schema"] = schema
        lineage = column_lineage_facet(p, columns)
        if lineage:
            facets["columnLineage"] = lineage
        symlink = table_symlink(target, write.get("params"))
        if symlink:
            facets["symlinks"] = facet(
                PRODUCER, "symlinks", identifiers=[{"namespace": symlink[0], "name": symlink[1], "type": "TABLE"}]
            )
        if write.get("append") is False:
            facets["lifecycleStateChange"] = facet(PRODUCER, "lifecycleStateChange", lifecycleStateChange="OVERWRITE")
        outputs.append({"namespace": target[0], "name": target[1], "facets": facets})

    integration = str(system.get("name") or "spline").upper()
    job = {
        "namespace": job_ns,
        "name": job_name,
        "facets": {
            "jobType": facet(PRODUCER, "jobType", processingType="BATCH", integration=integration, jobType="JOB"),
            "spline": facet(
                PRODUCER,
                f"{FACETS_DOC}-job-facet",
                planId=plan_id,
                planName=plan.get("name"),
                apiVersion=api_version,
                writeOperation=write.get("name"),
                systemInfo=system or None,
                agentInfo=agent or None,
            ),
        },
    }
    run_id = run_id_of(event)
    ended = int(event["timestamp"])
    duration_ns = event.get("durationNs")
    started = ended - (duration_ns / 1_000_000 if isinstance(duration_ns, int) else 0)
    run_facets: JSONObject = {
        "spline_event": facet(PRODUCER, f"{FACETS_DOC}-run-facet", planId=plan_id, event=event),
    }
    if system.get("version"):
        run_facets["processing_engine"] = facet(
            PRODUCER,
            "processing_engine",
            version=str(system["version"]),
            name=str(system.get("name") or ""),
            openlineageAdapterVersion=str(agent.get("version") or ""),
        )
    error = event.get("error")
    end_facets = dict(run_facets)
    if error is not None:
        end_facets["errorMessage"] = facet(
            PRODUCER,
            "errorMessage",
            message=_error_message(error),
            programmingLanguage="PYTHON" if integration.startswith(("PYTHON", "CPYTHON")) else "SCALA",
        )

    def one(event_type: str, millis: float, facets: JSONObject) -> JSONObject:
        return run_event(
            PRODUCER,
            event_type=event_type,
            when=from_micros(round(millis * 1000)),
            run={"runId": run_id, "facets": facets},
            job=job,
            inputs=inputs,
            outputs=outputs,
        )

    return [one("START", started, run_facets), one("FAIL" if error is not None else "COMPLETE", ended, end_facets)]
