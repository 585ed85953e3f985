"""One crawl, start to end: find the tables, compare with the last crawl, send the events, keep the state."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from headwater.client import LineageClient
from headwater.crawl.checkpoint import CrawlState, TableState, default_state_path, fingerprint, load_state, save_state
from headwater.crawl.database import ViewLineage, crawl_database, is_database_url, public_url
from headwater.crawl.events import CrawlRun, RemovedTable, crawl_events
from headwater.crawl.lake import crawl_lake
from headwater.crawl.limits import DEFAULT_LIMITS, Limits
from headwater.crawl.model import Skipped, Summary, Table


@dataclass
class CrawlResult:
    run_id: str
    job: str
    summary: Summary
    tables: list[Table]
    events: int
    error: str | None = None
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """Nothing failed: no error and no file or schema skipped for a problem (the exit status)."""
        return self.error is None and not self.summary.failures


def source_label(source: str) -> str:
    """The crawled location as events show it: a database URL without credentials, an absolute local path."""
    if is_database_url(source):
        return public_url(source)
    if "://" not in source:
        return os.path.abspath(source)
    return source


def default_job_name(source: str) -> str:
    return f"crawl:{source_label(source)}"


def _table_fingerprint(table: Table) -> str:
    return fingerprint(
        {
            "columns": [c.to_json() for c in table.columns],
            "format": table.format,
            "partitions": list(table.partition_keys),
            "description": table.description,
            "view": table.view_sql,
            "sources": list(table.view_sources),
            "location": [table.namespace, table.dataset],
        }
    )


def crawl(
    source: str,
    client: LineageClient,
    *,
    name: str | None = None,
    catalog_database: str = "default",
    state_path: Path | None = None,
    limits: Limits = DEFAULT_LIMITS,
    table_level: int = 1,
    schemas: Sequence[str] | None = None,
    fs: Any = None,
    storage_options: dict[str, Any] | None = None,
    view_lineage: ViewLineage | None = None,
    clock: Callable[[], datetime] = lambda: datetime.now(UTC),
) -> CrawlResult:
    """Crawl ``source`` (a folder, an fsspec URL or a database URL) once and send its events.

    ``storage_options`` are passed to the fsspec file system of a URL (``{"endpoint_url": ...}`` for
    s3fs, ``{"anon": True}``, credentials...); they are never sent in events.

    Raises :class:`headwater.client.SendError` when the events could not be delivered (the state is
    then not written: the next crawl compares with the last delivered one). A source that cannot be
    read at all gives a FAIL run and ``result.error``.
    """
    job = name or default_job_name(source)
    path = state_path or default_state_path(job)
    previous = load_state(path)
    run = CrawlRun(job=job, source=source_label(source), catalog_database=catalog_database, started=clock())
    summary = Summary()
    tables: list[Table] = []
    complete = True
    files_state: dict[str, dict[str, Any]] = {}
    stats: dict[str, Any] = {}
    error: str | None = None
    try:
        if is_database_url(source):
            found = crawl_database(source, schemas=schemas, view_lineage=view_lineage)
            tables, complete = found.tables, found.complete
            summary.skipped += found.skipped
        else:
            lake = crawl_lake(source, previous, limits, table_level=table_level, fs=fs, storage_options=storage_options)
            tables, files_state = lake.tables, lake.files
            summary.skipped += lake.skipped
            stats = {"filesRead": lake.files_read, "filesUnchanged": lake.files_cached}
    except Exception as exc:  # noqa: BLE001 - any failure to read the source is the run's FAIL, reported
        error = f"cannot crawl {run.source}: {type(exc).__name__}: {exc}"
        complete = False
    seen = {}
    for table in _unique(tables, summary.skipped):
        seen[table.name] = table
    current = {n: TableState(t.namespace, t.dataset, _table_fingerprint(t)) for n, t in seen.items()}
    changed_views = []
    for n, state in current.items():
        before = previous.tables.get(n)
        if before is None:
            summary.added.append(n)
        elif before.fingerprint != state.fingerprint:
            summary.updated.append(n)
        else:
            summary.unchanged.append(n)
        if seen[n].format == "view" and (before is None or before.fingerprint != state.fingerprint):
            changed_views.append(seen[n])
    removed = []
    if complete and error is None:
        removed = [
            RemovedTable(n, s.namespace, s.dataset) for n, s in sorted(previous.tables.items()) if n not in current
        ]
        summary.removed = [r.name for r in removed]
    events = crawl_events(
        run,
        list(seen.values()),
        removed,
        summary,
        clock(),
        changed_views=changed_views,
        error=error,
        settings={
            "sampleBytes": limits.sample_bytes,
            "sampleRows": limits.sample_rows,
            "filesPerTable": limits.files_per_table,
            "tableLevel": table_level,
            **stats,
        },
    )
    client.send(events)
    if error is None:
        kept = dict(current) if complete else {**previous.tables, **current}
        save_state(path, CrawlState(files_state, kept))
    return CrawlResult(run.run_id, job, summary, list(seen.values()), len(events), error, stats)


def _unique(tables: list[Table], skipped: list[Skipped]) -> list[Table]:
    """Two tables of one name (``a-b`` and ``a_b``): the second is reported, not merged."""
    names: set[str] = set()
    out = []
    for t in tables:
        if t.name in names:
            skipped.append(Skipped(t.location, f"another folder already makes table {t.name!r}"))
            continue
        names.add(t.name)
        out.append(t)
    return out
