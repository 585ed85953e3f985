"""Crawl a file location (a local folder or any fsspec URL): list, group, infer, merge → tables."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from headwater.model.jsontypes import JSONObject

if TYPE_CHECKING:
    from fsspec import AbstractFileSystem

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


def open_location(source: str, storage_options: JSONObject | None = None) -> tuple[AbstractFileSystem, str]:
    """``(fsspec file system, root path)`` of a folder or URL; local paths need nothing beyond fsspec.
    ``storage_options`` go to the file system as fsspec takes them (s3fs: ``endpoint_url``, ``key``, ...)."""
    import fsspec

    fs, root = fsspec.core.url_to_fs(source, **(storage_options or {}))
    return fs, root.rstrip("/") or "/"


def location_url(fs: AbstractFileSystem, path: str) -> str:
    """A path of ``fs`` as the URL naming understands (``/x`` for local files, ``s3://b/k`` ...)."""
    protocol = fs.protocol if isinstance(fs.protocol, str) else fs.protocol[0]
    if protocol in ("file", "local"):
        return path
    return str(fs.unstrip_protocol(path))


def crawl_lake(
    source: str,
    state: CrawlState,
    limits: Limits = DEFAULT_LIMITS,
    *,
    table_level: int = 1,
    fs: AbstractFileSystem = None,
    storage_options: dict[str, Any] | None = None,
) -> LakeResult:
    if fs is None:
        fs, root = open_location(source, storage_options)
    else:
        root = source.split("://", 1)[-1].rstrip("/") or "/"
    try:
        fs.invalidate_cache()  # object stores cache listings (and ETags) per instance: a re-crawl must see changes
    except Exception:  # noqa: BLE001 - a file system without a listing cache has nothing to forget
        pass
    entries = list_files(fs, root)
    sniffed = _sniff_unnamed(fs, [e for e in entries if format_of(e.path) is None and _unnamed(root, e.path)])
    groups, skipped = group_tables(root, root.rsplit("/", 1)[-1], entries, table_level=table_level, sniffed=sniffed)
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
        found, rejected = _tables(fs, group, known, limits)
        skipped += rejected
        tables += found
    seen = CrawlState()
    for group in groups:
        for entry, _values in group.files:
            if entry.path in read:
                seen.remember(entry, read[entry.path])
            elif entry.path in known:  # unchanged: its state entry as it was
                seen.files[entry.path] = state.files[entry.path]
    return LakeResult(tables, skipped, len(read), len(known) - len(read), seen.files)


def _unnamed(root: str, path: str) -> bool:
    """A file whose name says no format and that the grouping does not ignore (``_SUCCESS``, ``.crc``):
    its first bytes are read to find its format."""
    rel = path[len(root) :] if path.startswith(root) else path
    segments = rel.strip("/").split("/")
    return "." not in segments[-1] and not any(s.startswith(("_", ".")) for s in segments)


def _sniff_unnamed(fs: AbstractFileSystem, entries: list[FileEntry]) -> dict[str, str]:
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


def _read_all(
    fs: AbstractFileSystem, plan: list[tuple[TableFiles, FileEntry]], limits: Limits
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


Member = tuple[FileEntry, tuple[str, ...], FileSchema]


def _clusters(members: list[Member], threshold: float) -> list[list[Member]]:
    """Files into groups of compatible schemas, as a data-lake crawler splits a folder: the most common
    column layout first; each file joins the first group whose reference layout it is compatible with,
    else starts a group of its own (in the order of the layouts' frequency, then of the paths)."""
    layouts = Counter(tuple(c.name for c in s.columns) for _e, _v, s in members)
    rank = {layout: i for i, (layout, _n) in enumerate(layouts.most_common())}
    ordered = sorted(members, key=lambda m: (rank[tuple(c.name for c in m[2].columns)], m[0].path))
    groups: list[tuple[tuple[Column, ...], list[Member]]] = []
    for member in ordered:
        for reference, group in groups:
            if compatible(reference, member[2].columns, threshold):
                group.append(member)
                break
        else:
            groups.append((member[2].columns, [member]))
    return [g for _r, g in groups]


def _split_location(
    fs: AbstractFileSystem, folder: str, files: list[FileEntry], taken: set[tuple[str, str]]
) -> str | None:
    """Where a table split off a folder lives: the deepest plain folder below ``folder`` holding all its
    files, or its one file; None when that would name a location another table of the folder already has
    (files mixed in one folder: a location is a folder or a file, never a set of files)."""
    parents = [e.path.rsplit("/", 1)[0].split("/") for e in files]
    common = "/".join(os.path.commonprefix(parents))
    candidates = [common] if common and len(common) > len(folder) else []
    if len(files) == 1:
        candidates.append(files[0].path)
    for candidate in candidates:
        url = location_url(fs, candidate)
        if path_dataset(url) not in taken:
            return url
    return None


def _tables(
    fs: AbstractFileSystem, group: TableFiles, known: dict[str, FileSchema], limits: Limits
) -> tuple[list[Table], list[Skipped]]:
    """The folder's table, and one more table per group of files whose schemas are incompatible with it
    (``<table>_2``, ``<table>_3``... in the order of their first file's path), each at its own location."""
    members = [(e, v, known[e.path]) for e, v in group.files if e.path in known]
    if not members:
        return [], []
    main, *others = _clusters(members, limits.compatibility)
    grouped = {e.path for cluster in (main, *others) for e, _v, _s in cluster}
    unread = [(e, v) for e, v in group.files if e.path not in grouped]  # beyond --files-per-table: the main table's
    table = _make_table(group, group.name, location_url(fs, group.folder), main, unread, known)
    tables, rejected = [table], []
    taken = {(table.namespace, table.dataset)}
    for number, cluster in enumerate(sorted(others, key=lambda c: min(e.path for e, _v, _s in c)), 2):
        url = _split_location(fs, group.folder, [e for e, _v, _s in cluster], taken)
        if url is None:
            for entry, _values, schema in cluster:
                names = ", ".join(c.name for c in schema.columns)
                rejected.append(
                    Skipped(
                        entry.path,
                        f"schema incompatible with table {group.name!r} (columns {names}) "
                        "and in the same folder as its files; not merged",
                    )
                )
            continue
        split = _make_table(group, f"{group.name}_{number}", url, cluster, [], known)
        taken.add((split.namespace, split.dataset))
        tables.append(split)
    return tables, rejected


def _make_table(
    group: TableFiles,
    name: str,
    url: str,
    members: list[Member],
    unread: list[tuple[FileEntry, tuple[str, ...]]],
    known: dict[str, FileSchema],
) -> Table:
    columns = list(merge_columns(s.columns for _e, _v, s in members))
    data_names = {c.name for c in columns}
    files = [(e, v) for e, v, _s in members] + unread
    for i, key in enumerate(group.partition_keys):
        if key not in data_names:
            values = sorted({v[i] for _e, v in files})
            columns.append(Column(key, partition_type(values), False, "partition column"))
    entries = [e for e, _v in files]
    rows_known = all(e.path in known and known[e.path].rows is not None for e in entries)
    namespace, dataset = path_dataset(url)
    return Table(
        name=name,
        location=url,
        namespace=namespace,
        dataset=dataset,
        format=group.format,
        columns=tuple(columns),
        partition_keys=group.partition_keys,
        files=len(entries),
        bytes=sum(e.size for e in entries),
        rows=sum(known[e.path].rows or 0 for e in entries) if rows_known else None,
    )
