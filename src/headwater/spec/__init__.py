"""The official OpenLineage JSON Schemas (package data) and the event validator built on them.

- :func:`schema_dir` — where the packaged schema files are;
- :class:`EventValidator` — validates one event against the core 2-0-2 schema and the schema
  of every standard facet it carries; compile once, use from many threads;
- :class:`Problem` — one validation problem: a JSON path into the submitted body and a message;
- :func:`is_deletion` — whether a dataset or job facet is a deletion marker (``_deleted: true``); :func:`live_facets`
  — a node's facets without the markers among them.
"""

from __future__ import annotations

from headwater.spec.paths import json_path
from headwater.spec.registry import CORE_ID, load_schemas, schema_dir
from headwater.spec.validator import EventKind, EventValidator, Problem, classify, is_deletion, live_facets

__all__ = [
    "CORE_ID",
    "EventKind",
    "EventValidator",
    "Problem",
    "classify",
    "is_deletion",
    "json_path",
    "live_facets",
    "load_schemas",
    "schema_dir",
]
