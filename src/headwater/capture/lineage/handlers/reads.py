"""Reads: the leaf relations of a plan (files, catalog tables, JDBC, DataSource V2) → what they name.

| leaf | reads |
|---|---|
| ``LogicalRelation`` | files (``HadoopFsRelation``: root paths, format), a JDBC table (``JDBCRelation``), or its catalog table |
| ``HiveTableRelation`` | a Hive metastore table |
| ``DataSourceV2Relation`` | a V2 table (JDBC table catalog, Iceberg, Delta, ...) |
| ``DataSourceV2ScanRelation`` | the same, through its relation; the optimized plan may have pushed filters into it |
| ``InMemoryRelation`` | a cached plan, invisible in the optimized plan: the analyzed plan is read instead |
| ``LogicalRDD``, ``ExternalRDD`` | ``rdd.toDF()``: the files the RDD reads (dependencies walked to file RDDs) |
| local data, ranges, CTE references | no dataset: the lineage starts there |
"""

from __future__ import annotations

from headwater.capture.jvmtypes import JavaObject

from ..model import RelationInfo
from .jvm import Jvm, call, class_name, guarded
from .registry import REGISTRY
from .targets import catalog_table, logical_relation, v2_relation

REGISTRY.leaves_without_dataset(
    "LocalRelation",
    "Range",
    "OneRowRelation",
    "ResolvedIdentifier",
    "CTERelationRef",
    "LogicalQueryStage",
    family="reads",
)

RDD_READ = "rdd"  # RelationInfo.format of datasets an RDD reads: a dataset, but no columns of it are known
MAX_RDD_NODES = 200  # RDDs visited per leaf (each costs a few py4j calls)
MAX_SCANNED_FILES = 100  # files looked at per file-scan RDD (their directories are the datasets)
_INPUT_DIR = "mapreduce.input.fileinputformat.inputdir"


def _short(obj: JavaObject) -> str:
    return class_name(obj).rsplit(".", 1)[-1]


def _scan_dirs(rdd: JavaObject, out: list[str]) -> None:
    """``FileScanRDD``: the directories of the files its partitions read."""
    parts = rdd.filePartitions()
    seen = 0
    for i in range(int(parts.size())):
        files = parts.apply(i).files()
        for j in range(len(files)):
            path = str(files[j].filePath().toPath().getParent().toString())
            if path not in out:
                out.append(path)
            seen += 1
            if seen >= MAX_SCANNED_FILES:
                return


def rdd_input_paths(rdd: JavaObject) -> list[str]:
    """The files an RDD reads, by walking its dependency graph (as the integration's RddPathUtils does): a
    ``HadoopRDD``/``NewHadoopRDD`` names its input directories, a ``FileScanRDD`` (a DataFrame read turned
    into an RDD) the directories of its files. At most :data:`MAX_RDD_NODES` RDDs are visited."""
    out: list[str] = []
    stack = [rdd]
    seen: set[int] = set()
    while stack and len(seen) < MAX_RDD_NODES:
        node = stack.pop()
        ident = guarded(lambda: int(node.id()))
        if ident is None or ident in seen:
            continue
        seen.add(ident)
        kind = _short(node)
        if kind == "HadoopRDD":
            dirs = guarded(lambda: str(node.getJobConf().get(_INPUT_DIR) or ""), "")
            out.extend(d for d in dirs.split(",") if d and d not in out)
            continue
        if kind == "NewHadoopRDD":
            dirs = guarded(lambda: str(node.getConf().get(_INPUT_DIR) or ""), "")
            out.extend(d for d in dirs.split(",") if d and d not in out)
            continue
        if kind == "FileScanRDD":
            guarded(lambda: _scan_dirs(node, out))
            continue
        deps = call(node, "dependencies")
        if deps is None:
            continue
        for i in range(int(deps.size())):
            parent = guarded(lambda: deps.apply(i).rdd())
            if parent is not None:
                stack.append(parent)
    return out


@REGISTRY.leaf("LogicalRDD", "ExternalRDD")
def _rdd(jvm: Jvm, leaf: JavaObject, name: str) -> RelationInfo:
    """A DataFrame made from an RDD: the files that RDD reads (no schema or columns: the RDD's rows are opaque)."""
    root = call(leaf, "rdd")
    paths = rdd_input_paths(root) if root is not None else []
    if not paths:
        return RelationInfo(kind="none", cls=name)
    return RelationInfo(kind="files", cls=name, paths=paths, format=RDD_READ)


@REGISTRY.leaf("LogicalRelation")
def _logical_relation(jvm: Jvm, leaf: JavaObject, name: str) -> RelationInfo:
    return logical_relation(jvm, leaf)


@REGISTRY.leaf("HiveTableRelation", catalog=True)  # HiveTableRelationVisitor: catalog()
def _hive_table(jvm: Jvm, leaf: JavaObject, name: str) -> RelationInfo:
    info = catalog_table(jvm, leaf.tableMeta())
    info.cls = name  # the leaf's class, which decides the catalog facet (not the CatalogTable it holds)
    info.format = info.format or "hive"
    return info


@REGISTRY.leaf("DataSourceV2Relation")
def _v2_relation(jvm: Jvm, leaf: JavaObject, name: str) -> RelationInfo:
    return v2_relation(jvm, leaf)


# a V2 scan may have absorbed filters pushed down into it (e.g. the JDBC table catalog): the analyzed plan
# still shows them
@REGISTRY.leaf("DataSourceV2ScanRelation", analyzed_instead=True)
def _v2_scan(jvm: Jvm, leaf: JavaObject, name: str) -> RelationInfo:
    return v2_relation(jvm, leaf.relation())


# a cached DataFrame: the optimized plan shows only the cache, the analyzed plan still has the real sources
@REGISTRY.leaf("InMemoryRelation", analyzed_instead=True)
def _in_memory(jvm: Jvm, leaf: JavaObject, name: str) -> RelationInfo:
    return RelationInfo(kind="unknown", cls=name)
