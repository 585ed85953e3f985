"""The OpenLineage Spark integration's configuration keys, pure: tags, owners, captured
properties, per-facet disabling, namespace resolvers, spark.openlineage.disabled. Where each rule comes from is
named per test (website/docs/integrations/spark/configuration/spark_conf.md, the Java client's resolvers)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from openlineage.client.serde import Serde

from headwater.capture.config import ConfigError, load_config, parse_tags
from headwater.capture.events import AppContext, Execution, application_event, execution_events
from headwater.capture.lineage.build import LineageOptions, analyze
from headwater.capture.lineage.model import CommandInfo, RelationInfo
from headwater.capture.lineage.resolvers import resolve_namespace
from headwater.capture.lineage.snapshot import PlanSnapshot

P = "spark.openlineage."


def test_tags_are_read_as_the_integrations_tags_deserializer_reads_them() -> None:
    # spark_conf.md: "key:value information separated by colon, tags separated by semicolon"; TagField: a lone
    # label is <label>:true, the source defaults to CONFIG
    assert parse_tags("team:payroll;pii;env:prod:USER") == (
        ("team", "payroll", "CONFIG"),
        ("pii", "true", "CONFIG"),
        ("env", "prod", "USER"),
    )
    assert parse_tags("url:http\\://x;a\\;b:c") == (("url", "http://x", "CONFIG"), ("a;b", "c", "CONFIG"))
    assert parse_tags("") == ()


def _events(conf: dict[str, str]) -> list[dict[str, Any]]:
    config = load_config(conf, {})
    ctx = AppContext(
        namespace="ns",
        app_job="app",
        app_run_id="01890f6a-7d6e-7c3a-9e0c-0123456789ab",
        spark_version="3.5.0",
        properties={"spark.master": "local"},
        job_tags=config.job_tags,
        run_tags=config.run_tags,
        job_owners=config.job_owners,
        disabled_facets=config.disabled_facets,
    )
    ex = Execution(
        run_id="01890f6a-7d6e-7c3a-9e0c-0123456789ac", job_name="app.x", started=1.0, ended=2.0, inputs=[], outputs=[]
    )
    from openlineage.client.event_v2 import RunState

    events = [application_event(ctx, RunState.START, 1.0), *execution_events(ctx, ex)]
    return [json.loads(Serde.to_json(e)) for e in events]


def test_tags_owners_and_disabled_facets_on_every_event(assert_valid_events: Any) -> None:
    events = _events(
        {
            P + "job.tags": "team:payroll;pii",
            P + "run.tags": "attempt:2:AIRFLOW",
            P + "job.owners.team": "payroll-eng",
            P + "job.owners.person": "ada",
            P + "facets.processing_engine.disabled": "true",
        }
    )
    assert_valid_events(events)
    for e in events:
        assert [(t["key"], t["value"], t["source"]) for t in e["job"]["facets"]["tags"]["tags"]] == [
            ("team", "payroll", "CONFIG"),
            ("pii", "true", "CONFIG"),
        ]
        assert [(t["key"], t["value"], t["source"]) for t in e["run"]["facets"]["tags"]["tags"]] == [
            ("attempt", "2", "AIRFLOW")
        ]
        assert sorted((o["name"], o["type"]) for o in e["job"]["facets"]["ownership"]["owners"]) == [
            ("ada", "person"),
            ("payroll-eng", "team"),
        ]
        assert "processing_engine" not in e["run"]["facets"]


def test_captured_properties_and_disabled() -> None:
    assert load_config({}, {}).captured_properties == ("spark.master", "spark.app.name")
    assert load_config({P + "capturedProperties": "spark.master,spark.executor.memory"}, {}).captured_properties == (
        "spark.master",
        "spark.executor.memory",
    )
    assert load_config({P + "disabled": "true"}, {}).disabled
    # the deprecated list and the per-facet key combine; =false re-enables
    assert load_config(
        {
            P + "facets.disabled": "[a;b]",
            P + "facets.b.disabled": "false",
            P + "facets.spark.logicalPlan.disabled": "true",
        },
        {},
    ).disabled_facets == frozenset({"a", "spark.logicalPlan"})


def test_namespace_resolvers_as_the_java_client_applies_them() -> None:
    # website/docs/client/java/partials/java_namespace_resolver.md: hostList, pattern, patternGroup (+ schema)
    conf = {
        P + "dataset.namespaceResolvers.orders-db.type": "hostList",
        P + "dataset.namespaceResolvers.orders-db.hosts": "[db-1.internal;db-2.internal]",
        P + "dataset.namespaceResolvers.orders-db.schema": "postgres",
        P + "dataset.namespaceResolvers.kafka-cluster.type": "patternGroup",
        P + "dataset.namespaceResolvers.kafka-cluster.regex": r"(?<cluster>[a-zA-Z-]+)-(\d)+\.company\.com:[\d]*",
        P + "dataset.namespaceResolvers.kafka-cluster.matchingGroup": "cluster",
        P + "dataset.namespaceResolvers.cass.type": "pattern",
        P + "dataset.namespaceResolvers.cass.regex": r"cassandra-prod(\d)+\.company\.com",
    }
    resolvers = load_config(conf, {}).namespace_resolvers
    assert resolve_namespace(resolvers, "postgres://DB-2.internal:5432") == "postgres://orders-db:5432"
    assert resolve_namespace(resolvers, "mysql://db-2.internal:3306") == "mysql://db-2.internal:3306"  # schema
    assert resolve_namespace(resolvers, "kafka://broker-7.company.com:9092") == "kafka://broker"
    assert resolve_namespace(resolvers, "cassandra://cassandra-prod7.company.com:9042") == "cassandra://cass:9042"
    with pytest.raises(ConfigError):
        load_config({P + "dataset.namespaceResolvers.x.type": "dns"}, {})


def test_resolvers_rename_jdbc_datasets_and_their_column_lineage() -> None:
    """JDBC names follow the naming spec (postgres://host:port, database.schema.table), then the resolver."""
    resolvers = load_config(
        {
            P + "dataset.namespaceResolvers.orders-db.type": "hostList",
            P + "dataset.namespaceResolvers.orders-db.hosts": "db-2.internal",
        },
        {},
    ).namespace_resolvers
    target = RelationInfo(kind="jdbc", jdbc_url="jdbc:postgresql://db-2.internal:5432/shop", jdbc_table="sales.orders")
    snap = PlanSnapshot(
        root="SaveIntoDataSourceCommand",
        command=CommandInfo(name="SaveIntoDataSourceCommand", target=target, mode="Append"),
    )
    ql = analyze(snap, LineageOptions(namespace_resolvers=resolvers))
    assert [(o.namespace, o.name) for o in ql.outputs] == [("postgres://orders-db:5432", "shop.sales.orders")]
    assert ql.job_suffix == "sales.orders"  # SaveIntoDataSourceCommandVisitor: the table option
    plain = analyze(snap, LineageOptions())
    assert [(o.namespace, o.name) for o in plain.outputs] == [("postgres://db-2.internal:5432", "shop.sales.orders")]


def test_environment_properties_facet_on_every_event(assert_valid_events: Any) -> None:
    """CustomEnvironmentFacetBuilder / EnvironmentFacet (SparkGenericIntegrationTest: application and job events
    both carry ``environment-properties``; CustomEnvironmentVariablesCaptureTest: a configured variable's value);
    the key is ``spark.openlineage.facets.custom_environment_variables`` (FacetsConfig), also read under the name
    the integration's spark_conf.md gives it, ``spark.openlineage.facets.variables``."""
    assert load_config({P + "facets.custom_environment_variables": "[TEST_VAR;]"}, {}).environment_variables == (
        "TEST_VAR",
    )
    assert load_config({P + "facets.variables": "[B;A]"}, {}).environment_variables == ("A", "B")
    config = load_config({}, {})
    assert config.environment_variables == ()
    ctx = AppContext(
        namespace="ns",
        app_job="app",
        app_run_id="01890f6a-7d6e-7c3a-9e0c-0123456789ab",
        spark_version="3.5.0",
        environment={"TEST_VAR": "test", "UNSET": None},
    )
    ex = Execution(
        run_id="01890f6a-7d6e-7c3a-9e0c-0123456789ac", job_name="app.x", started=1.0, ended=2.0, inputs=[], outputs=[]
    )
    from openlineage.client.event_v2 import RunState

    events = [
        json.loads(Serde.to_json(e)) for e in [application_event(ctx, RunState.START, 1.0), *execution_events(ctx, ex)]
    ]
    assert_valid_events(events)
    for e in events:
        assert e["run"]["facets"]["environment-properties"]["environment-properties"] == {"TEST_VAR": "test"}
    # none configured: the facet is there, empty (the integration's default); it can be switched off
    assert _events({})[0]["run"]["facets"]["environment-properties"]["environment-properties"] == {}
    off = _events({P + "facets.environment-properties.disabled": "true"})
    assert all("environment-properties" not in e["run"]["facets"] for e in off)


def test_settings_in_the_transport_url_as_the_integrations_url_parser_reads_them() -> None:
    """UrlParser.parseUrl (ArgumentParser applies it to an http transport's url): overwrite_appname.py runs with
    ``?app_name=appName`` and expects jobs named ``app_name.execute_insert_into_hive_table.warehouse_target``
    (pysparkOverwriteNameCompleteEvent.json); the path names namespace, parent job and run, and the API version."""
    url = "http://ol:5000/api/v1/namespaces/ns1/jobs/parent/runs/01890f6a-7d6e-7c3a-9e0c-0123456789ab"
    config = load_config(
        {
            P + "transport.type": "http",
            P + "transport.url": url + "?app_name=appName&api_key=k&timeout=3&disabled=[a;b]&team=x",
            P + "appName": "ignored",
        },
        {},
    )
    assert (config.app_name, config.namespace, config.parent_job_name, config.parent_run_id) == (
        "appName",
        "ns1",
        "parent",
        "01890f6a-7d6e-7c3a-9e0c-0123456789ab",
    )
    assert config.disabled_facets == frozenset({"a", "b"})
    assert config.transport is not None
    assert (config.transport["url"], config.transport["endpoint"], config.transport["timeout"]) == (
        "http://ol:5000?team=x",
        "/api/v1/lineage",
        3.0,
    )
    assert config.transport["auth"] == {"type": "api_key", "apiKey": "k"}
    from headwater.capture.naming import application_job_name

    assert application_job_name(config.app_name or "") == "app_name"
    # the legacy key reads the same way; a URL without such a path or query is left as it is
    legacy = load_config({P + "url": "http://ol:5000/api/v1/namespaces/ns2?app_name=x&api_key=k"}, {})
    assert legacy.transport is not None
    assert (legacy.namespace, legacy.app_name, legacy.transport["url"]) == ("ns2", "x", "http://ol:5000")
    assert legacy.transport["auth"] == {"type": "api_key", "apiKey": "k"}
    plain = load_config({P + "transport.type": "http", P + "transport.url": "http://ol:5000/prefix"}, {})
    assert plain.transport is not None and plain.transport["url"] == "http://ol:5000/prefix"
