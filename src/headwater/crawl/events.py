"""OpenLineage events of one crawl (pure): storage location → crawler job (this run) → catalog table.

A crawl is one run of the crawler's job: a START event, then the tables in chunks (RUNNING events,
the last chunk in the COMPLETE or FAIL event, so one event never grows with the size of the crawl).
Every table found is in the run, changed or not: a table whose schema and facets did not change
only records the run (the store makes no new version); a changed one gets a new version made by
this run. Each table is an *input* (its storage location: the folder, or the database table) and an
*output* (the catalog table ``<database>.<table>``), linked both ways by ``symlinks`` facets, with a
column-level IDENTITY lineage from each storage column to the catalog column. A removed table is
sent with ``lifecycleStateChange: DROP`` on both. A view's definition is a run of its own (a child
of the crawl, job type VIEW) reading the view's source tables and writing the view.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from headwater.crawl.model import Column, Summary, Table
from headwater.model import openlineage as ol
from headwater.model.column_lineage import DIRECT, IDENTITY
from headwater.model.jsontypes import JSONObject, JSONValue
from headwater.model.naming import catalog_table_dataset

PRODUCER = ol.producer("crawl")
JOB_NAMESPACE = "headwater"
RUN_FACET = "headwater_crawl"  # the crawl's summary (custom run facet)
COLUMNS_FACET = "headwater_columns"  # nullability and primary keys per column (custom dataset facet)
CHUNK = 100  # tables per event

_CUSTOM = {RUN_FACET: "run", COLUMNS_FACET: "dataset"}  # where the crawler's own facets sit


def facet(facet_name: str, /, **fields: JSONValue) -> JSONObject:
    return ol.facet(PRODUCER, _CUSTOM.get(facet_name, facet_name), **fields)


@dataclass(frozen=True)
class RemovedTable:
    name: str  # catalog table
    namespace: str  # storage location
    dataset: str


@dataclass
class CrawlRun:
    """One crawl: who (crawler job), where (source), when, and what it found."""

    job: str
    source: str  # the crawled location (credentials removed)
    catalog_database: str
    started: datetime
    run_id: str = field(default_factory=lambda: str(uuid.uuid4()))


def schema_fields(columns: Sequence[Column]) -> list[JSONObject]:
    out = []
    for c in columns:
        f: JSONObject = {"name": c.name, "type": c.type}
        if c.description:
            f["description"] = c.description
        if c.fields:
            f["fields"] = schema_fields(c.fields)
        out.append(f)
    return out


def column_constraints(columns: Sequence[Column], prefix: str = "") -> dict[str, dict[str, bool]]:
    """``{"a": {"nullable": …, "primaryKey": …}, "a.b": …}`` (nested fields by dotted name)."""
    out: dict[str, dict[str, bool]] = {}
    for c in columns:
        name = f"{prefix}{c.name}"
        out[name] = {"nullable": c.nullable, "primaryKey": c.primary_key}
        out.update(column_constraints(c.fields, f"{name}."))
    return out


def catalog_name(run: CrawlRun, table: str) -> tuple[str, str]:
    return catalog_table_dataset(run.catalog_database, table)


def _dataset_type(table: Table) -> str:
    return "VIEW" if table.format == "view" else "TABLE" if table.format == "table" else "FILE"


def _described(table: Table) -> JSONObject:
    """The facets the storage location and the catalog table share: the schema and where the data lives."""
    return {
        "schema": facet("schema", fields=schema_fields(table.columns)),
        "dataSource": facet("dataSource", name=table.namespace, uri=table.namespace),
    }


def storage_dataset(run: CrawlRun, table: Table) -> JSONObject:
    """The storage location as the crawler saw it (an input)."""
    cat_ns, cat_name = catalog_name(run, table.name)
    facets: JSONObject = {
        **_described(table),
        "datasetType": facet(
            "datasetType",
            datasetType=_dataset_type(table),
            **({"subType": "DIRECTORY"} if _dataset_type(table) == "FILE" else {}),
        ),
        "symlinks": facet("symlinks", identifiers=[{"namespace": cat_ns, "name": cat_name, "type": "TABLE"}]),
        COLUMNS_FACET: facet(COLUMNS_FACET, columns=column_constraints(table.columns)),
    }
    if table.format not in ("table", "view"):
        facets["storage"] = facet("storage", storageLayer="default", fileFormat=table.format)
    if table.description:
        facets["documentation"] = facet("documentation", description=table.description)
    return {"namespace": table.namespace, "name": table.dataset, "facets": facets}


def catalog_dataset(run: CrawlRun, table: Table) -> JSONObject:
    """The catalog table the crawler registers (an output)."""
    cat_ns, cat_name = catalog_name(run, table.name)
    facets: JSONObject = {
        **_described(table),
        "datasetType": facet(
            "datasetType",
            datasetType="VIEW" if table.format == "view" else "TABLE",
            **({"subType": "EXTERNAL"} if table.format not in ("table", "view") else {}),
        ),
        "symlinks": facet(
            "symlinks", identifiers=[{"namespace": table.namespace, "name": table.dataset, "type": "LOCATION"}]
        ),
        COLUMNS_FACET: facet(
            COLUMNS_FACET,
            columns=column_constraints(table.columns),
            **({"partitionKeys": list(table.partition_keys)} if table.partition_keys else {}),
        ),
        "columnLineage": facet(
            "columnLineage",
            fields={
                c.name: {
                    "inputFields": [
                        {
                            "namespace": table.namespace,
                            "name": table.dataset,
                            "field": c.name,
                            "transformations": [{"type": DIRECT, "subtype": IDENTITY}],
                        }
                    ]
                }
                for c in table.columns
            },
        ),
    }
    if table.format not in ("table", "view"):
        facets["storage"] = facet("storage", storageLayer="default", fileFormat=table.format)
    if table.description:
        facets["documentation"] = facet("documentation", description=table.description)
    stats = {
        k: v
        for k, v in (
            ("rowCount", table.rows),
            ("size", table.bytes if table.files else None),
            ("fileCount", table.files or None),
        )
        if v is not None
    }
    out: JSONObject = {"namespace": cat_ns, "name": cat_name, "facets": facets}
    if stats:
        out["outputFacets"] = {"outputStatistics": facet("outputStatistics", **stats)}
    return out


def _dropped(namespace: str, name: str) -> JSONObject:
    return {
        "namespace": namespace,
        "name": name,
        "facets": {"lifecycleStateChange": facet("lifecycleStateChange", lifecycleStateChange="DROP")},
    }


def _job(name: str, job_type: str, extra: JSONObject | None = None) -> JSONObject:
    return {
        "namespace": JOB_NAMESPACE,
        "name": name,
        "facets": {
            "jobType": facet("jobType", processingType="BATCH", integration="HEADWATER_CRAWLER", jobType=job_type),
            **(extra or {}),
        },
    }


def _event(
    event_type: str,
    when: datetime,
    run_facets: JSONObject,
    run_id: str,
    job: JSONObject,
    inputs: list[JSONObject],
    outputs: list[JSONObject],
) -> JSONObject:
    return ol.run_event(
        PRODUCER,
        event_type=event_type,
        when=when,
        run={"runId": run_id, "facets": run_facets},
        job=job,
        inputs=inputs,
        outputs=outputs,
    )


def crawl_events(
    run: CrawlRun,
    tables: Sequence[Table],
    removed: Sequence[RemovedTable],
    summary: Summary,
    ended: datetime,
    *,
    changed_views: Sequence[Table] = (),
    error: str | None = None,
    settings: JSONObject | None = None,
) -> list[JSONObject]:
    """START, RUNNING chunks, COMPLETE (or FAIL with ``error``), then one child run per new or changed view."""
    job = _job(run.job, "CRAWLER")
    pairs: list[tuple[JSONObject, JSONObject]] = [(storage_dataset(run, t), catalog_dataset(run, t)) for t in tables]
    pairs += [(_dropped(r.namespace, r.dataset), _dropped(*catalog_name(run, r.name))) for r in removed]
    chunks = [pairs[i : i + CHUNK] for i in range(0, len(pairs), CHUNK)] or [[]]
    step = (ended - run.started) / (len(chunks) + 1)
    events = [_event("START", run.started, {}, run.run_id, job, [], [])]
    for i, chunk in enumerate(chunks[:-1], 1):
        events.append(
            _event("RUNNING", run.started + step * i, {}, run.run_id, job, [p[0] for p in chunk], [p[1] for p in chunk])
        )
    final: JSONObject = {
        RUN_FACET: facet(
            RUN_FACET,
            source=run.source,
            catalogDatabase=run.catalog_database,
            summary=summary.to_json(),
            settings=settings or {},
        )
    }
    if error:
        final["errorMessage"] = facet("errorMessage", message=error, programmingLanguage="python")
    last = chunks[-1]
    events.append(
        _event(
            "FAIL" if error else "COMPLETE", ended, final, run.run_id, job, [p[0] for p in last], [p[1] for p in last]
        )
    )
    for n, view in enumerate(changed_views, 1):
        events += view_events(run, view, ended + timedelta(microseconds=n))
    return events


def view_events(run: CrawlRun, view: Table, when: datetime) -> list[JSONObject]:
    """A view's definition as a run of its own job (``<view dataset name>``, type VIEW, the SQL facet):
    its source tables → the view, with the column lineage when the SQL engine gave it."""
    run_id = str(uuid.uuid5(uuid.UUID(run.run_id), f"{view.namespace}/{view.dataset}"))
    job = _job(
        f"view:{view.namespace}/{view.dataset}",
        "VIEW",
        {"sql": facet("sql", query=view.view_sql or "")} if view.view_sql else None,
    )
    parent = facet("parent", run={"runId": run.run_id}, job={"namespace": JOB_NAMESPACE, "name": run.job})
    output: JSONObject = {
        "namespace": view.namespace,
        "name": view.dataset,
        "facets": {"schema": facet("schema", fields=schema_fields(view.columns))},
    }
    if view.view_column_lineage:  # the SQL engine's fields, transformation types included
        output["facets"]["columnLineage"] = facet("columnLineage", fields=view.view_column_lineage)
    inputs = [{"namespace": ns, "name": name} for ns, name in view.view_sources]
    return [
        _event("START", when, {"parent": parent}, run_id, job, inputs, [output]),
        _event("COMPLETE", when + timedelta(microseconds=1), {"parent": parent}, run_id, job, inputs, [output]),
    ]
