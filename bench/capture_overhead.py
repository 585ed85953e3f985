"""What lineage capture costs a PySpark job: the same job, untracked and tracked, in one local[2] session.

    python bench/capture_overhead.py [--rounds 5] [--columns 50] [--backend up|down|hang]

Each round writes a DataFrame with ``--columns`` derived columns (a withColumn chain) to Parquet and
reads it back, once with no tracker and once tracked (events to a tiny HTTP sink on 127.0.0.1 that
answers 201, refuses connections, or hangs). It prints the median action time of both, the time the
listener spent per execution (snapshot on Spark's listener thread, off the job's path) and the agent's
delivery stats. Capture is asynchronous to the job, so the difference should be noise.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from threading import Thread
from typing import Any


def sink(mode: str) -> tuple[str, Any]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if mode == "hang":
                time.sleep(30)
            self.send_response(201)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    if mode == "down":
        server.shutdown()
        server.server_close()
    return url, server


def job(spark: Any, out: Path, columns: int) -> float:
    from pyspark.sql import functions as F

    started = time.perf_counter()
    df = spark.range(20_000).withColumn("v", F.col("id") * 2)
    for i in range(columns):
        df = df.withColumn(f"c{i}", F.col("v") + i)
    df.write.mode("overwrite").parquet(str(out))
    spark.read.parquet(str(out)).count()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--columns", type=int, default=50)
    parser.add_argument("--backend", choices=["up", "down", "hang"], default="up")
    args = parser.parse_args()

    from pyspark.sql import SparkSession

    from headwater.capture import track

    spark = (SparkSession.builder.master("local[2]").appName("capture_overhead")
             .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    url, _server = sink(args.backend)
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        job(spark, base / "warmup", args.columns)
        plain, tracked = [], []
        tracker = None
        for r in range(args.rounds):
            plain.append(job(spark, base / f"plain{r}", args.columns))
            tracker = track(spark, conf={"spark.openlineage.transport.type": "http",
                                         "spark.openlineage.transport.url": url,
                                         "spark.openlineage.transport.timeoutInMillis": "2000",
                                         "spark.headwater.spool.dir": str(base / "spool"),
                                         "spark.headwater.flushTimeoutSeconds": "3"})
            tracked.append(job(spark, base / f"tracked{r}", args.columns))
            stop_started = time.perf_counter()
            if tracker is not None:
                tracker.stop()
            stop_took = time.perf_counter() - stop_started
        print(f"backend {args.backend}, {args.columns} derived columns, {args.rounds} rounds")
        print(f"  median job time untracked: {statistics.median(plain):.3f} s")
        print(f"  median job time tracked:   {statistics.median(tracked):.3f} s")
        print(f"  last tracker.stop() (flush at end): {stop_took:.3f} s")
        if tracker is not None:
            print(f"  delivery: {tracker.stats}")
    spark.stop()
    sys.exit(0)


if __name__ == "__main__":
    main()
