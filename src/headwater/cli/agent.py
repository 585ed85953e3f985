"""``headwater agent install|uninstall|flush``: the PySpark agent for a whole Python environment.

``install`` writes ``headwater-agent.pth`` into site-packages; Python runs it at every start, and it
turns capture on (``headwater.capture.bootstrap.activate``) only when ``HEADWATER_AUTO=1`` is set, so
the environment behaves exactly as before until you opt in. ``flush`` sends what waits in the spool.
"""

from __future__ import annotations

import os
import sysconfig
from pathlib import Path

import click

PTH_NAME = "headwater-agent.pth"
PTH_LINE = (
    "import os; os.environ.get('HEADWATER_AUTO', '').strip().lower() in ('1', 'true', 'yes') and "
    "__import__('headwater.capture.bootstrap', fromlist=['activate']).activate()\n"
)


def site_dir(target: str | None) -> Path:
    return Path(target) if target else Path(sysconfig.get_paths()["purelib"])


@click.group(name="agent")
def command() -> None:
    """Turn the PySpark agent on for every Spark driver in this Python environment."""


@command.command(name="install")
@click.option(
    "--site-dir",
    "target",
    type=click.Path(file_okay=False),
    help="Site directory to write the .pth file to [default: this environment's site-packages].",
)
def install(target: str | None) -> None:
    """Write the .pth hook (active only when HEADWATER_AUTO=1)."""
    directory = site_dir(target)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / PTH_NAME
    path.write_text(PTH_LINE, encoding="utf-8")
    click.echo(f"installed {path}\nset HEADWATER_AUTO=1 to capture lineage from every SparkSession in this environment")


@command.command(name="uninstall")
@click.option("--site-dir", "target", type=click.Path(file_okay=False), help="Site directory holding the .pth file.")
def uninstall(target: str | None) -> None:
    """Remove the .pth hook."""
    path = site_dir(target) / PTH_NAME
    if path.exists():
        path.unlink()
        click.echo(f"removed {path}")
    else:
        click.echo(f"nothing to remove: {path} does not exist")


@command.command(name="flush")
@click.option("--spool-dir", type=click.Path(file_okay=False), help="Spool directory [default: <data dir>/spool].")
@click.option("--url", help="Send to this server instead of the configured transport.")
def flush(spool_dir: str | None, url: str | None) -> None:
    """Send the events waiting in the spool (left by runs whose backend was down)."""
    from headwater.capture.config import load_config
    from headwater.capture.spool import Spool
    from headwater.capture.transports import build_transport

    conf = {"spark.headwater.spool.dir": os.path.abspath(spool_dir)} if spool_dir else {}
    if url:
        conf.update({"spark.openlineage.transport.type": "http", "spark.openlineage.transport.url": url})
    config = load_config(conf)
    spool = Spool(config.spool_dir, config.spool_max_bytes)
    before = spool.count()
    if not before:
        click.echo(f"the spool at {config.spool_dir} is empty")
        return
    transport = build_transport(config)
    done = spool.drain(transport.emit)  # type: ignore[arg-type]  # spooled events are dicts; transports serialise them with Serde
    left = spool.count()
    click.echo(f"sent {before - left} of {before} spooled events from {config.spool_dir}")
    if not done:
        raise click.ClickException(f"{left} events are still waiting: the backend did not take them")
