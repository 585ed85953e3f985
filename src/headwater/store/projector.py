"""The projector: keeps the derived graph tables equal to the pure derivation of the event log.

After new events are inserted (with their observations), every run, job and dataset they touch
is brought up to date. The answer is always the one of the pure derivation over *all* the node's
observations sorted by event time (so arrival order does not matter); two ways get there:

- **fast path** (the usual case: the new observations are newer than everything known about
  the node): continue the fold from the stored open version — no old observations are read;
- **full path** (out-of-order arrival, or a new node): re-derive the node from all of its
  observations (the index table ``observations`` finds them) and replace its derived rows.

A run's job is brought up to date after the run.

Why one module of ~640 lines: it holds the fast and the full path of runs, jobs and datasets side by
side, and each fast path must give what its full path gives; the watermark, the failed events and
the rebuild are modules of their own (``watermark.py``, ``projection_failures.py``, ``rebuild.py``).
"""

from __future__ import annotations

import operator
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypeAlias

import sqlalchemy as sa

from headwater.model.jsontext import dumps, loads_text
from headwater.model.nodeid import run_id_of
from headwater.spec import live_facets
from headwater.store import fields as field_ids
from headwater.store.canonical import JsonMemo
from headwater.store.derive_datasets import DatasetObservation, derive_dataset_versions, derive_field_spans
from headwater.store.derive_jobs import (
    JobSample,
    derive_column_edges,
    derive_edges,
    derive_job_versions,
    resolve,
    version_content,
)
from headwater.store.derive_runs import RunObservation, derive_run, job_content
from headwater.store.eventlog import NewEvent, insert_observations
from headwater.store.observe import Observation, ObserveMemo, observe
from headwater.store.parts import insert_many, insert_runs, read_column, read_observations
from headwater.store.schema import (
    column_edges,
    dataset_fields,
    dataset_versions,
    datasets,
    edges,
    job_versions,
    jobs,
    observations,
    runs,
)
from headwater.store.watermark import LogEvent

CHUNK = 500
DATASET_ROLES = ("input", "output", "dataset")
JOB_ROLES = ("job", "jobevent")
# A pruned run's job sample (its inputs, outputs, job facets, column lineage), kept on the job node by
# ``headwater db prune`` (store/retention.py): the job's versions are derived from its runs' samples, and the run is gone.
JOB_RUN_ROLE = "jobrun"
Position = tuple[int, str]  # a job sample's place in time: (time, run id or "event:<event id>")

# What the derivation reads and writes: rows of the graph tables, as SQLAlchemy hands them over (each
# column's value of its own type) or as dicts of column -> value to insert or update, and the parser
# of their stored JSON text (cached per projector: :class:`JsonMemo`).
StoredRow: TypeAlias = sa.Row[*tuple[Any, ...]]
RowValues: TypeAlias = dict[str, Any]
RowMapping: TypeAlias = Mapping[str, Any]
Loads: TypeAlias = Callable[[str | None], Any]


class ObservationRow(NamedTuple):
    """A stored observation with its data read back (:func:`headwater.store.parts.read_observations`)."""

    node: str
    role: str
    time: int
    event_id: str
    data: Any


_JOB_VERSION_JSON = ("inputs", "outputs", "facets", "column_lineage", "changes")
_DATASET_VERSION_JSON = ("fields", "facets", "changes")


@dataclass
class Batch:
    """What changed in one append: new observations per node, and per job the changed samples."""

    new_obs: dict[str, list[Observation]] = field(default_factory=lambda: defaultdict(list))
    changed: dict[str, list[Position]] = field(default_factory=lambda: defaultdict(list))  # job -> positions
    full_jobs: set[str] = field(default_factory=set)  # jobs that must be re-derived from scratch
    fresh_runs: dict[str, RowValues] = field(default_factory=dict)  # runs derived in this batch
    incremental: bool = True
    json: JsonMemo = field(default_factory=JsonMemo)  # parses of stored JSON (shared across steps)


@dataclass
class ProjectionMemo:
    """What a projector remembers between steps to save work (never changes a result):
    normalized schemas and column lineage (:class:`ObserveMemo`) and parsed stored JSON (:class:`JsonMemo`)."""

    observe: ObserveMemo = field(default_factory=ObserveMemo)
    json: JsonMemo = field(default_factory=JsonMemo)


def _ids(name: str = "ids") -> sa.BindParameter[list[str]]:
    return sa.bindparam(name, expanding=True)


# Statements every step runs, built once: building an expression and its cache key costs more
# than running it on a small step. Same SQL as building them inline ("IN" lists are expanding
# parameters either way).
_OBSERVATIONS_OF = sa.select(
    observations.c.node, observations.c.role, observations.c.time, observations.c.event_id, observations.c.data
).where(observations.c.node.in_(_ids()), observations.c.role.in_(_ids("roles")))
_RUN_HEADS = sa.select(runs.c.run_id, runs.c.job, runs.c.started_at).where(runs.c.run_id.in_(_ids()))
_RUN_DELETE = runs.delete().where(runs.c.run_id.in_(_ids()))
_JOBS_OF = sa.select(jobs).where(jobs.c.id.in_(_ids()))
_JOB_TAIL_VERSIONS = sa.select(job_versions).where(
    job_versions.c.job.in_(_ids()),
    sa.or_(job_versions.c.valid_to.is_(None), job_versions.c.valid_to >= sa.bindparam("since")),
)
_JOB_TAIL_RUNS = sa.select(runs.c.job, runs.c.run_id, runs.c.started_at, runs.c.parent_job).where(
    runs.c.job.in_(_ids()), runs.c.started_at >= sa.bindparam("since")
)
_JOB_TAIL_EVENTS = sa.select(
    observations.c.node, observations.c.role, observations.c.time, observations.c.event_id, observations.c.data
).where(
    observations.c.node.in_(_ids()),
    observations.c.role.in_(("jobevent", JOB_RUN_ROLE)),
    observations.c.time >= sa.bindparam("since"),
)
_DATASETS_OF = sa.select(datasets).where(datasets.c.id.in_(_ids()))
_OPEN_DATASET_VERSIONS = sa.select(dataset_versions).where(
    dataset_versions.c.dataset.in_(_ids()), dataset_versions.c.valid_to.is_(None)
)


def _chunks(items: Iterable[str], size: int = CHUNK) -> Iterator[list[str]]:
    ordered = sorted(set(items))
    for start in range(0, len(ordered), size):
        yield ordered[start : start + size]


def _read(conn: sa.Connection, rows: Sequence[StoredRow]) -> list[ObservationRow]:
    """Stored observation rows with their data read back (in one look-up of the parts they name)."""
    datas = read_observations(conn, [r.data for r in rows])
    return [ObservationRow(r.node, r.role, r.time, r.event_id, d) for r, d in zip(rows, datas, strict=True)]


def _load_observations(
    conn: sa.Connection, nodes: Sequence[str], roles: Sequence[str]
) -> dict[str, list[ObservationRow]]:
    found: dict[str, list[ObservationRow]] = defaultdict(list)
    for chunk in _chunks(nodes):
        for row in _read(conn, conn.execute(_OBSERVATIONS_OF, {"ids": chunk, "roles": list(roles)}).all()):
            found[row.node].append(row)
    return found


BULK_ROWS = 256  # from this many rows an insert goes straight to the driver as plain tuples (parts.insert_many)


def insert_rows(conn: sa.Connection, table: sa.Table, rows: Sequence[RowMapping]) -> None:
    """Insert ``rows`` (dicts with the same keys, plain values) into ``table``.

    Many rows (a very wide job's column edges: 100,000 and more) go straight to the driver as tuples
    (:func:`headwater.store.parts.insert_many`: executemany, or PostgreSQL's COPY): SQLAlchemy's per-row
    parameter processing costs more than SQLite's insert there, and the derived tables' columns are plain text
    and integers with nothing to convert."""
    if not rows:
        return
    names = list(rows[0])
    width = len(names)
    if len(rows) < BULK_ROWS or any(len(r) != width for r in rows):
        conn.execute(table.insert(), list(rows))
        return
    values = operator.itemgetter(*names)
    insert_many(conn, table, names, [values(r) for r in rows] if width > 1 else [(values(r),) for r in rows])


def _column_rows(rows: Iterable[RowValues]) -> list[RowValues]:
    """Derived column edges with their transformations as JSON text (each distinct list written once: the
    derivation hands the same list object to every edge that has it)."""
    texts: dict[int, tuple[object, str]] = {}  # by identity; the list kept alive so that no other takes its id
    out = []
    for row in rows:
        value = row["transformations"]
        known = texts.get(id(value))
        if known is None:
            known = texts[id(value)] = (value, dumps(value))
        row["transformations"] = known[1]
        out.append(row)
    return out


def _json_row(row: RowMapping, json_columns: Sequence[str]) -> RowValues:
    return {k: (dumps(v) if k in json_columns else v) for k, v in row.items()}


def _parsed(row: StoredRow, json_columns: Sequence[str], loads: Loads) -> RowValues:
    return {k: (loads(v) if k in json_columns else v) for k, v in row._mapping.items()}


def project_new_events(conn: sa.Connection, new: Sequence[NewEvent], json: JsonMemo | None = None) -> None:
    """Bring every node the new events touched up to date."""
    batch = Batch() if json is None else Batch(json=json)
    run_nodes: set[str] = set()
    job_nodes: set[str] = set()
    for n in new:
        for o in n.observations:
            batch.new_obs[o.node].append(o)
            if o.role == "run":
                run_nodes.add(o.node)
            elif o.role in JOB_ROLES:
                job_nodes.add(o.node)
                if o.role == "jobevent":
                    batch.changed[o.node].append((o.time, f"event:{o.event_id}"))
    dataset_nodes = {node for node, obs in batch.new_obs.items() if obs[0].role in DATASET_ROLES}
    refresh(conn, run_nodes, job_nodes, dataset_nodes, batch)


def refresh(
    conn: sa.Connection, run_nodes: set[str], job_nodes: set[str], dataset_nodes: set[str], batch: Batch
) -> None:
    job_nodes = job_nodes | _refresh_runs(conn, run_nodes, batch)
    _refresh_jobs(conn, job_nodes, batch)
    _refresh_datasets(conn, dataset_nodes, batch)


# --- runs -------------------------------------------------------------------------------------


def _refresh_runs(conn: sa.Connection, run_nodes: set[str], batch: Batch) -> set[str]:
    """Re-derive runs (few events each); returns their jobs and records the changed job samples."""
    touched_jobs: set[str] = set()
    previous: RowValues = {}  # run id -> its stored (job, started_at), before this batch
    for chunk in _chunks(run_id_of(n) for n in run_nodes):
        for old in conn.execute(_RUN_HEADS, {"ids": chunk}):
            previous[old.run_id] = old
    known = set(previous)
    old_runs = [n for n in run_nodes if run_id_of(n) in known]
    found: dict[str, list[RunObservation]] = {}
    if batch.incremental:  # a new run's observations are all in this batch: no need to read them back
        for node in run_nodes:
            if run_id_of(node) not in known:
                found[node] = [
                    RunObservation(o.time, o.event_id, o.data) for o in batch.new_obs[node] if o.role == "run"
                ]
    else:
        old_runs = sorted(run_nodes)
    for node, obs_rows in _load_observations(conn, old_runs, ("run",)).items():
        found[node] = [RunObservation(r.time, r.event_id, r.data) for r in obs_rows]
    rows: list[RowValues] = []
    for node, run_obs in sorted(found.items()):
        run = derive_run(run_id_of(node), run_obs)
        if batch.incremental:
            batch.fresh_runs[run["run_id"]] = run
        touched_jobs.add(run["job"])
        batch.changed[run["job"]].append((run["started_at"], run["run_id"]))
        rows.append(run)
    new_job = {r["run_id"]: r["job"] for r in rows}
    for old in previous.values():
        touched_jobs.add(old.job)
        batch.changed[old.job].append((old.started_at, old.run_id))
        if old.job != new_job[old.run_id]:  # a run moved to another job: rare, re-derive both
            batch.full_jobs.update((old.job, new_job[old.run_id]))
    for chunk in _chunks(known):
        conn.execute(_RUN_DELETE, {"ids": chunk})
    insert_runs(conn, rows)
    return touched_jobs


# --- jobs -------------------------------------------------------------------------------------


def _run_sample(conn: sa.Connection, r: StoredRow, loads: Loads) -> JobSample:
    facets = read_column(conn, r.job_facets, loads)
    content = job_content(loads(r.inputs), loads(r.outputs), facets, read_column(conn, r.column_lineage, loads))
    return JobSample(r.started_at, r.run_id, r.run_id, content, facets)


def _fresh_sample(run: RowMapping) -> JobSample:
    content = job_content(run["inputs"], run["outputs"], run["job_facets"], run["column_lineage"])
    return JobSample(run["started_at"], run["run_id"], run["run_id"], content, run["job_facets"])


def _event_sample(o: ObservationRow) -> tuple[JobSample, tuple[str, str]]:
    """A JobEvent's sample: what it sends (made whole from the job before it by ``derive_jobs.resolve``)."""
    d = o.data
    facets = d["jobFacets"]  # deletion markers kept: they remove the job's facets of their names
    content = job_content(d["inputs"], d["outputs"], live_facets("job", facets), d["columnLineage"])
    stated = frozenset(d.get("stated", ("inputs", "outputs")))
    return JobSample(o.time, f"event:{o.event_id}", None, content, facets, stated), (d["jobNamespace"], d["jobName"])


def _job_names(conn: sa.Connection, chunk: list[str], batch: Batch, existing: RowMapping) -> dict[str, tuple[str, str]]:
    names = {j: (existing[j].namespace, existing[j].name) for j in chunk if j in existing}
    for job in chunk:
        for o in batch.new_obs.get(job, ()):
            names.setdefault(job, (o.data["jobNamespace"], o.data["jobName"]))
    missing = [j for j in chunk if j not in names]
    for node, obs_rows in _load_observations(conn, missing, JOB_ROLES).items():
        d = obs_rows[0].data
        names[node] = (d["jobNamespace"], d["jobName"])
    return names


def _time_span(conn: sa.Connection, chunk: list[str], roles: Sequence[str]) -> dict[str, tuple[int, int]]:
    query = (
        sa.select(
            observations.c.node,
            sa.func.min(observations.c.time).label("first"),
            sa.func.max(observations.c.time).label("last"),
        )
        .where(observations.c.node.in_(chunk), observations.c.role.in_(roles))
        .group_by(observations.c.node)
    )
    return {row.node: (row.first, row.last) for row in conn.execute(query)}


def _refresh_jobs(conn: sa.Connection, job_nodes: set[str], batch: Batch) -> None:
    for chunk in _chunks(job_nodes):
        existing = {r.id: r for r in conn.execute(_JOBS_OF, {"ids": chunk})}
        fast = [
            j
            for j in chunk
            if batch.incremental and j in existing and j not in batch.full_jobs and batch.changed.get(j)
        ]
        done = _jobs_fast(conn, fast, batch, existing) if fast else set()
        rest = [j for j in chunk if j not in done]
        # a new job's runs and job events are all in this step (its row is written with them): not read back
        fresh = [j for j in rest if batch.incremental and j not in existing]
        if fresh:
            _jobs_new(conn, fresh, batch)
        rest = [j for j in rest if not (batch.incremental and j not in existing)]
        if rest:
            _jobs_full(conn, rest, _job_names(conn, rest, batch, existing), batch.json.loads, batch.fresh_runs)


def _jobs_new(conn: sa.Connection, chunk: list[str], batch: Batch) -> None:
    """Derive jobs the store holds nothing of yet from this step's runs and job events (what :func:`_jobs_full`
    would read back from the rows and observations this step wrote)."""
    samples: dict[str, list[JobSample]] = defaultdict(list)
    last_run: dict[str, tuple[Position, str | None]] = {}
    wanted = set(chunk)
    for run in batch.fresh_runs.values():
        job = run["job"]
        if job in wanted:
            samples[job].append(_fresh_sample(run))
            place = (run["started_at"], run["run_id"])
            if job not in last_run or last_run[job][0] < place:
                last_run[job] = (place, run["parent_job"])
    names: dict[str, tuple[str, str]] = {}
    spans: dict[str, tuple[int, int]] = {}
    for job in chunk:
        own = [o for o in batch.new_obs.get(job, ()) if o.role in JOB_ROLES]
        if not own:
            continue
        names[job] = (own[0].data["jobNamespace"], own[0].data["jobName"])
        spans[job] = (min(o.time for o in own), max(o.time for o in own))
        for o in own:
            if o.role == "jobevent":
                samples[job].append(_event_sample(ObservationRow(o.node, o.role, o.time, o.event_id, o.data))[0])
    _write_jobs(conn, chunk, samples, last_run, spans, names)


def _jobs_full(
    conn: sa.Connection,
    chunk: list[str],
    names: Mapping[str, tuple[str, str]],
    loads: Loads,
    fresh_runs: Mapping[str, RowMapping] | None = None,
) -> None:
    """Re-derive jobs from all their runs and job events. A run derived in this step (``fresh_runs``)
    is taken as derived rather than parsed back from the row just written (a wide job's column
    lineage is megabytes of JSON)."""
    if not chunk:
        return
    fresh_runs = fresh_runs or {}
    samples: dict[str, list[JobSample]] = defaultdict(list)
    last_run: dict[str, tuple[Position, str | None]] = {}  # job -> its latest run's place and parent job
    run_ids: dict[str, set[str]] = defaultdict(set)
    for r in conn.execute(sa.select(runs).where(runs.c.job.in_(chunk)).order_by(runs.c.started_at, runs.c.run_id)):
        fresh = fresh_runs.get(r.run_id)
        samples[r.job].append(_fresh_sample(fresh) if fresh is not None else _run_sample(conn, r, loads))
        last_run[r.job] = ((r.started_at, r.run_id), r.parent_job)
        run_ids[r.job].add(r.run_id)
    for node, obs_rows in _load_observations(conn, chunk, ("jobevent", JOB_RUN_ROLE)).items():
        for o in obs_rows:
            if o.role != JOB_RUN_ROLE:
                samples[node].append(_event_sample(o)[0])
                continue
            d = o.data
            if d["runId"] in run_ids[node]:
                continue  # the run is in the log again (a late event of a pruned run): its row stands for it
            content = job_content(d["inputs"], d["outputs"], d["jobFacets"], d["columnLineage"])
            samples[node].append(JobSample(o.time, d["runId"], d["runId"], content, d["jobFacets"]))
            if node not in last_run or last_run[node][0] < (o.time, d["runId"]):
                last_run[node] = ((o.time, d["runId"]), d["parentJob"])
    spans = _time_span(conn, chunk, JOB_ROLES)
    for table in (jobs, job_versions, edges, column_edges):
        key = table.c.id if table is jobs else table.c.job
        conn.execute(table.delete().where(key.in_(chunk)))
    _write_jobs(conn, chunk, samples, last_run, spans, names)


def _write_jobs(
    conn: sa.Connection,
    chunk: list[str],
    samples: Mapping[str, list[JobSample]],
    last_run: Mapping[str, tuple[Position, str | None]],
    spans: Mapping[str, tuple[int, int]],
    names: Mapping[str, tuple[str, str]],
) -> None:
    """Insert the rows of jobs derived from all their samples (a job without observations has none)."""
    job_rows: list[RowValues] = []
    version_rows: list[RowValues] = []
    edge_rows: list[RowValues] = []
    column_rows: list[RowValues] = []
    for job in chunk:
        if job not in spans:
            continue
        ordered = resolve(samples.get(job, []))
        versions = derive_job_versions(job, ordered)
        latest = last_run.get(job)
        job_rows.append(
            {
                "id": job,
                "namespace": names[job][0],
                "name": names[job][1],
                "created_at": spans[job][0],
                "updated_at": spans[job][1],
                "facets": dumps(ordered[-1].facets if ordered else {}),
                "parent_job": latest[1] if latest is not None else None,
            }
        )
        version_rows.extend(_json_row(v, _JOB_VERSION_JSON) for v in versions)
        edge_rows.extend(derive_edges(job, versions))
        column_rows.extend(_column_rows(derive_column_edges(job, versions)))
    for table, rows in (
        (jobs, job_rows),
        (job_versions, version_rows),
        (edges, edge_rows),
        (column_edges, field_ids.edge_rows(conn, column_rows)),  # their ends as field ids
    ):
        insert_rows(conn, table, rows)


def _restore_starts(
    derived: list[RowValues], old: Sequence[RowMapping], since: int, key: Sequence[str]
) -> list[RowValues]:
    """Spans re-derived from version ``since`` on keep the start of the old span they continue."""
    starts = {
        tuple(o[k] for k in key): o["valid_from"]
        for o in old
        if o["valid_from"] <= since and (o["valid_to"] is None or o["valid_to"] > since)
    }
    for span in derived:
        if span["valid_from"] == since:
            span["valid_from"] = starts.get(tuple(span[k] for k in key), since)
    return derived


_JOB_UPDATE = (
    jobs.update()
    .where(jobs.c.id == sa.bindparam("b_id"))
    .values(
        created_at=sa.bindparam("b_created_at"),
        updated_at=sa.bindparam("b_updated_at"),
        facets=sa.bindparam("b_facets"),
        parent_job=sa.bindparam("b_parent_job"),
    )
)
_DATASET_UPDATE = (
    datasets.update()
    .where(datasets.c.id == sa.bindparam("b_id"))
    .values(updated_at=sa.bindparam("b_updated_at"), kind=sa.bindparam("b_kind"), deleted=sa.bindparam("b_deleted"))
)
_EDGE_KEY = ("dataset", "direction")
_COLUMN_KEY = ("src_field_id", "dst_field_id", "transformations_id")


def _jobs_fast(conn: sa.Connection, chunk: list[str], batch: Batch, existing: RowMapping) -> set[str]:
    """Continue each job from its last version before the earliest changed sample; returns the jobs done."""
    first = {j: min(batch.changed[j]) for j in chunk}
    since = min(p[0] for p in first.values())
    tail_versions: dict[str, list[StoredRow]] = defaultdict(list)
    for v in conn.execute(_JOB_TAIL_VERSIONS, {"ids": chunk, "since": since}):
        tail_versions[v.job].append(v)
    tail_runs: dict[str, list[StoredRow]] = defaultdict(list)
    for r in conn.execute(_JOB_TAIL_RUNS, {"ids": chunk, "since": since}):
        tail_runs[r.job].append(r)
    tail_events: dict[str, list[ObservationRow]] = defaultdict(list)
    for o in _read(conn, conn.execute(_JOB_TAIL_EVENTS, {"ids": chunk, "since": since}).all()):
        tail_events[o.node].append(o)
    done: set[str] = set()
    job_updates: list[RowValues] = []
    tails: list[tuple[str, list[RowValues], int]] = []  # jobs whose versions change: (job, versions, from)
    for job in chunk:
        m_time = first[job][0]
        changed = set(batch.changed[job])
        later = [r for r in tail_runs[job] if r.started_at >= m_time]
        if any(r.run_id not in batch.fresh_runs for r in later):
            continue  # an older run sits after the change: out of order, full path
        tail = [o for o in tail_events[job] if o.time >= m_time]
        if any(o.role == JOB_RUN_ROLE for o in tail):
            continue  # a pruned run's sample sits after the change: full path
        samples = [_fresh_sample(batch.fresh_runs[r.run_id]) for r in later]
        samples += [_event_sample(o)[0] for o in tail]
        if any((s.time, s.key) not in changed for s in samples):
            continue  # an older sample sits after the change: out of order, full path
        before = [v for v in tail_versions[job] if v.valid_from < m_time]
        if not before:
            continue
        stored = max(before, key=lambda v: v.valid_from)
        start = _parsed(stored, _JOB_VERSION_JSON, batch.json.loads)
        row = existing[job]
        # the job's facets and content before the change: what its JobEvents' samples are laid over
        samples = resolve(samples, batch.json.loads(row.facets), version_content(start))
        versions = derive_job_versions(job, samples, start=start)
        s_from = start["valid_from"]
        if len(versions) == 1 and stored.valid_to is None:
            pass  # the usual case: one more run doing the same thing; versions and edges stay
        else:
            tails.append((job, versions, s_from))
        new_times = [o.time for o in batch.new_obs.get(job, ()) if o.role in JOB_ROLES]
        last = max(samples, key=lambda s: (s.time, s.key), default=None)
        last_run = max(tail_runs[job], key=lambda r: (r.started_at, r.run_id), default=None)
        job_updates.append(
            {
                "b_id": job,
                "b_created_at": min([row.created_at, *new_times]),
                "b_updated_at": max([row.updated_at, *new_times]),
                "b_facets": dumps(last.facets) if last is not None else row.facets,
                "b_parent_job": last_run.parent_job if last_run is not None else row.parent_job,
            }
        )
        done.add(job)
    _rewrite_job_tails(conn, tails)
    if job_updates:
        conn.execute(_JOB_UPDATE, job_updates)
    return done


_TAIL_EDGES = sa.select(edges).where(
    edges.c.job.in_(_ids()), sa.or_(edges.c.valid_to.is_(None), edges.c.valid_to > sa.bindparam("since"))
)
_TAIL_COLUMNS = sa.select(column_edges).where(
    column_edges.c.job.in_(_ids()),
    sa.or_(column_edges.c.valid_to.is_(None), column_edges.c.valid_to > sa.bindparam("since")),
)
# executed with one parameter set per job (the driver's executemany)
_TAIL_VERSIONS_DELETE = job_versions.delete().where(
    job_versions.c.job == sa.bindparam("b_job"), job_versions.c.valid_from >= sa.bindparam("b_from")
)
_TAIL_EDGES_DELETE = edges.delete().where(
    edges.c.job == sa.bindparam("b_job"), sa.or_(edges.c.valid_to.is_(None), edges.c.valid_to > sa.bindparam("b_from"))
)
_TAIL_COLUMNS_DELETE = column_edges.delete().where(
    column_edges.c.job == sa.bindparam("b_job"),
    sa.or_(column_edges.c.valid_to.is_(None), column_edges.c.valid_to > sa.bindparam("b_from")),
)


def _rewrite_job_tails(conn: sa.Connection, tails: Sequence[tuple[str, list[RowValues], int]]) -> None:
    """For each ``(job, versions, s_from)``: replace the job's versions from ``s_from`` on, and the edge spans that
    reach past it — all the jobs of a step together (a statement per table, not per job)."""
    if not tails:
        return
    s_from = {job: since for job, _, since in tails}
    old_edges: dict[str, list[RowValues]] = defaultdict(list)
    old_columns: dict[str, list[RowValues]] = defaultdict(list)
    for chunk in _chunks(s_from):
        since = min(s_from[j] for j in chunk)  # the earliest; each job's own start is applied below
        for r in conn.execute(_TAIL_EDGES, {"ids": chunk, "since": since}):
            if r.valid_to is None or r.valid_to > s_from[r.job]:
                old_edges[r.job].append(dict(r._mapping))
        for r in conn.execute(_TAIL_COLUMNS, {"ids": chunk, "since": since}):
            if r.valid_to is None or r.valid_to > s_from[r.job]:
                old_columns[r.job].append(dict(r._mapping))
    params = [{"b_job": job, "b_from": since} for job, since in sorted(s_from.items())]
    for statement in (_TAIL_VERSIONS_DELETE, _TAIL_EDGES_DELETE, _TAIL_COLUMNS_DELETE):
        conn.execute(statement, params)
    version_rows: list[RowValues] = []
    new_edges: list[RowValues] = []
    derived_columns: list[RowValues] = []
    for job, versions, since in tails:
        version_rows.extend(_json_row(v, _JOB_VERSION_JSON) for v in versions)
        new_edges.extend(_restore_starts(derive_edges(job, versions), old_edges[job], since, _EDGE_KEY))
        derived_columns.extend(_column_rows(derive_column_edges(job, versions)))
    insert_rows(conn, job_versions, version_rows)
    insert_rows(conn, edges, new_edges)
    new_columns: list[RowValues] = []
    by_job: dict[str, list[RowValues]] = defaultdict(list)
    for row in field_ids.edge_rows(conn, derived_columns):  # their ends as field ids, in one pass for all
        by_job[row["job"]].append(row)
    for job, rows in by_job.items():
        new_columns.extend(_restore_starts(rows, old_columns[job], s_from[job], _COLUMN_KEY))
    insert_rows(conn, column_edges, new_columns)


# --- datasets ---------------------------------------------------------------------------------


def _refresh_datasets(conn: sa.Connection, dataset_nodes: set[str], batch: Batch) -> None:
    for chunk in _chunks(dataset_nodes):
        existing = {r.id: r for r in conn.execute(_DATASETS_OF, {"ids": chunk})}
        fast = [d for d in chunk if batch.incremental and d in existing]
        done = _datasets_fast(conn, fast, batch, existing) if fast else set()
        rest = [d for d in chunk if d not in done]
        # a new dataset's observations are all in this step (its row is written with them): not read back
        fresh = {d: batch.new_obs[d] for d in rest if batch.incremental and d not in existing}
        _datasets_full(conn, [d for d in rest if d not in fresh], fresh)


def _datasets_full(
    conn: sa.Connection, chunk: list[str], fresh: Mapping[str, Sequence[Observation]] | None = None
) -> None:
    """Re-derive datasets from all their observations (read from the index; for ``fresh`` ones, new in this
    step, the ones given) and replace their rows."""
    found: dict[str, list[DatasetObservation]] = {
        node: [DatasetObservation(r.time, r.event_id, r.role, r.data) for r in obs_rows]
        for node, obs_rows in (_load_observations(conn, chunk, DATASET_ROLES) if chunk else {}).items()
    }
    for node, given in (fresh or {}).items():
        found[node] = [DatasetObservation(o.time, o.event_id, o.role, o.data) for o in given]
    if not found:
        return
    if chunk:
        for table in (datasets, dataset_versions, dataset_fields):
            key = table.c.id if table is datasets else table.c.dataset
            conn.execute(table.delete().where(key.in_(chunk)))
    ds_rows: list[RowValues] = []
    version_rows: list[RowValues] = []
    field_rows: list[RowValues] = []
    for node, parsed in sorted(found.items()):
        versions = derive_dataset_versions(node, parsed)
        namespace, name = parsed[0].data["namespace"], parsed[0].data["name"]
        ds_rows.append(
            {
                "id": node,
                "namespace": namespace,
                "name": name,
                "kind": versions[-1]["kind"],
                "created_at": versions[0]["valid_from"],
                "updated_at": max(o.time for o in parsed),
                "deleted": versions[-1]["deleted"],
            }
        )
        version_rows.extend(_json_row(v, _DATASET_VERSION_JSON) for v in versions)
        field_rows.extend(derive_field_spans(node, namespace, name, versions))
    for table, rows in ((datasets, ds_rows), (dataset_versions, version_rows), (dataset_fields, field_rows)):
        insert_rows(conn, table, rows)


def _datasets_fast(conn: sa.Connection, chunk: list[str], batch: Batch, existing: RowMapping) -> set[str]:
    """Fold the new observations onto each dataset's open version where that gives the full
    derivation's answer; returns the datasets done (the rest take the full path).

    Two cases qualify. The usual one: every new observation is newer than all the dataset's
    observations. And a late one: some are older than the newest known observation but newer than
    the open version's start, and together they change nothing of its state — common when runs
    overlap (a query's START comes after an earlier query's COMPLETE, both reading the same
    table). Then the fold over all observations passes the same states as before: the open version
    began with a state that the observations after it kept, and the late ones keep it too (a fold
    step's result depends on the state only through its compared parts: fields, facets without
    producer bookkeeping, dropped). Anything else — a late observation that changes the state,
    or one at or before the open version's start — is re-derived in full."""
    open_versions = {
        v.dataset: _parsed(v, _DATASET_VERSION_JSON, batch.json.loads)
        for v in conn.execute(_OPEN_DATASET_VERSIONS, {"ids": chunk})
    }
    done: set[str] = set()
    dataset_updates: list[RowValues] = []
    for node in chunk:
        row, start = existing[node], open_versions.get(node)
        if start is None:
            continue
        new = [DatasetObservation(o.time, o.event_id, o.role, o.data) for o in batch.new_obs[node]]
        oldest = min(o.time for o in new)
        late = oldest <= row.updated_at
        if late and oldest <= start["valid_from"]:
            continue
        versions = derive_dataset_versions(node, new, start=start)
        if late and len(versions) != 1:
            continue
        done.add(node)
        last = versions[-1]
        dataset_updates.append(
            {
                "b_id": node,
                "b_updated_at": max(row.updated_at, max(o.time for o in new)),
                "b_kind": last["kind"],
                "b_deleted": last["deleted"],
            }
        )
        if len(versions) == 1:
            continue  # nothing but volatile facets changed
        s_from = start["valid_from"]
        old_fields = [
            dict(r._mapping)
            for r in conn.execute(
                sa.select(dataset_fields).where(dataset_fields.c.dataset == node, dataset_fields.c.valid_to.is_(None))
            )
        ]
        conn.execute(dataset_versions.delete().where(dataset_versions.c.id == start["id"]))
        conn.execute(dataset_versions.insert(), [_json_row(v, _DATASET_VERSION_JSON) for v in versions])
        conn.execute(
            dataset_fields.delete().where(dataset_fields.c.dataset == node, dataset_fields.c.valid_to.is_(None))
        )
        spans = _restore_starts(
            derive_field_spans(node, row.namespace, row.name, versions), old_fields, s_from, ("field", "type")
        )
        insert_rows(conn, dataset_fields, spans)
    if dataset_updates:
        conn.execute(_DATASET_UPDATE, dataset_updates)
    return done


def project_rows(conn: sa.Connection, rows: Sequence[LogEvent], memo: ProjectionMemo | None = None) -> None:
    """Observe the given log rows (``seq``, ``id``, ``raw``) and derive everything they touch.

    ``memo`` (owned by the caller, e.g. the background projector, kept between steps) saves
    re-normalizing schemas and column lineage that repeat from run to run and re-parsing stored
    JSON; the result is the same with or without it.
    """
    memo = memo or ProjectionMemo()
    project_observed(conn, observe_rows(rows, memo), memo)


def observe_rows(
    rows: Sequence[LogEvent], memo: ProjectionMemo, parsed: Mapping[str, Mapping[str, Any]] | None = None
) -> list[NewEvent]:
    """The observations of log rows (``seq``, ``id``, ``raw``): pure, needs no connection — the
    background projector does it before taking the writers' lock, so appends do not wait for it.
    ``parsed``: events' values by id, handed over by the append in this process (the value of their stored
    text, so the same observations); the others are parsed from their text."""
    if not parsed:
        return [observe_row(r, memo) for r in rows]
    return [observe_row(r, memo, parsed.get(r.id)) for r in rows]


def observe_row(row: LogEvent, memo: ProjectionMemo, payload: Mapping[str, Any] | None = None) -> NewEvent:
    """The observations of one log row (raises what the event's observation raises)."""
    value = loads_text(row.raw) if payload is None else payload
    return NewEvent(row.seq, row.id, observe(value, row.id, memo.observe))


def project_observed(conn: sa.Connection, new: Sequence[NewEvent], memo: ProjectionMemo) -> None:
    """Insert observed events' observations and derive everything they touch."""
    insert_observations(conn, new)
    project_new_events(conn, new, memo.json)


def node_group(role: str) -> str:
    """Which kind of node an observation of this role is about: ``run``, ``job`` or ``dataset``."""
    return "run" if role == "run" else "job" if role in JOB_ROLES or role == JOB_RUN_ROLE else "dataset"


def derive_nodes(
    conn: sa.Connection, runs: set[str], jobs: set[str], datasets: set[str], json: JsonMemo, chunk: int = 2000
) -> None:
    """Derive these nodes from all of their observations (the full path for every one), replacing their
    derived rows: node by node in chunks, runs before their jobs, so memory stays bounded by the chunk."""
    batch = Batch(incremental=False, json=json)
    for part in _chunks(runs, chunk):
        _refresh_runs(conn, set(part), batch)
    for part in _chunks(jobs, chunk):
        _refresh_jobs(conn, set(part), batch)
    for part in _chunks(datasets, chunk):
        _refresh_datasets(conn, set(part), batch)
