"""An export of Redshift's ``SYS_QUERY_HISTORY`` (and ``SYS_QUERY_TEXT`` for long texts) → :class:`~.core.Execution`.

For users who cannot point Headwater at their cluster. Formats read (the first character decides):

- CSV with a header row (``UNLOAD ... FORMAT CSV HEADER``, ``psql --csv``, a SQL client's export);
- JSON lines, one object per row (``UNLOAD ... FORMAT JSON``);
- a JSON array of objects;
- the answer of ``aws redshift-data get-statement-result`` (``{"ColumnMetadata": [...], "Records": [[{"stringValue":
  ...}, {"longValue": ...}], ...]}``), one document or several concatenated (the CLI's pages).

Columns used (case-insensitive): ``query_id``, ``user_id``, ``database_name``, ``query_type``, ``status``,
``start_time``, ``end_time``, ``query_text`` (cut at 4,000 characters), ``error_message``, ``session_id``.
``SYS_QUERY_TEXT`` rows (``query_id``, ``sequence``, ``text``: 4,000-character pieces from sequence 0) give the whole
text of a longer statement; ``\\n`` written as two characters is read as a new line, as the view writes it.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from headwater.model.jsontypes import JSONObject, JSONValue

from .core import Execution, Harvester, parse_time

if TYPE_CHECKING:
    from .checkpoint import Checkpoint
    from .loop import Commit
    from .schemas import DbConnection

_FINISHED_OK = {"success", "returning"}
_FAILED = {"failed", "canceled", "cancelled", "aborted"}
_TRUNCATED_AT = 4000


class ExportError(ValueError):
    """The file is not an export this reader knows; the message says what was expected."""


def read_rows(path: str) -> Iterator[JSONObject]:
    """Rows of an export file as dicts with lower-case keys."""
    with open(path, encoding="utf-8-sig") as f:
        head = f.read(1 << 16)
        f.seek(0)
        first = head.lstrip()[:1]
        if first == "[":
            data = json.load(f)
            if not isinstance(data, list):
                raise ExportError(f"{path}: expected a JSON array of rows")
            for row in data:
                yield _lower(row)
        elif first == "{":
            text = f.read()
            decoder = json.JSONDecoder()
            pos = 0
            while pos < len(text):
                while pos < len(text) and text[pos].isspace():
                    pos += 1
                if pos >= len(text):
                    break
                try:
                    doc, pos = decoder.raw_decode(text, pos)
                except ValueError as exc:
                    raise ExportError(f"{path}: not JSON lines nor a redshift-data result: {exc}") from None
                if isinstance(doc, dict) and "Records" in doc:
                    yield from _data_api_rows(doc, path)
                elif isinstance(doc, dict):
                    yield _lower(doc)
        else:
            reader = csv.DictReader(f)
            if not reader.fieldnames or "query_id" not in {n.strip().lower() for n in reader.fieldnames}:
                raise ExportError(f"{path}: a CSV export needs a header row with query_id (UNLOAD ... HEADER)")
            for row in reader:
                yield {k.strip().lower(): v for k, v in row.items() if k is not None}


def _lower(row: JSONValue) -> JSONObject:
    if not isinstance(row, dict):
        raise ExportError(f"expected a JSON object per row, got {type(row).__name__}")
    return {str(k).lower(): v for k, v in row.items()}


def _data_api_rows(doc: JSONObject, path: str) -> Iterator[JSONObject]:
    names = [str(c.get("name") or c.get("label") or "").lower() for c in doc.get("ColumnMetadata", [])]
    if not names:
        raise ExportError(f"{path}: a redshift-data result without ColumnMetadata")
    for record in doc.get("Records", []):
        row: dict[str, Any] = {}
        for name, cell in zip(names, record, strict=False):
            if not isinstance(cell, dict) or cell.get("isNull"):
                row[name] = None
            else:
                row[name] = next(iter(cell.values()), None)
        yield row


def read_texts(paths: list[str]) -> dict[str, str]:
    """query_id → the whole text, from SYS_QUERY_TEXT exports."""
    pieces: dict[str, list[tuple[int, str]]] = {}
    for path in paths:
        for row in read_rows(path):
            qid = str(row.get("query_id") or "").strip()
            if not qid:
                continue
            pieces.setdefault(qid, []).append((int(row.get("sequence") or 0), str(row.get("text") or "")))
    out = {}
    for qid, parts in pieces.items():
        parts.sort()
        # CHAR(4000) pieces are padded: only the last one's padding is not part of the text
        out[qid] = _unescape(
            "".join(p.ljust(_TRUNCATED_AT) if i < len(parts) - 1 else p for i, (_, p) in enumerate(parts)).rstrip()
        )
    return out


def _unescape(text: str) -> str:
    return text.replace("\\n", "\n") if "\n" not in text else text


def read_export(
    path: str,
    harvester: Harvester,
    *,
    texts: dict[str, str] | None = None,
    database: str | None = None,
    since: datetime | None = None,
) -> None:
    """Feed every finished query of the export to ``harvester`` (running/queued ones are skipped)."""
    texts = texts or {}
    for number, row in enumerate(read_rows(path), start=2):
        qid = str(row.get("query_id") or "").strip()
        status = str(row.get("status") or "success").strip().lower()
        where = f"{path}: row {number - 1}"
        if not qid:
            harvester.skip("row without query_id", where)
            continue
        text = texts.get(qid) or _unescape(str(row.get("query_text") or "").rstrip())
        if (
            not texts.get(qid)
            and len(text) >= _TRUNCATED_AT - 10
            and len(str(row.get("query_text") or "")) >= _TRUNCATED_AT
        ):
            harvester.skip("text cut at 4,000 characters: export SYS_QUERY_TEXT too (--texts)", where)
            continue
        if status not in _FINISHED_OK and status not in _FAILED:
            harvester.skip(f"not finished (status {status})", where)
            continue
        start, end = parse_time(row.get("start_time")), parse_time(row.get("end_time"))
        when = end or start
        if since is not None and when is not None and when < since:
            harvester.skip("before --since", where)
            continue
        details: tuple[tuple[str, Any], ...] = (("queryId", qid),)
        if row.get("query_type"):
            details += (("queryType", str(row["query_type"]).strip()),)
        if row.get("session_id") not in (None, ""):
            details += (("sessionId", str(row["session_id"]).strip()),)
        user = str(row["user_id"]).strip() if row.get("user_id") not in (None, "") else None
        error = str(row.get("error_message") or "").strip() or None
        harvester.add(
            Execution(
                key=f"{qid}:{start.isoformat() if start else ''}",
                sql=text,
                database=(str(row.get("database_name") or "").strip() or database),
                start=start,
                end=end,
                failed=status in _FAILED,
                error=error,
                user=user,
                details=details,
                where=where,
            )
        )


def export_files(paths: list[str]) -> list[str]:
    """Files of the arguments (a folder: its files, as UNLOAD writes several parts)."""
    out: list[str] = []
    for p in paths:
        path = Path(p)
        if path.is_dir():
            out.extend(str(f) for f in sorted(path.iterdir()) if f.is_file() and not f.name.startswith("."))
        else:
            out.append(str(path))
    return out


class Export:
    """The reader of `headwater harvest redshift-export` (:class:`headwater.harvest.loop.StatementReader`): every
    query of the export files, in one pass (the same query always maps to the same events, so no position is kept)."""

    name = "redshift-export"
    source = "redshift"
    dialect = "redshift"
    needs_connection = False
    errors: tuple[type[Exception], ...] = (ExportError, OSError, ValueError)

    def __init__(
        self,
        files: list[str],
        *,
        texts: Sequence[str] = (),
        default_database: str | None = None,
        since: datetime | None = None,
    ) -> None:
        self.files = files
        self.texts = texts
        self.default_database = default_database
        self.since = since

    def read(
        self, conn: DbConnection | None, checkpoint: Checkpoint, harvester: Harvester, *, final: bool
    ) -> Commit | None:
        full = read_texts(export_files(list(self.texts)))
        for path in export_files(self.files):
            read_export(path, harvester, texts=full, database=self.default_database, since=self.since)
        return None
