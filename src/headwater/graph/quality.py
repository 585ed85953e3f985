"""Data quality along the graph: a dataset's latest results, and issues upstream of it (docs/classify.md).

What producers send, read back from the event log (these facets change with every run, so the derived
graph does not keep them): the ``dataQualityAssertions`` dataset facet (an input facet, 1-1-0: ``assertion``,
``success``, ``column``, ``severity``, ``name``, ``expected``, ``actual``; Great Expectations, Soda, dbt-ol),
``dataQualityMetrics`` (row count, bytes, per-column null/distinct counts, min, max...), and the ``test``
run facet (``tests``: ``name``, ``status`` pass/fail/skip, ``severity``...; dbt-ol's test runs), which
speaks for the datasets its run read.

- :func:`dataset_quality`: the latest result of each assertion (keyed by name, type and column) and test,
  the latest metrics, the latest run of each job writing the dataset, a short history (per event: passed
  and failed), and the dataset's ``status``: ``failing`` (an assertion or test failed that is not
  ``warn``, or the latest run of a job writing it failed), ``warning`` (only ``warn`` failures), ``passing``,
  or ``unknown`` (no results);
- :func:`upstream_issues`: every dataset upstream of a dataset (any depth, as of ``t``) that is failing,
  with the path from it (dataset, job, dataset, ...) to the dataset asked about.

Both read as of ``t`` (events with ``eventTime`` up to ``t``; the edges valid then).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa

from headwater.graph.common import latest_runs, select_in, valid_at
from headwater.graph.traverse import EdgeIndex
from headwater.graph.visibility import Redactor
from headwater.model.jsontext import loads_text
from headwater.model.jsontypes import JSONMapping, JSONValue
from headwater.model.nodeid import DATASET, JOB, parse_node_id
from headwater.model.times import iso
from headwater.store import codec
from headwater.store.schema import edges, events, observations

FAILING, WARNING, PASSING, UNKNOWN = "failing", "warning", "passing", "unknown"
_RANK = {UNKNOWN: 0, PASSING: 1, WARNING: 2, FAILING: 3}
_MARKERS = ('"dataQualityAssertions"', '"tests"')  # the text of an event that holds data-quality results
SCAN_EVENTS = 200  # newest events of a dataset read for its results (older results are history)
_QUALITY_KEYS = ("dataQualityAssertions", "dataQualityMetrics")


@dataclass
class Assertion:
    """The latest result of one assertion or test on a dataset (``column``: None for the whole dataset)."""

    name: str
    type: str | None
    column: str | None
    success: bool | None  # None: skipped
    severity: str | None
    expected: str | None
    actual: str | None
    description: str | None
    source: str  # assertion (dataQualityAssertions) | test (the test run facet)
    time: str
    run: str | None


@dataclass
class ColumnMetrics:
    column: str
    metrics: dict[str, Any]


@dataclass
class Metrics:
    time: str
    run: str | None
    row_count: int | None
    bytes: int | None
    columns: list[ColumnMetrics]


@dataclass
class RunResult:
    job: str
    run: str
    state: str
    time: str


@dataclass
class HistoryPoint:
    time: str
    run: str | None
    passed: int
    failed: int


@dataclass
class DatasetQuality:
    dataset: str
    at: str | None
    status: str
    assertions: list[Assertion]
    metrics: Metrics | None
    runs: list[RunResult]
    history: list[HistoryPoint]


@dataclass
class UpstreamIssue:
    """A failing dataset upstream, why, and the path from it (dataset, job, ..., the dataset asked about)."""

    cause: str
    status: str
    reasons: list[str]
    depth: int
    path: list[str] = field(default_factory=list)


@dataclass
class QualityAnswer:
    quality: DatasetQuality
    flagged: bool  # something upstream is failing
    upstream: list[UpstreamIssue]
    truncated: bool


def _text(value: JSONValue) -> str | None:
    return None if value is None else str(value)


def _entries(payload: JSONMapping, namespace: str, name: str) -> Iterator[tuple[str, JSONMapping]]:
    """(role, facets incl. input facets) of each entry of the event for the dataset."""
    for role in ("inputs", "outputs"):
        for item in payload.get(role) or []:
            if isinstance(item, Mapping) and item.get("namespace") == namespace and item.get("name") == name:
                merged: dict[str, Any] = {}
                for key in ("facets", "inputFacets", "outputFacets"):
                    if isinstance(item.get(key), Mapping):
                        merged.update(item[key])
                yield role, merged
    ds = payload.get("dataset")
    if isinstance(ds, Mapping) and ds.get("namespace") == namespace and ds.get("name") == name:
        facets = ds.get("facets")
        yield "dataset", facets if isinstance(facets, Mapping) else {}


def _events(conn: sa.Connection, node: str, t: int | None) -> list[tuple[int, str]]:
    """(time, raw) of the newest events observing ``node`` (at most :data:`SCAN_EVENTS`, newest first)."""
    query = (
        sa.select(observations.c.time, *codec.TEXT_COLUMNS)
        .join(events, events.c.seq == observations.c.event_seq)
        .where(observations.c.node == node, observations.c.role.in_(("input", "output", "dataset")))
        .order_by(observations.c.time.desc(), observations.c.event_seq.desc())
        .limit(SCAN_EVENTS)
    )
    if t is not None:
        query = query.where(observations.c.time <= t)
    return [(r.time, codec.text(conn, r)) for r in conn.execute(query)]


def _latest_runs(conn: sa.Connection, ds: str, t: int | None) -> list[RunResult]:
    """The latest run (as of ``t``) of each job writing ``ds``."""
    query = sa.select(edges.c.job).where(valid_at(edges, t), edges.c.direction == "OUTPUT")
    writers = sorted({r.job for r in select_in(conn, query, edges.c.dataset, [ds])})
    found = latest_runs(conn, writers, t)
    return [RunResult(job, r.run_id, r.state, str(iso(r.ended_at or r.started_at))) for job, r in sorted(found.items())]


def _with_results(conn: sa.Connection, ids: Sequence[str], t: int | None) -> set[str]:
    """Which of the datasets ``ids`` have data-quality results in their events (as of ``t``), so that only those
    are read and parsed: a text match in the database for events stored as text; for compressed ones
    (store/codec.py) the same match on the texts of each dataset's newest :data:`SCAN_EVENTS` events (the ones
    :func:`dataset_quality` reads)."""
    joined = observations.join(events, events.c.seq == observations.c.event_seq)
    plain = (
        sa.select(observations.c.node)
        .select_from(joined)
        .where(
            events.c.dictionary.is_(None),
            sa.or_(events.c.raw.like(f"%{_MARKERS[0]}%"), events.c.raw.like(f"%{_MARKERS[1]}%")),
        )
        .distinct()
    )
    packed = (
        sa.select(observations.c.node, *codec.TEXT_COLUMNS)
        .select_from(joined)
        .where(events.c.dictionary.is_not(None), observations.c.role.in_(("input", "output", "dataset")))
        .order_by(observations.c.node, observations.c.time.desc(), observations.c.event_seq.desc())
    )
    if t is not None:
        plain = plain.where(observations.c.time <= t)
        packed = packed.where(observations.c.time <= t)
    found = {r.node for r in select_in(conn, plain, observations.c.node, ids)}
    looked: dict[str, int] = {}
    for r in select_in(conn, packed, observations.c.node, [i for i in ids if i not in found]):
        if r.node in found or looked.get(r.node, 0) >= SCAN_EVENTS:
            continue
        looked[r.node] = looked.get(r.node, 0) + 1
        text = codec.text(conn, r)
        if any(marker in text for marker in _MARKERS):
            found.add(r.node)
    return found


def dataset_quality(conn: sa.Connection, ds: str, t: int | None) -> DatasetQuality:
    """The latest results on ``ds`` as of ``t`` (see the module docstring)."""
    ref = parse_node_id(ds)
    latest: dict[tuple[str, str, str | None, str], Assertion] = {}
    metrics: Metrics | None = None
    history: list[HistoryPoint] = []
    for time, raw in _events(conn, ds, t):
        payload = loads_text(raw)
        if not isinstance(payload, Mapping):
            continue
        when = str(iso(time))
        run = payload.get("run", {}).get("runId") if isinstance(payload.get("run"), Mapping) else None
        found: list[Assertion] = []
        for role, facets in _entries(payload, ref.namespace, ref.name):
            dq = facets.get("dataQualityAssertions")
            for a in dq.get("assertions", []) if isinstance(dq, Mapping) else []:
                if isinstance(a, Mapping) and isinstance(a.get("assertion"), str):
                    found.append(
                        Assertion(
                            str(a.get("name") or a["assertion"]), a["assertion"], _text(a.get("column")),
                            bool(a.get("success")), _text(a.get("severity")), _text(a.get("expected")),
                            _text(a.get("actual")), _text(a.get("description")), "assertion", when, run,
                        )
                    )  # fmt: skip
            m = facets.get("dataQualityMetrics")
            if metrics is None and isinstance(m, Mapping):
                given = m.get("columnMetrics")
                cols: Mapping[str, Any] = given if isinstance(given, Mapping) else {}
                metrics = Metrics(
                    when, run, m.get("rowCount") if isinstance(m.get("rowCount"), int) else None,
                    m.get("bytes") if isinstance(m.get("bytes"), int) else None,
                    [ColumnMetrics(str(c), dict(v)) for c, v in sorted(cols.items()) if isinstance(v, Mapping)],
                )  # fmt: skip
            if role == "inputs":
                run_facets = payload.get("run", {}).get("facets") if isinstance(payload.get("run"), Mapping) else None
                test = run_facets.get("test") if isinstance(run_facets, Mapping) else None
                for x in test.get("tests", []) if isinstance(test, Mapping) else []:
                    if isinstance(x, Mapping) and isinstance(x.get("name"), str):
                        status = str(x.get("status") or "").lower()
                        found.append(
                            Assertion(
                                x["name"], _text(x.get("type")), None, None if status == "skip" else status == "pass",
                                _text(x.get("severity")), _text(x.get("expected")), _text(x.get("actual")),
                                _text(x.get("description")), "test", when, run,
                            )
                        )  # fmt: skip
        if found:
            history.append(
                HistoryPoint(when, run, sum(a.success is True for a in found), sum(a.success is False for a in found))
            )
        for a in found:
            latest.setdefault((a.source, a.name, a.column, a.type or ""), a)
    assertions = sorted(latest.values(), key=lambda a: (a.success is not False, a.column or "", a.name))
    latest_runs = _latest_runs(conn, ds, t)
    return DatasetQuality(ds, iso(t), _status(assertions, latest_runs), assertions, metrics, latest_runs, history)


def _status(assertions: list[Assertion], latest_runs: list[RunResult]) -> str:
    status = PASSING if assertions else UNKNOWN
    for a in assertions:
        if a.success is False:
            status = max(status, WARNING if (a.severity or "").lower() == "warn" else FAILING, key=_RANK.__getitem__)
    if any(r.state == "FAIL" for r in latest_runs):
        status = FAILING
    return status


def _reasons(q: DatasetQuality) -> list[str]:
    out = [
        f"{a.source} {a.name}" + (f" on {a.column}" if a.column else "") + " failed"
        + (f" (expected {a.expected}, actual {a.actual})" if a.expected or a.actual else "")
        for a in q.assertions
        if a.success is False
    ]  # fmt: skip
    out += [f"latest run {r.run} of {r.job} failed" for r in q.runs if r.state == "FAIL"]
    return out


def upstream_issues(
    conn: sa.Connection, ds: str, t: int | None, *, depth: int = 20, max_nodes: int = 5000
) -> tuple[list[UpstreamIssue], bool]:
    """Every failing (or warning) dataset upstream of ``ds``, nearest first, with its path to ``ds``."""
    index = EdgeIndex(conn, t)
    paths: dict[str, list[str]] = {ds: [ds]}
    frontier = {ds}
    truncated = False
    for _hop in range(depth * 2):  # dataset and job hops alternate
        if not frontier:
            break
        found = index.neighbours(frontier, "upstream")
        nxt: set[str] = set()
        for node in sorted(frontier):
            for up in sorted(found.get(node, ())):
                if up in paths:
                    continue
                if len(paths) >= max_nodes:
                    truncated = True
                    break
                paths[up] = [up, *paths[node]]
                nxt.add(up)
        frontier = nxt
    datasets = [n for n in paths if n != ds and n.startswith(DATASET)]
    failed = [j for j, r in latest_runs(conn, [n for n in paths if n.startswith(JOB)], t).items() if r.state == "FAIL"]
    candidates = _with_results(conn, datasets, t)
    candidates |= {d for j in failed for d in index.inc.outputs.get(j, ()) if d in paths and d != ds}
    issues = []
    for node in sorted(candidates):
        q = dataset_quality(conn, node, t)
        if q.status in (FAILING, WARNING):
            issues.append(UpstreamIssue(node, q.status, _reasons(q), len(paths[node]) - 1, paths[node]))
    issues.sort(key=lambda i: (i.depth, i.cause))
    return issues, truncated


def quality(conn: sa.Connection, ds: str, t: int | None, *, depth: int = 20, max_nodes: int = 5000) -> QualityAnswer:
    own = dataset_quality(conn, ds, t)
    upstream, truncated = upstream_issues(conn, ds, t, depth=depth, max_nodes=max_nodes)
    return QualityAnswer(own, any(i.status == FAILING for i in upstream), upstream, truncated)


_FAILED_RUN = re.compile(r"^latest run \S+ of (\S+) failed$")


def _redact_reason(reason: str, policy: Redactor) -> str:
    """A visible cause's reason without a hidden job: its failed run is named by the job's restricted id."""
    found = _FAILED_RUN.match(reason)
    if found and policy.hidden.hides(found.group(1)):
        return f"latest run of {policy.id(found.group(1))} failed"
    return reason


def redact(answer: QualityAnswer, policy: Redactor) -> QualityAnswer:
    """Upstream causes the viewer may not see are restricted ids without reasons; a hidden job's failed run in
    a visible cause's reasons is named by the job's restricted id; paths are redacted; the latest runs of
    hidden jobs are left out."""
    upstream = [
        UpstreamIssue(
            policy.id(i.cause),
            i.status,
            ["restricted"] if policy.hidden.hides(i.cause) else [_redact_reason(r, policy) for r in i.reasons],
            i.depth,
            [policy.id(p) for p in i.path],
        )  # fmt: skip
        for i in answer.upstream
    ]
    q = answer.quality
    runs_seen = [r for r in q.runs if not policy.hidden.hides(r.job)]
    own = DatasetQuality(q.dataset, q.at, q.status, q.assertions, q.metrics, runs_seen, q.history)
    return QualityAnswer(own, answer.flagged, upstream, answer.truncated)
