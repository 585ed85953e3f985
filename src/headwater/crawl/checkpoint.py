"""The crawler's own re-crawl state: what it saw last time, so an unchanged file is not read again.

One JSON file per crawler (``~/.headwater/crawl/<crawler>.json`` unless ``--state`` names one):

- ``files``: path → size, change marker (mtime or ETag) and the schema read from it (and its row
  count): a file with the same size and marker is not opened again;
- ``tables``: catalog table → its storage location and a fingerprint of what was sent (schema,
  format, partitions): tells added / updated / unchanged apart and finds the removed tables.

The state is written atomically (``model/files.write_atomic``: temporary file, fsync, rename) after the events were delivered, so a
crawl whose events failed to send is crawled again in full next time. Losing the file costs one
full crawl and the removals of that one crawl (tables gone meanwhile are not marked deleted).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from headwater.crawl.model import Column, FileEntry, FileSchema
from headwater.model.files import write_atomic
from headwater.model.jsontypes import JSONValue

VERSION = 1


@dataclass
class TableState:
    namespace: str
    dataset: str
    fingerprint: str


@dataclass
class CrawlState:
    files: dict[str, dict[str, Any]] = field(default_factory=dict)
    tables: dict[str, TableState] = field(default_factory=dict)

    def cached_schema(self, entry: FileEntry) -> FileSchema | None:
        seen = self.files.get(entry.path)
        if not seen or seen.get("size") != entry.size or seen.get("marker") != entry.marker or not entry.marker:
            return None
        return FileSchema(tuple(Column.from_json(c) for c in seen["columns"]), seen.get("rows"))

    def remember(self, entry: FileEntry, schema: FileSchema) -> None:
        self.files[entry.path] = {
            "size": entry.size,
            "marker": entry.marker,
            "columns": [c.to_json() for c in schema.columns],
            "rows": schema.rows,
        }


def default_state_path(crawler: str) -> Path:
    slug = re.sub(r"[^0-9A-Za-z._-]+", "_", crawler).strip("_")[:80] or "crawler"
    digest = hashlib.sha256(crawler.encode()).hexdigest()[:8]
    return Path(os.path.expanduser("~/.headwater/crawl")) / f"{slug}-{digest}.json"


def load_state(path: Path) -> CrawlState:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return CrawlState()
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot read the crawl state {path}: {exc} (delete it to crawl in full)") from None
    if data.get("version") != VERSION:
        return CrawlState()
    return CrawlState(dict(data.get("files", {})), {k: TableState(**v) for k, v in data.get("tables", {}).items()})


def save_state(path: Path, state: CrawlState) -> None:
    body = {"version": VERSION, "files": state.files, "tables": {k: vars(v) for k, v in sorted(state.tables.items())}}
    write_atomic(
        path, json.dumps(body, separators=(",", ":"))
    )  # dumps: the C encoder (dump to a stream is pure Python)


def fingerprint(value: JSONValue) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()[:32]
