"""Snapshot → :class:`QueryLineage` (pure): inputs, outputs, facets and column lineage."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from openlineage.client.event_v2 import InputDataset, OutputDataset

from ..naming import normalize
from . import facets as F
from .columns import ColumnLineage, column_lineage, leaf_output
from .commands import is_ddl, lifecycle_of
from .handlers import REGISTRY, Registry, report_unhandled
from .handlers.reads import RDD_READ
from .model import CommandInfo
from .relations import DatasetId, short_output_name
from .relations import datasets_of as _datasets_of
from .resolvers import resolve_namespace
from .snapshot import PlanSnapshot
from .tree import PlanNode

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LineageOptions:
    dataset_lineage_enabled: bool = False  # spark.openlineage.columnLineage.datasetLineageEnabled
    disabled_facets: frozenset[str] = frozenset()  # spark.openlineage.facets.disabled (facet keys)
    # spark.openlineage.dataset.namespaceResolvers.*: (name, type, hosts, regex, matchingGroup, schema) each
    namespace_resolvers: tuple[tuple[Any, ...], ...] = ()


@dataclass
class QueryLineage:
    inputs: list[InputDataset] = field(default_factory=list)
    outputs: list[OutputDataset] = field(default_factory=list)
    action: str = ""
    output_name: str | None = None
    sql: str | None = None
    unhandled_command: str | None = None  # the root is a Spark command no plan-node handler knows (its class name)
    job_suffix: str | None = None  # what the integration appends to the job name for this output (see job_suffix)

    @property
    def has_output(self) -> bool:
        return bool(self.outputs)


def snake_case(text: str) -> str:
    """``Execute InsertIntoHadoopFsRelationCommand`` → ``execute_insert_into_hadoop_fs_relation_command``
    (the integration's ``NameNormalizer``, as its job names use it)."""
    return normalize(text)


# Which part of the output names the job, by command: the integration's JobNameSuffixProvider implementations
# (InsertIntoHadoopFsRelationVisitor, InsertIntoHiveTableVisitor, CreateTableCommandVisitor,
# TruncateTableCommandVisitor, InsertIntoHiveDirVisitor: trimPath of the location; the CTAS visitors,
# CreateDataSourceTableCommandVisitor, LoadDataCommandVisitor: database_table; SaveIntoDataSourceCommandVisitor:
# the table option; the V2 builders: catalog.namespace.table for writes into a relation, namespace_table for
# CREATE/REPLACE). Commands not listed (ALTER, DROP, RENAME, SaveAsV1TableCommand...) name no suffix.
_PATH_SUFFIX = frozenset(
    {
        "InsertIntoHadoopFsRelationCommand",
        "InsertIntoHiveTable",
        "CreateTableCommand",
        "TruncateTableCommand",
        "InsertIntoHiveDirCommand",
    }
)
_TABLE_SUFFIX = frozenset(
    {
        "CreateDataSourceTableAsSelectCommand",
        "CreateHiveTableAsSelectCommand",
        "CreateDataSourceTableCommand",
        "LoadDataCommand",
    }
)
_V2_RELATION_SUFFIX = frozenset({"AppendData", "OverwriteByExpression", "OverwritePartitionsDynamic"})
_V2_IDENT_SUFFIX = frozenset({"CreateTableAsSelect", "ReplaceTableAsSelect", "ReplaceTable", "CreateTable"})


def trim_path(name: str) -> str:
    """The integration's ``JobNameSuffixProvider.trimPath``: the last two segments of a path joined by ``_``
    (``/tmp/warehouse/target`` → ``warehouse_target``), the name itself when it is not a path."""
    if name.rfind("/") <= 0:
        return name
    parts = name.split("/")
    while parts and parts[-1] == "":  # Java's split drops trailing empty strings
        parts.pop()
    if len(parts) >= 2:
        return f"{parts[-2]}_{parts[-1]}"
    return parts[-1] if parts else name


def job_suffix(cmd: CommandInfo, target: DatasetId) -> str | None:
    """The job-name suffix the integration derives from the output of ``cmd`` (dots are replaced later)."""
    name = cmd.name
    info = cmd.target
    if name in _PATH_SUFFIX:
        return trim_path(target.name)
    if name in _TABLE_SUFFIX:
        return (info.table if info is not None and info.table else None) or (
            target.symlink[1] if target.symlink else None
        )
    if name == "SaveIntoDataSourceCommand":
        if info is not None and info.jdbc_table:
            return info.jdbc_table
        return None
    if info is not None and info.table and name in _V2_RELATION_SUFFIX:
        catalog = info.catalog or "spark_catalog"
        return info.table if info.table.startswith(catalog + ".") else f"{catalog}.{info.table}"
    if info is not None and info.table and name in _V2_IDENT_SUFFIX:
        return info.table
    return None


def _leaf_columns(node: PlanNode) -> list[tuple[str, Any]]:
    cols: list[tuple[str, Any]] = []
    for e in leaf_output(node):
        cols.append((e.attr_name, e.fields.get("dataType")))
    return cols


def _resolved_types(schema: Any, width: int) -> list[Any] | None:
    """The types of the query's resolved output attributes (snapshot's ``output_schema``), by position, when
    the schema has exactly the analysed output's width; else None (older snapshots: the types ``toJSON``
    carries on attributes and casts)."""
    if not isinstance(schema, dict):
        return None
    fields = schema.get("fields")
    if not isinstance(fields, list) or len(fields) != width:
        return None
    return [f.get("type") if isinstance(f, dict) else None for f in fields]


def _facets(pairs: dict[str, Any], disabled: frozenset[str]) -> dict[str, Any]:
    return {k: v for k, v in pairs.items() if v is not None and k not in disabled}


class _Inputs:
    def __init__(self) -> None:
        self.order: list[DatasetId] = []
        self.columns: dict[tuple[str, str], list[tuple[str, Any]]] = {}
        self.symlinks: dict[tuple[str, str], tuple[str, str]] = {}
        self.catalogs: set[tuple[str, str]] = set()  # datasets read through a leaf that adds the catalog facet

    def add(self, ds: DatasetId, columns: list[tuple[str, Any]], catalog: bool = False) -> None:
        key = (ds.namespace, ds.name)
        if key not in self.columns:
            self.order.append(ds)
            self.columns[key] = []
        known = {c for c, _t in self.columns[key]}
        self.columns[key].extend(c for c in columns if c[0] not in known)
        if ds.symlink:
            self.symlinks.setdefault(key, ds.symlink)
        if catalog:
            self.catalogs.add(key)

    def build(self, disabled: frozenset[str], catalog: dict[str, str] | None = None) -> list[InputDataset]:
        out: list[InputDataset] = []
        for ds in self.order:
            key = (ds.namespace, ds.name)
            sym = self.symlinks.get(key)
            out.append(
                InputDataset(
                    namespace=ds.namespace,
                    name=ds.name,
                    facets=_facets(
                        {
                            "schema": F.schema_facet(self.columns[key]) if self.columns[key] else None,
                            "dataSource": F.datasource_facet(ds.namespace),
                            "symlinks": F.symlinks_facet(*sym) if sym else None,
                            "catalog": F.catalog_facet(catalog) if key in self.catalogs else None,
                        },
                        disabled,
                    ),
                )
            )
        return out


def analyze(snap: PlanSnapshot, options: LineageOptions | None = None, registry: Registry = REGISTRY) -> QueryLineage:
    """The lineage of one query execution, from its snapshot (pure); ``registry``: the plan-node handlers."""
    options = options or LineageOptions()
    disabled = options.disabled_facets
    resolvers = options.namespace_resolvers

    def datasets_of(info: Any) -> list[DatasetId]:
        found = _datasets_of(info)
        if not resolvers:
            return found
        return [
            DatasetId(
                resolve_namespace(resolvers, d.namespace),
                d.name,
                (resolve_namespace(resolvers, d.symlink[0]), d.symlink[1]) if d.symlink else None,
            )
            for d in found
        ]

    result = QueryLineage(action=snake_case(snap.action_node or snap.root), sql=snap.sql)
    if registry.is_unhandled_command(snap.root, snap.root_command):
        result.unhandled_command = snap.root
        report_unhandled(snap.root)
    lineage: ColumnLineage | None = None
    names: dict[str, list[tuple[str, str]]] = {}
    inputs = _Inputs()
    plan = snap.parsed_query()
    if plan is not None:
        lineage = column_lineage(plan, snap.output_ids)
        if lineage.graph.unknown:
            log.debug("headwater lineage: operators without a lineage rule: %s", sorted(lineage.graph.unknown))
        for key, node in lineage.graph.leaves.items():
            info = snap.relations.get(key)
            found = datasets_of(info)
            if info is not None and info.format == RDD_READ:  # files an RDD reads: no columns of them are known
                names[key] = []
                for ds in found:
                    inputs.add(ds, [])
                continue
            names[key] = [(d.namespace, d.name) for d in found]
            with_catalog = info is not None and registry.catalog_leaf(info.cls)
            for ds in found:
                inputs.add(ds, _leaf_columns(node), with_catalog)
    elif snap.relations:  # the plan was too large to read: inputs from the leaves alone
        for key, info in snap.relations.items():
            cols = [(str(c[0]), c[1]) for c in snap.leaf_columns.get(key, [])]
            for ds in datasets_of(info):
                inputs.add(ds, cols)
    result.inputs = inputs.build(disabled, snap.catalog)
    cmd = snap.command
    if cmd is None or cmd.target is None:
        return result
    targets = datasets_of(cmd.target)
    if not targets:
        return result
    target = targets[0]
    result.output_name = short_output_name(target)
    result.job_suffix = job_suffix(cmd, target)
    change = lifecycle_of(cmd, registry)
    previous = None
    if change == "RENAME" and cmd.previous is not None:
        prev = datasets_of(cmd.previous)
        previous = (prev[0].namespace, prev[0].name) if prev else None
    columns: list[tuple[str, Any]] = []
    column_facet = None
    if lineage is not None and not is_ddl(cmd, registry):
        out_names = [a.name for a in lineage.output]
        if cmd.output_columns and len(cmd.output_columns) == len(out_names):
            out_names = list(cmd.output_columns)
        resolved_types = _resolved_types(snap.output_schema, len(lineage.output))
        columns = [
            (n, resolved_types[i] if resolved_types else a.data_type)
            for i, (n, a) in enumerate(zip(out_names, lineage.output))
        ]
        per_field: dict[str, dict[F.DatasetField, set[Any]]] = {}
        for n, resolved in zip(out_names, lineage.fields):
            named = F.name_resolved(resolved, names)  # a new mapping of new sets: kept as it is when the name is new
            known = per_field.get(n)
            if known is None:
                per_field[n] = named
                continue
            for k, v in named.items():
                known.setdefault(k, set()).update(v)
        column_facet = F.column_lineage_facet(
            per_field, F.name_resolved(lineage.dataset, names), dataset_lineage_enabled=options.dataset_lineage_enabled
        )
    elif cmd.schema is not None and change != "DROP":
        columns = F.struct_columns(cmd.schema)
    stats = F.output_statistics_facet(snap.metrics) if lineage is not None and not is_ddl(cmd, registry) else None
    result.outputs = [
        OutputDataset(
            namespace=target.namespace,
            name=target.name,
            facets=_facets(
                {
                    "schema": F.schema_facet(columns) if columns else None,
                    "dataSource": F.datasource_facet(target.namespace),
                    "symlinks": F.symlinks_facet(*target.symlink) if target.symlink else None,
                    "catalog": F.catalog_facet(snap.catalog) if registry.catalog_command(cmd.name) else None,
                    "columnLineage": column_facet,
                    "lifecycleStateChange": F.lifecycle_facet(change, previous) if change else None,
                },
                disabled,
            ),
            outputFacets=_facets({"outputStatistics": stats}, disabled),
        )
    ]
    return result
