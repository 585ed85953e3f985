"""ORC: the schema and row count from the file footer (pyarrow; no stripes read)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fsspec import AbstractFileSystem

from headwater.crawl.limits import Limits
from headwater.crawl.model import FileSchema
from headwater.crawl.types import arrow_columns


def infer(fs: AbstractFileSystem, path: str, limits: Limits) -> FileSchema:
    import pyarrow.orc as orc

    with fs.open(path, "rb") as handle:
        reader = orc.ORCFile(handle)
        return FileSchema(arrow_columns(reader.schema), int(reader.nrows))
