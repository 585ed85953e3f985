"""OpenLineage dataset naming (pure): paths, tables and database URLs → ``(namespace, name)``.

The one module that owns dataset naming (the OpenLineage naming spec). Every producer names
datasets here — the PySpark agent, the SQL engine and its harvesters, crawlers, translators of
foreign protocols — so that one table is one node whoever reports it.

- local files: namespace ``file``, name the absolute path;
- object stores and HDFS: namespace ``scheme://authority`` (``s3a://``/``s3n://`` → ``s3://``),
  name the path (without the leading ``/`` for s3/gs/abfss/wasbs, as the naming spec shows);
- partition directories ``k=v`` at the end of a path are folded into the table path;
- JDBC: ``postgres://host:port`` with ``db.schema.table``; ``mysql://host:port`` with ``db.table``
  (MySQL and MariaDB); other JDBC URLs keep their scheme (``sqlserver://host:port``...).
"""

from __future__ import annotations

import os.path
import re
from urllib.parse import unquote, urlsplit

_SCHEME_ALIASES = {"s3a": "s3", "s3n": "s3"}
_OBJECT_STORES = frozenset({"s3", "gs", "abfss", "abfs", "wasbs", "wasb", "oss", "r2"})
_PARTITION = re.compile(r"^[^/=]+=[^/]*$")
_JDBC_DEFAULT_PORTS = {"postgres": 5432, "mysql": 3306, "sqlserver": 1433, "oracle": 1521, "db2": 50000}


_PART_FILE = re.compile(r"^part-\d+.*")


def fold_partitions(path: str) -> str:
    """``/data/t/year=2024/month=01`` → ``/data/t``; a Spark output file ``/data/t/part-00000-...`` → ``/data/t``."""
    parts = path.rstrip("/").split("/")
    if len(parts) > 1 and _PART_FILE.match(parts[-1]):
        parts.pop()
    while len(parts) > 1 and _PARTITION.match(parts[-1]):
        parts.pop()
    return "/".join(parts) or "/"


def path_dataset(uri: str) -> tuple[str, str]:
    """Namespace and name of a file-system location (``file:/x``, ``/x``, ``s3a://b/k``...)."""
    text = uri.strip()
    parts = urlsplit(text)
    scheme = (parts.scheme or "file").lower()
    scheme = _SCHEME_ALIASES.get(scheme, scheme)
    if len(scheme) == 1:  # a Windows drive letter, not a scheme
        scheme, path = "file", text
    else:
        path = unquote(parts.path) or "/"
    path = fold_partitions(path)
    if scheme == "file":
        if not path.startswith("/"):
            path = "/" + path
        return "file", path
    namespace = f"{scheme}://{parts.netloc}" if parts.netloc else scheme
    if scheme in _OBJECT_STORES:
        return namespace, path.lstrip("/") or "/"
    return namespace, path


def jdbc_dataset(url: str, table: str) -> tuple[str, str]:
    """``jdbc:postgresql://h:5432/db?x`` + ``public.t`` → (``postgres://h:5432``, ``db.public.t``)."""
    raw = url[5:] if url.lower().startswith("jdbc:") else url
    raw, _, props = raw.partition(";")  # SQL Server style ";key=value" properties
    parts = urlsplit(raw)
    scheme = parts.scheme.lower()
    kind = {"postgresql": "postgres", "postgres": "postgres", "mysql": "mysql", "mariadb": "mysql"}.get(scheme, scheme)
    host = parts.hostname or "localhost"
    try:
        port = parts.port or _JDBC_DEFAULT_PORTS.get(kind)
    except ValueError:
        port = _JDBC_DEFAULT_PORTS.get(kind)
    namespace = f"{kind}://{host}:{port}" if port else f"{kind}://{host}"
    database = parts.path.strip("/")
    if not database:
        found = re.search(r"(?i)(?:databaseName|database)=([^;]+)", props)
        database = found.group(1) if found else ""
    table_name = _clean_table(table)
    if kind == "postgres":
        if table_name.count(".") == 0:
            table_name = f"public.{table_name}"
        name = f"{database}.{table_name}" if database and table_name.count(".") < 2 else table_name
    elif kind == "mysql":
        name = table_name if "." in table_name or not database else f"{database}.{table_name}"
    else:
        name = f"{database}.{table_name}" if database else table_name
    return namespace, name


def _clean_table(table: str) -> str:
    return ".".join(p.strip().strip('"`[]') for p in table.strip().split("."))


def table_name(database: str | None, table: str) -> str:
    return f"{database}.{table}" if database else table


def sqlalchemy_table_dataset(url: str, schema: str | None, table: str) -> tuple[str, str]:
    """A table reached through a SQLAlchemy URL → ``(namespace, name)`` by the OpenLineage naming spec.

    ``postgresql+psycopg://u:p@h:5432/db`` + ``sales`` + ``orders`` → (``postgres://h:5432``, ``db.sales.orders``)
    (schema ``public`` when none is given); ``mysql+pymysql://h:3306/db`` or ``mariadb://…`` → (``mysql://h:3306``,
    ``db.orders``; a schema is MySQL's database). SQLite has no entry in the naming spec: like the Astro SDK
    (an OpenLineage producer), the name is the database file's path then the table (``/data/app.db.orders``,
    the attached schema between them when it is not ``main``) in namespace ``sqlite://localhost``; an
    in-memory database is ``:memory:``. Other back ends: ``kind://host:port`` + the non-empty parts of
    ``db.schema.table``. Credentials never reach a name.
    """
    parts = urlsplit(url.strip())
    table = _clean_table(table)
    if scheme(url.strip()) == "sqlite":
        raw = unquote(url.strip()[len(parts.scheme) + 1 :])  # "///rel.db", "////abs.db", "//" (memory)
        path = raw[3:] if raw.startswith("///") else raw.lstrip("/")
        path, _, _query = path.partition("?")
        if not path or path == ":memory:":
            path = ":memory:"
        elif not path.startswith("/"):
            path = os.path.abspath(path)
        middle = f".{schema}" if schema and schema != "main" else ""
        return "sqlite://localhost", f"{path}{middle}.{table}"
    namespace, database = database_namespace(url)  # one rule for a database's namespace, SQL and crawler alike
    if namespace_kind(namespace) not in _SQL_LEVELS:  # a system without a naming rule: every part given
        return namespace, ".".join(p for p in (database, schema, table) if p)
    return sql_table_dataset(namespace, [p for p in (schema, table) if p], default_database=database)


CATALOG_NAMESPACE = "headwater"


def catalog_table_dataset(database: str, table: str) -> tuple[str, str]:
    """A table of Headwater's own catalog (what a crawler registers): (``headwater``, ``database.table``).

    The crawler links it to its storage location with a ``symlinks`` facet; the catalog database is the
    crawler's ``--database`` (``default`` unless given).
    """
    return CATALOG_NAMESPACE, f"{database}.{table}"


# --- SQL tables (the SQL engine and its harvesters) ------------------------------------------------------------

# how many name parts a table has in each system (OpenLineage naming spec) and the schema a bare name lives in
_SQL_LEVELS = {
    "postgres": 3,
    "redshift": 3,
    "snowflake": 3,
    "sqlserver": 3,
    "oracle": 3,
    "bigquery": 3,
    "trino": 3,
    "db2": 3,
    "mysql": 2,
    "hive": 2,
    "spark": 2,
}
_SQL_DEFAULT_SCHEMA = {"postgres": "public", "redshift": "public", "sqlserver": "dbo"}
_URL_KINDS = {
    "postgresql": "postgres",
    "postgres": "postgres",
    "psql": "postgres",
    "mysql": "mysql",
    "mariadb": "mysql",
    "redshift": "redshift",
    "sqlserver": "sqlserver",
    "mssql": "sqlserver",
    "oracle": "oracle",
    "snowflake": "snowflake",
    "bigquery": "bigquery",
    "trino": "trino",
    "hive": "hive",
}
_SQL_DEFAULT_PORTS = {**_JDBC_DEFAULT_PORTS, "redshift": 5439, "trino": 8080, "hive": 10000}


def scheme(text: str, *, family: bool = False) -> str:
    """The scheme a dataset namespace or a URL starts with, in lower case, without a SQLAlchemy driver: the text
    before ``://`` (without one, before the first ``:``; all of it without either). ``s3://b`` → ``s3``;
    ``jdbc:sqlserver://h`` → ``jdbc:sqlserver`` (``family``: ``jdbc``); ``postgresql+psycopg://u@h/db`` →
    ``postgresql``; ``file:/x`` → ``file``; ``bigquery`` → ``bigquery``. Every reader of a scheme asks here."""
    head = text.split("://", 1)[0] if "://" in text else text.split(":", 1)[0]
    head = head.lower().split("+", 1)[0]
    return head.split(":", 1)[0] if family else head


def namespace_kind(namespace: str) -> str:
    """The system a dataset namespace names: ``postgres://h:5432`` → ``postgres``; ``bigquery`` → ``bigquery``."""
    found = scheme(namespace)
    return _URL_KINDS.get(found, found)


def database_namespace(url: str) -> tuple[str, str | None]:
    """A database URL or DSN → (dataset namespace, the database it connects to).

    ``postgresql://u:p@h/db`` → (``postgres://h:5432``, ``db``); ``mysql+pymysql://h:3307/db`` →
    (``mysql://h:3307``, ``db``); ``redshift://cluster.region:5439/dev`` → (``redshift://cluster.region:5439``,
    ``dev``); ``jdbc:`` URLs as :func:`jdbc_dataset` reads them; ``bigquery://project`` → (``bigquery``, ``project``).
    The user and password are never part of the namespace.
    """
    raw = url[5:] if url.lower().startswith("jdbc:") else url
    raw = raw.partition(";")[0]
    parts = urlsplit(raw)
    kind = namespace_kind(raw)
    database = unquote(parts.path.strip("/")) or None
    if kind == "bigquery":
        return "bigquery", parts.hostname or database
    if kind == "snowflake":
        return f"snowflake://{(parts.hostname or '').lower()}", database
    host = parts.hostname or "localhost"
    try:
        port = parts.port or _SQL_DEFAULT_PORTS.get(kind)
    except ValueError:
        port = _SQL_DEFAULT_PORTS.get(kind)
    return (f"{kind}://{host}:{port}" if port else f"{kind}://{host}"), database


def sql_table_dataset(
    namespace: str,
    parts: tuple[str, ...] | list[str],
    *,
    default_database: str | None = None,
    default_schema: str | None = None,
) -> tuple[str, str]:
    """A table named in SQL (``parts``: ``(table,)``, ``(schema, table)`` or ``(db, schema, table)``) → the dataset.

    The missing leading parts come from the defaults (the connection's database; the schema a bare name
    lives in: ``public`` for PostgreSQL/Redshift, ``dbo`` for SQL Server), so that ``t`` read by SQL and
    ``public.t`` written by Spark over JDBC to the same database are one node: ``postgres://h:5432`` +
    ``db.public.t``, ``mysql://h:3306`` + ``db.t``, ``redshift://cluster.region:5439`` + ``db.schema.t``,
    ``bigquery`` + ``project.dataset.t``.
    """
    kind = namespace_kind(namespace)
    levels = _SQL_LEVELS.get(kind, 3)
    names = [p for p in (_clean_table(p) for p in parts) if p]
    if levels == 3:
        schema = default_schema or _SQL_DEFAULT_SCHEMA.get(kind)
        if len(names) == 1 and schema:
            names.insert(0, schema)
        if len(names) == 2 and default_database:
            names.insert(0, default_database)
    elif len(names) == 1 and default_database:
        names.insert(0, default_database)
    if levels == 2 and len(names) > 2:
        names = names[-2:]  # MySQL has no catalog level (a Spark catalog prefix is dropped too)
    return namespace, ".".join(names)


def table_levels(namespace: str) -> int:
    """How many parts a table name has in the system of ``namespace`` (3: db.schema.table; 2: db.table)."""
    return _SQL_LEVELS.get(namespace_kind(namespace), 3)


def default_table_schema(namespace: str) -> str | None:
    """The schema a bare table name lives in (``public`` for PostgreSQL/Redshift, ``dbo`` for SQL Server)."""
    return _SQL_DEFAULT_SCHEMA.get(namespace_kind(namespace))


def kafka_dataset(bootstrap_servers: str, topic: str) -> tuple[str, str]:
    """A Kafka topic by the naming spec: namespace ``kafka://{host}:{port}`` of the first bootstrap server, name the
    topic (``"b1:9092,b2:9092"``, ``"orders"`` → ``("kafka://b1:9092", "orders")``)."""
    first = bootstrap_servers.split(",")[0].strip()
    if "://" in first:  # SASL_SSL://host:port listener notation
        first = first.split("://", 1)[1]
    return f"kafka://{first}", topic.strip()
