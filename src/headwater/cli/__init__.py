"""The ``headwater`` command line.

Each subcommand lives in its own module in this package, named after the command (``-`` spelled ``_``), and exposes a click
command named ``command``: adding a subcommand means adding one module and nothing else.

Modules are imported only when their command runs (or when ``--help`` lists them): ``headwater run``
starts every tracked Spark job, so it must not pay for importing the server, the store and SQLAlchemy
it never uses (click's documented lazy-loading pattern).
"""

from __future__ import annotations

import importlib
import pkgutil

import click

from headwater import __version__


def _command_modules() -> dict[str, str]:
    """Command name → module, found without importing anything (``_private`` modules are not commands; a module
    ``connect_server`` is the command ``connect-server``)."""
    return {
        info.name.replace("_", "-"): f"{__name__}.{info.name}"
        for info in pkgutil.iter_modules(__path__)
        if not info.name.startswith("_")
    }


class LazyGroup(click.Group):
    """A group whose subcommands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *_command_modules()})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        known = super().get_command(ctx, cmd_name)
        if known is not None:
            return known
        module_name = _command_modules().get(cmd_name)
        if module_name is None:
            return None
        command = getattr(importlib.import_module(module_name), "command", None)
        if not isinstance(command, click.Command):
            raise click.ClickException(f"{module_name} defines no click command named `command`")
        if command.name != cmd_name:
            raise click.ClickException(
                f"{module_name} names its command {command.name!r}; it must be named after its module ({cmd_name!r})"
            )
        self.add_command(command)
        return command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="headwater")
def cli() -> None:
    """Headwater: self-hosted data lineage built on OpenLineage."""


def main() -> None:
    cli()
