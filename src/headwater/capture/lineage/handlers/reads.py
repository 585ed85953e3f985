"""Reads: the leaf relations of a plan (files, catalog tables, JDBC, DataSource V2) → what they name.

| leaf | reads |
|---|---|
| ``LogicalRelation`` | files (``HadoopFsRelation``: root paths, format), a JDBC table (``JDBCRelation``), or its catalog table |
| ``HiveTableRelation`` | a Hive metastore table |
| ``DataSourceV2Relation`` | a V2 table (JDBC table catalog, Iceberg, Delta, ...) |
| ``DataSourceV2ScanRelation`` | the same, through its relation; the optimized plan may have pushed filters into it |
| ``InMemoryRelation`` | a cached plan, invisible in the optimized plan: the analyzed plan is read instead |
| local data, RDDs, ranges, CTE references | no dataset: the lineage starts there |
"""

from __future__ import annotations

from typing import Any

from ..model import RelationInfo
from .jvm import Jvm
from .registry import REGISTRY
from .targets import catalog_table, logical_relation, v2_relation

REGISTRY.leaves_without_dataset("LogicalRDD", "LocalRelation", "Range", "OneRowRelation", "ResolvedIdentifier",
                                "CTERelationRef", "LogicalQueryStage", "ExternalRDD", family="reads")


@REGISTRY.leaf("LogicalRelation")
def _logical_relation(jvm: Jvm, leaf: Any, name: str) -> RelationInfo:
    return logical_relation(jvm, leaf)


@REGISTRY.leaf("HiveTableRelation")
def _hive_table(jvm: Jvm, leaf: Any, name: str) -> RelationInfo:
    info = catalog_table(jvm, leaf.tableMeta())
    info.format = info.format or "hive"
    return info


@REGISTRY.leaf("DataSourceV2Relation")
def _v2_relation(jvm: Jvm, leaf: Any, name: str) -> RelationInfo:
    return v2_relation(jvm, leaf)


# a V2 scan may have absorbed filters pushed down into it (e.g. the JDBC table catalog): the analyzed plan
# still shows them
@REGISTRY.leaf("DataSourceV2ScanRelation", analyzed_instead=True)
def _v2_scan(jvm: Jvm, leaf: Any, name: str) -> RelationInfo:
    return v2_relation(jvm, leaf.relation())


# a cached DataFrame: the optimized plan shows only the cache, the analyzed plan still has the real sources
@REGISTRY.leaf("InMemoryRelation", analyzed_instead=True)
def _in_memory(jvm: Jvm, leaf: Any, name: str) -> RelationInfo:
    return RelationInfo(kind="unknown", cls=name)
