"""CSV: delimiter sniffing, header detection and column types from a sample."""

from __future__ import annotations

import csv
import io
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fsspec import AbstractFileSystem

from headwater.crawl.formats.sample import read_sample
from headwater.crawl.limits import Limits
from headwater.crawl.model import Column, FileSchema

_INT = re.compile(r"^[+-]?\d+$")
_FLOAT = re.compile(r"^[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$")
_BOOL = frozenset({"true", "false"})
_ORDER = ["boolean", "bigint", "double", "date", "timestamp", "string"]


def value_type(text: str) -> str:
    """The narrowest type one non-empty CSV value fits: boolean, bigint, double, date, timestamp or string."""
    v = text.strip()
    if v.lower() in _BOOL:
        return "boolean"
    if _INT.match(v):
        return "bigint" if -(2**63) <= int(v) < 2**63 else "double"
    if _FLOAT.match(v):
        return "double"
    if _DATE.match(v):
        return "date"
    if _TIMESTAMP.match(v):
        return "timestamp"
    return "string"


def column_type(values: list[str]) -> tuple[str, bool]:
    """The type every non-empty value fits, and whether any value was empty (nullable)."""
    seen = {value_type(v) for v in values if v.strip() != ""}
    nullable = any(v.strip() == "" for v in values) or not seen
    if not seen:
        return "string", True
    if len(seen) == 1:
        return seen.pop(), nullable
    if seen <= {"bigint", "double"}:
        return "double", nullable
    if seen <= {"date", "timestamp"}:
        return "timestamp", nullable
    return "string", nullable


def sniff_dialect(sample: str) -> type[csv.Dialect]:
    try:
        return csv.Sniffer().sniff(sample[:65536], delimiters=",;\t|")
    except csv.Error:
        return csv.excel


def has_header(rows: list[list[str]]) -> bool:
    """As data-lake crawlers decide: the first row is a header when it holds only non-empty text values,
    no duplicates, and the rows below are not all text in every column (or there are no rows below)."""
    first = rows[0]
    if any(v.strip() == "" or value_type(v) != "string" for v in first) or len(set(first)) != len(first):
        return False
    body = rows[1:]
    if not body:
        return True
    width = len(first)
    types = [column_type([r[i] for r in body if i < len(r)])[0] for i in range(width)]
    if any(t != "string" for t in types):
        return True
    # all text: a header when its values never occur in their column below (names, not data)
    return all(first[i] not in {r[i] for r in body if i < len(r)} for i in range(width))


def infer(fs: AbstractFileSystem, path: str, limits: Limits) -> FileSchema:
    text, _truncated = read_sample(fs, path, limits)
    if not text.strip():
        raise ValueError("empty file")
    dialect = sniff_dialect(text)
    rows = [r for r in csv.reader(io.StringIO(text), dialect) if r][: limits.sample_rows + 1]
    header = has_header(rows)
    names = [n.strip() for n in rows[0]] if header else [f"col{i}" for i in range(len(rows[0]))]
    body = rows[1:] if header else rows
    width = max([len(names), *(len(r) for r in body)])
    names += [f"col{i}" for i in range(len(names), width)]
    columns = []
    for i, name in enumerate(names):
        type_, nullable = column_type([r[i] if i < len(r) else "" for r in body])
        columns.append(Column(name, type_, nullable or any(len(r) <= i for r in body)))
    return FileSchema(tuple(columns))
