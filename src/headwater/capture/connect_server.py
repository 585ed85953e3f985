"""The driver program of ``headwater connect-server``: a Spark Connect server whose driver is tracked.

``spark-submit`` runs this file as a PySpark application with ``spark.plugins`` set to Spark's
``SparkConnectPlugin`` (what ``start-connect-server.sh``'s ``SparkConnectServer`` class starts too): creating the
session starts the Connect server in this driver; :func:`headwater.capture.track` then tracks it (the tracker of
a Connect server hears every client session's executions: :mod:`headwater.capture.connect`). The program waits
until it is told to stop (SIGTERM, SIGINT, or the SparkContext stopping) and then stops Spark, which ends the
server's application run and every open session's run.
"""

from __future__ import annotations

import signal
import sys
import threading
from typing import Any


def main() -> int:
    from pyspark.sql import SparkSession

    from headwater.capture import track
    from headwater.capture.bootstrap import conf_defaults

    spark = SparkSession.builder.getOrCreate()
    tracker = track(spark, defaults=conf_defaults())
    port = spark.sparkContext.getConf().get("spark.connect.grpc.binding.port", "15002")
    sys.stderr.write(
        f"headwater: Spark Connect server listening on port {port}"
        f"{'' if tracker is None else ', lineage captured'} (stop with SIGTERM or Ctrl-C)\n"
    )
    sys.stderr.flush()
    done = threading.Event()

    def stop(signum: int, frame: Any) -> None:
        done.set()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    sc = spark.sparkContext
    while not done.wait(1.0):
        if sc._jsc is None or sc._jsc.sc().isStopped():
            break
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
