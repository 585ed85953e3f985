"""``headwater connect-server``: a Spark Connect server whose driver is tracked (a drop-in for
``start-connect-server.sh``).

Examples::

    headwater connect-server                                   # local[*], port 15002
    headwater connect-server --port 15003 --master local[4] --conf spark.openlineage.namespace=analytics
    headwater connect-server --url http://lineage:5000 --master yarn --deploy-mode client --executor-memory 4g

Everything after the options is passed to ``spark-submit`` as it is (``--master``, ``--conf``, ``--jars``,
``--packages``...). The server runs in the foreground; stop it with Ctrl-C or SIGTERM. Clients connect as to any
Connect server (``SparkSession.builder.remote("sc://host:15002")``) and need nothing of Headwater.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import click

from headwater.cli.run import build_environment, options_to_conf

PLUGIN = "org.apache.spark.sql.connect.SparkConnectPlugin"


def spark_submit() -> str | None:
    """``spark-submit`` of ``$SPARK_HOME``, else of the installed PySpark, else from ``PATH``."""
    candidates = []
    if os.environ.get("SPARK_HOME"):
        candidates.append(Path(os.environ["SPARK_HOME"]) / "bin" / "spark-submit")
    try:
        import pyspark

        candidates.append(Path(pyspark.__file__).parent / "bin" / "spark-submit")
    except ImportError:
        pass
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return shutil.which("spark-submit")


def submit_arguments(program: str, driver: str, port: int, passed: list[str]) -> list[str]:
    """The ``spark-submit`` command line: the Connect plugin and port, then what the user passed, then the driver."""
    args = [program, "--name", "Spark Connect server", "--conf", f"spark.plugins={PLUGIN}"]
    args += ["--conf", f"spark.connect.grpc.binding.port={port}"]
    if not any(a == "--master" or a.startswith("--master=") for a in passed):
        args += ["--master", "local[*]"]
    return [*args, *passed, driver]


@click.command(name="connect-server", context_settings={"ignore_unknown_options": True})
@click.option("--port", type=click.IntRange(0, 65535), default=15002, show_default=True, help="The gRPC port.")
@click.option("--url", help="Headwater (or any OpenLineage HTTP) server to send to [default: http://127.0.0.1:5000].")
@click.option("--namespace", help="Job namespace (spark.openlineage.namespace) [default: default].")
@click.option(
    "--spool-dir", type=click.Path(file_okay=False), help="Where undelivered events wait [default: <data dir>/spool]."
)
@click.argument("spark_submit_options", nargs=-1, type=click.UNPROCESSED)
def command(
    port: int, url: str | None, namespace: str | None, spool_dir: str | None, spark_submit_options: tuple[str, ...]
) -> None:
    """Start a Spark Connect server whose driver is tracked; SPARK_SUBMIT_OPTIONS go to spark-submit."""
    program = spark_submit()
    if program is None:
        raise click.UsageError("spark-submit not found: install PySpark 3.5+ or set SPARK_HOME")
    conf = options_to_conf(namespace=namespace, spool_dir=spool_dir, url=url, transport="http" if url else None)
    from headwater.capture import connect_server

    argv = submit_arguments(program, connect_server.__file__, port, list(spark_submit_options))
    env = build_environment(os.environ, url=url, conf=conf, command=argv, python=sys.executable)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(program, argv, env)
