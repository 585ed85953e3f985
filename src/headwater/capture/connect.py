"""Spark Connect detection.

A Spark Connect session (``SparkSession.builder.remote("sc://...")``, ``SPARK_REMOTE``,
``spark.api.mode=connect``) runs its plans in a server JVM the Python process cannot reach through
py4j, so the agent cannot listen to it. The agent detects such sessions and says so once, clearly;
capture for Spark Connect belongs on the server (the OpenLineage Spark listener added to the Connect
server's ``spark.extraListeners``), see docs/capture.md.
"""

from __future__ import annotations

from typing import Any

CONNECT_MESSAGE = (
    "headwater: this is a Spark Connect session ({kind}); lineage capture is not available for Spark Connect "
    "because the query plans live in the Connect server's JVM. Capture on the server instead: start the Spark "
    "Connect server with the OpenLineage Spark listener (spark.extraListeners=io.openlineage.spark.agent."
    "OpenLineageSparkListener, spark.openlineage.transport.url=<your Headwater URL>), or run this job as a classic "
    "PySpark session under `headwater run`."
)


def is_connect_session(spark: Any) -> bool:
    """True for a Spark Connect session object, False for a classic (py4j) one."""
    module = type(spark).__module__ or ""
    if module.startswith("pyspark.sql.connect"):
        return True
    if getattr(spark, "_jsparkSession", None) is not None:
        return False
    # a Connect-style object: a client to a remote server and no JVM session
    return hasattr(spark, "client") and not hasattr(spark, "_jvm")


def describe(spark: Any) -> str:
    return f"{type(spark).__module__}.{type(spark).__qualname__}"
