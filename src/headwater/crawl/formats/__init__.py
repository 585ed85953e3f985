"""Schema inference, one module per file format: ``infer(fs, path, limits) -> FileSchema``.

Each reads as little as it can: Parquet, ORC and Avro schemas come from the file's metadata
(pyarrow/fastavro, no data read); CSV and JSON read a sample of at most ``limits.sample_bytes``
bytes and ``limits.sample_rows`` rows. A file a format cannot read raises an exception: the
crawler reports the file as skipped with the exception's message and goes on.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from headwater.crawl.limits import Limits
from headwater.crawl.model import FileSchema

Infer = Callable[[Any, str, Limits], FileSchema]

# file name endings → format; compressed text (.gz, .bz2, ...) is read through fsspec's compression
EXTENSIONS: dict[str, str] = {
    ".csv": "csv",
    ".tsv": "csv",
    ".psv": "csv",
    ".json": "json",
    ".jsonl": "json",
    ".ndjson": "json",
    ".parquet": "parquet",
    ".parq": "parquet",
    ".pq": "parquet",
    ".orc": "orc",
    ".avro": "avro",
}
COMPRESSIONS = (".gz", ".bz2", ".xz", ".zst")
_MAGIC = ((b"PAR1", "parquet"), (b"ORC", "orc"), (b"Obj\x01", "avro"))


def format_of(path: str) -> str | None:
    """The format a file's name says (``a.csv.gz`` → csv), or None."""
    name = path.rsplit("/", 1)[-1].lower()
    for ending in COMPRESSIONS:
        if name.endswith(ending):
            name = name[: -len(ending)]
            break
    dot = name.rfind(".")
    return EXTENSIONS.get(name[dot:]) if dot > 0 else None


def sniff_format(head: bytes) -> str | None:
    """A file without a known ending: its first bytes (Parquet, ORC and Avro magic; JSON's ``{``/``[``)."""
    for magic, fmt in _MAGIC:
        if head.startswith(magic):
            return fmt
    text = head.lstrip()
    if text[:1] in (b"{", b"["):
        return "json"
    return None


def infer_function(fmt: str) -> Infer:
    if fmt == "csv":
        from headwater.crawl.formats.csv import infer
    elif fmt == "json":
        from headwater.crawl.formats.jsonl import infer
    elif fmt == "parquet":
        from headwater.crawl.formats.parquet import infer
    elif fmt == "orc":
        from headwater.crawl.formats.orc import infer
    elif fmt == "avro":
        from headwater.crawl.formats.avro import infer
    else:
        raise ValueError(f"unknown format {fmt!r}")
    return infer
