"""``--warehouse postgresql://...``: job 2 publishes employee_compensation to PostgreSQL, then a SQL summary.

- Before the jobs: the database is checked and schema ``hr`` created (Spark's JDBC writer creates the
  table, not its schema).
- Job 2 (under ``headwater run``, so captured) reads back the Parquet table it wrote and writes it over
  JDBC to ``hr.employee_compensation`` (replaced on every run).
- Then the demo runs, in PostgreSQL itself (psycopg), ``CREATE TABLE hr.compensation_by_department AS
  SELECT ...`` (the previous summary dropped first), and turns the statement it ran into lineage with the
  SQL engine (``headwater.sql.script_events``), the columns of ``hr.employee_compensation`` read from the
  Headwater server (what Spark reported), sent through ``headwater.client``.

Dataset names: Spark names the JDBC table ``postgres://<host>:<port>`` / ``<db>.hr.employee_compensation``
from its JDBC URL; the SQL engine names the tables of its statement from
``headwater.model.naming.database_namespace(<the same URL>)``: both come from the one ``--warehouse``
URL, so the host name is the same and the table is one node.
"""

from __future__ import annotations

from collections.abc import Sequence

from headwater.client import SendError, dataset_fields, open_client
from headwater.demo.checks import DemoError
from headwater.demo.jdbc import JdbcTarget, parse_jdbc
from headwater.model.naming import database_namespace, sql_table_dataset
from headwater.model.nodeid import format_node_id

SCHEMA = "hr"
TABLE = "employee_compensation"  # written by job 2 over JDBC
SUMMARY = "compensation_by_department"  # made by the demo's SQL statement

SUMMARY_SQL = f"""CREATE TABLE {SCHEMA}.{SUMMARY} AS
SELECT "Department",
       count(*)                             AS "Employees",
       sum("BaseSalary")                    AS "TotalBaseSalary",
       sum("TotalBonuses")                  AS "TotalBonuses",
       sum("TotalCompensation")             AS "TotalCompensation",
       round(avg("TotalCompensation"), 2)   AS "AverageCompensation"
FROM {SCHEMA}.{TABLE}
GROUP BY "Department"
"""


def parse_warehouse(url: str) -> JdbcTarget:
    return parse_jdbc(url, option="--warehouse")


def publish_args(target: JdbcTarget) -> list[str]:
    """Job 2's extra arguments: write employee_compensation to the warehouse over JDBC."""
    return ["--jdbc-url", target.jdbc_url, "--jdbc-table", f"{SCHEMA}.{TABLE}"]


def publish_env(target: JdbcTarget) -> dict[str, str]:
    return {"HR_JDBC_USER": target.user, "HR_JDBC_PASSWORD": target.password}


def _url(target: JdbcTarget) -> str:
    """The warehouse as a database URL without credentials: what the names are made from (host as given)."""
    return f"postgresql://{target.host}:{target.port}/{target.database}"


def dataset(target: JdbcTarget, table: str) -> tuple[str, str]:
    """(namespace, name) of a table of schema ``hr`` in the warehouse, as the SQL engine and Spark name it."""
    namespace, database = database_namespace(_url(target))
    return namespace, sql_table_dataset(namespace, (SCHEMA, table), default_database=database)[1]


def node_id(target: JdbcTarget, table: str) -> str:
    return format_node_id("dataset", *dataset(target, table))


def _connect(target: JdbcTarget):  # type: ignore[no-untyped-def]
    try:
        import psycopg
    except ImportError:
        raise DemoError(
            "the --warehouse variant needs the PostgreSQL driver psycopg: pip install 'headwater[postgres]'"
        ) from None
    try:
        return psycopg.connect(target.conninfo(), connect_timeout=10)
    except psycopg.Error as exc:
        raise DemoError(
            f"could not connect to the warehouse PostgreSQL at {target.host}:{target.port}/{target.database} "
            f"as user {target.user!r}: {str(exc).strip()}"
        ) from None


def prepare(target: JdbcTarget) -> None:
    """Check the database answers and create schema ``hr`` (before any Spark job runs)."""
    import psycopg

    with _connect(target) as conn:
        try:
            conn.execute(f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}")
        except psycopg.Error as exc:
            raise DemoError(f"could not create schema {SCHEMA} in the warehouse: {str(exc).strip()}") from None


def summarise(target: JdbcTarget, server_url: str) -> tuple[int, Sequence[dict[str, object]]]:
    """Run :data:`SUMMARY_SQL` in PostgreSQL and send its lineage; returns (rows made, the events sent)."""
    import psycopg

    with _connect(target) as conn:
        try:
            conn.execute(f"DROP TABLE IF EXISTS {SCHEMA}.{SUMMARY}")
            rows = conn.execute(SUMMARY_SQL).rowcount
        except psycopg.Error as exc:
            raise DemoError(f"the summary statement failed in PostgreSQL: {str(exc).strip()}") from None
    events = summary_events(target, server_url)
    try:
        with open_client(url=server_url) as client:
            client.send(events)
    except SendError as exc:
        raise DemoError(f"the summary's lineage could not be sent to {server_url}: {exc}") from None
    return rows, events


def summary_events(target: JdbcTarget, server_url: str) -> list[dict[str, object]]:
    """The statement the demo ran, as OpenLineage events from the SQL engine (one COMPLETE event).

    Its input's columns come from the Headwater server, which knows them from job 2's JDBC write.
    """
    from headwater.sql import Catalog, script_events

    namespace, database = database_namespace(_url(target))

    def from_headwater(ns: str, name: str) -> list[tuple[str, str | None]] | None:
        return dataset_fields(server_url, ns, name)

    events = script_events(
        SUMMARY_SQL,
        dialect="postgres",
        namespace=namespace,
        default_database=database,
        catalog=Catalog(providers=[from_headwater], namespace=namespace),
    )
    problems = [e for e in events if "extractionError" in (e.get("run", {}).get("facets") or {})]
    if not events or problems:
        raise DemoError(f"the SQL engine could not read the summary statement: {problems or 'no event'}")
    return events
