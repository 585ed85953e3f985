"""A dataset's facets as its newest event sent them (Marquez's Dataset ``facets``).

The derived graph keeps a dataset version's lasting facets only (schema and per-run facets such as
statistics, data quality and column lineage are kept elsewhere or not at all); Marquez's answers carry
every facet of the dataset's newest event. They are read back from the event log: the newest event
that observed the dataset (``observations``), its entry for the dataset (an output's entry first).
"""

from __future__ import annotations

from collections.abc import Mapping

import sqlalchemy as sa

from headwater.model.jsontext import loads_text
from headwater.model.jsontypes import Facets, JSONMapping, JSONValue
from headwater.model.nodeid import NodeRef
from headwater.store import codec
from headwater.store.schema import events, observations

_ROLES = ("output", "input", "dataset")


def _entry(payload: JSONMapping, namespace: str, name: str) -> JSONMapping | None:
    candidates: list[JSONValue] = []
    if isinstance(payload.get("dataset"), Mapping):
        candidates.append(payload["dataset"])
    for key in ("outputs", "inputs"):
        items = payload.get(key)
        if isinstance(items, list):
            candidates.extend(items)
    for item in candidates:
        if isinstance(item, Mapping) and item.get("namespace") == namespace and item.get("name") == name:
            return item
    return None


def latest_dataset_facets(conn: sa.Connection, ref: NodeRef) -> Facets:
    """The ``facets`` of the newest event's entry for dataset ``ref`` (``{}`` when none is known)."""
    seq = conn.scalar(
        sa.select(observations.c.event_seq)
        .where(observations.c.node == ref.id, observations.c.role.in_(_ROLES))
        .order_by(observations.c.time.desc(), observations.c.event_seq.desc())
        .limit(1)
    )
    if seq is None:
        return {}
    row = conn.execute(sa.select(*codec.TEXT_COLUMNS).where(events.c.seq == seq)).first()
    if row is None:
        return {}
    payload = loads_text(codec.text(conn, row))
    entry = _entry(payload, ref.namespace, ref.name) if isinstance(payload, Mapping) else None
    facets = entry.get("facets") if entry is not None else None
    return dict(facets) if isinstance(facets, Mapping) else {}
