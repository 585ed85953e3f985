"""How the producers Headwater runs itself write OpenLineage: producer URLs, schema URLs, facets, event times.

The catalog (``catalog/lineage.py``), the SQL engine (``sql/events.py``), the crawler (``crawl/events.py``), the
Spline translator (``spline/convert.py``) and the query-history harvesters (``harvest/core.py``) build their
events through this module, so their events differ only in what they say:

- :func:`producer` — ``https://github.com/headwater-lineage/headwater/tree/<version>/src/headwater/<component>``:
  the code that wrote an event, at the release that wrote it;
- :data:`FACET_SCHEMAS` and :func:`facet` — every standard facet these producers write, at the schema version
  the server validates it against (``spec/schemas``); custom facets name the core's ``RunFacet``,
  ``DatasetFacet`` or ``JobFacet`` (or a document of their own);
- :func:`event_time` — ISO 8601 UTC with microseconds and ``Z`` (``2026-11-22T05:10:10.123000Z``), one form for
  every event time they write (through :mod:`headwater.model.times`);
- :func:`run_event`, :func:`dataset_event` — the events' top level (``eventTime``, ``producer``, ``schemaURL``);
- :func:`batch_body` — a batch of built events as JSON text, as the HTTP client and the embedded one send it.

The PySpark agent (``capture/``) builds its events with openlineage-python's classes instead.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from headwater import __version__
from headwater.model.times import iso_micros

REPOSITORY = "https://github.com/headwater-lineage/headwater"
SPEC = "https://openlineage.io/spec"
CORE = f"{SPEC}/2-0-2/OpenLineage.json"
RUN_EVENT = f"{CORE}#/$defs/RunEvent"
DATASET_EVENT = f"{CORE}#/$defs/DatasetEvent"
JOB_EVENT = f"{CORE}#/$defs/JobEvent"


def _standard(version: str, schema: str) -> str:
    return f"{SPEC}/facets/{version}/{schema}.json#/$defs/{schema}"


# facet name -> the schema URL of the standard facet (the versions of spec/schemas)
FACET_SCHEMAS: Mapping[str, str] = {
    "schema": _standard("1-2-0", "SchemaDatasetFacet"),
    "dataSource": _standard("1-0-1", "DatasourceDatasetFacet"),
    "symlinks": _standard("1-0-1", "SymlinksDatasetFacet"),
    "storage": _standard("1-0-1", "StorageDatasetFacet"),
    "datasetType": _standard("1-0-1", "DatasetTypeDatasetFacet"),
    "lifecycleStateChange": _standard("1-0-1", "LifecycleStateChangeDatasetFacet"),
    "outputStatistics": _standard("1-0-2", "OutputStatisticsOutputDatasetFacet"),
    "documentation": _standard("1-1-0", "DocumentationDatasetFacet"),
    "columnLineage": _standard("1-2-0", "ColumnLineageDatasetFacet"),
    "jobType": _standard("2-0-4", "JobTypeJobFacet"),
    "sql": _standard("1-1-0", "SQLJobFacet"),
    "parent": _standard("1-2-0", "ParentRunFacet"),
    "errorMessage": _standard("1-0-1", "ErrorMessageRunFacet"),
    "extractionError": _standard("1-1-2", "ExtractionErrorRunFacet"),
    "processing_engine": _standard("1-1-1", "ProcessingEngineRunFacet"),
}
# the core base of a custom facet, by where it sits
CUSTOM_SCHEMAS: Mapping[str, str] = {
    "run": f"{CORE}#/$defs/RunFacet",
    "dataset": f"{CORE}#/$defs/DatasetFacet",
    "job": f"{CORE}#/$defs/JobFacet",
}


def producer(component: str) -> str:
    """The producer URL of a part of Headwater (``"sql"``, ``"crawl"``...), at this release."""
    return f"{REPOSITORY}/tree/{__version__}/src/headwater/{component}"


def docs_url(page: str) -> str:
    """A page of Headwater's documentation at this release (``"producers.md#spline"``): a custom facet's schema."""
    return f"{REPOSITORY}/blob/{__version__}/docs/{page}"


def facet(producer_url: str, kind: str, /, **fields: Any) -> dict[str, Any]:
    """A facet: ``kind`` is a standard facet's name (:data:`FACET_SCHEMAS`), a custom facet's place (``run``,
    ``dataset``, ``job``) or a schema URL of its own (``https://...``)."""
    schema = FACET_SCHEMAS.get(kind) or CUSTOM_SCHEMAS.get(kind) or (kind if "://" in kind else None)
    if schema is None:
        raise KeyError(f"no schema URL for facet {kind!r}: add it to FACET_SCHEMAS (model/openlineage.py)")
    return {"_producer": producer_url, "_schemaURL": schema, **fields}


def event_time(moment: datetime) -> str:
    """The one written form of the event times these producers write (naive means UTC)."""
    return iso_micros(moment)


def run_event(
    producer_url: str,
    *,
    event_type: str,
    when: datetime,
    run: Mapping[str, Any],
    job: Mapping[str, Any],
    inputs: Sequence[Mapping[str, Any]],
    outputs: Sequence[Mapping[str, Any]],
) -> dict[str, Any]:
    return {
        "eventType": event_type,
        "eventTime": event_time(when),
        "producer": producer_url,
        "schemaURL": RUN_EVENT,
        "run": run,
        "job": job,
        "inputs": list(inputs),
        "outputs": list(outputs),
    }


def dataset_event(producer_url: str, *, when: datetime, dataset: Mapping[str, Any]) -> dict[str, Any]:
    return {"eventTime": event_time(when), "producer": producer_url, "schemaURL": DATASET_EVENT, "dataset": dataset}


def batch_body(events: Sequence[Mapping[str, Any]]) -> str:
    """A batch of built events as JSON text, as Headwater's clients send it: compact, non-ASCII as it is (the server
    stores each event's text as it stands in the batch). ``json.dumps``: a non-finite number is written
    ``Infinity``, which the server refuses as not JSON, never as a silent ``null``; text with a lone surrogate
    (no UTF-8 form) is written with ``\\u`` escapes, which the server refuses naming it."""
    text = json.dumps(list(events), separators=(",", ":"), ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(list(events), separators=(",", ":"))
    return text
