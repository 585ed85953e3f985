"""A Spline source URI → the OpenLineage dataset ``(namespace, name)`` it names (pure).

The Spline Spark agent writes a data source as one URI (``SourceIdentifier``): files and tables as
their qualified location (``file:/data/out``, ``hdfs://nn:8020/warehouse/db.db/t``, ``s3a://b/k``),
JDBC tables as ``<jdbc url>:<table>``, Kafka topics as ``kafka:<topic>``. Each is named here by
:mod:`headwater.model.naming`, the naming every Headwater producer uses, so the same file or table
captured by Spline and by Headwater's own agent is one node.
"""

from __future__ import annotations

from headwater.model.jsontypes import JSONObject
from headwater.model.naming import jdbc_dataset, path_dataset


def source_dataset(uri: str, params: JSONObject | None = None) -> tuple[str, str] | None:
    """The dataset a source URI names, or None when it names none (a JDBC query, an empty URI).

    ``params`` are the operation's parameters; a Kafka write carries ``kafka.bootstrap.servers``
    there, which gives the topic its OpenLineage namespace (``kafka://host:port``).
    """
    text = uri.strip()
    if not text:
        return None
    lower = text.lower()
    if lower.startswith("jdbc:"):
        url, sep, table = text.rpartition(":")
        if not sep or not table or "//" in table or table.lstrip().startswith("("):
            return None
        return jdbc_dataset(url, table)
    if lower.startswith("kafka:") and not lower.startswith("kafka://"):
        topic = text[len("kafka:") :]
        servers = str((params or {}).get("kafka.bootstrap.servers") or "").split(",")[0].strip()
        return (f"kafka://{servers}" if servers else "kafka"), topic
    return path_dataset(text)


def table_symlink(location: tuple[str, str], params: JSONObject | None) -> tuple[str, str] | None:
    """``(warehouse, "db.table")`` of a catalog table written or read at ``location``, as Headwater's
    agent names the table's symlink, when the operation's ``params.table.identifier`` names one."""
    table = (params or {}).get("table")
    ident = table.get("identifier") if isinstance(table, dict) else None
    if not isinstance(ident, dict) or not isinstance(ident.get("table"), str):
        return None
    name = ident["table"]
    database = ident.get("database") if isinstance(ident.get("database"), str) else None
    namespace, path = location
    folder = path.rstrip("/")
    for suffix in (f"/{database}.db/{name}" if database else None, f"/{name}"):
        if suffix and folder.lower().endswith(suffix.lower()):
            warehouse = folder[: -len(suffix)] or "/"
            root = f"file:{warehouse}" if namespace == "file" else f"{namespace}/{warehouse.lstrip('/')}"
            return root, f"{database or 'default'}.{name}"
    return None
