"""Real files of every format, written with pyarrow, fastavro and plain text in temporary folders."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import fastavro
import pyarrow as pa
import pyarrow.orc as orc
import pyarrow.parquet as pq


def write_lake(root: Path) -> Path:
    """A small lake: CSV (semicolons), JSON lines with nesting, partitioned Parquet, ORC, Avro, bookkeeping files."""
    (root / "employees").mkdir(parents=True)
    (root / "employees" / "part-1.csv").write_text("id;name;salary;hired\n1;Ann;10.5;2024-01-02\n2;Bob;;2024-02-03\n")
    (root / "employees" / "part-2.csv").write_text("id;name;salary;hired\n3;Cy;7;2024-03-04\n")
    (root / "employees" / "_SUCCESS").write_text("")
    (root / "events").mkdir()
    rows = [
        {"id": 1, "user": {"name": "a", "tags": ["x"]}, "items": [{"sku": "s", "qty": 2}]},
        {"id": 2, "user": None, "items": []},
    ]
    (root / "events" / "e.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    table = pa.table(
        {"order_id": pa.array([1, 2], pa.int64()), "amount": pa.array([1.5, 2.5]), "note": pa.array(["a", None])}
    )
    for year in (2024, 2025):
        folder = root / "orders" / f"year={year}" / "month=01"
        folder.mkdir(parents=True)
        pq.write_table(table, folder / "part-0.parquet")
    (root / "stock").mkdir()
    orc.write_table(
        pa.table({"sku": ["a", "b", "c"], "count": pa.array([1, 2, 3], pa.int32())}), str(root / "stock" / "s.orc")
    )
    write_avro(root / "clicks" / "c.avro", [{"url": "u", "at": 1, "ref": None}])
    return root


AVRO_SCHEMA: dict[str, Any] = {
    "type": "record",
    "name": "Click",
    "fields": [
        {"name": "url", "type": "string"},
        {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "ref", "type": ["null", "string"], "doc": "referrer"},
    ],
}


def write_avro(path: Path, records: list[dict[str, Any]], schema: dict[str, Any] = AVRO_SCHEMA) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as out:
        fastavro.writer(out, fastavro.parse_schema(schema), records)
