"""Generate a workload's input once (a separate process; not timed): ``python generate.py tpch|wide OUT [--scale|--rows]``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind", choices=["tpch", "wide"])
    parser.add_argument("out")
    parser.add_argument("--scale", type=float, default=0.1)
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--columns", type=int, default=500)
    args = parser.parse_args()
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[2]")
        .appName("bench_generate")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .getOrCreate()
    )
    out = Path(args.out)
    if args.kind == "tpch":
        import tpch_data

        counts = tpch_data.generate(spark, out, scale=args.scale)
    else:
        import wide_data

        wide_data.generate(spark, out / "input", rows=args.rows, columns=args.columns)
        counts = {"rows": args.rows, "columns": args.columns}
    spark.stop()
    (out / "counts.json").write_text(json.dumps(counts), encoding="utf-8")


if __name__ == "__main__":
    main()
