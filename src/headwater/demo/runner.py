"""``headwater demo`` from start to end: server, data, crawl, the two jobs under ``headwater run``, the catalog, the links.

The data dir holds everything the demo makes (default ``~/.headwater/demo``)::

    <data_dir>/headwater.db                       the embedded store (when the demo starts the server)
    <data_dir>/headwater.events.db                its event log (the store's second file)
    <data_dir>/landing/<table>/<table>.csv        the generated HR sample data, one folder per table
    <data_dir>/crawl-hr-landing.json              the crawler's re-crawl state
    <data_dir>/catalog-tokens.json                the demo's catalog users' sign-in tokens
    <data_dir>/warehouse/employee_attendance      job 1's output (Parquet)
    <data_dir>/warehouse/employee_compensation    job 2's output (Parquet)
    <data_dir>/logs/*.log                         the server's and each job's output
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from headwater.demo import catalog
from headwater.demo import data as sample_data
from headwater.demo import jdbc as jdbc_variant
from headwater.demo import projects as demo_projects
from headwater.demo import server as servers
from headwater.demo import warehouse as warehouse_variant
from headwater.demo.checks import DemoError, find_java
from headwater.demo.jobs import JobRun, pipeline, run_job
from headwater.demo.links import file_dataset_id, history_page_url, lineage_page_url, wait_for_node
from headwater.demo.progress import Steps

DEFAULT_DATA_DIR = Path("~/.headwater/demo")
_AGENT_INFO = ("headwater: capturing lineage",)  # the agent's start-up line; anything else it says is a warning
OUTPUT_TABLES = ("employee_attendance", "employee_compensation")
# the warehouse summary <- SQL <- PostgreSQL table <- publish <- employee_compensation <- job 2 <- employee_attendance
# <- job 1 <- the landing folders
SUMMARY_DEPTH = 8


@dataclass(frozen=True)
class DemoConfig:
    data_dir: Path = DEFAULT_DATA_DIR
    host: str = "127.0.0.1"
    port: int = 5000
    url: str | None = None  # an existing server; None: start one on the embedded store
    employees: int = sample_data.DEFAULT_EMPLOYEES
    days: int = sample_data.DEFAULT_DAYS
    seed: int = sample_data.DEFAULT_SEED
    jdbc: str | None = None  # postgresql://user:pass@host:port/db: run the JDBC (Glue-style) variant
    warehouse: str | None = None  # postgresql://user:pass@host:port/db: publish to it and summarise there
    # make the demo's catalog (demo/projects.py); None: when the demo starts its own server (whose readers
    # see the demo's projects: setting public_projects), not on an existing --url server (it would hide
    # employee_compensation from readers who are not payroll members there)
    catalog: bool | None = None


@dataclass
class DemoResult:
    server: servers.Server
    data: sample_data.GeneratedData
    output_node: str  # node id of employee_compensation
    page_url: str  # its lineage page in the web UI
    jobs: list[JobRun] = field(default_factory=list)
    crawls: list[catalog.Crawled] = field(default_factory=list)  # the first crawl and the re-crawl
    links: list[tuple[str, str]] = field(default_factory=list)  # (what, UI page) beyond page_url
    catalog: demo_projects.DemoCatalog | None = None  # the domain, projects and tokens; None: not made


def _human(n: int) -> str:
    return f"{n:,}"


def run_demo(config: DemoConfig, console: Console) -> DemoResult:
    """Run every step; the server it starts is left running (``result.server``) for the caller to stop.

    Raises :class:`DemoError` with a message that says what to do; the server the demo started is
    stopped before the error propagates.
    """
    data_dir = config.data_dir.expanduser().resolve()
    data_dir.mkdir(parents=True, exist_ok=True)
    target = jdbc_variant.parse_jdbc(config.jdbc) if config.jdbc else None
    dwh = warehouse_variant.parse_warehouse(config.warehouse) if config.warehouse else None
    crawls: list[catalog.Crawled] = []
    links: list[tuple[str, str]] = []
    made_catalog: demo_projects.DemoCatalog | None = None
    server: servers.Server | None = None
    with Steps(console) as steps:
        try:
            with steps.step("Checking Java") as step:
                step.done = str(find_java())

            if config.url:
                with steps.step(f"Connecting to the Headwater server at {config.url}") as step:
                    server = servers.connect(config.url)
            else:
                with steps.step(f"Starting the Headwater server on http://{config.host}:{config.port}") as step:
                    server = servers.start(data_dir, config.host, config.port)
                    step.done = f"store {data_dir / 'headwater.db'}"

            if dwh is not None:
                with steps.step(f"Checking the warehouse PostgreSQL {dwh.host}:{dwh.port}/{dwh.database}") as step:
                    warehouse_variant.prepare(dwh)
                    step.done = f"schema {warehouse_variant.SCHEMA} ready"

            with steps.step(f"Generating the HR sample data ({_human(config.employees)} employees)") as step:
                generated = sample_data.generate(
                    data_dir / "landing",
                    employees=config.employees,
                    days=config.days,
                    seed=config.seed,
                    on_progress=lambda done, total: step.note(f"{done:,}/{total:,}"),
                )
                step.done = (
                    ", ".join(f"{name} {_human(f.rows)}" for name, f in generated.files.items())
                    + f" rows in {generated.out_dir}"
                )

            jdbc_args: list[str] | None = None
            jdbc_env: dict[str, str] = {}
            if target is not None:
                with steps.step(
                    f"Loading the employees into PostgreSQL {target.host}:{target.port}/{target.database}"
                ) as step:
                    rows = jdbc_variant.load_employees(target, generated.path("employees"))
                    step.done = f"table {target.table}, {_human(rows)} rows"
                jdbc_args = ["--jdbc-url", target.jdbc_url, "--jdbc-table", target.table]
                jdbc_env = {"HR_JDBC_USER": target.user, "HR_JDBC_PASSWORD": target.password}

            with steps.step(f"Crawling the landing folder {generated.out_dir}") as step:
                crawls.append(catalog.crawl_landing(generated.out_dir, data_dir, server.url))
                step.done = f"catalog {catalog.CATALOG_DATABASE}: {crawls[-1].describe()}"
            _show_problems(console, crawls[-1])

            publish_args: list[str] | None = None
            publish_env: dict[str, str] = {}
            if dwh is not None:
                publish_args, publish_env = warehouse_variant.publish_args(dwh), warehouse_variant.publish_env(dwh)

            warehouse = data_dir / "warehouse"
            for table in OUTPUT_TABLES:  # a fresh run: saveAsTable refuses a managed table whose folder exists
                shutil.rmtree(warehouse / table, ignore_errors=True)
            runs: list[JobRun] = []
            for job in pipeline(
                generated.out_dir,
                warehouse,
                jdbc_args=jdbc_args,
                jdbc_env=jdbc_env,
                publish_args=publish_args,
                publish_env=publish_env,
            ):
                with steps.step(f"Running {job.title}") as step:
                    step.note("headwater run -- python " + job.script)
                    runs.append(run_job(job, data_dir=data_dir, lineage_url=server.url))
                    step.done = f"log {runs[-1].log_path}"
                for message in runs[-1].agent_messages:
                    mark = "[dim]·[/]" if message.startswith(_AGENT_INFO) else "[yellow]![/]"
                    console.print(f"  {mark} [dim]{escape(message)}[/]", soft_wrap=True, highlight=False)

            output_node = file_dataset_id(warehouse / "employee_compensation")
            with steps.step("Checking the captured lineage") as step:
                try:
                    wait_for_node(server.url, output_node)
                except TimeoutError as exc:
                    said = [m for r in runs for m in r.agent_messages]
                    raise DemoError(
                        f"the jobs ran but their lineage did not reach the server: {exc}\n"
                        + ("The lineage agent said:\n" + "\n".join(f"    {m}" for m in said) + "\n" if said else "")
                        + f"The jobs' logs are in {data_dir / 'logs'}."
                    ) from None
                step.done = output_node

            if config.catalog if config.catalog is not None else config.url is None:
                with steps.step("Setting up the catalog: a domain, a producer and a consumer project") as step:
                    try:
                        made_catalog = demo_projects.set_up(server.url, data_dir, output_node)
                        step.done = made_catalog.describe()
                    except DemoError as exc:  # the lineage is there; an existing server may refuse catalog changes
                        step.done = "skipped"
                        console.print(f"  [yellow]![/] [dim]{escape(str(exc))}[/]", soft_wrap=True, highlight=False)

            if dwh is not None:
                summary_table = f"{warehouse_variant.SCHEMA}.{warehouse_variant.SUMMARY}"
                with steps.step(f"Summarising by department in PostgreSQL: {summary_table}") as step:
                    rows, _events = warehouse_variant.summarise(dwh, server.url)
                    summary_node = warehouse_variant.node_id(dwh, warehouse_variant.SUMMARY)
                    wait_for_node(server.url, summary_node)
                    step.done = f"{rows} departments; lineage of the statement from the SQL engine: {summary_node}"
                links.append(
                    (
                        f"The lineage of the warehouse summary {summary_table}:",
                        lineage_page_url(server.url, summary_node, column="TotalCompensation", depth=SUMMARY_DEPTH),
                    )
                )

            employees_csv = generated.path(catalog.CHANGED_TABLE)
            with steps.step(
                f"Adding the column {sample_data.NEW_EMPLOYEE_COLUMN} to {employees_csv.name} and crawling again"
            ) as step:
                sample_data.add_email_column(employees_csv)
                crawls.append(catalog.crawl_landing(generated.out_dir, data_dir, server.url))
                step.done = f"catalog {catalog.CATALOG_DATABASE}: {crawls[-1].describe()}"
            _show_problems(console, crawls[-1])
            crawled = catalog.catalog_table_id(catalog.CHANGED_TABLE)
            links.append(
                (
                    f"The History of the crawled table {catalog.CATALOG_DATABASE}.{catalog.CHANGED_TABLE} "
                    f"(the column {sample_data.NEW_EMPLOYEE_COLUMN} added by the second crawl):",
                    history_page_url(server.url, crawled),
                )
            )
            links.append(
                (
                    f"The landing folder {catalog.CHANGED_TABLE}/: its crawled table and the Spark jobs reading it:",
                    lineage_page_url(
                        server.url,
                        file_dataset_id(generated.folder(catalog.CHANGED_TABLE)),
                        column=None,
                        depth=SUMMARY_DEPTH,
                    ),
                )
            )
        except BaseException:
            if server is not None:
                server.stop()
            raise
    return DemoResult(
        server, generated, output_node, lineage_page_url(server.url, output_node), runs, crawls, links, made_catalog
    )


def _show_problems(console: Console, crawled: catalog.Crawled) -> None:
    for problem in crawled.problems:
        console.print(f"  [yellow]![/] [dim]crawl: {escape(problem)}[/]", soft_wrap=True, highlight=False)


__all__ = ["DemoConfig", "DemoError", "DemoResult", "run_demo"]
