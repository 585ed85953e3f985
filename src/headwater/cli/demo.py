"""``headwater demo``: the HR payroll pipeline end to end — server, sample data, two PySpark jobs, lineage."""

from __future__ import annotations

import signal
from pathlib import Path
from types import FrameType

import click
from rich.console import Console

from headwater.demo import projects as demo_projects
from headwater.demo.data import DEFAULT_DAYS, DEFAULT_EMPLOYEES, DEFAULT_SEED
from headwater.demo.runner import DEFAULT_DATA_DIR, DemoConfig, DemoError, run_demo


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def _interrupt_on_signals() -> None:
    """Ctrl-C and ``kill`` (SIGTERM) both stop the demo the same way: jobs and server are stopped, not orphaned.

    SIGINT is set explicitly because a shell starts background commands with SIGINT ignored.
    """
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _interrupt)


@click.command("demo")
@click.option(
    "--data-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=DEFAULT_DATA_DIR,
    show_default=True,
    help="Folder for the demo's store, sample data, tables and logs.",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface the demo's server listens on.")
@click.option("--port", type=int, default=5000, show_default=True, help="Port the demo's server listens on.")
@click.option("--url", default=None, help="Send the lineage to this running Headwater server instead of starting one.")
@click.option(
    "--rows",
    type=click.IntRange(min=1),
    default=DEFAULT_EMPLOYEES,
    show_default=True,
    help="Number of employees to generate (attendance has --days rows per employee).",
)
@click.option(
    "--days",
    type=click.IntRange(min=1),
    default=DEFAULT_DAYS,
    show_default=True,
    help="Working days of attendance per employee.",
)
@click.option("--seed", type=int, default=DEFAULT_SEED, show_default=True, help="Seed of the sample data.")
@click.option(
    "--jdbc",
    default=None,
    metavar="postgresql://user:pass@host:port/db",
    help="Run the JDBC (Glue-style) variant: load the employees into this PostgreSQL database and read them from there.",
)
@click.option(
    "--warehouse",
    default=None,
    metavar="postgresql://user:pass@host:port/db",
    help="Also publish employee_compensation to this PostgreSQL database from job 2 (JDBC) and "
    "summarise it by department there with SQL, lineage included.",
)
@click.option(
    "--catalog/--no-catalog",
    default=None,
    help="Make the demo's catalog: domain people, producer project payroll publishing employee_compensation, "
    "consumer project finance subscribed, and print their sign-in tokens. Default: on when the demo starts "
    "its own server (whose readers see the demo's projects: setting public_projects), off with --url.",
)
@click.option(
    "--serve/--no-serve",
    default=True,
    show_default=True,
    help="Keep the server running after the jobs (until Ctrl-C), or exit.",
)
def command(
    data_dir: Path,
    host: str,
    port: int,
    url: str | None,
    rows: int,
    days: int,
    seed: int,
    jdbc: str | None,
    warehouse: str | None,
    catalog: bool | None,
    serve: bool,
) -> None:
    """Run the HR payroll pipeline with lineage captured, then show it in the web UI.

    Starts a Headwater server on the embedded store, generates the HR sample data, crawls its
    landing folder into catalog tables, runs two plain PySpark jobs under `headwater run`, adds a
    column to employees.csv and crawls again, and prints the link to the lineage of
    employee_compensation (and to the crawled table's History).
    """
    _interrupt_on_signals()
    console = Console(highlight=False)
    config = DemoConfig(
        data_dir=data_dir,
        host=host,
        port=port,
        url=url,
        employees=rows,
        days=days,
        seed=seed,
        jdbc=jdbc,
        warehouse=warehouse,
        catalog=catalog,
    )
    try:
        result = run_demo(config, console)
    except DemoError as exc:
        console.print(f"[bold red]headwater demo:[/] {exc}", soft_wrap=True)
        raise SystemExit(1) from None
    except KeyboardInterrupt:
        console.print("stopped.")
        raise SystemExit(130) from None

    console.print()
    console.print("[bold]The lineage of employee_compensation:[/]", soft_wrap=True)
    console.print(f"    {result.page_url}", soft_wrap=True, markup=False)
    for what, link in result.links:
        console.print(f"[bold]{what}[/]", soft_wrap=True)
        console.print(f"    {link}", soft_wrap=True, markup=False)
    if result.catalog is not None:
        console.print(f"[bold]The catalog:[/] {result.server.url}/catalog — Sign in with a token:", soft_wrap=True)
        for user, role in demo_projects.ROLES:
            token = result.catalog.tokens[user]
            console.print(f"    {role}: {token}", soft_wrap=True, markup=False)
    if result.server.process is None or not serve:
        result.server.stop()
        return
    console.print(f"Headwater is serving at {result.server.url} — press Ctrl-C to stop.", soft_wrap=True)
    try:
        code = result.server.wait()
    except KeyboardInterrupt:
        result.server.stop()
        console.print("Headwater stopped.")
        return
    raise SystemExit(f"the Headwater server stopped unexpectedly (exit code {code}); see {result.server.log_path}")
