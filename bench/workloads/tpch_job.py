"""The SQL workload: the TPC-H-like tables as temporary views, then each query written as Parquet.

python tpch_job.py --tables <dir> --output <dir> [--queries 20]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import probe
from tpch_data import TABLES
from tpch_queries import QUERIES


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", required=True)
    parser.add_argument("--output", required=True)
    parser.add_argument("--queries", type=int, default=len(QUERIES))
    args = parser.parse_args()
    probe.install()

    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.appName("bench_tpch_sql")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "8")
        .getOrCreate()
    )
    for table in TABLES:
        spark.read.parquet(str(Path(args.tables) / table)).createOrReplaceTempView(table)
    for name, sql in QUERIES[: args.queries]:
        started = time.perf_counter()
        spark.sql(sql).write.mode("overwrite").parquet(str(Path(args.output) / name))
        probe.mark(name, time.perf_counter() - started)
    spark.stop()


if __name__ == "__main__":
    main()
