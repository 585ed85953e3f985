"""OpenLineage facets built from plan data (pure): schema, dataSource, symlinks, lifecycle,
columnLineage, outputStatistics. All use openlineage-python's ``facet_v2`` classes."""

from __future__ import annotations

from typing import Any

from openlineage.client.facet_v2 import (
    catalog_dataset,
    column_lineage_dataset,
    datasource_dataset,
    lifecycle_state_change_dataset,
    output_statistics_output_dataset,
    schema_dataset,
    symlinks_dataset,
)

from headwater.model.column_lineage import TInfo

from .columns import Resolved

Field = schema_dataset.SchemaDatasetFacetFields


def type_name(data_type: Any) -> str:
    """Spark's type name: ``long``, ``string``, ``decimal(10,2)``, ``struct``, ``array``, ``map``."""
    if isinstance(data_type, str):
        return data_type
    if isinstance(data_type, dict):
        return str(data_type.get("type", "unknown"))
    return "unknown"


def _children(data_type: Any) -> list[Field]:
    if not isinstance(data_type, dict):
        return []
    kind = data_type.get("type")
    if kind == "struct":
        return [schema_field(f.get("name", ""), f.get("type")) for f in data_type.get("fields", [])]
    if kind == "array":
        return [schema_field("_element", data_type.get("elementType"))]
    if kind == "map":
        return [schema_field("key", data_type.get("keyType")), schema_field("value", data_type.get("valueType"))]
    return []


def schema_field(name: str, data_type: Any) -> Field:
    kids = _children(data_type)
    return Field(name=name, type=type_name(data_type), fields=kids or None)


def schema_facet(columns: list[tuple[str, Any]]) -> schema_dataset.SchemaDatasetFacet:
    return schema_dataset.SchemaDatasetFacet(fields=[schema_field(n, t) for n, t in columns])


def struct_columns(struct: Any) -> list[tuple[str, Any]]:
    """Columns of a Spark StructType JSON (``{"type": "struct", "fields": [...]}``)."""
    if not isinstance(struct, dict):
        return []
    return [(str(f.get("name", "")), f.get("type")) for f in struct.get("fields", [])]


def datasource_facet(namespace: str) -> datasource_dataset.DatasourceDatasetFacet:
    """name and uri are the namespace, as the integration's ``PlanUtils.datasourceFacet`` makes them
    (``URI.create(namespace)``: ``file`` stays ``file``, as its expected events show)."""
    return datasource_dataset.DatasourceDatasetFacet(name=namespace, uri=namespace)


def catalog_facet(catalog: dict[str, str] | None) -> catalog_dataset.CatalogDatasetFacet | None:
    """The Hive ``catalog`` facet the snapshot read (``PlanSnapshot.catalog``), None without one."""
    if not catalog:
        return None
    return catalog_dataset.CatalogDatasetFacet(
        framework=catalog.get("framework", "hive"),
        type=catalog.get("type", "hive"),
        name=catalog.get("name", "default"),
        metadataUri=catalog.get("metadataUri"),
        warehouseUri=catalog.get("warehouseUri"),
        source=catalog.get("source"),
        catalogProperties=None,
    )


def symlinks_facet(namespace: str, name: str) -> symlinks_dataset.SymlinksDatasetFacet:
    return symlinks_dataset.SymlinksDatasetFacet(
        identifiers=[symlinks_dataset.Identifier(namespace=namespace, name=name, type="TABLE")]
    )


def lifecycle_facet(
    change: str, previous: tuple[str, str] | None = None
) -> lifecycle_state_change_dataset.LifecycleStateChangeDatasetFacet:
    prev = None
    if previous is not None:
        prev = lifecycle_state_change_dataset.PreviousIdentifier(namespace=previous[0], name=previous[1])
    return lifecycle_state_change_dataset.LifecycleStateChangeDatasetFacet(
        lifecycleStateChange=lifecycle_state_change_dataset.LifecycleStateChange(change), previousIdentifier=prev
    )


def output_statistics_facet(
    metrics: dict[str, int],
) -> output_statistics_output_dataset.OutputStatisticsOutputDatasetFacet | None:
    if not any(k in metrics for k in ("numOutputRows", "numOutputBytes", "numFiles")):
        return None
    return output_statistics_output_dataset.OutputStatisticsOutputDatasetFacet(
        rowCount=metrics.get("numOutputRows"), size=metrics.get("numOutputBytes"), fileCount=metrics.get("numFiles")
    )


DatasetField = tuple[str, str, str]  # namespace, name, field


_Made = dict[TInfo, column_lineage_dataset.Transformation]


def collapse_kinds(kinds: set[TInfo]) -> set[TInfo]:
    """One kind per (type, subtype): an input field is listed once per type and subtype of an output field
    (the same column reached by two paths, e.g. ``CASE WHEN .. THEN a ELSE a + 1``). When the paths disagree
    on masking the value is masked only if every path masks it (one unmasked path reveals it)."""
    by_kind: dict[tuple[str, str], bool] = {}
    for k in kinds:
        key = (k.type, k.subtype)
        by_kind[key] = by_kind.get(key, True) and k.masking
    if len(by_kind) == len(kinds):
        return kinds
    return {TInfo(t, st, m) for (t, st), m in by_kind.items()}


def _transformation(kind: TInfo, made: _Made) -> column_lineage_dataset.Transformation:
    t = made.get(kind)
    if t is None:
        t = made[kind] = column_lineage_dataset.Transformation(
            type=kind.type, subtype=kind.subtype, description="", masking=kind.masking
        )
    return t


def _transformations(kinds: set[TInfo], made: _Made) -> list[column_lineage_dataset.Transformation]:
    """One ``Transformation`` object per kind within a facet (``made``): a wide output has thousands of input
    fields but a handful of kinds; shared objects (never mutated) are built once and serialised once
    (:mod:`headwater.capture.plain` converts an object it has seen in the batch only once)."""
    if len(kinds) == 1:  # most input fields of a wide output: one kind, nothing to collapse or sort
        (only,) = kinds
        return [_transformation(only, made)]
    return [_transformation(k, made) for k in sorted(collapse_kinds(kinds))]


def _input_fields(deps: dict[DatasetField, set[TInfo]], made: _Made) -> list[column_lineage_dataset.InputField]:
    return [
        column_lineage_dataset.InputField(
            namespace=ns, name=name, field=fld, transformations=_transformations(kinds, made)
        )
        for (ns, name, fld), kinds in sorted(deps.items())
    ]


def column_lineage_facet(
    fields: dict[str, dict[DatasetField, set[TInfo]]],
    dataset: dict[DatasetField, set[TInfo]],
    *,
    dataset_lineage_enabled: bool,
) -> column_lineage_dataset.ColumnLineageDatasetFacet | None:
    """``fields`` and ``dataset`` already name real input datasets (unnamed leaves dropped).

    With ``dataset_lineage_enabled`` the INDIRECT dataset-wide inputs go to the facet's ``dataset``
    list; otherwise they are folded into every field's ``inputFields`` (OpenLineage's default).
    """
    out: dict[str, column_lineage_dataset.Fields] = {}
    made: _Made = {}
    fold = bool(dataset) and not dataset_lineage_enabled  # dataset-wide inputs folded into every field
    for name, deps in fields.items():
        merged: dict[DatasetField, set[TInfo]] = deps  # only read below; copied when the folding adds to it
        if fold:
            merged = {k: set(v) for k, v in deps.items()}
            for key, kinds in dataset.items():
                merged.setdefault(key, set()).update(kinds)
        if merged:
            out[name] = column_lineage_dataset.Fields(inputFields=_input_fields(merged, made))
    ds = _input_fields(dataset, made) if dataset_lineage_enabled else []
    if not out and not ds:
        return None
    return column_lineage_dataset.ColumnLineageDatasetFacet(fields=out, dataset=ds)


def name_resolved(resolved: Resolved, names: dict[str, list[tuple[str, str]]]) -> dict[DatasetField, set[TInfo]]:
    """Leaf-keyed lineage → dataset-field-keyed lineage (leaves with no dataset drop out)."""
    out: dict[DatasetField, set[TInfo]] = {}
    for (leaf, column), kinds in resolved.items():
        for namespace, name in names.get(leaf, []):
            out.setdefault((namespace, name, column), set()).update(kinds)
    return out
