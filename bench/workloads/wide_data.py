"""Input of the wide job: a deterministic Parquet table of ``columns`` numeric columns ``c0 … c{n-1}``."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def generate(spark: Any, out: Path, *, rows: int, columns: int = 500) -> None:
    from pyspark.sql import functions as F

    base = spark.range(rows)
    cols = [
        (
            F.pmod(F.xxhash64(F.col("id"), F.lit(i)), F.lit(1000))
            if i % 2 == 0
            else F.pmod(F.xxhash64(F.col("id"), F.lit(i)), F.lit(100000)) / F.lit(100.0)
        ).alias(f"c{i}")
        for i in range(columns)
    ]
    base.select(*cols).coalesce(2).write.mode("overwrite").parquet(str(out))
