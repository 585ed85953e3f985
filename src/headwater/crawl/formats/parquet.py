"""Parquet: the schema and row count from the file footer (pyarrow; no data pages read)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fsspec import AbstractFileSystem

from headwater.crawl.limits import Limits
from headwater.crawl.model import FileSchema
from headwater.crawl.types import arrow_columns


def infer(fs: AbstractFileSystem, path: str, limits: Limits) -> FileSchema:
    import pyarrow.parquet as pq

    with fs.open(path, "rb") as handle:
        meta = pq.ParquetFile(handle).metadata
        return FileSchema(arrow_columns(meta.schema.to_arrow_schema()), int(meta.num_rows))
