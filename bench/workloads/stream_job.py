"""The streaming job: a Structured Streaming query over a folder of JSON files, one file per micro-batch,
written as Parquet with a checkpoint, run to the end of its input.

    python stream_job.py --input <folder of JSON files> --output <dir> --checkpoint <dir>

``maxFilesPerTrigger=1`` with ``trigger(availableNow=True)`` makes the micro-batches fixed: one per input file,
each of the same size, whatever the machine's speed (a processing-time trigger would batch by wall time, so
tracked and untracked runs would do different work). Output and checkpoint are cleared first, so every run
processes every file. Run by ``bench/capture_overhead.py`` with and without the agent.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import probe


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--input", required=True)
    parser.add_argument("--output", required=True)
    parser.add_argument("--checkpoint", required=True)
    args = parser.parse_args()
    for stale in (args.output, args.checkpoint):
        shutil.rmtree(stale, ignore_errors=True)
    probe.install()

    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.appName("bench_stream_job")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .getOrCreate()
    )
    started = time.perf_counter()
    query = (
        spark.readStream.schema("id LONG, name STRING, amount DOUBLE, region STRING")
        .option("maxFilesPerTrigger", 1)
        .json(args.input)
        .where("amount > 0")
        .selectExpr("id", "upper(name) AS name", "round(amount * 1.2, 2) AS gross", "region")
        .writeStream.format("parquet")
        .option("path", args.output)
        .option("checkpointLocation", args.checkpoint)
        .queryName("bench_stream")
        .trigger(availableNow=True)
        .start()
    )
    query.awaitTermination()
    probe.mark("stream", time.perf_counter() - started)
    batches = sum(1 for p in query.recentProgress if p["numInputRows"] > 0)
    probe.mark("batches_with_rows", float(batches))  # a count, kept with the timings: every run must do all
    spark.stop()


if __name__ == "__main__":
    main()
