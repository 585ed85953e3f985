"""Node identifiers, in Marquez's format, shared by the API, the store and the UI.

- ``dataset:<namespace>:<name>``
- ``job:<namespace>:<name>``
- ``datasetField:<namespace>:<name>:<field>``  (``field`` may itself hold dots for nested fields)
- ``run:<runId>``

Namespaces follow the OpenLineage naming spec and may contain ``:`` themselves
(``s3://bucket``, ``postgres://host:5432``). Parsing therefore reads the namespace as
``scheme://authority[:port]`` when it holds ``://``, and up to the first ``:`` otherwise.
A namespace that breaks this rule can always be given explicitly (``namespace=`` and
``name=`` query parameters in the API).

A dataset field id is ambiguous when the dataset name itself holds ``:``; the field is
taken to be the text after the *last* ``:``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

NodeType = Literal["dataset", "job", "datasetField", "run"]
NODE_TYPES: tuple[str, ...] = ("dataset", "job", "datasetField", "run")

# The prefix of each kind of id. Code that sorts ids by kind tests ``id.startswith(DATASET)`` (fast,
# and the prefix is written here only); code that needs the parts calls :func:`parse_node_id`.
DATASET = "dataset:"
JOB = "job:"
FIELD = "datasetField:"
RUN = "run:"
# not a graph node: the observation a log row leaves when it could not be derived (store/projector.py)
ERROR = "error:"

_PORT = re.compile(r"\d+(?=:|$)")


class InvalidNodeId(ValueError):
    """The text is not a node id; the message says why and shows the accepted forms."""


@dataclass(frozen=True, order=True)
class NodeRef:
    type: NodeType
    namespace: str
    name: str
    field: str | None = None

    @property
    def id(self) -> str:
        return format_node_id(self.type, self.namespace, self.name, self.field)

    @property
    def dataset(self) -> NodeRef:
        """The dataset a field belongs to (the dataset itself for a dataset)."""
        return NodeRef("dataset", self.namespace, self.name)

    def __str__(self) -> str:
        return self.id


def run_node_id(run_id: str) -> str:
    """The node id of a run: ``run:<runId>``."""
    return RUN + run_id


def run_id_of(node_id: str) -> str:
    """The run id inside a run node id (``run:<runId>`` → ``<runId>``); ValueError for another kind."""
    if not node_id.startswith(RUN):
        raise InvalidNodeId(f"not a run node id: {node_id!r}")
    return node_id[len(RUN) :]


def node_kind(node_id: str) -> str:
    """The kind an id starts with (``dataset``, ``job``...), unchecked: the text before the first ``:``."""
    return node_id.partition(":")[0]


def field_prefix(dataset_id: str) -> str:
    """What every field id of a dataset starts with: ``dataset:<ns>:<name>`` → ``datasetField:<ns>:<name>:``."""
    return f"{FIELD}{dataset_id[len(DATASET) :]}:"


def field_node_id(dataset_id: str, field: str) -> str:
    """``dataset:<ns>:<name>`` + field → ``datasetField:<ns>:<name>:<field>``."""
    return field_prefix(dataset_id) + field


def dataset_of_prefix(prefix: str) -> str:
    """The dataset id of a :func:`field_prefix`."""
    return DATASET + prefix[len(FIELD) : -1]


def field_splits(field_id: str) -> list[tuple[str, str]]:
    """The ``(dataset id, field)`` pairs a ``datasetField:`` id may be when its field holds ``:``: the split at
    the last ``:`` first, then ever longer fields (the graph knows which dataset exists)."""
    rest = field_id[len(FIELD) :] if field_id.startswith(FIELD) else ""
    cuts = [i for i, c in enumerate(rest) if c == ":" and i + 1 < len(rest)][::-1]
    return [(DATASET + rest[:i], rest[i + 1 :]) for i in cuts]


def error_node_id(event_id: str) -> str:
    """The observation key of a log row that could not be derived (never a node of the graph)."""
    return ERROR + event_id


def format_node_id(type_: str, namespace: str, name: str, field: str | None = None) -> str:
    if type_ == "run":
        return f"run:{name}"
    if type_ == "datasetField":
        if field is None:
            raise InvalidNodeId("a datasetField node id needs a field name")
        return f"datasetField:{namespace}:{name}:{field}"
    return f"{type_}:{namespace}:{name}"


def _split_namespace(rest: str) -> tuple[str, str]:
    """Split ``<namespace>:<name>`` following the naming spec's namespace shapes."""
    scheme_end = rest.find("://")
    first_colon = rest.find(":")
    if scheme_end != -1 and scheme_end == first_colon:
        start = scheme_end + 3
        colon = rest.find(":", start)
        if colon == -1:
            raise InvalidNodeId(f"no name after namespace in {rest!r}")
        port = _PORT.match(rest, colon + 1)
        if port and port.end() < len(rest):
            colon = port.end()
        return rest[:colon], rest[colon + 1 :]
    if first_colon == -1:
        raise InvalidNodeId(f"expected '<namespace>:<name>', got {rest!r}")
    return rest[:first_colon], rest[first_colon + 1 :]


def parse_node_id(text: str) -> NodeRef:
    """Parse a node id; raises :class:`InvalidNodeId` with a message saying what is wrong."""
    if not isinstance(text, str) or ":" not in text:
        raise InvalidNodeId(
            f"invalid node id {text!r}: expected 'dataset:<namespace>:<name>', "
            "'job:<namespace>:<name>', 'datasetField:<namespace>:<name>:<field>' or 'run:<runId>'"
        )
    type_, rest = text.split(":", 1)
    if type_ not in NODE_TYPES:
        raise InvalidNodeId(
            f"invalid node id {text!r}: unknown node type {type_!r} (expected one of {', '.join(NODE_TYPES)})"
        )
    if type_ == "run":
        if not rest:
            raise InvalidNodeId(f"invalid node id {text!r}: empty run id")
        return NodeRef("run", "", rest)
    namespace, name = _split_namespace(rest)
    field: str | None = None
    if type_ == "datasetField":
        if ":" not in name:
            raise InvalidNodeId(f"invalid node id {text!r}: a datasetField id ends with ':<field>'")
        name, field = name.rsplit(":", 1)
        if not field:
            raise InvalidNodeId(f"invalid node id {text!r}: empty field name")
    if not namespace or not name:
        raise InvalidNodeId(f"invalid node id {text!r}: namespace and name must not be empty")
    return NodeRef(type_, namespace, name, field)  # type: ignore[arg-type]


def parse_dataset_id(text: str) -> NodeRef:
    """A dataset id as a person types it: ``dataset:<namespace>:<name>`` or, without its prefix,
    ``<namespace>:<name>``; :class:`InvalidNodeId` when it is neither."""
    ref = parse_node_id(text if text.startswith(DATASET) else DATASET + text)
    if ref.type != "dataset":
        raise InvalidNodeId(f"{text!r} is not a dataset id")
    return ref
