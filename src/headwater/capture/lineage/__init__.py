"""Lineage of one Spark query execution: datasets, facets and column-level lineage.

``from_query_execution`` reads a ``QueryExecution`` through py4j into a plain-data snapshot
(:mod:`.snapshot`, a few calls) and analyses it in pure Python (:mod:`.build`). It never raises:
whatever cannot be read or understood degrades to the inputs/outputs that could be found.
"""

from __future__ import annotations

import logging

from headwater.capture.jvmtypes import JavaObject, PySparkObject

from .build import LineageOptions, QueryLineage, analyze, snake_case
from .snapshot import PlanSnapshot, take_snapshot

log = logging.getLogger(__name__)

__all__ = ["LineageOptions", "PlanSnapshot", "QueryLineage", "analyze", "from_query_execution", "take_snapshot"]


def from_query_execution(
    qe: JavaObject, *, spark: PySparkObject, options: LineageOptions | None = None, execution_id: int | None = None
) -> QueryLineage:
    """Lineage of a ``QueryExecution`` (py4j ``JavaObject``). Never raises."""
    options = options or LineageOptions()
    try:
        snap = take_snapshot(qe, spark)
    except Exception:
        log.debug("headwater lineage: could not read execution %s", execution_id, exc_info=True)
        return QueryLineage(action="unknown")
    try:
        return analyze(snap, options)
    except Exception:
        log.debug("headwater lineage: could not analyse execution %s (%s)", execution_id, snap.root, exc_info=True)
        return QueryLineage(action=snake_case(snap.action_node or snap.root), sql=snap.sql)
