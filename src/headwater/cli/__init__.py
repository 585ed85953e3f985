"""The ``headwater`` command line.

Each subcommand lives in its own module in this package and exposes a click command
named ``command``; :func:`main` registers every such module it finds, so adding a
subcommand means adding one module and nothing else.
"""

from __future__ import annotations

import importlib
import pkgutil

import click

from headwater import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="headwater")
def cli() -> None:
    """Headwater: self-hosted data lineage built on OpenLineage."""


def _register_commands() -> None:
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        command = getattr(module, "command", None)
        if isinstance(command, click.Command):
            cli.add_command(command)


_register_commands()


def main() -> None:
    cli()
