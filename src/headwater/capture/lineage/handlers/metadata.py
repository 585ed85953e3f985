"""Commands that read and write no data, by design: session settings, catalog browsing, databases and
namespaces, functions, caching, statistics, resources. Registered so that they are known (not reported as
unhandled); they produce no inputs, no outputs and so, by default, no events.

``...Command`` classes read no plan. The V2 commands (no ``Command`` suffix) keep what capture always did
with them: their plan is read as it is (its leaves name no dataset)."""

from __future__ import annotations

from .registry import REGISTRY, Query

REGISTRY.commands(
    # settings
    "SetCommand",
    "ResetCommand",
    "SetCatalogCommand",
    "SetNamespaceCommand",
    # browsing the catalog
    "ShowTablesCommand",
    "ShowViewsCommand",
    "ShowColumnsCommand",
    "ShowPartitionsCommand",
    "ShowCreateTableCommand",
    "ShowCreateTableAsSerdeCommand",
    "ShowTablePropertiesCommand",
    "ShowFunctionsCommand",
    "ShowCatalogsCommand",
    "ShowNamespacesCommand",
    "DescribeTableCommand",
    "DescribeColumnCommand",
    "DescribeDatabaseCommand",
    "DescribeFunctionCommand",
    "DescribeQueryCommand",
    "ExplainCommand",
    # databases
    "CreateDatabaseCommand",
    "DropDatabaseCommand",
    "AlterDatabasePropertiesCommand",
    "AlterDatabaseSetLocationCommand",
    # functions
    "CreateFunctionCommand",
    "DropFunctionCommand",
    "RefreshFunctionCommand",
    # caching, refreshing, statistics
    "CacheTableCommand",
    "UncacheTableCommand",
    "ClearCacheCommand",
    "RefreshTableCommand",
    "RefreshResourceCommand",
    "AnalyzeTableCommand",
    "AnalyzeColumnCommand",
    "AnalyzePartitionCommand",
    "AnalyzeTablesCommand",
    # resources
    "AddJarsCommand",
    "AddFilesCommand",
    "AddArchivesCommand",
    "ListJarsCommand",
    "ListFilesCommand",
    "ListArchivesCommand",
    family="metadata",
)

REGISTRY.commands(
    "ShowTables",
    "ShowTableExtended",
    "ShowViews",
    "ShowNamespaces",
    "ShowFunctions",
    "ShowColumns",
    "ShowPartitions",
    "ShowCreateTable",
    "ShowTableProperties",
    "ShowCatalogs",
    "DescribeRelation",
    "DescribeColumn",
    "DescribeNamespace",
    "DescribeFunction",
    "SetCatalogAndNamespace",
    "CreateNamespace",
    "DropNamespace",
    "SetNamespaceProperties",
    "SetNamespaceLocation",
    "CacheTable",
    "CacheTableAsSelect",
    "UncacheTable",
    "RefreshTable",
    "AnalyzeTable",
    "AnalyzeTables",
    "AnalyzeColumn",
    "CreateFunction",
    "DropFunction",
    "RefreshFunction",
    "SetVariable",
    "CreateVariable",
    "DropVariable",
    query=Query.ROOT,
    family="metadata",
)
