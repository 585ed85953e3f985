"""Leaf relations and write targets → OpenLineage dataset identities (pure).

A relation may name several datasets (a read of several directories) or none (a DataFrame
made from a Python list, an RDD, ``spark.range``): those leaves simply drop out of the lineage.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from headwater.model.naming import jdbc_dataset
from headwater.model.naming import path_dataset as _path_dataset

from .snapshot import RelationInfo
from .trimmers import trim_name

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class DatasetId:
    namespace: str
    name: str
    symlink: tuple[str, str] | None = None  # (namespace, "db.table") of the catalog table


def path_dataset(uri: str) -> tuple[str, str]:
    """A file-system location by the naming spec, with trailing date/partition directories trimmed as the
    OpenLineage integration trims them (:mod:`.trimmers`): ``/out/20251030`` → ``/out``."""
    namespace, name = _path_dataset(uri)
    return namespace, trim_name(name)


def datasets_of(info: RelationInfo | None) -> list[DatasetId]:
    if info is None:
        return []
    if info.kind == "files":
        seen: list[DatasetId] = []
        for path in info.paths:
            ns, name = path_dataset(path)
            ds = DatasetId(ns, name)
            if ds not in seen:
                seen.append(ds)
        return seen
    if info.kind == "dataset":
        return [DatasetId(ns, name) for ns, name in info.names]
    if info.kind == "table":
        table = (info.metastore or "spark_catalog", info.table or "")
        if info.paths:
            ns, name = path_dataset(info.paths[0])
            return [DatasetId(ns, name, table)]
        return [DatasetId(table[0], table[1])]
    if info.kind in ("jdbc", "v2") and info.jdbc_url and info.jdbc_table:
        if info.jdbc_table.lstrip().startswith("("):
            log.debug("headwater lineage: JDBC query %r is not a table; no dataset", info.jdbc_table[:80])
            return []
        ns, name = jdbc_dataset(info.jdbc_url, info.jdbc_table)
        return [DatasetId(ns, name)]
    if info.kind == "v2":
        symlink: tuple[str, str] | None = (info.catalog or "spark_catalog", info.table or "") if info.table else None
        if info.paths:
            ns, name = path_dataset(info.paths[0])
            return [DatasetId(ns, name, symlink)]
        if info.catalog and info.table:
            return [DatasetId(info.catalog, info.table)]
    return []


def short_output_name(ds: DatasetId) -> str:
    """``/data/out/employee_attendance`` → ``employee_attendance``; ``hr.payroll`` → ``payroll``."""
    base = ds.symlink[1] if ds.symlink else ds.name
    tail = base.rstrip("/").rsplit("/", 1)[-1]
    return tail.rsplit(".", 1)[-1] if ds.symlink or "/" not in base else tail
