"""Node shapes kept per server process as JSON bytes: whole shapes of now (:class:`NowNodes`), and the
version-bound part of past shapes (:class:`VersionShapes`), from which lineage answers are assembled as bytes
(graph/lineage_bytes.py).

Contract: a shape kept here is the one :func:`headwater.graph.common.nodes_for` answers at the watermark it
was read at, and is given out only to readers at that watermark; it is forgotten when its node is observed
again. Beyond :data:`TRAIN_AFTER` of them, shapes are held compressed (:class:`Frames`: zstd, with a
dictionary trained on the shapes held): a whole 1M-dataset graph's shapes of now fit in ~0.15 GB instead of
~0.9 (docs/bench-graph.md). Shapes are kept as bytes, which Python's garbage collector never walks: a server
process keeps up to hundreds of thousands of them, and containers held that long (dicts, lists, tuples holding lists) made every
full collection — run in the middle of some answer — tens of milliseconds slower (docs/bench-graph.md). For
the same reason nothing decoded is kept across answers: an earlier version kept each dataset version's
decoded ``fields`` (tuples holding lists), which saved one JSON decode per schema text and answer but cost
more in collections than it saved.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping, MutableMapping
from typing import Any, TypeVar, cast

import orjson
import zstandard

from headwater.graph.answers import Node

K = TypeVar("K")

# Shapes of now are held as plain JSON up to TRAIN_AFTER of them (~170 MB of the benchmark's shapes, ~580 B each:
# a 100k-dataset graph's 152,500 nodes all fit), compressed beyond: a dictionary trained then on up to
# TRAIN_SAMPLES of them (shapes of one store repeat their keys, namespaces and column lists: ~580 B become ~65-100),
# and every shape held from then on a zstd frame made with it. Plain below the bound because a frame costs ~1-2 us
# to decompress (~2-3 ms of a 1,500-node answer); beyond it, memory matters more (a 1M-dataset graph: ~0.15 GB
# compressed against ~0.9 GB). fastCover's k and d fixed, as for the event log's dictionaries (store/codec.py):
# the search over them costs ~100x more.
TRAIN_AFTER = 300_000
TRAIN_SAMPLES = 5_000
DICT_SIZE = 16_384
LEVEL = 3
# The version-bound parts of past shapes (:class:`VersionShapes`): plain up to this many, as the shapes of now.
VERSIONS_TRAIN_AFTER = 300_000
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"  # a zstd frame; a shape's JSON starts with "{"
_ZSTD_FIRST = _ZSTD_MAGIC[0]


class Frames:
    """Byte shapes held plain, then as zstd frames once the holder has ``train_after`` of them: one dictionary,
    trained on the shapes held then, for the life of this object (so every frame held decodes with it); a
    frame and plain JSON are told apart by their first bytes. Compressors and decompressors are per thread (a
    zstandard context serves one call at a time). Used by :class:`NowNodes` and :class:`VersionShapes`, whose
    locks guard their own dicts; this object trains once (:meth:`due`, then :meth:`train`)."""

    def __init__(self, train_after: int) -> None:
        self.train_after = train_after
        self.dict: zstandard.ZstdCompressionDict | None = None
        self._untrainable = False  # training failed once: shapes stay plain
        self._training = False  # set once, by the caller that trains (no second training, whatever its outcome)
        self._local = threading.local()

    def decompressor(self) -> zstandard.ZstdDecompressor:
        local = self._local
        if getattr(local, "dict", None) is not self.dict:
            local.dict = self.dict
            local.d = zstandard.ZstdDecompressor(dict_data=self.dict)
        return cast(zstandard.ZstdDecompressor, local.d)

    def compressor(self, made: zstandard.ZstdCompressionDict) -> zstandard.ZstdCompressor:
        local = self._local
        if getattr(local, "cdict", None) is not made:
            local.cdict = made
            local.c = zstandard.ZstdCompressor(
                level=LEVEL, dict_data=made, write_checksum=False, write_dict_id=False, write_content_size=True
            )
        return cast(zstandard.ZstdCompressor, local.c)

    def plain(self, held: bytes) -> bytes:
        """A held shape as its plain bytes."""
        if held[:4] == _ZSTD_MAGIC:
            return self.decompressor().decompress(held)
        return held

    def pack(self, texts: Mapping[K, bytes]) -> Mapping[K, bytes]:
        """``texts`` as they are to be held: frames once a dictionary is trained (compressed by the caller's
        thread, outside any lock)."""
        made = self.dict
        if made is None:
            return texts
        compress = self.compressor(made).compress
        return {key: compress(text) for key, text in texts.items()}

    def due(self, held: int) -> bool:
        """Called under the holder's lock with how many it holds: True once, for the caller that is to train."""
        if self.dict is None and not self._training and not self._untrainable and held >= self.train_after:
            self._training = True
            return True
        return False

    def train(self, lock: threading.Lock, shapes: MutableMapping[K, bytes]) -> None:
        """Train the dictionary on ``shapes`` and compress them with it, outside ``lock`` but for the swaps
        (readers and writers go on meanwhile)."""
        with lock:
            held = list(shapes.items())
        samples: list[bytes | bytearray | memoryview] = [b for _, b in held[-TRAIN_SAMPLES:]]
        try:
            made = zstandard.train_dictionary(DICT_SIZE, samples, k=64, d=8, level=LEVEL)
        except zstandard.ZstdError:  # samples too alike or too few to learn from: keep them as they are
            self._untrainable = True
            return
        self.dict = made  # first: readers (who take no lock) decompress any frame they meet with it
        compress = self.compressor(made).compress
        for start in range(0, len(held), 10_000):  # the lock held a chunk at a time
            chunk = [(key, text, compress(text)) for key, text in held[start : start + 10_000]]
            with lock:
                for key, text, frame in chunk:
                    if shapes.get(key) is text:  # not forgotten nor replaced meanwhile
                        shapes[key] = frame


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
    ``limit`` shapes (the oldest go first): the default holds every node of a 1M-dataset graph (1,525,000).

    Held plain up to ``train_after`` shapes (default :data:`TRAIN_AFTER`), as zstd frames beyond
    (:class:`Frames`).
    """

    def __init__(self, limit: int = 2_000_000, train_after: int | None = None) -> None:
        self._limit = limit
        self._frames = Frames(TRAIN_AFTER if train_after is None else train_after)
        self._nodes: OrderedDict[str, bytes] = OrderedDict()
        self._seq: int | None = None
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._nodes)

    @property
    def limit(self) -> int:
        """The most shapes kept."""
        return self._limit

    @property
    def held_bytes(self) -> int:
        """The bytes held, compressed (without the dict and the id texts)."""
        return sum(len(b) for b in list(self._nodes.values()))

    @property
    def compressed(self) -> bool:
        """Whether shapes are held compressed (a dictionary was trained)."""
        return self._frames.dict is not None

    def get(self, node_id: str, seq: int) -> Node | None:
        if seq != self._seq:
            return None
        found = self._nodes.get(node_id)
        return None if found is None else cast(Node, orjson.loads(self._frames.plain(found)))

    def get_many(self, node_ids: Iterable[str], seq: int) -> tuple[dict[str, Node], list[str]]:
        """The shapes kept of ``node_ids`` (for a reader at ``seq``), and the ids not kept, in their order."""
        kept, missing = self.get_many_bytes(node_ids, seq)
        return {node_id: cast(Node, orjson.loads(text)) for node_id, text in kept.items()}, missing

    def get_many_bytes(
        self, node_ids: Iterable[str], seq: int, *, open_: bool = False
    ) -> tuple[dict[str, bytes], list[str]]:
        """As :meth:`get_many`, the shapes as their JSON bytes (not decoded); ``open_``: without their closing
        brace (what a lineage answer adds level and flags to)."""
        if seq != self._seq:
            return {}, list(node_ids)
        get = self._nodes.get
        found: dict[str, bytes] = {}
        missing: list[str] = []
        decompress = None  # made at the first frame met (a frame is only ever held once the dictionary is set)
        end = -1 if open_ else None
        for node_id in node_ids:
            held = get(node_id)
            if held is None:
                missing.append(node_id)
            elif held[0] == _ZSTD_FIRST:  # a frame (its first byte is enough: plain JSON starts with "{")
                if decompress is None:
                    decompress = self._frames.decompressor().decompress
                found[node_id] = decompress(held)[:end]
            else:
                found[node_id] = held[:end]
        return found, missing

    def put(self, nodes: dict[str, Node], seq: int) -> dict[str, bytes]:
        """Keep ``nodes``, read at watermark ``seq``, if that is the current one; answers the JSON bytes of
        those that round-trip (encoded whether kept or not)."""
        encoded: dict[str, bytes] = {}
        checked: dict[int, bool] = {}  # id of a shared value (a decoded ``fields`` list) -> it round-trips
        for node_id, node in nodes.items():
            if not _round_trips(node, checked):
                continue
            try:
                encoded[node_id] = exact(orjson.dumps(node))
            except TypeError:  # orjson.JSONEncodeError: an integer beyond 64 bits
                continue
        held = self._frames.pack(encoded)
        with self._lock:
            if seq != self._seq:
                return encoded
            self._nodes.update(held)
            while len(self._nodes) > self._limit:  # the oldest go first
                self._nodes.popitem(last=False)
            train = self._frames.due(len(self._nodes))
        if train:
            self._frames.train(self._lock, self._nodes)
        return encoded

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


def exact(text: bytes) -> bytes:
    """A copy of ``text`` holding its length only: orjson's bytes keep the ~4 KB buffer they were written in
    (measured with tracemalloc, orjson 3.13), which for kept shapes cost ~4 KB per node instead of ~0.6."""
    return memoryview(text).tobytes()


class VersionShapes:
    """The part of a node's shape that one stored version fixes, as JSON bytes, by a key naming the version;
    thread-safe, at most ``limit`` (the oldest go first).

    A version's id is a hash of the node, its start and its content (store/derive_*.py), so what is kept
    under it never goes stale: a version rewritten with other content gets another id. Only bytes and
    their key texts are kept (no work for the garbage collector, as :class:`NowNodes`); plain up to
    :data:`VERSIONS_TRAIN_AFTER`, zstd frames beyond (:class:`Frames`). The default ``limit`` holds the
    versions of every node of a 1M-dataset graph.
    """

    def __init__(self, limit: int = 4_000_000, train_after: int | None = None) -> None:
        self._limit = limit
        self._shapes: OrderedDict[str | int, bytes] = OrderedDict()
        self._lock = threading.Lock()
        self._frames = Frames(VERSIONS_TRAIN_AFTER if train_after is None else train_after)

    def __len__(self) -> int:
        return len(self._shapes)

    @property
    def limit(self) -> int:
        """The most shapes kept."""
        return self._limit

    @property
    def held_bytes(self) -> int:
        return sum(len(b) for b in list(self._shapes.values()))

    @property
    def compressed(self) -> bool:
        """Whether shapes are held compressed (a dictionary was trained)."""
        return self._frames.dict is not None

    def get(self, key: str | int) -> bytes | None:
        held = self._shapes.get(key)
        if held is None or held[:4] != _ZSTD_MAGIC:  # Frames.plain inlined: a past answer asks thousands
            return held
        return self._frames.decompressor().decompress(held)

    def put(self, shapes: Mapping[str, bytes] | Mapping[int, bytes]) -> None:
        held: Mapping[str | int, bytes] = self._frames.pack(cast(Mapping[str | int, bytes], shapes))
        with self._lock:
            for key, shape in held.items():
                self._shapes[key] = shape
            while len(self._shapes) > self._limit:
                self._shapes.popitem(last=False)
            train = self._frames.due(len(self._shapes))
        if train:
            self._frames.train(self._lock, self._shapes)

    def clear(self) -> None:
        with self._lock:
            self._shapes.clear()


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
