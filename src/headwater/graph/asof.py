"""Which version of each dataset and job is valid at a past moment, held in memory beside the adjacency
(graph/adjacency.py), so an ``at=`` lineage answer (graph/pastshapes.py) asks the store nothing per node.

Contract:

- One record per node the adjacency numbers, as ``bytes`` of native 64-bit integers (bytes are no work for
  Python's garbage collector and cost 47 B less than an ``array`` each): a serial number, the node's
  ``updated_at``, its stored versions oldest first (``valid_from``, ``valid_to`` — :data:`OPEN` for the open
  one —, ``deleted``), and for a job its :data:`KEEP_RUNS` latest runs in the store's order (by start, then run
  id): started, ended (:data:`NO_END` when not ended), state (a number of :func:`state_name`) and the run id's
  128 bits as two integers. :func:`read` makes them from the store.
- They equal the store at the adjacency's watermark: read with the edges at the build, and again for every
  node observed since the previous watermark in the same refresh as the edges (the projector rewrites a node's
  versions, its ``updated_at`` and a job's runs only when it derives that node from a new observation of it).
- :func:`dataset_at` and :func:`job_at` answer what the store's ``node_rows`` and ``latest_runs``
  (graph/common.py) answer at ``t``: the version valid then, or the earliest one (a node known from a valid edge
  but first observed a little later); the run with the latest start at or before ``t`` (ties: the greatest run
  id). A node without a record, and a job whose latest run at ``t`` may be older than its kept runs or whose
  kept run ids are not canonical UUID texts, is read from the store by the caller (:data:`FROM_STORE`).
- A record's serial is unique in the process: :func:`version_key` names one version of one record, so a shape
  kept under it (graph/fragments.py ``VersionShapes``) never goes stale — a node read again gets a new serial.
- Memory: about :data:`BYTES_PER_DATASET` per dataset with one version and :data:`BYTES_PER_JOB` per job with
  one version and one run (docs/bench-graph.md states it for the 100k and 1M shapes).
"""

from __future__ import annotations

import itertools
import struct
import sys
import threading
import uuid
from array import array
from collections import deque
from collections.abc import Iterable, Iterator
from typing import NamedTuple

import orjson
import sqlalchemy as sa

from headwater.graph.common import chunks, job_type, run_summary, select_in
from headwater.graph.fragments import VersionShapes, exact
from headwater.model.jsontext import loads_text
from headwater.model.nodeid import DATASET, JOB
from headwater.model.times import iso
from headwater.store.schema import dataset_versions, datasets, job_versions, jobs, runs
from headwater.store.types import Row

OPEN = sys.maxsize  # valid_to of the open version
NO_END = -(1 << 63)  # ended_at of a run not ended
KEEP_RUNS = 4  # a job's latest runs kept: an older moment than their starts asks the store
FROM_STORE = -1  # a job's latest run at t is read from the store
BYTES_PER_DATASET = 33 + 6 * 8 + 8  # the bytes' header, six integers, the list slot
BYTES_PER_JOB = 33 + 12 * 8 + 8
_RUN_SLOT = 1 << 31  # version_key's slots of runs start here
WHOLE = 1 << 30  # or-ed into a version's key: the whole shape at any moment from its node's updated_at on
_HEAD = 3  # serial, updated_at, number of versions
_MASK = (1 << 64) - 1

_serials = itertools.count(1)
_states: list[str] = []  # state number -> text (a handful: START, RUNNING, COMPLETE, ...)
_state_numbers: dict[str, int] = {}
_states_lock = threading.Lock()


def _state_number(state: str) -> int:
    found = _state_numbers.get(state)
    if found is None:
        with _states_lock:
            found = _state_numbers.get(state)
            if found is None:
                found = len(_states)
                _states.append(state)
                _state_numbers[state] = found
    return found


def state_name(number: int) -> str:
    return _states[number]


def _signed(x: int) -> int:
    return x - (1 << 64) if x >= 1 << 63 else x


def _run_id(hi: int, lo: int) -> str:
    return str(uuid.UUID(int=((hi & _MASK) << 64) | (lo & _MASK)))


class Run(NamedTuple):
    """A kept run, as graph/common.py's ``run_summary`` reads a runs row."""

    run_id: str
    state: str
    started_at: int
    ended_at: int | None


def version_key(serial: int, slot: int) -> int:
    """The key of a record's version (``slot`` = its index) or of its run ``slot - _RUN_SLOT``."""
    return (serial << 32) | slot


# --- reading from the store ------------------------------------------------------------------------------


def _grouped(rows: Iterable[Row]) -> Iterator[tuple[str, list[Row]]]:
    """Consecutive rows of one node (the queries order by node first)."""
    for node, group in itertools.groupby(rows, key=lambda r: r[0]):
        yield node, list(group)


def _versions(group: list[Row]) -> list[int]:
    """serial, updated_at, k, then valid_from/valid_to/deleted per version (rows: node, updated_at, from, to[, deleted])."""
    values = [next(_serials), group[0][1], len(group)]
    for row in group:
        values += (row[2], OPEN if row[3] is None else row[3], 1 if len(row) > 4 and row[4] else 0)
    return values


def _runs(group: Iterable[Row]) -> list[int]:
    """The run part: the number kept (negative: older runs not kept; FROM_STORE: ids not canonical UUIDs), then
    started/ended/state/id-high/id-low per kept run (rows: job, run_id, state, started_at, ended_at)."""
    last: deque[Row] = deque(maxlen=KEEP_RUNS)
    total = 0
    for row in group:
        last.append(row)
        total += 1
    values = [len(last) if total <= KEEP_RUNS else -len(last)]
    for _, run_id, state, started_at, ended_at in last:
        try:
            parsed = uuid.UUID(run_id)
        except (ValueError, TypeError):
            return [FROM_STORE]
        if str(parsed) != run_id:
            return [FROM_STORE]
        n = parsed.int
        values += (
            started_at,
            NO_END if ended_at is None else ended_at,
            _state_number(state),
            _signed(n >> 64),
            _signed(n & _MASK),
        )
    return values


def _pack(values: list[int]) -> bytes:
    return array("q", values).tobytes()


def _dataset_query() -> sa.Select[tuple[str, int, int, int | None, bool]]:
    dv = dataset_versions
    return (
        sa.select(dv.c.dataset, datasets.c.updated_at, dv.c.valid_from, dv.c.valid_to, dv.c.deleted)
        .join(datasets, datasets.c.id == dv.c.dataset)
        .order_by(dv.c.dataset, dv.c.valid_from)
    )


def _job_query() -> sa.Select[tuple[str, int, int, int | None]]:
    jv = job_versions
    return (
        sa.select(jv.c.job, jobs.c.updated_at, jv.c.valid_from, jv.c.valid_to)
        .join(jobs, jobs.c.id == jv.c.job)
        .order_by(jv.c.job, jv.c.valid_from)
    )


def _run_query() -> sa.Select[tuple[str, str, str, int, int | None]]:
    return sa.select(runs.c.job, runs.c.run_id, runs.c.state, runs.c.started_at, runs.c.ended_at).order_by(
        runs.c.job, runs.c.started_at, runs.c.run_id
    )


def _latest_run_query(jobs_: list[str]) -> sa.Select[tuple[str, str, str, int, int | None]]:
    """:func:`_run_query` for ``jobs_``, each job's :data:`KEEP_RUNS` + 1 latest runs only (one more than kept:
    whether older runs exist)."""
    place = (
        sa.func.row_number()
        .over(partition_by=runs.c.job, order_by=(runs.c.started_at.desc(), runs.c.run_id.desc()))
        .label("place")
    )
    latest = (
        sa.select(runs.c.job, runs.c.run_id, runs.c.state, runs.c.started_at, runs.c.ended_at, place)
        .where(runs.c.job.in_(jobs_))
        .subquery()
    )
    return (
        sa.select(latest.c.job, latest.c.run_id, latest.c.state, latest.c.started_at, latest.c.ended_at)
        .where(latest.c.place <= KEEP_RUNS + 1)
        .order_by(latest.c.job, latest.c.started_at, latest.c.run_id)
    )


def read(conn: sa.Connection, num: dict[str, int], only: Iterable[str] | None = None) -> dict[int, bytes]:
    """The records of the nodes numbered in ``num`` (of those among ``only`` when given), by number; a node
    the store holds no version of gets none."""
    out: dict[int, bytes] = {}
    job_parts: dict[int, list[int]] = {}
    wanted = None if only is None else [i for i in only if i in num]

    def rows(query: sa.Select[tuple[object, ...]], column: sa.Column[str], prefix: str) -> Iterable[Row]:
        """All rows (streamed), or those of the wanted nodes (chunked IN lists): executed when read."""
        if wanted is None:
            return conn.execution_options(yield_per=20_000).execute(query)
        return select_in(conn, query, column, [i for i in wanted if i.startswith(prefix)])

    for node, group in _grouped(rows(_dataset_query(), dataset_versions.c.dataset, DATASET)):
        n = num.get(node)
        if n is not None:
            out[n] = _pack(_versions(group))
    for node, group in _grouped(rows(_job_query(), job_versions.c.job, JOB)):
        n = num.get(node)
        if n is not None:
            job_parts[n] = _versions(group)
    run_rows: Iterable[Row]
    if wanted is None:
        run_rows = conn.execution_options(yield_per=20_000).execute(_run_query())
    else:  # a job observed again may have thousands of runs: only its latest ones are read
        run_rows = [
            row
            for chunk in chunks(i for i in wanted if i.startswith(JOB))
            for row in conn.execute(_latest_run_query(chunk)).all()
        ]
    with_runs: set[int] = set()
    for job, group in _grouped(run_rows):
        n = num.get(job)
        part = None if n is None else job_parts.get(n)
        if part is not None and n is not None:
            out[n] = _pack(part + _runs(group))
            with_runs.add(n)
    for n, part in job_parts.items():
        if n not in with_runs:
            out[n] = _pack([*part, 0])
    return out


# --- answering at t --------------------------------------------------------------------------------------


def _pick(v: memoryview, t: int) -> int:
    """The index of the version valid at ``t``, or of the earliest."""
    for i in range(v[2]):
        o = _HEAD + 3 * i
        if v[o] <= t < v[o + 1]:
            return i
    return 0


class DatasetAt(NamedTuple):
    key: int
    valid_from: int
    open: bool  # the version is the open one (valid now)
    deleted: bool
    updated_at: int


class JobAt(NamedTuple):
    key: int
    valid_from: int
    updated_at: int
    run: int  # the latest run at t: its place in the record, NO_RUN, or FROM_STORE
    run_key: int  # names that run and whether it had ended at t (its summary at t is the same for all such t)
    whole_key: int  # names the whole shape at t when that is the same for every such t (else 0)


NO_RUN = -2  # a job without a run at t


_ONLY_OPEN = struct.Struct("=3q2q")  # serial, updated_at, one version: valid_from, valid_to


_ONE_RUN = struct.Struct("=12q")  # a job with one version and one run: the whole record


def whole_job_key(record: bytes, t: int) -> int:
    """:attr:`JobAt.whole_key` for the most common job record (one version, one run started by ``t``, updated
    by ``t``) without the rest of :func:`job_at`; 0 for any other record or moment."""
    if len(record) != _ONE_RUN.size:
        return 0
    serial, u, k, _, _, _, count, started, ended, _, _, _ = _ONE_RUN.unpack(record)
    if k != 1 or count != 1 or started > t or u > t:
        return 0
    return version_key(serial, WHOLE | (2 if ended != NO_END and ended <= t else 1))


def only_open(record: bytes) -> bool:
    """Whether the record holds one version, the open one (the one at any t: valid then, or the earliest)."""
    if len(record) < _ONLY_OPEN.size:
        return False
    _, _, k, _, valid_to = _ONLY_OPEN.unpack_from(record)
    return bool(k == 1 and valid_to == OPEN)


def updated_at(record: bytes) -> int:
    return int(memoryview(record).cast("q")[1])


def dataset_at(record: bytes, t: int) -> DatasetAt:
    v = memoryview(record).cast("q")
    i = _pick(v, t)
    o = _HEAD + 3 * i
    return DatasetAt(version_key(v[0], i), v[o], v[o + 1] == OPEN, bool(v[o + 2]), v[1])


def job_at(record: bytes, t: int) -> JobAt:
    v = memoryview(record).cast("q")
    k = v[2]
    i = _pick(v, t)
    o = _HEAD + 3 * i
    r = _HEAD + 3 * k
    count = v[r]
    run, slot = FROM_STORE, 0
    if count != FROM_STORE:
        run = NO_RUN
        for j in range(abs(count) - 1, -1, -1):
            p = r + 1 + 5 * j
            if v[p] <= t:
                ended = v[p + 1]
                run, slot = p, _RUN_SLOT + 2 * j + (ended != NO_END and ended <= t)
                break
        if run == NO_RUN and count < 0:  # older than every kept run, and older runs exist
            run = FROM_STORE
    whole = 0  # the whole shape's key: for t from updated_at on, with the run from the record
    if v[1] <= t and run != FROM_STORE and i < 1 << 21:
        whole = version_key(v[0], WHOLE | i << 8 | (0 if run == NO_RUN else slot - _RUN_SLOT + 1))
    return JobAt(version_key(v[0], i), v[o], v[1], run, version_key(v[0], slot), whole)


def run_of(record: bytes, place: int) -> Run:
    """The run at ``place`` (:attr:`JobAt.run`) of a job's record."""
    v = memoryview(record).cast("q")
    ended = v[place + 1]
    return Run(_run_id(v[place + 3], v[place + 4]), _states[v[place + 2]], v[place], None if ended == NO_END else ended)


def job_head(job_id: str, namespace: str, name: str, facets: str) -> bytes:
    """The version-bound part of a job's shape (graph/common.py ``job_nodes``'s keys up to ``latestRun``), as
    the open JSON object an answer continues with ``latestRun``, ``updatedAt`` and ``deleted``."""
    shape: dict[str, object] = {
        "id": job_id,
        "type": "JOB",
        "namespace": namespace,
        "name": name,
        "kind": None,
        "fields": [],
        "jobType": job_type(loads_text(facets)),
    }
    return orjson.dumps(shape)[:-1] + b',"latestRun":'


def warm_jobs(conn: sa.Connection, num: dict[str, int], records: list[bytes | None], kept: VersionShapes) -> None:
    """Keep in ``kept`` (up to half its limit) what a past answer's jobs need besides their records: each
    version's :func:`job_head` (read here; a version whose start is not the record's is left to the answers),
    each kept run's summary once ended (the one a moment after its end gives) and the job's whole shape from
    its ``updated_at`` on."""
    query = (
        sa.select(job_versions.c.job, job_versions.c.valid_from, jobs.c.namespace, jobs.c.name, job_versions.c.facets)
        .join(jobs, jobs.c.id == job_versions.c.job)
        .order_by(job_versions.c.job, job_versions.c.valid_from)
    )
    made: dict[int, bytes] = {}
    # half the bound: the 1M-dataset graph's jobs need ~1.6M entries (3.2 a job) of the default 4M; with a third
    # (the bound before whole shapes were kept too) a sixth of its jobs were read from the store by past answers
    limit = kept.limit // 2
    for job, group in _grouped(conn.execution_options(yield_per=5_000).execute(query)):
        if len(made) >= limit:
            break
        n = num.get(job)
        record = records[n] if n is not None and n < len(records) else None
        if record is None:
            continue
        v = memoryview(record).cast("q")
        if v[2] != len(group) or any(row[1] != v[_HEAD + 3 * i] for i, row in enumerate(group)):
            continue
        try:
            for i, row in enumerate(group):
                made[version_key(v[0], i)] = job_head(job, row[2], row[3], row[4])
            r = _HEAD + 3 * v[2]
            if v[r] != FROM_STORE:
                for j in range(abs(v[r])):
                    p = r + 1 + 5 * j
                    slot = _RUN_SLOT + 2 * j + (v[p + 1] != NO_END)
                    summary = orjson.dumps(run_summary(run_of(record, p), None))  # type: ignore[arg-type]
                    made[version_key(v[0], slot)] = exact(summary)
        except (orjson.JSONEncodeError, ValueError):  # a value orjson refuses: the answers read it (and say so)
            continue
        _whole_job(record, made)
    kept.put(made)


def _whole_job(record: bytes, made: dict[int, bytes]) -> None:
    """Add to ``made`` the job's whole shape at every moment from its ``updated_at`` on (the one graph/pastshapes.py
    makes and keeps under :attr:`JobAt.whole_key`, from the head and run summary just made): past answers then
    find most jobs with one read."""
    u = updated_at(record)
    j = job_at(record, u)
    if not j.whole_key:
        return
    head = made.get(j.key)
    run = b"null" if j.run == NO_RUN else made.get(j.run_key)
    if head is not None and run is not None:
        made[j.whole_key] = job_shape(head, run, b'"%b"' % iso(max(j.valid_from, min(u, j.updated_at))).encode())


def job_shape(head: bytes, run: bytes, moment: bytes) -> bytes:
    """A job's past shape, open (an answer adds level and flags): its version's head, its latest run's summary at
    the moment (JSON) and ``updatedAt`` (``moment``: a JSON string)."""
    return b'%b%b,"updatedAt":%b,"deleted":false' % (head, run, moment)


def memory(records: list[bytes | None]) -> int:
    """Bytes held by ``records`` (the list and the bytes)."""
    return sys.getsizeof(records) + sum(sys.getsizeof(b) for b in records if b is not None)
