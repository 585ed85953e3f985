"""Events files: one OpenLineage event per line (NDJSON), plain, gzip (``.gz``) or zstd (``.zst``).

:func:`read_lines` yields each line's number and text, streaming (a file of millions of events is never held
whole); :func:`accept_line` gives one line the verdict the HTTP door gives the same text posted as one event
(``POST /api/v1/lineage``: the body size limit, UTF-8, JSON, the limits and the official schema), so a loaded
event is stored as that post would store it (the same text, so the same id) — or a :class:`LineRejected`
naming the line and the reason. Blank lines hold no event and are passed over.
"""

from __future__ import annotations

import gzip
import io
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, cast

import zstandard

from headwater.ingest.accept import Policy, accept
from headwater.ingest.errors import IngestError
from headwater.ingest.parse import ParsedEvent
from headwater.spec import EventValidator


@dataclass(frozen=True)
class LineRejected:
    """A line that holds no acceptable event: its number (1-based), why (as the HTTP door words it), and the
    error code of docs/api.md (``invalid_json``, ``invalid_event``, ``payload_too_large``, ``bad_encoding``)."""

    line: int
    code: str
    reason: str


def open_events_file(path: Path) -> IO[bytes]:
    """The file's bytes, decompressed by its suffix: ``.gz`` gzip, ``.zst`` zstd, anything else as it is;
    buffered, so it is read line by line."""
    if path.suffix == ".gz":
        return cast("IO[bytes]", gzip.open(path, "rb"))
    if path.suffix in (".zst", ".zstd"):
        reader = zstandard.ZstdDecompressor().stream_reader(path.open("rb"), closefd=True)
        return cast("IO[bytes]", io.BufferedReader(cast("io.RawIOBase", reader)))  # zstd's reader is a raw stream
    return path.open("rb")


def read_lines(path: Path, start: int = 1) -> Iterator[tuple[int, bytes]]:
    """``(line number, the line's bytes without its end)`` of every non-blank line, from line ``start`` on."""
    with open_events_file(path) as stream:
        for number, line in enumerate(stream, 1):
            if number < start:
                continue
            text = line.rstrip(b"\r\n")
            if text.strip():
                yield number, text


def accept_line(
    number: int, line: bytes, policy: Policy, validator: EventValidator, max_bytes: int
) -> ParsedEvent | LineRejected:
    """One line's event as the HTTP door accepts it posted alone, or why it is rejected."""
    if len(line) > max_bytes:
        return LineRejected(
            number,
            "payload_too_large",
            f"the line is {len(line)} bytes; the limit is {max_bytes} bytes (setting max_body_bytes)",
        )
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        return LineRejected(number, "bad_encoding", f"the line is not UTF-8: {exc.reason} at byte {exc.start}")
    try:
        return accept(text, policy, validator, batch=False)[0]
    except IngestError as err:
        return LineRejected(number, err.code, err.message)
