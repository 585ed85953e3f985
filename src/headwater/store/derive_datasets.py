"""Pure derivation: a dataset's observations → its versions and field spans.

Observations are folded in (time, event id, role) order. The state is (fields, non-volatile
facets, dropped): a schema facet replaces the fields, columns seen only in column lineage (``seen``)
are added to them when no field has their name, other facets replace the facet of the same name, a facet sent as a deletion marker (``_deleted: true``) removes the
facet of its name, a ``lifecycleStateChange`` of DROP marks the dataset deleted (any later observation
without DROP brings it back). A new version starts whenever the state changes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from headwater.model.jsontypes import JSONMapping, JSONObject, JSONValue
from headwater.spec import is_deletion, live_facets
from headwater.store.canonical import version_id
from headwater.store.intervals import merge_intervals
from headwater.store.kinds import dataset_kind

_ROLE_ORDER = {"input": 0, "dataset": 1, "output": 2}
_ABSENT = object()


@dataclass(frozen=True)
class DatasetObservation:
    time: int
    event_id: str
    role: str
    data: Mapping[str, Any]


def _comparable(facets: JSONMapping) -> JSONObject:
    """Facets without the producer bookkeeping that changes with every producer release."""
    out: dict[str, Any] = {}
    for name, value in facets.items():
        if isinstance(value, Mapping):
            out[name] = {k: v for k, v in value.items() if k not in ("_producer", "_schemaURL")}
        else:
            out[name] = value
    return out


def _changes(prev: JSONMapping | None, fields: JSONValue, facets: JSONMapping, dropped: bool) -> list[str]:
    if prev is None or (prev["deleted"] and not dropped):
        return ["created"]
    if dropped:
        return ["dropped"]
    changes = []
    if prev["fields"] != fields:
        changes.append("schema")
    if _comparable(prev["facets"]) != _comparable(facets):
        changes.append("facets")
    return changes


def derive_dataset_versions(
    dataset: str, observations: Sequence[DatasetObservation], start: JSONMapping | None = None
) -> list[JSONObject]:
    """Versions oldest first as ``dataset_versions`` rows (JSON values as Python objects).

    ``start`` continues the fold from a stored open version (all ``observations`` are newer):
    the answer then begins with that version (its ``valid_to`` set when a new one follows).
    """
    versions: list[dict[str, Any]] = []
    fields: list[Any] = []
    facets: dict[str, Any] = {}
    state: list[Any] | None = None  # compared with == (cheap); hashed only for a new version's id
    # The observation's fields list that ``fields`` is a copy of (None: not a plain copy of one): a daily job's
    # observations hand over the same shared lists and facets (``store.observe``'s memo, the facet cache), so an
    # observation whose fields are that list and whose facets are the current ones by identity leaves the state as
    # it is, and is passed over without building and comparing it.
    fields_from: object = None
    if start is not None:
        versions.append({**start, "valid_to": None})
        fields, facets = list(start["fields"]), dict(start["facets"])
        state = [fields, _comparable(facets), bool(start["deleted"])]
    for o in sorted(observations, key=lambda o: (o.time, o.event_id, _ROLE_ORDER.get(o.role, 9))):
        data = o.data
        given, new_facets, seen = data.get("fields"), data.get("facets") or {}, data.get("seen")
        if (
            state is not None
            and (given is None or given is fields_from)
            and not seen
            and bool(data.get("dropped")) is state[2]
            and all(facets.get(name, _ABSENT) is value for name, value in new_facets.items())
        ):
            continue  # the same state: nothing to fold
        if given is not None:
            fields, fields_from = list(given), given
        if seen:  # columns known only from column lineage: added when not there by name
            known = {f.get("name") for f in fields}
            extra = [{"name": c, "type": None, "description": None, "fields": []} for c in seen if c not in known]
            if extra:
                fields, fields_from = [*fields, *extra], None
        facets = {**facets, **new_facets}
        if any(is_deletion("dataset", value) for value in new_facets.values()):  # the usual fold adds no marker
            facets = live_facets("dataset", facets)
        dropped = bool(data.get("dropped"))
        current = [fields, _comparable(facets), dropped]
        if current == state:
            continue
        prev = versions[-1] if versions else None
        if prev is not None:
            prev["valid_to"] = o.time
        versions.append(
            {
                "id": version_id(dataset, o.time, current),
                "dataset": dataset,
                "valid_from": o.time,
                "valid_to": None,
                "run_id": o.data.get("runId"),
                "kind": dataset_kind(str(o.data.get("namespace", "")), facets),
                "fields": fields,
                "facets": facets,
                "changes": _changes(prev, fields, facets, dropped),
                "deleted": dropped,
            }
        )
        state = current
    # Two changes at the same instant: only the last state is visible.
    return [v for v in versions if v["valid_to"] is None or v["valid_to"] > v["valid_from"]]


def flatten_fields(fields: Sequence[JSONMapping], prefix: str = "") -> list[tuple[str, str | None]]:
    """Nested schema fields → ``(dotted.name, type)``."""
    out: dict[str, str | None] = {}
    for f in fields:
        name = f"{prefix}{f['name']}"
        out.setdefault(name, f.get("type"))
        for sub, type_ in flatten_fields(f.get("fields") or [], prefix=f"{name}."):
            out.setdefault(sub, type_)
    return list(out.items())


def derive_field_spans(dataset: str, namespace: str, name: str, versions: Sequence[JSONMapping]) -> list[JSONObject]:
    """``dataset_fields`` rows: each (field, type) with its merged validity."""
    spans = merge_intervals(
        [(v["valid_from"], v["valid_to"], [] if v["deleted"] else flatten_fields(v["fields"])) for v in versions]
    )
    return [
        {
            "dataset": dataset,
            "field": field,
            "type": type_,
            "valid_from": f,
            "valid_to": t,
            "namespace": namespace,
            "name": name,
        }
        for (field, type_), f, t in spans
    ]
