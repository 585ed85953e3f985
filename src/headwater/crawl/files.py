"""Files into tables, as a data-lake crawler groups them (pure, given a listing).

- One folder (or prefix) per table: the folder ``table_level`` levels below the crawled root
  (default 1: each sub-folder of the root is a table; files directly in the root make a table
  named after the root).
- Folders below a table's folder are partitions: ``key=value`` (Hive style) gives a partition
  column ``key``; a plain folder gives ``partition_0``, ``partition_1``… by depth. A ``key=value``
  folder above ``table_level`` ends the table's path there (the root itself may be partitioned).
- Files and folders whose name starts with ``_`` or ``.`` (``_SUCCESS``, ``_temporary``, ``.crc``)
  are ignored, as Spark and Hive write them beside the data.
- One format per table: a folder holding several formats makes one table per format
  (``<table>_<format>``). Files of unknown format are ignored and reported.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from headwater.model.jsontypes import JSONObject

if TYPE_CHECKING:
    from fsspec import AbstractFileSystem

from headwater.crawl.formats import format_of
from headwater.crawl.model import FileEntry, Skipped


@dataclass
class TableFiles:
    name: str
    folder: str  # the table's folder, in the file system's own path form
    format: str
    partition_keys: tuple[str, ...]
    files: list[tuple[FileEntry, tuple[str, ...]]] = field(default_factory=list)  # (file, partition values)


def table_name(text: str) -> str:
    """A catalog table name: lower case, letters/digits/underscores (as Glue and Hive name tables)."""
    name = re.sub(r"[^0-9a-zA-Z_]+", "_", text).strip("_").lower()
    return name or "root"


def file_marker(info: JSONObject) -> str:
    """What changes when a file's content changes: ETag on object stores, else the modification time."""
    for key in ("ETag", "etag", "md5Hash", "md5", "content_md5"):
        if info.get(key):
            return str(info[key]).strip('"')
    for key in ("mtime", "LastModified", "last_modified", "updated", "modified", "mtime_ns"):
        if info.get(key) is not None:
            value = info[key]
            return value.isoformat() if hasattr(value, "isoformat") else str(value)
    return ""


def list_files(fs: AbstractFileSystem, root: str) -> list[FileEntry]:
    """Every file below ``root`` (recursively), with size and change marker, sorted by path."""
    found = fs.find(root, detail=True, withdirs=False)
    entries = [
        FileEntry(path, int(info.get("size") or 0), file_marker(info))
        for path, info in found.items()
        if info.get("type", "file") == "file"
    ]
    return sorted(entries, key=lambda e: e.path)


def _ignored(segment: str) -> bool:
    return segment.startswith(("_", "."))


def group_tables(
    root: str,
    root_name: str,
    files: Iterable[FileEntry],
    *,
    table_level: int = 1,
    sniffed: dict[str, str] | None = None,
) -> tuple[list[TableFiles], list[Skipped]]:
    """Files → tables (see the module's rules); ``sniffed`` gives formats found by content for files
    whose name says none (path → format)."""
    root = root.rstrip("/")
    groups: dict[tuple[tuple[str, ...], str], list[tuple[FileEntry, list[str]]]] = {}
    skipped: list[Skipped] = []
    for entry in files:
        rel = entry.path[len(root) :].lstrip("/") if entry.path.startswith(root) else entry.path
        segments = rel.split("/")
        if any(_ignored(s) for s in segments):
            skipped.append(
                Skipped(entry.path, "ignored: a hidden or bookkeeping file (name starts with _ or .)", failure=False)
            )
            continue
        fmt = format_of(entry.path) or (sniffed or {}).get(entry.path)
        if fmt is None:
            skipped.append(Skipped(entry.path, "ignored: unknown file format", failure=False))
            continue
        dirs = segments[:-1]
        start = next((i for i, d in enumerate(dirs) if "=" in d), len(dirs))
        start = min(start, table_level)
        groups.setdefault((tuple(dirs[:start]), fmt), []).append((entry, dirs[start:]))
    formats_per_folder = Counter(folder for folder, _fmt in groups)
    tables: list[TableFiles] = []
    for (folder_dirs, fmt), members in sorted(groups.items()):
        base = table_name("_".join(folder_dirs) if folder_dirs else root_name)
        name = f"{base}_{fmt}" if formats_per_folder[folder_dirs] > 1 else base
        folder = "/".join([root, *folder_dirs])
        layouts = Counter(tuple(_partition_key(d, i) for i, d in enumerate(parts)) for _e, parts in members)
        keys = layouts.most_common(1)[0][0]
        table = TableFiles(name, folder, fmt, keys)
        for entry, parts in members:
            if tuple(_partition_key(d, i) for i, d in enumerate(parts)) != keys:
                skipped.append(Skipped(entry.path, f"partition layout differs from the table's ({'/'.join(keys)})"))
                continue
            table.files.append((entry, tuple(_partition_value(d) for d in parts)))
        tables.append(table)
    return tables, skipped


def _partition_key(segment: str, depth: int) -> str:
    return segment.split("=", 1)[0] if "=" in segment else f"partition_{depth}"


def _partition_value(segment: str) -> str:
    return segment.split("=", 1)[1] if "=" in segment else segment


def partition_type(values: Sequence[str]) -> str:
    """Partition values' type: ``bigint`` when every value is an integer, else ``string``."""
    return "bigint" if values and all(re.fullmatch(r"-?\d{1,18}", v) for v in values) else "string"
