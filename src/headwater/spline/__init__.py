"""Spline → OpenLineage (pure): the model the Spline agents send, checked and converted.

Spline (https://github.com/AbsaOSS/spline) agents send an *execution plan* (what a Spark action or a
Python function reads, computes and writes: operations, attributes, expressions) and, separately,
*execution events* (one per run of a plan: when it finished, how long it took, its error). This
package is what Headwater knows of that model, as pure functions over parsed JSON:

- :mod:`~headwater.spline.shapes` — the JSON shapes of producer API v1.1 and v1.2, checked with a
  JSON path per problem (``$.operations.write.outputSource``);
- :mod:`~headwater.spline.sources` — a Spline source URI → the OpenLineage dataset it names
  (through :mod:`headwater.model.naming`, so a table is one node whoever reports it);
- :mod:`~headwater.spline.convert` — plan + event → OpenLineage RunEvents (START and COMPLETE/FAIL):
  inputs, outputs, schemas, column lineage in :mod:`headwater.model.column_lineage`'s vocabulary,
  the job named from the plan, the run id derived from the event.

It imports nothing of Headwater but :mod:`headwater.model` (a contract in pyproject.toml); the HTTP
side (media types, gzip, storage) is :mod:`headwater.api.spline`.
"""

from __future__ import annotations

from headwater.spline.convert import DEFAULT_NAMESPACE, job_of, plan_id_of, run_events
from headwater.spline.shapes import SUPPORTED_VERSIONS, Problem, event_problems, plan_problems
from headwater.spline.sources import source_dataset

__all__ = [
    "DEFAULT_NAMESPACE",
    "SUPPORTED_VERSIONS",
    "Problem",
    "event_problems",
    "job_of",
    "plan_id_of",
    "plan_problems",
    "run_events",
    "source_dataset",
]
