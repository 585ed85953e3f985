"""The wide job: read a 500-column Parquet table, 200 ``withColumn`` steps, write the result once.

    python wide_job.py --input <parquet dir> --output <dir> [--steps 200]

Steps cycle through the kinds of derived columns real jobs add (arithmetic over two columns, CASE WHEN,
coalesce, casts, string functions, a hash, replacing an existing column), so the optimized plan is one
Project of ~650 expressions over the scan. Run by ``bench/capture_overhead.py`` with and without the agent.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import probe


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--input", required=True)
    parser.add_argument("--output", required=True)
    parser.add_argument("--steps", type=int, default=200)
    args = parser.parse_args()
    probe.install()

    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    spark = (
        SparkSession.builder.appName("bench_wide_job")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .getOrCreate()
    )
    started = time.perf_counter()
    df = spark.read.parquet(args.input)
    width = len(df.columns)
    for i in range(args.steps):
        a, b = f"c{(i * 7) % width}", f"c{(i * 13 + 1) % width}"
        kind = i % 6
        if kind == 0:
            df = df.withColumn(f"d{i}", F.col(a) * 2 + F.col(b))
        elif kind == 1:
            df = df.withColumn(f"d{i}", F.when(F.col(a) > F.col(b), F.col(a)).otherwise(F.col(b) - 1))
        elif kind == 2:
            df = df.withColumn(f"d{i}", F.coalesce(F.col(a), F.col(b), F.lit(0)).cast("double"))
        elif kind == 3:
            df = df.withColumn(f"d{i}", F.concat_ws("-", F.col(a).cast("string"), F.col(b).cast("string")))
        elif kind == 4:
            df = df.withColumn(f"d{i}", F.xxhash64(F.col(a), F.col(b)))
        else:
            df = df.withColumn(a, F.col(a) + F.col(b))  # replace an existing column
    built = time.perf_counter()
    df.write.mode("overwrite").parquet(args.output)
    probe.mark("build_plan", built - started)
    probe.mark("write", time.perf_counter() - built)
    spark.stop()


if __name__ == "__main__":
    main()
