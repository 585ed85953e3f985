"""The dataset/job edges held in memory, per server process: the lineage walk's one-hop reads without SQL.

Contract:

- :class:`Adjacency` holds every row of the ``edges`` table (now and past) as integers: each node id
  (``dataset:…``/``job:…`` text) is numbered once, and each node keeps one ``array('q')`` of its edges laid
  out by :func:`pack`: a head of three integers (how many of its edges lead upstream, how many in all, and
  :data:`OPEN` unless every edge is valid now, then the latest ``valid_from``), the other ends' numbers
  (the upstream ones first: of a job the datasets it reads, of a dataset the jobs writing it), then each
  edge's ``valid_from`` and ``valid_to`` (:data:`OPEN` when the edge is valid now), in that order. A walk of
  now, or of a moment after every edge of a node began, takes its two lists of ends as two slices of the
  array (the common case); an as-of read filters by interval. Each edge is held at both of its ends.
- It is *current*: :meth:`Adjacency.view` reads the projection's watermark
  (:func:`headwater.store.watermark.projected_seq`) in the answer's own connection and, when the watermark
  moved, re-reads the edges of every job observed since (the projector writes a job's edges in the same
  transaction as its observations, and rewrites edges only of jobs it derives from new observations), so an
  answer never sees fewer changes than the store would give it. A reader whose snapshot is older than the
  adjacency (another answer moved it on meanwhile) reads the store. A database replaced under a running
  server (a restored backup) needs the server restarted, as the projector does.
- Before it is built (a server just started) or while rebuilding, :meth:`view` answers ``None`` and the
  reads use the store (:class:`headwater.graph.traverse.EdgeIndex`'s queries): the answers are the same,
  only slower. ``graph_adjacency = false`` (settings.py) never builds one.
- Memory: about :data:`BYTES_PER_EDGE_END` per edge end plus :data:`BYTES_PER_NODE` per node
  (:meth:`Snapshot.memory` measures it), and the records of versions (graph/asof.py: ~90 B per dataset,
  ~145 B per job of the benchmark's shapes; :meth:`Snapshot.versions_memory`); docs/bench-graph.md states both
  for the 100k and 1M shapes.

Beside the edges: each numbered node's versions (validity intervals, ``deleted``), ``updated_at`` and a job's
latest runs (:attr:`Snapshot.versions`, packed by graph/asof.py), read at the build and re-read in each refresh
for every node observed since the last watermark (not only jobs), so an ``at=`` answer knows which version is
valid then without SQL per node; (:attr:`Adjacency.now_nodes`) node shapes of now as JSON bytes (read for up to
their limit of nodes right after the build, then kept from the answers' reads) and
(:attr:`Adjacency.past_nodes`) the version-bound part of past shapes (graph/fragments.py). Column edges and
what a record does not hold (a node without one, a run older than a job's kept runs) are read from the store.

Python's garbage collector: a full collection walks every tracked object of the process and runs inside
whichever answer triggered it; measured, those collections were what made the depth-20 p99 worse than the
store path's (docs/bench-graph.md). So after the first build in a process the objects alive then (the
server's modules, settings, engine and this adjacency's one ``array`` per node — arrays are tracked) are
moved out of its sight (``gc.freeze()``), and again whenever refreshes have replaced the arrays of a tenth
of the nodes (at least :data:`_REFREEZE_AFTER`) since: a full collection then walks only what answers
allocate and the few arrays replaced since. The rest kept here (texts, integers, bytes, dicts of them) is
untracked. Freezing never frees less by reference counting; only cyclic garbage alive at that moment stays.
"""

from __future__ import annotations

import gc
import sys
import threading
from array import array
from collections.abc import Iterable

import sqlalchemy as sa

from headwater.graph import asof
from headwater.graph.common import nodes_for
from headwater.graph.fragments import NowNodes, VersionShapes
from headwater.model.nodeid import JOB
from headwater.store.schema import edges, observations
from headwater.store.watermark import projected_seq

OPEN = sys.maxsize  # valid_to of an edge valid now
INPUT, OUTPUT = 0, 1
# which side an edge of each direction lies on (0 upstream, 1 downstream), at its job and at its dataset: a job
# reads its INPUT datasets (upstream of the job, downstream of the dataset) and writes its OUTPUT ones
_SIDES = {"INPUT": (0, 1), "OUTPUT": (1, 0)}
# the observation roles whose nodes are jobs the projector (re)derives, edges included (store/projector.py)
_JOB_ROLES = ("job", "jobevent", "jobrun")
_EDGE_COLUMNS = (edges.c.job, edges.c.dataset, edges.c.direction, edges.c.valid_from, edges.c.valid_to)
_CHUNK = 500
_WARM_CHUNK = 5_000  # nodes whose shapes of now one connection reads when the adjacency is built
_REFREEZE_AFTER = 20_000  # arrays replaced by refreshes before the heap is frozen again (at least a tenth)
BYTES_PER_EDGE_END = 24  # three 8-byte integers in the node's array: the other end, valid_from, valid_to
BYTES_PER_NODE = 64 + 24 + 8 + 100  # the array's header and its head, the list slot, the id text and its dict entry
HEAD = 3  # a node array's head: [upstream ends, all ends, OPEN or the latest valid_from when all are open]

Rows = Iterable[tuple[str, str, str, int, int | None]]


class Snapshot:
    """The edges as of one watermark: what one answer reads (a refresh makes a new snapshot, so an answer
    under way never sees half of one)."""

    __slots__ = ("adj", "jobs", "made", "name", "num", "seq", "versions")

    def __init__(
        self,
        num: dict[str, int],
        name: list[str],
        adj: list[array[int] | None],
        seq: int,
        versions: list[bytes | None] | None = None,
        jobs: bytearray | None = None,
    ) -> None:
        self.num = num  # node id -> number (shared by the snapshots: only ever appended to)
        self.name = name  # number -> node id (likewise)
        # number -> 1 for a job, 0 for a dataset (likewise): a walk asks it of every node it meets, and an index
        # into one contiguous array touches no id text (at 1M nodes, mostly memory no answer touched lately)
        self.jobs = bytearray(node.startswith(JOB) for node in name) if jobs is None else jobs
        self.adj = adj  # number -> its edges, four integers each (this snapshot's own list)
        self.seq = seq
        self.made = 0  # node arrays this snapshot made (a refresh's; the build's are not counted)
        # number -> the node's versions (and a job's latest runs) as graph/asof.py packs them; None: ask the store
        self.versions: list[bytes | None] = [] if versions is None else versions

    def record(self, n: int) -> bytes | None:
        """Node ``n``'s record of versions (graph/asof.py), or None (the store answers for it)."""
        versions = self.versions
        return versions[n] if n < len(versions) else None

    def incident(self, node: str, t: int | None) -> list[tuple[str, int]]:
        """The edges of ``node`` valid at ``t`` (None = now): (the other end's id, INPUT or OUTPUT)."""
        n = self.num.get(node)
        if n is None or n >= len(self.adj):
            return []
        values = self.adj[n]
        if values is None:
            return []
        name = self.name
        # the upstream ends of a job are its INPUT edges, of a dataset its OUTPUT edges
        up_flag = INPUT if self.jobs[n] else OUTPUT
        return [
            (name[end], up_flag if i < values[0] else 1 - up_flag)
            for i, (end, valid_from, valid_to) in enumerate(_edges_of(values))
            if (valid_to == OPEN if t is None else valid_from <= t < valid_to)
        ]

    def counts(self) -> tuple[int, int]:
        """(nodes, edges) held."""
        return len(self.adj), sum(a[1] for a in self.adj if a is not None) // 2

    def versions_memory(self) -> int:
        """Bytes held by the records of versions (graph/asof.py): the list and the bytes."""
        return asof.memory(self.versions)

    def memory(self) -> int:
        """Bytes held by the edges: the arrays, the list of them, the id texts, the numbering dict and the list
        of ids (the records of versions: :meth:`versions_memory`)."""
        total = sys.getsizeof(self.adj) + sys.getsizeof(self.name) + sys.getsizeof(self.num) + sys.getsizeof(self.jobs)
        total += sum(sys.getsizeof(a) for a in self.adj if a is not None)
        total += sum(sys.getsizeof(s) for s in self.name)
        return total


class Adjacency:
    """The edges of one store's graph in memory (see the module docstring); thread-safe."""

    def __init__(self, engine: sa.Engine) -> None:
        self._engine = engine
        self._lock = threading.Lock()  # one writer (build or refresh); readers take the current snapshot
        self._snap: Snapshot | None = None  # None: not built
        self._building: threading.Thread | None = None
        self._closed = False
        self._replaced = 0  # node arrays made by refreshes since the heap was last frozen
        # whole node shapes of now, forgotten when their node is observed again (graph/fragments.py)
        self.now_nodes = NowNodes()
        # the version-bound part of past shapes, by version (graph/fragments.py): never stale
        self.past_nodes = VersionShapes()

    # --- building -------------------------------------------------------------------------------

    def start(self) -> None:
        """Build in a background thread (the store answers meanwhile); does nothing when built or building."""
        with self._lock:
            if self._closed or self._snap is not None or (self._building is not None and self._building.is_alive()):
                return
            self._building = threading.Thread(target=self._build_quietly, name="headwater-adjacency", daemon=True)
            self._building.start()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for a background build; True when the adjacency is built."""
        thread = self._building
        if thread is not None:
            thread.join(timeout)
        return self._snap is not None

    def close(self) -> None:
        """Stop serving (a build under way is dropped when it ends)."""
        with self._lock:
            self._closed = True
            self._snap = None
        self.now_nodes.clear()
        self.past_nodes.clear()

    def _build_quietly(self) -> None:
        try:
            self.build()
        except Exception:  # noqa: BLE001 - the store answers instead; the next start() tries again
            with self._lock:
                self._snap = None

    def build(self) -> None:
        """Read every edge (the watermark first: changes after it are re-read by the next :meth:`view`)."""
        with self._engine.connect() as conn:
            seq = projected_seq(conn)
            num: dict[str, int] = {}
            name: list[str] = []
            jobs = bytearray()
            ups: list[list[int]] = []  # number -> (end, valid_from, valid_to) of its upstream edges, flat
            downs: list[list[int]] = []  # likewise downstream
            sides = (ups, downs)

            def number(node: str) -> int:
                n = num.get(node)
                if n is None:
                    n = num[node] = len(name)
                    name.append(node)
                    jobs.append(node.startswith(JOB))
                    ups.append([])
                    downs.append([])
                return n

            result = conn.execution_options(yield_per=20_000).execute(sa.select(*_EDGE_COLUMNS))
            for job, dataset, direction, valid_from, valid_to in result:
                j, d = number(job), number(dataset)
                to = OPEN if valid_to is None else valid_to
                at_job, at_dataset = _SIDES[direction]
                sides[at_job][j] += (d, valid_from, to)
                sides[at_dataset][d] += (j, valid_from, to)
            records = asof.read(conn, num)  # versions, updated_at, runs (a later change is re-read by a refresh)
        adj: list[array[int] | None] = [pack(u, d) for u, d in zip(ups, downs, strict=True)]
        ups.clear()  # the lists are garbage now: freed before the warm-up reads shapes
        downs.clear()
        versions: list[bytes | None] = [None] * len(adj)
        for n, record in records.items():
            versions[n] = record
        del records
        with self._lock:
            if not self._closed:
                self.now_nodes.advance((), seq)  # a first build: nothing kept from before
                self._snap = Snapshot(num, name, adj, seq, versions, jobs)
        self._warm()
        _settle_heap()

    def _warm(self) -> None:
        """Read the shapes of now of the first :attr:`NowNodes.limit <NowNodes>` nodes into :attr:`now_nodes`,
        then the jobs' version-bound parts of past shapes into :attr:`past_nodes` (graph/asof.py ``warm_jobs``)
        (what each answer would otherwise read from the store and keep, node by node: a deep answer's first
        read of thousands of nodes was most of its time). In chunks, each read in one connection at the
        watermark it sees (the adjacency moved to it first, so the shapes are kept for that watermark's readers)."""
        snap = self._snap
        if snap is None:
            return
        ids = snap.name[: self.now_nodes.limit]
        for start in range(0, len(ids), _WARM_CHUNK):
            with self._engine.connect() as conn:
                if conn.dialect.name == "postgresql":  # one snapshot for the watermark and the shapes
                    conn = conn.execution_options(isolation_level="REPEATABLE READ")
                snap = self.view(conn)
                if snap is None:  # closed, or this connection sees an older watermark: the answers keep shapes
                    return
                read = nodes_for(conn, ids[start : start + _WARM_CHUNK], None)
            self.now_nodes.put(read, snap.seq)
        with self._engine.connect() as conn:  # past answers' jobs: their versions' heads and runs' summaries
            if conn.dialect.name == "postgresql":
                conn = conn.execution_options(isolation_level="REPEATABLE READ")
            snap = self.view(conn)
            if snap is not None:
                asof.warm_jobs(conn, snap.num, snap.versions, self.past_nodes)

    # --- keeping current ------------------------------------------------------------------------

    def view(self, conn: sa.Connection) -> Snapshot | None:
        """The edges as of the watermark ``conn`` sees, or None (not built: read the store)."""
        snap = self._snap
        if snap is None:
            return None
        seq = projected_seq(conn)
        if seq == snap.seq:
            return snap
        with self._lock:
            snap = self._snap
            if snap is None:
                return None
            if seq < snap.seq:  # this reader's snapshot is older than the adjacency: it reads the store
                return None
            self._snap = snap = _refreshed(conn, snap, seq, self.now_nodes)
            self._replaced += snap.made
            if self._replaced >= max(_REFREEZE_AFTER, len(snap.adj) // 10):
                self._replaced = 0
                gc.freeze()  # the new arrays join the old ones out of the collector's sight
            return snap

    @property
    def snapshot(self) -> Snapshot | None:
        """The current snapshot without looking at the watermark (None: not built)."""
        return self._snap


_SETTLED = threading.Event()  # the process's heap was frozen once (gc.freeze is process-wide too)


def _settle_heap() -> None:
    """Once per process: collect, then move every object alive into the collector's permanent generation,
    where full collections no longer walk it (objects freed later by reference counting are still freed)."""
    if _SETTLED.is_set():
        return
    _SETTLED.set()
    gc.collect()
    gc.freeze()


def _refreshed(conn: sa.Connection, snap: Snapshot, seq: int, now_nodes: NowNodes) -> Snapshot:
    """``snap`` with the edges of the jobs observed after its watermark read again (``seq`` is ``conn``'s);
    the shapes of now of every node observed since are forgotten."""
    observed = conn.execute(
        sa.select(observations.c.node, observations.c.role).where(observations.c.event_seq > snap.seq).distinct()
    ).all()
    now_nodes.advance({node for node, _ in observed}, seq)  # before the new snapshot is given out
    changed = sorted({node for node, role in observed if role in _JOB_ROLES})
    new = Snapshot(snap.num, snap.name, list(snap.adj), seq, list(snap.versions), snap.jobs)
    for start in range(0, len(changed), _CHUNK):
        part = changed[start : start + _CHUNK]
        rows = conn.execute(sa.select(*_EDGE_COLUMNS).where(edges.c.job.in_(part))).all()
        _replace_jobs(new, part, rows)
    # every node observed since: its versions, updated_at and latest runs again (after the edges: nodes numbered
    # by them just now are read too)
    nodes = sorted({node for node, _ in observed if node in new.num})
    versions = new.versions
    versions.extend([None] * (len(new.adj) - len(versions)))
    for node in nodes:
        versions[new.num[node]] = None  # a node the store no longer holds a version of: the store answers
    for n, record in asof.read(conn, new.num, nodes).items():
        versions[n] = record
    return new


def _number(snap: Snapshot, node: str) -> int:
    n = snap.num.get(node)
    if n is None:
        n = len(snap.name)
        snap.name.append(node)
        snap.jobs.append(node.startswith(JOB))
        snap.num[node] = n
    while len(snap.adj) <= n:
        snap.adj.append(None)
    return n


def pack(up: list[int], down: list[int]) -> array[int] | None:
    """A node's array (the module docstring) from its upstream and downstream edges, each a flat list of
    (other end, valid_from, valid_to) triples; None for a node without edges."""
    m = (len(up) + len(down)) // 3
    if not m:
        return None
    froms = up[1::3] + down[1::3]
    tos = up[2::3] + down[2::3]
    head = [len(up) // 3, m, max(froms) if tos.count(OPEN) == m else OPEN]
    return array("q", head + up[0::3] + down[0::3] + froms + tos)  # made whole: no room to grow held


def _edges_of(values: array[int]) -> Iterable[tuple[int, int, int]]:
    """A node array's edges as (other end, valid_from, valid_to), the upstream ones first."""
    m = values[1]
    return zip(values[HEAD : HEAD + m], values[HEAD + m : HEAD + 2 * m], values[HEAD + 2 * m :], strict=True)


def _without(triples: list[int], end: int) -> list[int]:
    """Flat (other end, valid_from, valid_to) triples without those whose other end is ``end``."""
    return [x for k in range(0, len(triples), 3) if triples[k] != end for x in triples[k : k + 3]]


def _replace_jobs(snap: Snapshot, jobs: list[str], rows: Rows) -> None:
    """The edges of ``jobs`` become ``rows`` (every edge of those jobs); their other ends follow."""
    adj = snap.adj
    touched: dict[int, tuple[list[int], list[int]]] = {}  # node -> its new (upstream, downstream) flat triples

    def flat(n: int) -> tuple[list[int], list[int]]:
        found = touched.get(n)
        if found is None:
            current = adj[n]
            up: list[int] = []
            down: list[int] = []
            if current is not None:
                k = current[0]
                for i, edge in enumerate(_edges_of(current)):
                    (up if i < k else down).extend(edge)
            found = touched[n] = (up, down)
        return found

    for j in {_number(snap, job) for job in jobs}:  # drop every old edge of these jobs, at both ends
        old = adj[j]
        if old is not None:
            for d in set(old[HEAD : HEAD + old[1]]):
                up, down = flat(d)
                touched[d] = (_without(up, j), _without(down, j))
        touched[j] = ([], [])
    for job, dataset, direction, valid_from, valid_to in rows:
        j, d = _number(snap, job), _number(snap, dataset)
        to = OPEN if valid_to is None else valid_to
        at_job, at_dataset = _SIDES[direction]
        flat(j)[at_job].extend((d, valid_from, to))
        flat(d)[at_dataset].extend((j, valid_from, to))
    for n, (up, down) in touched.items():
        adj[n] = pack(up, down)
    snap.made += len(touched)
