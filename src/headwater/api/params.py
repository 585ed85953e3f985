"""Query parameter parsing shared by the read endpoints: times and node references.

Pure functions raising :class:`~headwater.api.errors.ApiError` (``400 invalid_parameter``)
with a message naming the parameter and saying what is accepted.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime

from headwater.api.errors import invalid_parameter
from headwater.model.nodeid import FIELD, NODE_TYPES, InvalidNodeId, NodeRef, field_splits, parse_node_id
from headwater.model.times import InvalidTime, TimeOutOfRange
from headwater.model.times import parse_time as parse_iso

_MILLIS = re.compile(r"-?\d{1,15}\Z")


def parse_time(value: str | None, name: str) -> datetime | None:
    """ISO 8601 (naive = UTC; ``Z`` accepted) or epoch milliseconds -> aware UTC datetime."""
    if value is None or value.strip() == "":
        return None
    text = value.strip()
    if _MILLIS.match(text):
        try:
            return datetime.fromtimestamp(int(text) / 1000, tz=UTC)
        except (OverflowError, OSError, ValueError):
            raise invalid_parameter(name, f"epoch milliseconds {text} are out of range") from None
    try:  # a "+" of an offset arrives as a space when the query string was not encoded
        return parse_iso(text.replace(" ", "+") if "T" in text else text)
    except TimeOutOfRange:
        raise invalid_parameter(name, f"{value!r} is out of the representable range (years 1 to 9999 UTC)") from None
    except InvalidTime:
        raise invalid_parameter(
            name, f"{value!r} is not a time: use ISO 8601 (2026-11-22T05:10:10Z) or epoch milliseconds"
        ) from None


def search_text(q: str, max_length: int) -> str:
    """The ``q=`` of a search, at most ``max_length`` characters (setting ``max_search_length``), not blank (the
    search matches the text stripped: only spaces would match nothing and ask nothing)."""
    if not q.strip():
        raise invalid_parameter("q", "the search text is blank: give a part of a name")
    if len(q) > max_length:
        raise invalid_parameter(
            "q",
            f"search text of {len(q)} characters is longer than the limit of {max_length} (setting max_search_length)",
        )
    return q


def node_ref(
    node_id: str | None,
    type_: str | None = None,
    namespace: str | None = None,
    name: str | None = None,
    field: str | None = None,
    *,
    required: bool = True,
    datasets_known: Callable[[list[str]], set[str]] | None = None,
) -> NodeRef | None:
    """The node named by ``nodeId=`` or by ``type=`` + ``namespace=`` + ``name=`` (+ ``field=``).

    ``datasets_known`` (which of these dataset ids the graph holds) resolves a ``datasetField`` id
    whose field holds ``:`` (see :func:`field_ref`)."""
    if node_id:
        if node_id.startswith(FIELD) and datasets_known is not None:
            resolved = field_ref(node_id, datasets_known)
            if resolved is not None:
                return resolved
        try:
            return parse_node_id(node_id)
        except InvalidNodeId as exc:
            raise invalid_parameter("nodeId", str(exc)) from None
    if type_ is None and namespace is None and name is None:
        if required:
            raise invalid_parameter(
                "nodeId", "missing: give nodeId=<id> or type= + namespace= + name= (+ field= for a column)"
            )
        return None
    if type_ not in NODE_TYPES:
        raise invalid_parameter("type", f"{type_!r} is not a node type (expected one of {', '.join(NODE_TYPES)})")
    if type_ == "run":
        if not name:
            raise invalid_parameter("name", "a run needs name=<runId>")
        return NodeRef("run", "", name)
    if not namespace or not name:
        raise invalid_parameter("namespace", "type= needs both namespace= and name=")
    if type_ == "datasetField":
        if not field:
            raise invalid_parameter("field", "a datasetField needs field=<column>")
        return NodeRef("datasetField", namespace, name, field)
    return NodeRef(type_, namespace, name)  # type: ignore[arg-type]


def field_ref(text: str, datasets_known: Callable[[list[str]], set[str]]) -> NodeRef | None:
    """The node of a ``datasetField:<namespace>:<name>:<field>`` id whose field may hold ``:``; ``None``
    when no split of it names a dataset the graph holds.

    Dataset ids are the same text however their namespace and name split (``dataset:`` + the same
    characters), so the dataset part is found by its id among the graph's datasets and the rest is
    the field — the ids the answers give always come back to the same node. The split at the last
    ``:`` (the plain parse) wins when its dataset exists; then the longest dataset part.
    """
    candidates = dict(field_splits(text))
    if not candidates:
        return None
    known = datasets_known(list(candidates))
    for dataset_id, field in candidates.items():  # the last ':' first, then ever longer fields
        if dataset_id in known:
            try:
                dataset = parse_node_id(dataset_id)
            except InvalidNodeId:
                continue
            return NodeRef("datasetField", dataset.namespace, dataset.name, field)
    return None


def require_types(ref: NodeRef, allowed: tuple[str, ...], name: str = "nodeId") -> NodeRef:
    if ref.type not in allowed:
        raise invalid_parameter(name, f"{ref.id!r} is a {ref.type}; this endpoint takes {' or '.join(allowed)} ids")
    return ref


def csv_list(value: str | None, name: str, allowed: tuple[str, ...]) -> list[str] | None:
    if value is None or not value.strip():
        return None
    items = [v.strip() for v in value.split(",") if v.strip()]
    wrong = [v for v in items if v not in allowed]
    if wrong:
        raise invalid_parameter(name, f"unknown value(s) {', '.join(wrong)}; allowed: {', '.join(allowed)}")
    return items
