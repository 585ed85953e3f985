"""The JDBC (Glue-style) variant: load the generated employees into PostgreSQL with psycopg.

``--jdbc postgresql://user:pass@host:port/db`` → the employees go to table ``hr.employees`` in
``db`` (schema ``hr`` created if missing, table replaced), streamed with ``COPY ... FROM STDIN``.
Spark then reads it through ``jdbc:postgresql://host:port/db``; the user and password travel in
environment variables, never on a command line or in the JDBC URL (so never in the lineage).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from headwater.demo.checks import DemoError

SCHEMA = "hr"
TABLE = "employees"
_COPY_CHUNK = 1 << 20

_DDL = f"""
CREATE SCHEMA IF NOT EXISTS {SCHEMA};
DROP TABLE IF EXISTS {SCHEMA}.{TABLE};
CREATE TABLE {SCHEMA}.{TABLE} (
    "EmployeeID"        integer PRIMARY KEY,
    "Name"              text NOT NULL,
    "Department"        text NOT NULL,
    "Role"              text NOT NULL,
    "HireDate"          date NOT NULL,
    "Salary"            numeric(12, 2) NOT NULL,
    "PerformanceRating" integer NOT NULL,
    "Shift"             text NOT NULL,
    "Location"          text NOT NULL
)
"""

JDBC_FORM = "postgresql://user:password@host:5432/database"


@dataclass(frozen=True)
class JdbcTarget:
    host: str
    port: int
    database: str
    user: str
    password: str

    @property
    def jdbc_url(self) -> str:
        return f"jdbc:postgresql://{self.host}:{self.port}/{self.database}"

    @property
    def table(self) -> str:
        return f"{SCHEMA}.{TABLE}"

    @property
    def dataset_namespace(self) -> str:
        """The OpenLineage namespace of the table (naming spec: ``postgres://host:port``)."""
        return f"postgres://{self.host}:{self.port}"

    @property
    def dataset_name(self) -> str:
        """The OpenLineage name of the table (naming spec: ``database.schema.table``)."""
        return f"{self.database}.{SCHEMA}.{TABLE}"

    def conninfo(self) -> str:
        from psycopg.conninfo import make_conninfo

        return make_conninfo(
            host=self.host, port=self.port, dbname=self.database, user=self.user, password=self.password
        )


def parse_jdbc(url: str, option: str = "--jdbc") -> JdbcTarget:
    """Parse ``--jdbc`` (or ``option``); a clear error naming the expected form when it is not a PostgreSQL URL."""
    parts = urlsplit(url)
    if parts.scheme not in ("postgresql", "postgres"):
        raise DemoError(f"{option} must be a PostgreSQL URL like {JDBC_FORM}, got scheme {parts.scheme!r} in {url!r}")
    database = parts.path.lstrip("/")
    if not parts.hostname or not database or "/" in database:
        raise DemoError(f"{option} must name a host and a database, like {JDBC_FORM}; got {url!r}")
    try:
        port = parts.port or 5432
    except ValueError:
        raise DemoError(f"{option} has a bad port in {url!r}; expected {JDBC_FORM}") from None
    return JdbcTarget(
        parts.hostname, port, unquote(database), unquote(parts.username or ""), unquote(parts.password or "")
    )


def load_employees(target: JdbcTarget, employees_csv: Path) -> int:
    """Replace ``hr.employees`` with the rows of ``employees_csv``; returns the number of rows loaded."""
    try:
        import psycopg
    except ImportError:
        raise DemoError(
            "the --jdbc variant needs the PostgreSQL driver psycopg: pip install 'headwater[postgres]'"
        ) from None
    try:
        with psycopg.connect(target.conninfo(), connect_timeout=10) as conn:
            conn.execute(_DDL)
            with conn.cursor() as cur:
                with cur.copy(f"COPY {SCHEMA}.{TABLE} FROM STDIN WITH (FORMAT csv, HEADER true)") as copy:
                    with employees_csv.open("rb") as fh:
                        while chunk := fh.read(_COPY_CHUNK):
                            copy.write(chunk)
                rows = cur.rowcount
    except psycopg.Error as exc:
        raise DemoError(
            f"could not load the employees into PostgreSQL at {target.host}:{target.port}/{target.database} "
            f"as user {target.user!r}: {str(exc).strip()}"
        ) from None
    return rows
