"""Node shapes at a past moment as JSON bytes, for lineage answers assembled as bytes (graph/lineage_bytes.py).

Contract: :func:`past_shapes` answers, for each node asked about, the JSON object
:func:`headwater.graph.common.nodes_for` gives for it at ``t`` (lenient: a node without a version valid then
takes its earliest), encoded by orjson and without its closing brace; nodes unknown at ``t`` are left out.
It raises :class:`Unencodable` for a value orjson refuses (the caller answers the dict path's way).

Where each part comes from:

- which version is valid at ``t``, ``updatedAt``, ``deleted`` and ``latestRun``: the records kept beside the
  adjacency (graph/asof.py), current at the snapshot's watermark — no SQL per node. A node without a record,
  or a job whose latest run at ``t`` is older than its kept runs, is read from the store (the same queries as
  ``nodes_for``'s).
- the version-bound part (names, kind, fields, job type): kept by version (graph/fragments.py
  ``VersionShapes``); for a dataset's open version, cut from its kept shape of now (the same version, read at
  the same watermark: ``NowNodes``); otherwise read from the store once (the version valid at ``t``, checked
  to be the one the record names: else the node is read from the store whole) and kept.
"""

from __future__ import annotations

import orjson
import sqlalchemy as sa

from headwater.graph import asof
from headwater.graph.adjacency import Adjacency, Snapshot
from headwater.graph.common import latest_runs, node_rows, run_summary
from headwater.graph.fragments import VersionShapes, exact
from headwater.model.jsontext import loads_text
from headwater.model.nodeid import DATASET, JOB
from headwater.model.times import iso
from headwater.store.schema import dataset_versions, datasets, job_versions, jobs

FLAG = (b"false", b"true")
_UPDATED = b',"updatedAt":'
_JOB_TYPE = b',"jobType":'


class Unencodable(Exception):
    """A value orjson refuses (an integer beyond 64 bits): the dict path answers instead."""


def dumps(value: object) -> bytes:
    try:
        return orjson.dumps(value)
    except orjson.JSONEncodeError as exc:
        raise Unencodable(str(exc)) from None


def _open(shape: bytes) -> bytes:
    """A node's JSON object without its closing brace (the answer adds level and flags)."""
    return shape[:-1]


def _dataset_head(
    node_id: str, namespace: str, name: str, kind: str | None, text: str, decoded: dict[str, object]
) -> bytes:
    """The version-bound part of a dataset's past shape (graph/common.py ``dataset_nodes``'s keys up to
    ``latestRun``) as the open JSON object an answer continues with ``updatedAt`` and ``deleted``; ``text``, the
    version's fields, decoded once per answer in ``decoded``."""
    fields = decoded.get(text, decoded)
    if fields is decoded:
        fields = decoded[text] = loads_text(text)
    shape = {
        "id": node_id,
        "type": "DATASET",
        "namespace": namespace,
        "name": name,
        "kind": kind,
        "fields": fields,
        "jobType": None,
        "latestRun": None,
    }
    return _open(dumps(shape)) + _UPDATED


class _Moments:
    """ISO texts of moments as JSON bytes (:func:`headwater.model.times.iso`'s text), the date part once per
    day per answer: an answer formats one or two moments per node."""

    def __init__(self) -> None:
        self._texts: dict[int, bytes] = {}
        self._days: dict[int, str] = {}

    def __call__(self, micros: int) -> bytes:
        found = self._texts.get(micros)
        if found is not None:
            return found
        if micros < 0:
            text = iso(micros)
        else:
            days, rest = divmod(micros, 86_400_000_000)
            day = self._days.get(days)
            if day is None:
                day = self._days[days] = iso(days * 86_400_000_000)[:11]  # "YYYY-MM-DDT"
            seconds, fraction = divmod(rest, 1_000_000)
            minutes, second = divmod(seconds, 60)
            hour, minute = divmod(minutes, 60)
            if not fraction:
                text = f"{day}{hour:02d}:{minute:02d}:{second:02d}Z"
            elif fraction % 1000:
                text = f"{day}{hour:02d}:{minute:02d}:{second:02d}.{fraction:06d}Z"
            else:
                text = f"{day}{hour:02d}:{minute:02d}:{second:02d}.{fraction // 1000:03d}Z"
        found = self._texts[micros] = b'"%b"' % text.encode()  # ISO texts need no JSON escapes
        return found


def past_shapes(
    conn: sa.Connection, numbers: dict[str, int], t: int, adjacency: Adjacency, snap: Snapshot
) -> dict[str, bytes]:
    """Each node's shape at ``t``, open (see the module docstring); ``numbers``: node id -> its number in ``snap``."""
    kept = adjacency.past_nodes
    when = _Moments()
    out: dict[str, bytes] = {}
    whole: list[str] = []  # read from the store (no record)
    ds_heads: dict[str, tuple[asof.DatasetAt, bytes]] = {}  # head to find: (what the record says, the tail)
    job_heads: dict[str, tuple[asof.JobAt, bytes | None]] = {}  # likewise; the tail's run: None = from the store
    runs_from_store: set[str] = set()
    open_now: dict[str, bytes] = {}  # the records of datasets whose open version is the one at t
    made: dict[int, bytes] = {}  # what this answer made to keep (put at once: one lock, one eviction pass)
    records, held = snap.versions, len(snap.versions)
    only_open, whole_job_key, get = asof.only_open, asof.whole_job_key, kept.get
    for node_id, n in numbers.items():
        record = records[n] if n < held else None
        if record is None:
            whole.append(node_id)
        elif node_id.startswith(DATASET):
            if only_open(record):  # most datasets: one version, the open one (valid at t, or the earliest)
                open_now[node_id] = record
                continue
            d = asof.dataset_at(record, t)
            if d.open:
                open_now[node_id] = record
                continue
            _dataset(node_id, d, t, kept, when, out, ds_heads, made)
        else:
            key = whole_job_key(record, t)  # most jobs: their whole shape kept, found without job_at
            if key:
                shape = get(key)
                if shape is not None:
                    out[node_id] = shape
                    continue
            j = asof.job_at(record, t)
            if j.whole_key:
                shape = kept.get(j.whole_key)
                if shape is not None:
                    out[node_id] = shape
                    continue
            run: bytes | None
            if j.run == asof.NO_RUN:
                run = b"null"
            elif j.run == asof.FROM_STORE:
                run = None
                runs_from_store.add(node_id)
            else:
                run = kept.get(j.run_key)
                if run is None:
                    run = exact(dumps(run_summary(asof.run_of(record, j.run), t)))  # type: ignore[arg-type]
                    made[j.run_key] = run
            head = kept.get(j.key)
            if head is None or run is None:
                job_heads[node_id] = (j, run)
            else:
                out[node_id] = shape = _job_shape(head, run, j, t, when)
                if j.whole_key:
                    made[j.whole_key] = shape
    if open_now:
        # the open version is the one the shape of now shows (read at the same watermark): from the node's
        # updated_at on, the shape at t is the shape of now; before it, the same with updatedAt cut
        now, missing = adjacency.now_nodes.get_many_bytes(open_now, snap.seq, open_=True)
        for node_id, shape in now.items():
            record = open_now[node_id]
            if asof.updated_at(record) <= t:
                out[node_id] = shape
                continue
            d = asof.dataset_at(record, t)
            cut = shape.find(_UPDATED)  # a key: never inside a JSON string (its quotes are escaped)
            if cut < 0:
                missing.append(node_id)
                continue
            out[node_id] = b'%b%b,"deleted":%b' % (
                shape[: cut + len(_UPDATED)],
                when(max(d.valid_from, t)),
                FLAG[d.deleted],
            )
        for node_id in missing:
            _dataset(node_id, asof.dataset_at(open_now[node_id], t), t, kept, when, out, ds_heads, made)
    kept.put(made)
    if ds_heads:
        whole += _dataset_heads(conn, ds_heads, t, adjacency, out)
    if job_heads:
        whole += _job_heads(conn, job_heads, runs_from_store, t, kept, when, out)
    if whole:
        out.update(_store_datasets(conn, sorted(i for i in whole if i.startswith(DATASET)), t, adjacency))
        out.update(_store_jobs(conn, sorted(i for i in whole if i.startswith(JOB)), t, adjacency))
    return out


def _dataset(
    node_id: str,
    d: asof.DatasetAt,
    t: int,
    kept: VersionShapes,
    when: _Moments,
    out: dict[str, bytes],
    heads: dict[str, tuple[asof.DatasetAt, bytes]],
    made: dict[int, bytes],
) -> None:
    """A dataset's shape at ``t`` from its kept version-bound part (into ``out``), or into ``heads`` to read."""
    u = d.updated_at
    if u <= t:  # the whole shape is the same at every such t: kept whole
        shape = kept.get(d.key | asof.WHOLE)
        if shape is not None:
            out[node_id] = shape
            return
    tail = b'%b,"deleted":%b' % (when(u if u <= t else max(d.valid_from, t)), FLAG[d.deleted])
    head = kept.get(d.key)
    if head is None:
        heads[node_id] = (d, tail)
        return
    out[node_id] = shape = head + tail
    if u <= t:
        made[d.key | asof.WHOLE] = shape


def _job_shape(head: bytes, run: bytes, j: asof.JobAt, t: int, when: _Moments) -> bytes:
    return asof.job_shape(head, run, when(max(j.valid_from, min(t, j.updated_at))))


def _dataset_heads(
    conn: sa.Connection,
    wanted: dict[str, tuple[asof.DatasetAt, bytes]],
    t: int,
    adjacency: Adjacency,
    out: dict[str, bytes],
) -> list[str]:
    """The heads of ``wanted`` read and kept (their shapes go to ``out``); answers the nodes to read from the
    store whole."""
    rest = list(wanted)
    dv, d = dataset_versions, datasets
    columns = (dv.c.valid_from, dv.c.kind, d.c.namespace, d.c.name, dv.c.fields)
    made: dict[int, bytes] = {}
    decoded: dict[str, object] = {}
    whole: list[str] = []
    rows = node_rows(conn, d, dv, dv.c.dataset, columns, sorted(rest), t, True)
    for node_id in rest:
        row = rows.get(node_id)
        at, tail = wanted[node_id]
        if row is None or row.valid_from != at.valid_from:  # not the version the record names: read it whole
            whole.append(node_id)
            continue
        head = made[at.key] = _dataset_head(node_id, row.namespace, row.name, row.kind, row.fields, decoded)
        out[node_id] = head + tail
    adjacency.past_nodes.put(made)
    return whole


def _job_heads(
    conn: sa.Connection,
    wanted: dict[str, tuple[asof.JobAt, bytes | None]],
    runs_from_store: set[str],
    t: int,
    kept: VersionShapes,
    when: _Moments,
    out: dict[str, bytes],
) -> list[str]:
    """As :func:`_dataset_heads` for jobs (a job's head is read from the store when not kept), with the latest
    runs the records do not hold read from the store."""
    latest = latest_runs(conn, sorted(runs_from_store), t) if runs_from_store else {}
    heads: dict[str, bytes] = {}
    missing = []
    for node_id, (j, _) in wanted.items():
        head = kept.get(j.key)
        if head is None:
            missing.append(node_id)
        else:
            heads[node_id] = head
    whole: list[str] = []
    if missing:
        jv = job_versions
        columns = (jv.c.valid_from, jobs.c.namespace, jobs.c.name, jv.c.facets)
        rows = node_rows(conn, jobs, jv, jv.c.job, columns, sorted(missing), t, True)
        made: dict[int, bytes] = {}
        for node_id in missing:
            row = rows.get(node_id)
            j, _ = wanted[node_id]
            if row is None or row.valid_from != j.valid_from:
                whole.append(node_id)
                continue
            try:
                heads[node_id] = made[j.key] = asof.job_head(node_id, row.namespace, row.name, row.facets)
            except orjson.JSONEncodeError as exc:
                raise Unencodable(str(exc)) from None
        kept.put(made)
    for node_id, head in heads.items():
        j, run = wanted[node_id]
        if run is None:
            found = latest.get(node_id)
            run = b"null" if found is None else dumps(run_summary(found, t))
        out[node_id] = _job_shape(head, run, j, t, when)
    return whole


# --- nodes read from the store whole (no record in memory) -----------------------------------------------


def _store_datasets(conn: sa.Connection, wanted: list[str], t: int, adjacency: Adjacency) -> dict[str, bytes]:
    dv, d = dataset_versions, datasets
    # one query: reading the version's names and fields too costs little more than its id (measured), and a
    # version not kept yet needs no second query
    columns = (dv.c.id, d.c.updated_at, dv.c.valid_from, dv.c.kind, dv.c.deleted, d.c.namespace, d.c.name, dv.c.fields)
    kept = adjacency.past_nodes
    made: dict[str, bytes] = {}
    decoded: dict[str, object] = {}
    out: dict[str, bytes] = {}
    when = _Moments()
    for ds_id, row in node_rows(conn, d, dv, dv.c.dataset, columns, wanted, t, True).items():
        _, version, updated_at, valid_from, kind, deleted, namespace, name, text = row
        key = f"{version}:{kind}"  # the kind is shown too (derived from the facets)
        head = kept.get(key)
        if head is None:
            head = made[key] = _dataset_head(ds_id, namespace, name, kind, text, decoded)
        updated = updated_at if updated_at <= t else max(valid_from, min(t, updated_at))
        out[ds_id] = b'%b%b,"deleted":%b' % (head, when(updated), FLAG[bool(deleted)])
    kept.put(made)
    return out


def _store_jobs(conn: sa.Connection, wanted: list[str], t: int, adjacency: Adjacency) -> dict[str, bytes]:
    jv = job_versions
    columns = (jv.c.id, jobs.c.updated_at, jv.c.valid_from, jobs.c.namespace, jobs.c.name, jv.c.facets)
    latest = latest_runs(conn, wanted, t)
    kept = adjacency.past_nodes
    made: dict[str, bytes] = {}
    out: dict[str, bytes] = {}
    when = _Moments()
    for job_id, row in node_rows(conn, jobs, jv, jv.c.job, columns, wanted, t, True).items():
        _, version, updated_at, valid_from, namespace, name, facets = row
        head = kept.get(version)
        if head is None:
            try:
                head = made[version] = asof.job_head(job_id, namespace, name, facets)
            except orjson.JSONEncodeError as exc:
                raise Unencodable(str(exc)) from None
        run = latest.get(job_id)
        out[job_id] = asof.job_shape(
            head,
            b"null" if run is None else dumps(run_summary(run, t)),
            when(max(valid_from, min(t, updated_at))),
        )
    kept.put(made)
    return out
