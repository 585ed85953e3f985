"""Lineage records → OpenLineage RunEvents (plain dicts, pure)."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from operator import attrgetter
from typing import Any

from headwater.model import openlineage as ol
from headwater.model.column_lineage import TInfo

from .columns import Deps
from .extract import Output, StatementLineage

PRODUCER = ol.producer("sql")


def _facet(kind: str, **fields: Any) -> dict[str, Any]:
    return ol.facet(PRODUCER, kind, **fields)


def _transformations(kinds: set[TInfo]) -> list[dict[str, Any]]:
    ordered = kinds if len(kinds) == 1 else sorted(kinds, key=_order)  # most columns have one kind
    return [{"type": k.type, "subtype": k.subtype, "description": "", "masking": k.masking} for k in ordered]


_order = attrgetter("type", "subtype", "masking")  # TInfo's own order, without its generated comparisons


def _input_fields(deps: Deps, namespaces: Mapping[str, str]) -> list[dict[str, Any]]:
    return [
        {"namespace": namespaces.get(ds, ""), "name": ds, "field": col, "transformations": _transformations(kinds)}
        for (ds, col), kinds in sorted(deps.items())
    ]


def column_lineage_facet(
    columns: list[tuple[str, Deps]], namespaces: Mapping[str, str], dataset: Deps | None = None
) -> dict[str, Any] | None:
    """``fields`` (each column's own deps) and the dataset-level ``dataset`` list (facet 1-2-0: the INDIRECT deps
    deciding which rows exist, rather than a copy on every field). A field ``*`` is a whole-table mapping."""
    fields: dict[str, Any] = {}
    for name, deps in columns:
        if not deps:
            continue
        fields[name] = {"inputFields": _input_fields(deps, namespaces)}
    if not fields and not dataset:
        return None
    return _facet("columnLineage", fields=fields, dataset=_input_fields(dataset or {}, namespaces))


def _schema_facet(columns: list[tuple[str, str | None]]) -> dict[str, Any]:
    return _facet("schema", fields=[{"name": n, "type": t} if t else {"name": n} for n, t in columns])


def _datasource(namespace: str) -> dict[str, Any]:
    return _facet("dataSource", name=namespace, uri=namespace if "://" in namespace else f"{namespace}://")


def _output(out: Output, namespaces: Mapping[str, str]) -> dict[str, Any]:
    facets: dict[str, Any] = {"dataSource": _datasource(out.namespace)}
    if out.columns is not None:
        named: list[tuple[str, str | None]] = [(c, None) for c, _ in out.columns if c != "*"]
        if named:
            facets["schema"] = _schema_facet(named)
        lineage = column_lineage_facet(out.columns, namespaces, out.dataset)
        if lineage is not None:
            facets["columnLineage"] = lineage
    if out.lifecycle:
        facets["lifecycleStateChange"] = _facet("lifecycleStateChange", lifecycleStateChange=out.lifecycle)
    return {"namespace": out.namespace, "name": out.name, "facets": facets, "outputFacets": {}}


def to_event(
    record: StatementLineage,
    *,
    dialect: str,
    job_namespace: str,
    job_name: str | None = None,
    run_id: str | None = None,
    event_time: datetime | None = None,
    event_type: str = "COMPLETE",
    input_schemas: Mapping[str, list[tuple[str, str | None]]] | None = None,
    run_facets: Mapping[str, Any] | None = None,
    query: str | None = None,
    total_tasks: int = 1,
) -> dict[str, Any]:
    """One RunEvent for one statement: inputs, outputs (schema, columnLineage, lifecycle), the ``sql`` job facet,
    an ``extractionError`` run facet when it could not be read and a ``headwater_sql`` run facet saying what
    could not be resolved (no schema, ambiguous columns) — lineage is never guessed silently."""
    namespaces = {name: ns for ns, name in record.inputs}
    run: dict[str, Any] = {"runId": run_id or str(uuid.uuid4()), "facets": dict(run_facets or {})}
    if record.error:
        run["facets"]["extractionError"] = _facet(
            "extractionError",
            totalTasks=total_tasks,
            failedTasks=1,
            errors=[
                {
                    "errorMessage": record.error,
                    "task": record.statement.sql[:10_000],
                    "taskNumber": record.statement.index,
                }
            ],
        )
    if record.notes:
        run["facets"]["headwater_sql"] = _facet("run", dialect=dialect, unresolved=list(record.notes))
        if record.candidates:  # unqualified columns over several sources: where each may come from
            run["facets"]["headwater_sql"]["candidates"] = [
                {"column": c, "candidates": list(found)} for c, found in record.candidates
            ]
    inputs = []
    for ns, name in record.inputs:
        ds: dict[str, Any] = {
            "namespace": ns,
            "name": name,
            "facets": {"dataSource": _datasource(ns)},
            "inputFacets": {},
        }
        cols = (input_schemas or {}).get(name)
        if cols:
            ds["facets"]["schema"] = _schema_facet(cols)
        inputs.append(ds)
    job_facets = {
        "sql": _facet(
            "sql",
            query=query if query is not None else record.statement.sql,
            dialect=dialect,
        ),
        "jobType": _facet("jobType", processingType="BATCH", integration="SQL", jobType="QUERY"),
    }
    return ol.run_event(
        PRODUCER,
        event_type=event_type,
        when=event_time or datetime.now(UTC),
        run=run,
        job={"namespace": job_namespace, "name": job_name or record.job_name(), "facets": job_facets},
        inputs=inputs,
        outputs=[_output(o, namespaces) for o in record.outputs],
    )
