"""The plan-node handler registry (pure): every Spark class the analysis knew before the registry is still
handled the same way, a new command is one registration, and an unhandled command is reported."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from openlineage.client.serde import Serde

from headwater.capture.events import (
    DEBUG_FACET,
    AppContext,
    Execution,
    execution_events,
)
from headwater.capture.lineage import LineageOptions, PlanSnapshot, analyze
from headwater.capture.lineage.commands import is_ddl, lifecycle_of
from headwater.capture.lineage.handlers import REGISTRY, Query, Registry, always
from headwater.capture.lineage.handlers.registry import no_command
from headwater.capture.lineage.model import CommandInfo, RelationInfo
from headwater.capture.plain import plain_events

from .golden_util import GOLDEN

# ---------------------------------------------------------------------------------------------------------
# Frozen by hand from capture/lineage/snapshot.py and commands.py as they were before the registry
# (string lists _QUERY_COMMANDS, describe_command's branches, describe_leaf, _ANALYZED_INSTEAD, and the
# lifecycle sets). Do not update these lists to make a test pass: a difference is a behaviour change.

QUERY_COMMANDS = frozenset(
    {
        "InsertIntoHadoopFsRelationCommand",
        "CreateDataSourceTableAsSelectCommand",
        "SaveAsV1TableCommand",
        "SaveIntoDataSourceCommand",
        "AppendData",
        "OverwriteByExpression",
        "OverwritePartitionsDynamic",
        "CreateTableAsSelect",
        "ReplaceTableAsSelect",
        "InsertIntoHiveTable",
        "CreateHiveTableAsSelectCommand",
        "OptimizedCreateHiveTableAsSelectCommand",
        "InsertIntoDataSourceCommand",
        "InsertIntoDataSourceDirCommand",
        "InsertIntoHiveDirCommand",
        "CreateViewCommand",
    }
)
NO_QUERY = frozenset({"CreateViewCommand", "DropTable", "CreateTable", "ReplaceTable", "TruncateTable"})
DESCRIBED_COMMANDS = frozenset(
    {
        "InsertIntoHadoopFsRelationCommand",
        "CreateDataSourceTableAsSelectCommand",
        "SaveAsV1TableCommand",
        "CreateHiveTableAsSelectCommand",
        "OptimizedCreateHiveTableAsSelectCommand",
        "CreateDataSourceTableCommand",
        "CreateTableCommand",
        "InsertIntoHiveTable",
        "InsertIntoDataSourceCommand",
        "SaveIntoDataSourceCommand",
        "AppendData",
        "OverwriteByExpression",
        "OverwritePartitionsDynamic",
        "CreateTableAsSelect",
        "ReplaceTableAsSelect",
        "CreateTable",
        "ReplaceTable",
        "DropTable",
        "TruncateTable",
        "DropTableCommand",
        "TruncateTableCommand",
        "AlterTableRenameCommand",
        # parity with the OpenLineage integration (an intended change): INSERT OVERWRITE DIRECTORY names
        # its directory, LOAD DATA its table
        "InsertIntoDataSourceDirCommand",
        "InsertIntoHiveDirCommand",
        "LoadDataCommand",
        # AlterTable*Command (a prefix rule), as examples
        "AlterTableAddColumnsCommand",
        "AlterTableSetPropertiesCommand",
        "AlterTableChangeColumnCommand",
    }
)
NOT_DESCRIBED_COMMANDS = frozenset({"CreateViewCommand"})
_CREATE_AS_SELECT = frozenset(
    {
        "CreateDataSourceTableAsSelectCommand",
        "SaveAsV1TableCommand",
        "CreateHiveTableAsSelectCommand",
        "OptimizedCreateHiveTableAsSelectCommand",
    }
)
_CREATE = frozenset({"CreateDataSourceTableCommand", "CreateTableCommand", "CreateTable", "CreateTableAsSelect"})
_OVERWRITE = frozenset({"ReplaceTableAsSelect", "ReplaceTable", "OverwriteByExpression", "OverwritePartitionsDynamic"})
_DROP = frozenset({"DropTableCommand", "DropTable"})
_TRUNCATE = frozenset({"TruncateTableCommand", "TruncateTable"})
_DDL = (
    frozenset({"CreateDataSourceTableCommand", "CreateTableCommand", "CreateTable", "ReplaceTable", "LoadDataCommand"})
    | _DROP
    | _TRUNCATE
)  # LoadDataCommand: no query, the table's schema
# an intended change, for parity with the OpenLineage integration: LogicalRDD and ExternalRDD name the files their RDD reads
DESCRIBED_LEAVES = frozenset(
    {
        "LogicalRelation",
        "HiveTableRelation",
        "DataSourceV2Relation",
        "DataSourceV2ScanRelation",
        "LogicalRDD",
        "ExternalRDD",
    }
)
NO_DATASET_LEAVES = frozenset(
    {"LocalRelation", "Range", "OneRowRelation", "ResolvedIdentifier", "CTERelationRef", "LogicalQueryStage"}
)
ANALYZED_INSTEAD = frozenset({"InMemoryRelation", "DataSourceV2ScanRelation"})


def _old_lifecycle_of(name: str, mode: str | None) -> str | None:
    """commands.lifecycle_of before the registry, verbatim."""
    mode = mode or ""
    if name in _CREATE_AS_SELECT:
        if mode == "Overwrite":
            return "OVERWRITE"
        return None if mode == "Append" else "CREATE"
    if name in _CREATE:
        return "CREATE"
    if name in _OVERWRITE:
        return "OVERWRITE"
    if name in _DROP:
        return "DROP"
    if name in _TRUNCATE:
        return "TRUNCATE"
    if name == "AlterTableRenameCommand":
        return "RENAME"
    if name.startswith("AlterTable"):
        return "ALTER"
    if mode == "Overwrite":
        return "OVERWRITE"
    return None


def _old_is_ddl(name: str) -> bool:
    return name in _DDL or name.startswith("AlterTable")


def _old_query(name: str) -> Query:
    """snapshot._query_of before the registry: which plan a root stood for."""
    if name == "CreateViewCommand":
        return Query.NONE
    if name in QUERY_COMMANDS:
        return Query.FIELD
    if name.endswith("Command") or name in ("DropTable", "CreateTable", "ReplaceTable", "TruncateTable"):
        return Query.NONE
    return Query.ROOT


ALL_COMMANDS = sorted(
    QUERY_COMMANDS | NO_QUERY | DESCRIBED_COMMANDS | _CREATE_AS_SELECT | _CREATE | _OVERWRITE | _DROP | _TRUNCATE | _DDL
)


@pytest.mark.parametrize("name", ALL_COMMANDS)
def test_every_command_listed_before_is_handled_as_before(name: str) -> None:
    handler = REGISTRY.command_for(name)
    assert handler is not None, f"{name} lost its handler"
    assert not REGISTRY.is_unhandled_command(name, True)
    assert REGISTRY.query_of(name) is _old_query(name)
    if name in DESCRIBED_COMMANDS:
        assert handler.describe is not no_command
    if name in NOT_DESCRIBED_COMMANDS:
        assert handler.describe is no_command
    for mode in (None, "Overwrite", "Append", "ErrorIfExists", "Ignore"):
        cmd = CommandInfo(name=name, mode=mode)
        assert lifecycle_of(cmd) == _old_lifecycle_of(name, mode), (name, mode)
        assert is_ddl(cmd) == _old_is_ddl(name), name


@pytest.mark.parametrize("name", ["SomeWriteCommand", "Project", "Aggregate", "MergeIntoTable"])
def test_a_root_without_handler_keeps_the_old_query_and_lifecycle(name: str) -> None:
    assert REGISTRY.query_of(name) is _old_query(name)
    for mode in (None, "Overwrite", "Append"):
        assert lifecycle_of(CommandInfo(name=name, mode=mode)) == _old_lifecycle_of(name, mode)


def test_every_leaf_listed_before_is_handled_as_before() -> None:
    for name in DESCRIBED_LEAVES:
        handler = REGISTRY.leaf_for(name)
        assert handler is not None and handler.describe is not None, name
    for name in NO_DATASET_LEAVES:
        handler = REGISTRY.leaf_for(name)
        assert handler is not None and handler.describe is None, name
        assert REGISTRY.describe_leaf(None, None, name) == RelationInfo(kind="none", cls=name)  # type: ignore[arg-type]
    assert REGISTRY.analyzed_instead() == ANALYZED_INSTEAD
    assert REGISTRY.describe_leaf(None, None, "SomeNewRelation") == RelationInfo(kind="unknown", cls="SomeNewRelation")  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------------------


def _toy_snapshot(root: str, *, root_command: bool = False, command: CommandInfo | None = None) -> PlanSnapshot:
    return PlanSnapshot(spark_version="4.0.0", root=root, root_command=root_command, command=command)


def test_a_new_command_is_one_registration_in_an_isolated_registry() -> None:
    registry = Registry()
    seen: list[str] = []

    @registry.command("FrobnicateTableCommand", query=Query.FIELD, lifecycle=always("CREATE"))
    def _frobnicate(jvm: Any, root: Any, name: str) -> CommandInfo | None:
        seen.append(name)
        return CommandInfo(name=name, target=RelationInfo(kind="files", paths=["/data/frob"]))

    handler = registry.command_for("FrobnicateTableCommand")
    assert handler is not None and handler.describe is _frobnicate and handler.family == "test_handlers"
    assert registry.query_of("FrobnicateTableCommand") is Query.FIELD
    assert not registry.is_unhandled_command("FrobnicateTableCommand")
    # the snapshot side calls it ...
    from headwater.capture.lineage.snapshot import describe_command

    cmd = describe_command(None, None, "FrobnicateTableCommand", registry)  # type: ignore[arg-type]
    assert seen == ["FrobnicateTableCommand"] and cmd is not None
    # ... and the analysis uses its lifecycle
    ql = analyze(_toy_snapshot("FrobnicateTableCommand", command=cmd), LineageOptions(), registry)
    assert [(o.namespace, o.name) for o in ql.outputs] == [("file", "/data/frob")]
    assert ql.outputs[0].facets["lifecycleStateChange"].lifecycleStateChange.value == "CREATE"
    assert ql.unhandled_command is None
    # the process-wide registry does not know it
    assert REGISTRY.command_for("FrobnicateTableCommand") is None
    plain = analyze(_toy_snapshot("FrobnicateTableCommand", command=cmd))
    assert plain.unhandled_command == "FrobnicateTableCommand"
    assert "lifecycleStateChange" not in plain.outputs[0].facets


def test_a_name_has_one_home() -> None:
    registry = REGISTRY.copy()
    with pytest.raises(ValueError, match="InsertIntoHadoopFsRelationCommand"):
        registry.commands("InsertIntoHadoopFsRelationCommand")
    registry.commands("FrobnicateTableCommand")
    assert registry.command_for("FrobnicateTableCommand") is not None
    assert REGISTRY.command_for("FrobnicateTableCommand") is None


def test_an_unhandled_command_is_reported_once_per_class(caplog: pytest.LogCaptureFixture) -> None:
    name = "HeadwaterTestOnlyUnknownCommand"
    with caplog.at_level(logging.INFO, logger="headwater.capture.lineage"):
        first = analyze(_toy_snapshot(name))
        second = analyze(_toy_snapshot(name))
    assert first.unhandled_command == second.unhandled_command == name
    lines = [r.getMessage() for r in caplog.records if name in r.getMessage()]
    assert len(lines) == 1 and "no handler" in lines[0]


def test_which_roots_are_unhandled() -> None:
    # a V2 command (no "Command" suffix) is unhandled when Spark said it is a Command
    assert analyze(_toy_snapshot("MergeIntoTable", root_command=True)).unhandled_command == "MergeIntoTable"
    assert analyze(_toy_snapshot("MergeIntoTable")).unhandled_command is None
    # plain queries and handled commands are not
    assert analyze(_toy_snapshot("Project")).unhandled_command is None
    assert analyze(_toy_snapshot("SetCommand", root_command=True)).unhandled_command is None
    assert analyze(_toy_snapshot("AlterTableAddColumnsCommand", root_command=True)).unhandled_command is None
    for path in sorted(GOLDEN.glob("*.snapshot.json")):
        snap = PlanSnapshot.from_dict(json.loads(path.read_text()))
        assert analyze(snap).unhandled_command is None, path.name


def _context(**kw: Any) -> AppContext:
    return AppContext(
        namespace="default",
        app_job="app",
        app_run_id="01890f6a-7d6e-7c3a-9e0c-0123456789ab",
        spark_version="4.0.0",
        **kw,
    )


def _execution(unhandled: str | None) -> Execution:
    return Execution(
        run_id="01890f6a-7d6e-7c3a-9e0c-0123456789ac",
        job_name="app.merge_into_table",
        started=1.0,
        ended=2.0,
        inputs=[],
        outputs=[],
        unhandled_command=unhandled,
    )


def test_the_debug_facet_on_the_events_of_an_unhandled_command(assert_valid_events: Any) -> None:
    events = execution_events(_context(), _execution("MergeIntoTable"))
    docs = [json.loads(Serde.to_json(e)) for e in events]
    assert [Serde.to_json(p) for p in plain_events(events)] == [Serde.to_json(e) for e in events]
    assert_valid_events(docs)
    for doc in docs:
        facet = doc["run"]["facets"][DEBUG_FACET]
        assert facet["unhandledCommand"] == "MergeIntoTable"
        assert facet["_producer"].startswith("https://github.com/headwater-lineage/headwater")
        assert facet["_schemaURL"] == "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunFacet"
    assert all(DEBUG_FACET not in e.run.facets for e in execution_events(_context(), _execution(None)))
    disabled = execution_events(_context(disabled_facets=frozenset({DEBUG_FACET})), _execution("MergeIntoTable"))
    assert all(DEBUG_FACET not in e.run.facets for e in disabled)


# the integration's visitors that add the Hive catalog facet: SparkDatasetBuilder.catalog() (HiveTableRelation,
# InsertIntoHiveTable, InsertIntoHiveDir, CreateHiveTableAsSelectCommand) or dataset(CatalogTable) (CTAS and
# CREATE of data-source tables, CREATE TABLE, DROP, TRUNCATE, LOAD DATA, ALTER ADD COLUMNS/PARTITION/SET LOCATION)
CATALOG_COMMANDS = {
    "InsertIntoHiveTable",
    "InsertIntoHiveDirCommand",
    "CreateHiveTableAsSelectCommand",
    "CreateDataSourceTableAsSelectCommand",
    "CreateDataSourceTableCommand",
    "CreateTableCommand",
    "DropTableCommand",
    "TruncateTableCommand",
    "LoadDataCommand",
    "AlterTableAddColumnsCommand",
    "AlterTableAddPartitionCommand",
    "AlterTableSetLocationCommand",
}


def test_which_handlers_add_the_hive_catalog_facet(assert_valid_events: Any) -> None:
    names = REGISTRY.command_names() | {"AlterTableRenameCommand", "AlterTableDropPartitionCommand"}
    assert {n for n in names if REGISTRY.catalog_command(n)} == CATALOG_COMMANDS
    assert {n for n in REGISTRY.leaf_names() if REGISTRY.catalog_leaf(n)} == {"HiveTableRelation"}
    hive = {"name": "default", "framework": "hive", "type": "hive", "source": "spark", "warehouseUri": "file:/wh"}
    table = RelationInfo(
        kind="table", cls="CatalogTable", paths=["file:/wh/t"], table="default.t", metastore="file:/wh"
    )
    for name, catalog in (
        ("TruncateTableCommand", hive),
        ("AlterTableRenameCommand", hive),
        ("TruncateTableCommand", None),
    ):
        snap = PlanSnapshot(root=name, command=CommandInfo(name=name, target=table), catalog=catalog)
        (out,) = analyze(snap).outputs
        got = out.facets.get("catalog")
        if name == "TruncateTableCommand" and catalog:
            assert json.loads(Serde.to_json(got)) == {
                **hive,
                "_producer": got._producer,
                "_schemaURL": "https://openlineage.io/spec/facets/1-1-0/CatalogDatasetFacet.json#/$defs/CatalogDatasetFacet",
            }
            assert (
                "catalog" not in analyze(snap, LineageOptions(disabled_facets=frozenset({"catalog"}))).outputs[0].facets
            )
            event = execution_events(
                AppContext(
                    namespace="ns", app_job="a", app_run_id="01890f6a-7d6e-7c3a-9e0c-0123456789ab", spark_version="4"
                ),
                Execution(
                    run_id="01890f6a-7d6e-7c3a-9e0c-0123456789ac",
                    job_name="a.x",
                    started=1.0,
                    ended=2.0,
                    inputs=[],
                    outputs=[out],
                ),
            )
            assert_valid_events([json.loads(Serde.to_json(e)) for e in event])
        else:  # a command whose visitor does not add it, or a session without Hive support
            assert got is None
