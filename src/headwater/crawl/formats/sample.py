"""Reading the start of a text file (CSV, JSON): the sample schema inference looks at."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fsspec import AbstractFileSystem

from headwater.crawl.limits import Limits


def read_sample(fs: AbstractFileSystem, path: str, limits: Limits) -> tuple[str, bool]:
    """At most ``sample_bytes`` of a text file, decoded (compression by file name); True when cut short."""
    with fs.open(path, "rb", compression="infer") as handle:
        raw = handle.read(limits.sample_bytes + 1)
    truncated = len(raw) > limits.sample_bytes
    raw = raw[: limits.sample_bytes]
    if truncated:  # drop the partial last line (and a partial UTF-8 sequence with it)
        cut = raw.rfind(b"\n")
        raw = raw[: cut + 1] if cut >= 0 else raw
    try:
        return raw.decode("utf-8-sig"), truncated
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 text (byte {exc.start})") from None
