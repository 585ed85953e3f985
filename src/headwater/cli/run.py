"""``headwater run -- <command>``: run an unmodified PySpark job with lineage captured.

Examples::

    headwater run -- python job.py --date 2026-11-22
    headwater run --url http://lineage:5000 -- spark-submit --master local[2] job.py
    headwater run --transport file --file /tmp/events.ndjson -- python job.py
    headwater run --conf spark.openlineage.namespace=hr -- python job.py

The job's own SparkConf (``spark-submit --conf``, ``.config(...)`` in the script) wins over the options
given here, which are defaults; see docs/capture.md for every key and the lookup order.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Mapping

import click

from headwater.capture.bootstrap import ENV_CAPTURE, ENV_CONF, boot_dir


def build_environment(
    base: Mapping[str, str], *, url: str | None, conf: Mapping[str, str], command: list[str], python: str
) -> dict[str, str]:
    """The child's environment: our sitecustomize first on PYTHONPATH, options in HEADWATER_* variables."""
    env = dict(base)
    paths = [boot_dir()] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
    env[ENV_CAPTURE] = "1"
    if url:
        env["HEADWATER_URL"] = url
    if conf:
        previous = json.loads(env[ENV_CONF]) if env.get(ENV_CONF) else {}
        env[ENV_CONF] = json.dumps({**previous, **conf})
    if os.path.basename(command[0]).startswith(("spark-submit", "pyspark")):
        # the driver must be a Python that can import headwater: this one, unless the user chose another
        env.setdefault("PYSPARK_DRIVER_PYTHON", python)
        env.setdefault("PYSPARK_PYTHON", python)
    return env


def _parse_conf(values: tuple[str, ...]) -> dict[str, str]:
    conf: dict[str, str] = {}
    for item in values:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"expected KEY=VALUE, got {item!r}", param_hint="--conf")
        conf[key.strip()] = value
    return conf


def options_to_conf(
    *,
    confs: tuple[str, ...] = (),
    namespace: str | None = None,
    app_name: str | None = None,
    spool_dir: str | None = None,
    transport: str | None = None,
    file_path: str | None = None,
    url: str | None = None,
) -> dict[str, str]:
    """``headwater run``'s options → SparkConf defaults (``spark.openlineage.*`` / ``spark.headwater.*``)."""
    conf = _parse_conf(confs)
    if namespace:
        conf["spark.openlineage.namespace"] = namespace
    if app_name:
        conf["spark.openlineage.appName"] = app_name
    if spool_dir:
        conf["spark.headwater.spool.dir"] = os.path.abspath(spool_dir)
    if transport:
        conf["spark.openlineage.transport.type"] = transport
        if transport == "http":
            target = url or os.environ.get("HEADWATER_URL") or "http://127.0.0.1:5000"
            conf["spark.openlineage.transport.url"] = target
        elif transport == "file":
            if not file_path:
                raise click.UsageError("--transport file needs --file PATH")
            conf["spark.openlineage.transport.location"] = os.path.abspath(file_path)
    elif file_path:
        raise click.UsageError("--file is only used with --transport file")
    return conf


@click.command(name="run", context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.option(
    "--url",
    help="Headwater (or any OpenLineage HTTP) server to send to when nothing else is configured "
    "[default: http://127.0.0.1:5000].",
)
@click.option("--namespace", help="Job namespace (spark.openlineage.namespace) [default: default].")
@click.option("--app-name", help="Application job name (spark.openlineage.appName) [default: spark.app.name].")
@click.option(
    "--transport",
    type=click.Choice(["http", "file", "console"]),
    help="Transport (spark.openlineage.transport.type); http needs --url, file needs --file.",
)
@click.option("--file", "file_path", type=click.Path(dir_okay=False), help="File for --transport file (NDJSON).")
@click.option(
    "--spool-dir", type=click.Path(file_okay=False), help="Where undelivered events wait [default: <data dir>/spool]."
)
@click.option(
    "--conf",
    "confs",
    multiple=True,
    metavar="KEY=VALUE",
    help="Any spark.openlineage.* / spark.headwater.* key (repeatable).",
)
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
def command(
    url: str | None,
    namespace: str | None,
    app_name: str | None,
    transport: str | None,
    file_path: str | None,
    spool_dir: str | None,
    confs: tuple[str, ...],
    command: tuple[str, ...],
) -> None:
    """Run COMMAND (a PySpark script: `python job.py`, `spark-submit job.py`) with lineage captured."""
    conf = options_to_conf(
        confs=confs,
        namespace=namespace,
        app_name=app_name,
        spool_dir=spool_dir,
        transport=transport,
        file_path=file_path,
        url=url,
    )
    argv = list(command)
    if argv and argv[0] == "--":
        argv = argv[1:]
    if not argv:
        raise click.UsageError("nothing to run: give the command after --, e.g. headwater run -- python job.py")
    program = shutil.which(argv[0])
    if program is None:
        raise click.UsageError(f"command not found: {argv[0]!r} (is it on PATH?)")
    env = build_environment(os.environ, url=url, conf=conf, command=argv, python=sys.executable)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(program, argv, env)
