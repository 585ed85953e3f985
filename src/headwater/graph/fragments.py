"""Dataset node shapes rendered once per dataset version, and the answers' nodes assembled from them.

Contract: :func:`dataset_nodes` answers exactly what :func:`headwater.graph.common.dataset_nodes` answers
(the same dicts, the same key order, so the same JSON bytes) from the same one query per chunk (plus the
version's id): each dataset's version valid at ``t`` and its ``updated_at`` (the mutable part, joined at
read time); the stored ``fields`` JSON is decoded and the head (namespace, name, kind, fields) kept only for
versions not rendered before; each node is one dict literal, rendered before or not.

A dataset version's shown parts — its id's namespace and name, ``kind``, ``fields`` and ``deleted`` — are
fixed by the version: its id is a hash of the dataset, the start and the content (fields, facets, dropped;
store/derive_datasets.py), and the key here adds ``kind`` and ``deleted`` as read, so a row rewritten in
place can never be answered from an older rendering. :class:`Fragments` keeps them within a memory budget
(the oldest go first): each counts :data:`ENTRY_BYTES` plus :data:`FIELDS_FACTOR` times its stored ``fields``
text (decoded JSON takes about 4-5.5 times its text, measured on 7- and 50-column schemas). Answers share
the rendered ``fields`` lists (answers are read-only).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any, cast

import orjson
import sqlalchemy as sa

from headwater.graph.answers import Node
from headwater.graph.common import select_in, valid_at
from headwater.model.jsontext import loads_text
from headwater.model.times import iso
from headwater.store.schema import dataset_versions, datasets

Key = tuple[str, str, bool]  # version id, kind, deleted
Head = tuple[str, str, Any, Any]  # a version's namespace, name, kind (a DatasetKind) and decoded fields
DEFAULT_BUDGET = 128 * 1024 * 1024  # bytes of rendered versions kept per store and server process
ENTRY_BYTES = 1_300  # a rendered head without its fields: the dict, its id, name and namespace texts, the key
FIELDS_FACTOR = 6

_dv = dataset_versions
# the store path's columns (common.dataset_nodes) and the version's id
_COLUMNS = (
    datasets.c.namespace,
    datasets.c.name,
    datasets.c.updated_at,
    _dv.c.id.label("version"),
    _dv.c.valid_from,
    _dv.c.kind,
    _dv.c.fields,
    _dv.c.deleted,
)


class Fragments:
    """The rendered immutable head of each dataset version's node (see the module docstring); thread-safe."""

    def __init__(self, budget: int = DEFAULT_BUDGET) -> None:
        self._budget = budget
        # key -> (head, bytes counted), oldest first (an OrderedDict: dropping the oldest is O(1))
        self._heads: OrderedDict[Key, tuple[object, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._heads)

    @property
    def bytes(self) -> int:
        """The memory the rendered versions are counted at (at most the budget)."""
        return self._bytes

    def get(self, key: Key) -> object | None:
        found = self._heads.get(key)
        return None if found is None else found[0]

    def put(self, key: Key, head: object, text_length: int) -> None:
        self.put_many([(key, head, text_length)])

    def put_many(self, entries: Iterable[tuple[Key, object, int]]) -> None:
        """Keep each (key, head, length of its ``fields`` text) not kept yet, under one lock."""
        with self._lock:
            for key, head, text_length in entries:
                size = ENTRY_BYTES + FIELDS_FACTOR * text_length
                if key in self._heads or size > self._budget:
                    continue
                while self._bytes + size > self._budget:  # the oldest go first
                    self._bytes -= self._heads.popitem(last=False)[1][1]
                self._heads[key] = (head, size)
                self._bytes += size


class NowNodes:
    """Whole node shapes of now (``at`` not given), by node id, valid at one watermark, kept as JSON bytes;
    thread-safe.

    A node's shape now changes only when the projector derives it again, which it does only from a new
    observation of that node (a dataset's version and ``updatedAt``; a job's facets, ``updatedAt`` and latest
    run: every run event observes its job). :meth:`advance` to a newer watermark forgets the nodes observed
    since the last one; shapes are given out (:meth:`get`) and kept (:meth:`put`) only for readers at the
    current watermark, so a reader on an older snapshot neither sees nor puts back an older shape.

    Kept as the node's JSON bytes (orjson), decoded on each use: a few microseconds per node, and bytes are
    no work for Python's garbage collector (hundreds of thousands of cached dicts made every full collection
    slower). A shape whose bytes would not decode to an equal node (a NaN or an infinity, a tuple, an integer
    beyond 64 bits) is not kept: its values are checked by type (:func:`_plain`, a shared ``fields`` list once
    per call), not by decoding the bytes again, which cost more than the rest of a first read. At most
    ``limit`` shapes (the oldest go first).
    """

    def __init__(self, limit: int = 200_000) -> None:
        self._limit = limit
        self._nodes: OrderedDict[str, bytes] = OrderedDict()
        self._seq: int | None = None
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._nodes)

    @property
    def bytes(self) -> int:
        """The JSON bytes held (without the dict and the id texts)."""
        return sum(len(b) for b in list(self._nodes.values()))

    def get(self, node_id: str, seq: int) -> Node | None:
        if seq != self._seq:
            return None
        found = self._nodes.get(node_id)
        return None if found is None else cast(Node, orjson.loads(found))

    def get_many(self, node_ids: Iterable[str], seq: int) -> tuple[dict[str, Node], list[str]]:
        """The shapes kept of ``node_ids`` (for a reader at ``seq``), and the ids not kept, in their order."""
        if seq != self._seq:
            return {}, list(node_ids)
        kept = self._nodes
        found: dict[str, Node] = {}
        missing: list[str] = []
        for node_id in node_ids:
            text = kept.get(node_id)
            if text is None:
                missing.append(node_id)
            else:
                found[node_id] = cast(Node, orjson.loads(text))
        return found, missing

    def put(self, nodes: dict[str, Node], seq: int) -> None:
        """Keep ``nodes``, read at watermark ``seq``, if that is the current one."""
        if seq != self._seq:
            return
        encoded: dict[str, bytes] = {}
        checked: dict[int, bool] = {}  # id of a shared value (a decoded ``fields`` list) -> it round-trips
        for node_id, node in nodes.items():
            if not _round_trips(node, checked):
                continue
            try:
                encoded[node_id] = orjson.dumps(node)
            except TypeError:  # orjson.JSONEncodeError: an integer beyond 64 bits
                continue
        with self._lock:
            if seq != self._seq:
                return
            self._nodes.update(encoded)
            while len(self._nodes) > self._limit:  # the oldest go first
                self._nodes.popitem(last=False)

    def advance(self, observed: Iterable[str], seq: int) -> None:
        """The watermark moved to ``seq``; ``observed``: the nodes observed after the previous one."""
        with self._lock:
            if self._seq is None or seq < self._seq:
                self._nodes.clear()
            else:
                for node_id in observed:
                    self._nodes.pop(node_id, None)
            self._seq = seq

    def clear(self) -> None:
        with self._lock:
            self._nodes.clear()
            self._seq = None


_PLAIN = (str, int, bool, type(None))
_PLAIN_TYPES = frozenset(_PLAIN)


def _plain(value: Any) -> bool:
    """True when ``value`` decodes from its orjson bytes as an equal value: nested dicts (text keys), lists,
    texts, integers, booleans, None and finite floats (orjson writes NaN and infinities as ``null``; a tuple
    would come back a list). Integers beyond 64 bits make orjson raise instead."""
    kind = type(value)
    if kind in _PLAIN:
        return True
    if kind is float:
        return bool(value - value == 0.0)  # NaN and the infinities give NaN
    if kind is dict or kind is list:  # a key that is not text makes orjson raise
        items = value.values() if kind is dict else value
        if {type(item) for item in items} <= _PLAIN_TYPES:  # the common case, without a call per item
            return True
        return all(_plain(item) for item in items)
    return False


def _round_trips(node: Node, checked: dict[int, bool]) -> bool:
    """:func:`_plain` for a node; a container shared by several nodes (answers share a decoded ``fields``
    list) is checked once per ``checked``."""
    for value in node.values():
        if type(value) in _PLAIN:
            continue
        if type(value) is float:
            if not _plain(value):
                return False
            continue
        found = checked.get(id(value))
        if found is None:
            found = checked[id(value)] = _plain(value)
        if not found:
            return False
    return True


def _versions(conn: sa.Connection, ids: list[str], t: int | None, lenient: bool) -> dict[str, sa.Row[Any]]:
    """Each dataset's version valid at ``t`` (``lenient``: else its first), as common._node_rows picks it."""
    query = sa.select(datasets.c.id, *_COLUMNS).join(_dv, _dv.c.dataset == datasets.c.id)
    found = {r.id: r for r in select_in(conn, query.where(valid_at(_dv, t)), _dv.c.dataset, ids)}
    missing = [i for i in ids if i not in found]
    if lenient and missing and t is not None:
        for r in select_in(conn, query.order_by(_dv.c.valid_from.desc()), _dv.c.dataset, missing):
            found[r.id] = r  # the last row of an id is its earliest version
    return found


def dataset_nodes(
    conn: sa.Connection, ids: Iterable[str], t: int | None, fragments: Fragments, *, lenient: bool = True
) -> dict[str, Node]:
    """:func:`headwater.graph.common.dataset_nodes`, assembled from rendered versions (rendered here when new;
    equal ``fields`` texts decoded once per call)."""
    wanted = sorted(set(ids))
    rows = _versions(conn, wanted, t, lenient)
    decoded: dict[str, Any] = {}
    new: list[tuple[Key, object, int]] = []
    out: dict[str, Node] = {}
    for ds_id in wanted:
        row = rows.get(ds_id)
        if row is None:
            continue
        deleted = bool(row.deleted)
        key = (row.version, row.kind, deleted)
        head = cast("Head | None", fragments.get(key))
        if head is None:
            fields = decoded.get(row.fields, decoded)
            if fields is decoded:
                fields = decoded[row.fields] = loads_text(row.fields)
            head = (row.namespace, row.name, row.kind, fields)
            new.append((key, head, len(row.fields)))
        updated = row.updated_at if t is None or row.updated_at <= t else max(row.valid_from, min(t, row.updated_at))
        # one dict in common.dataset_nodes' key order (the same JSON bytes), whether rendered before or not
        out[ds_id] = {
            "id": ds_id,
            "type": "DATASET",
            "namespace": head[0],
            "name": head[1],
            "kind": head[2],
            "fields": head[3],
            "jobType": None,
            "latestRun": None,
            "updatedAt": iso(updated),
            "deleted": deleted,
        }
    if new:
        fragments.put_many(new)
    return out
