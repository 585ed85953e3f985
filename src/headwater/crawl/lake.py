"""Crawl a file location (a local folder or any fsspec URL): list, group, infer, merge → tables."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from headwater.crawl.checkpoint import CrawlState
from headwater.crawl.files import TableFiles, group_tables, list_files, partition_type
from headwater.crawl.formats import format_of, infer_function, sniff_format
from headwater.crawl.limits import DEFAULT_LIMITS, Limits
from headwater.crawl.model import Column, FileEntry, FileSchema, Skipped, Table
from headwater.crawl.types import compatible, merge_columns
from headwater.model.naming import path_dataset

READERS = 8  # files read at once (pyarrow and the file systems release the GIL while reading)


@dataclass
class LakeResult:
    tables: list[Table]
    skipped: list[Skipped]
    files_read: int
    files_cached: int
    files: dict[str, dict[str, Any]]  # the re-crawl state of every file whose schema is known


def open_location(source: str, storage_options: dict[str, Any] | None = None) -> tuple[Any, str]:
    """``(fsspec file system, root path)`` of a folder or URL; local paths need nothing beyond fsspec.
    ``storage_options`` go to the file system as fsspec takes them (s3fs: ``endpoint_url``, ``key``, ...)."""
    import fsspec

    fs, root = fsspec.core.url_to_fs(source, **(storage_options or {}))
    return fs, root.rstrip("/") or "/"


def location_url(fs: Any, path: str) -> str:
    """A path of ``fs`` as the URL naming understands (``/x`` for local files, ``s3://b/k`` ...)."""
    protocol = fs.protocol if isinstance(fs.protocol, str) else fs.protocol[0]
    if protocol in ("file", "local"):
        return path
    return str(fs.unstrip_protocol(path))


def crawl_lake(source: str, state: CrawlState, limits: Limits = DEFAULT_LIMITS, *, table_level: int = 1,
               fs: Any = None, storage_options: dict[str, Any] | None = None) -> LakeResult:
    if fs is None:
        fs, root = open_location(source, storage_options)
    else:
        root = source.split("://", 1)[-1].rstrip("/") or "/"
    try:
        fs.invalidate_cache()  # object stores cache listings (and ETags) per instance: a re-crawl must see changes
    except Exception:  # noqa: BLE001 - a file system without a listing cache has nothing to forget
        pass
    entries = list_files(fs, root)
    sniffed = _sniff_unnamed(fs, [e for e in entries if format_of(e.path) is None and "." not in
                                  e.path.rsplit("/", 1)[-1]])
    groups, skipped = group_tables(root, root.rsplit("/", 1)[-1], entries, table_level=table_level,
                                   sniffed=sniffed)
    plan: list[tuple[TableFiles, FileEntry]] = []
    known: dict[str, FileSchema] = {}
    for group in groups:
        fresh = 0
        for entry, _values in group.files:
            cached = state.cached_schema(entry)
            if cached is not None:
                known[entry.path] = cached
            elif fresh < limits.files_per_table:
                fresh += 1
                plan.append((group, entry))
    read, failed = _read_all(fs, plan, limits)
    known.update(read)
    skipped += failed
    tables = []
    for group in groups:
        table, rejected = _table(fs, group, known, limits)
        skipped += rejected
        if table is not None:
            tables.append(table)
    seen = CrawlState()
    for group in groups:
        for entry, _values in group.files:
            if entry.path in known:
                seen.remember(entry, known[entry.path])
    return LakeResult(tables, skipped, len(read), len(known) - len(read), seen.files)


def _sniff_unnamed(fs: Any, entries: list[FileEntry]) -> dict[str, str]:
    found = {}
    for entry in entries:
        try:
            with fs.open(entry.path, "rb") as handle:
                fmt = sniff_format(handle.read(8))
        except Exception:  # noqa: BLE001 - unreadable files are reported when they are read
            continue
        if fmt:
            found[entry.path] = fmt
    return found


def _read_all(fs: Any, plan: list[tuple[TableFiles, FileEntry]], limits: Limits
              ) -> tuple[dict[str, FileSchema], list[Skipped]]:
    def read(item: tuple[TableFiles, FileEntry]) -> tuple[str, FileSchema | Skipped]:
        group, entry = item
        infer: Callable[[Any, str, Limits], FileSchema] = infer_function(group.format)
        try:
            schema = infer(fs, entry.path, limits)
        except Exception as exc:  # noqa: BLE001 - a bad file is reported and skipped, never stops the crawl
            return entry.path, Skipped(entry.path, f"unreadable {group.format} file: {type(exc).__name__}: {exc}")
        if not schema.columns:
            return entry.path, Skipped(entry.path, f"no columns found in the {group.format} file")
        return entry.path, schema

    schemas: dict[str, FileSchema] = {}
    failed: list[Skipped] = []
    with ThreadPoolExecutor(READERS) as pool:
        for path, outcome in pool.map(read, plan):
            if isinstance(outcome, Skipped):
                failed.append(outcome)
            else:
                schemas[path] = outcome
    return schemas, failed


def _table(fs: Any, group: TableFiles, known: dict[str, FileSchema], limits: Limits
           ) -> tuple[Table | None, list[Skipped]]:
    members = [(e, v, known[e.path]) for e, v in group.files if e.path in known]
    if not members:
        return None, []
    layouts = Counter(tuple(c.name for c in s.columns) for _e, _v, s in members)
    reference = next(s.columns for _e, _v, s in members if tuple(c.name for c in s.columns) == layouts.most_common(1)[0][0])
    kept, rejected = [], []
    for entry, values, schema in members:
        if compatible(reference, schema.columns, limits.compatibility):
            kept.append((entry, values, schema))
        else:
            names = ", ".join(c.name for c in schema.columns)
            rejected.append(Skipped(entry.path, f"schema incompatible with table {group.name!r} "
                                                f"(columns {names}); not merged"))
    columns = list(merge_columns(s.columns for _e, _v, s in kept))
    data_names = {c.name for c in columns}
    rejected_paths = {r.path for r in rejected}
    for i, key in enumerate(group.partition_keys):
        if key not in data_names:
            values = sorted({v[i] for _e, v in group.files})
            columns.append(Column(key, partition_type(values), False, "partition column"))
    files = [e for e, _v in group.files if e.path not in rejected_paths]
    rows_known = all(e.path in known and known[e.path].rows is not None for e in files)
    url = location_url(fs, group.folder)
    namespace, dataset = path_dataset(url)
    table = Table(name=group.name, location=url, namespace=namespace, dataset=dataset, format=group.format,
                  columns=tuple(columns), partition_keys=group.partition_keys, files=len(files),
                  bytes=sum(e.size for e in files),
                  rows=sum(known[e.path].rows or 0 for e in files) if rows_known else None)
    return table, rejected
