"""The ingest door as real OpenLineage producers meet it: events shaped like what the Airflow provider, dbt-ol,
Flink, Trino, Great Expectations, Hive and the Spark integration of several eras emit (schema URLs 1-0-0 to 2-0-2),
static DatasetEvents and JobEvents, custom and ``_deleted`` facets, unicode and long names — hand-written in
``tests/fixtures/producers/`` (README there) — posted through the real app (httpx's ASGI transport) to
``/api/v1/lineage`` and ``/api/v1/lineage/batch`` on real SQLite and PostgreSQL stores.

What is checked, for each: what the official schema accepts is acknowledged without warnings; the raw event read
back is the bytes as sent; the graph shows the datasets, jobs, edges, column lineage and run states the event
describes (expected values written out here, never computed by the code under test); and what is refused answers a
4xx whose details name the place (``$.path``) and the rule."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from fixtures.stories.load import derived_state
from headwater.api import create_app
from headwater.settings import load_settings
from headwater.store import Store
from olschema import event_errors

pytestmark = pytest.mark.anyio

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "producers"
JSON = {"Content-Type": "application/json"}
PG = "postgres://db.shop.internal:5432"

# every single-event fixture, in the order a producer would send them
SINGLE = [
    "airflow_dag_start.json",
    "airflow_task_start.json",
    "airflow_task_complete.json",
    "airflow_task_fail.json",
    "dbt_model_complete.json",
    "dbt_test_complete.json",
    "trino_complete.json",
    "great_expectations_complete.json",
    "hive_complete.json",
    "spark_0_2.json",
    "spark_0_12.json",
    "spark_1_8.json",
    "dataset_event.json",
    "job_event.json",
    "custom_facets.json",
    "unicode_names.json",
]


def raw(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def batch_texts(name: str) -> list[bytes]:
    """The events of a ``*.batch.json`` fixture, each as its own text."""
    return [json.dumps(e, ensure_ascii=False).encode() for e in json.loads(raw(name))]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    opened = Store.open(store_url)
    yield opened
    opened.close()


@pytest.fixture
async def client(store: Store) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(load_settings({"parse_processes": 0}, environ={}), store)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://headwater.test") as c:
        yield c


async def post(client: httpx.AsyncClient, body: bytes) -> dict[str, Any]:
    answer = await client.post("/api/v1/lineage", content=body, headers=JSON)
    assert answer.status_code == 201, answer.text
    result: dict[str, Any] = answer.json()
    return result


async def node(client: httpx.AsyncClient, type_: str, namespace: str, name: str) -> dict[str, Any]:
    answer = await client.get("/api/v1/graph/node", params={"type": type_, "namespace": namespace, "name": name})
    assert answer.status_code == 200, answer.text
    result: dict[str, Any] = answer.json()
    return result


async def runs(client: httpx.AsyncClient, namespace: str, name: str) -> list[dict[str, Any]]:
    answer = await client.get("/api/v1/graph/runs", params={"type": "job", "namespace": namespace, "name": name})
    assert answer.status_code == 200, answer.text
    return list(answer.json()["runs"])


async def column_edges(client: httpx.AsyncClient, namespace: str, name: str) -> set[tuple[str, str, str]]:
    """(source field id, target field id, first transformation subtype) of the column edges into a dataset."""
    answer = await client.get(
        "/api/v1/graph/lineage",
        params={"type": "dataset", "namespace": namespace, "name": name, "columns": "true", "direction": "upstream"},
    )
    assert answer.status_code == 200, answer.text
    return {
        (e["source"], e["target"], (e["transformations"] or [{}])[0].get("subtype"))
        for e in answer.json()["columnEdges"]
    }


async def assert_all_projected(client: httpx.AsyncClient) -> None:
    """Every acknowledged event is in the graph: none failed to derive, none left behind (after a read's barrier)."""
    await client.get("/api/v1/graph/namespaces")
    status = (await client.get("/api/v1/status")).json()["projection"]
    assert (status["failed"], status["behind"], status["failedEvents"]) == (0, 0, [])
    assert status["graphPosition"] == status["logPosition"] > 0


def field_names(details: dict[str, Any]) -> list[str]:
    return [f["name"] for f in details["fields"]]


# --- the fixtures are what the official schema accepts ------------------------------------------


@pytest.mark.parametrize("name", [*SINGLE, "flink.batch.json"])
def test_fixture_is_valid_against_the_official_schema(name: str) -> None:
    loaded = json.loads(raw(name))
    for event in loaded if isinstance(loaded, list) else [loaded]:
        assert event_errors(event) == []


# --- accepted as sent ------------------------------------------------------------------------------


async def test_each_producer_event_is_acknowledged_without_warnings_and_read_back_byte_for_byte(
    client: httpx.AsyncClient,
) -> None:
    for name in SINGLE:
        body = raw(name)
        answer = await post(client, body)
        assert answer["warnings"] == [], (name, answer["warnings"])
        got = await client.get(f"/api/v1/events/{answer['id']}")
        assert got.status_code == 200
        assert got.content == body, name
        assert got.headers["x-headwater-validation-warnings"] == "0"
    await assert_all_projected(client)


async def test_strict_validation_accepts_every_producer_event_too(store: Store) -> None:
    """What the official schema accepts, strict mode (every schema problem refuses) accepts: no lenient leeway needed."""
    app = create_app(load_settings({"parse_processes": 0, "validation": "strict"}, environ={}), store)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://headwater.test") as c:
        for name in [*SINGLE, "dataset_event_deleted.json", "job_event_deleted.json"]:
            answer = await c.post("/api/v1/lineage", content=raw(name), headers=JSON)
            assert answer.status_code == 201, (name, answer.text)
        answer = await c.post("/api/v1/lineage/batch", content=raw("flink.batch.json"), headers=JSON)
        assert answer.status_code == 200, answer.text


async def test_a_batch_of_every_producer_is_acknowledged_with_the_ids_single_posts_give(
    client: httpx.AsyncClient,
) -> None:
    bodies = [raw(n) for n in SINGLE] + batch_texts("flink.batch.json")
    batch = b"[" + b",\n".join(bodies) + b"]"
    answer = await client.post("/api/v1/lineage/batch", content=batch, headers=JSON)
    assert answer.status_code == 200, answer.text
    result = answer.json()
    assert (result["received"], result["stored"], result["warnings"]) == (len(bodies), len(bodies), [])
    for body, event_id in zip(bodies, result["ids"], strict=True):
        got = await client.get(f"/api/v1/events/{event_id}")
        assert got.status_code == 200
        assert got.content == body.strip()  # the event's own text in the batch, byte for byte
        again = await client.post("/api/v1/lineage", content=body, headers=JSON)
        assert again.status_code == 200, again.text  # the same event again: a duplicate of the batch's, same id
        assert again.json() == {"id": event_id, "duplicate": True, "warnings": []}
    wrapped = await client.post("/api/v1/lineage/batch", content=b'{"events": ' + batch + b"}", headers=JSON)
    assert wrapped.status_code == 200, wrapped.text
    assert wrapped.json()["duplicates"] == len(bodies)
    await assert_all_projected(client)


# --- what the graph shows -------------------------------------------------------------------------


async def test_airflow_dag_and_tasks_runs_states_hierarchy_lineage_and_error(client: httpx.AsyncClient) -> None:
    for name in ("airflow_dag_start.json", "airflow_task_start.json", "airflow_task_complete.json"):
        await post(client, raw(name))
    await post(client, raw("airflow_task_fail.json"))

    task = await node(client, "job", "shop_airflow", "shop_sales.load_region_sales")
    assert task["parent"] == "job:shop_airflow:shop_sales"
    assert task["jobType"] == {"integration": "AIRFLOW", "processingType": "BATCH", "jobType": "TASK"}
    assert task["inputs"] == [f"dataset:{PG}:shop.public.orders"]
    assert task["outputs"] == [f"dataset:{PG}:shop.public.region_sales"]
    dag = await node(client, "job", "shop_airflow", "shop_sales")
    assert sorted(dag["children"]) == [
        "job:shop_airflow:shop_sales.load_region_sales",
        "job:shop_airflow:shop_sales.publish_report",
    ]

    (done,) = await runs(client, "shop_airflow", "shop_sales.load_region_sales")
    assert (done["state"], done["startedAt"], done["endedAt"]) == (
        "COMPLETE",
        "2026-11-20T10:00:05.412006Z",
        "2026-11-20T10:00:09.870553Z",
    )
    assert done["parentRunId"] == "01935a2b-7c00-7e11-8a00-000000000001"
    (failed,) = await runs(client, "shop_airflow", "shop_sales.publish_report")
    assert failed["state"] == "FAIL"
    assert failed["errorMessage"].startswith('relation "public.customers" does not exist')
    assert "UndefinedTable" in failed["stackTrace"]
    (dag_run,) = await runs(client, "shop_airflow", "shop_sales")
    assert dag_run["state"] == "START"

    output = await node(client, "dataset", PG, "shop.public.region_sales")
    assert field_names(output) == ["region", "total_amount"]
    assert await column_edges(client, PG, "shop.public.region_sales") == {
        (
            f"datasetField:{PG}:shop.public.orders:region",
            f"datasetField:{PG}:shop.public.region_sales:region",
            "IDENTITY",
        ),
        (
            f"datasetField:{PG}:shop.public.orders:amount",
            f"datasetField:{PG}:shop.public.region_sales:total_amount",
            "AGGREGATION",
        ),
        (f"datasetField:{PG}:shop.public.orders:region", f"dataset:{PG}:shop.public.region_sales", "GROUP_BY"),
    }


async def test_dbt_model_and_its_tests_quality_results(client: httpx.AsyncClient) -> None:
    await post(client, raw("dbt_model_complete.json"))
    await post(client, raw("dbt_test_complete.json"))
    model = await node(client, "job", "shop_dbt", "shop.analytics.shop.customer_totals")
    assert model["parent"] == "job:shop_dbt:dbt-run-shop"
    assert model["jobType"] == {"integration": "DBT", "processingType": "BATCH", "jobType": "MODEL"}
    orders = await node(client, "dataset", PG, "shop.public.orders")
    assert [(f["name"], f["type"], f["description"]) for f in orders["fields"]] == [
        ("order_id", None, "primary key"),
        ("customer_id", None, None),
        ("amount", None, None),
    ]
    assert await column_edges(client, PG, "shop.analytics.customer_totals") == {
        (
            f"datasetField:{PG}:shop.public.orders:customer_id",
            f"datasetField:{PG}:shop.analytics.customer_totals:customer_id",
            "IDENTITY",
        ),
        (
            f"datasetField:{PG}:shop.public.orders:amount",
            f"datasetField:{PG}:shop.analytics.customer_totals:total_amount",
            "AGGREGATION",
        ),
    }
    quality = await client.get("/api/v1/quality", params={"nodeId": f"dataset:{PG}:shop.analytics.customer_totals"})
    assert quality.status_code == 200, quality.text
    answer = quality.json()["quality"]
    assert answer["status"] == "failing"  # `unique` failed with severity error
    results = {(a["type"] or a["name"], a["column"], a["success"]) for a in answer["assertions"]}
    assert results == {
        ("not_null", "customer_id", True),
        ("unique", "customer_id", False),
        ("accepted_range", "total_amount", False),
    }
    assert answer["metrics"]["row_count"] == 1042
    assert answer["metrics"]["columns"][0] == {
        "column": "customer_id",
        "metrics": {"nullCount": 0, "distinctCount": 1041},
    }


async def test_flink_streaming_job_is_running_with_its_topics(client: httpx.AsyncClient) -> None:
    answer = await client.post("/api/v1/lineage/batch", content=raw("flink.batch.json"), headers=JSON)
    assert answer.status_code == 200, answer.text
    job = await node(client, "job", "flink_jobs", "orders_enrichment")
    assert job["jobType"] == {"integration": "FLINK", "processingType": "STREAMING", "jobType": "JOB"}
    kafka = "kafka://broker-1.kafka.internal:9092"
    assert job["inputs"] == [f"dataset:{kafka}:orders"] and job["outputs"] == [f"dataset:{kafka}:orders_enriched"]
    (run,) = await runs(client, "flink_jobs", "orders_enrichment")
    assert (run["state"], run["startedAt"], run["endedAt"]) == ("RUNNING", "2026-11-20T12:00:00.001Z", None)
    topic = await node(client, "dataset", kafka, "orders")
    assert topic["kind"] == "stream"
    customer = next(f for f in topic["fields"] if f["name"] == "customer")
    assert [f["name"] for f in customer["fields"]] == ["id", "address"]
    assert [f["name"] for f in customer["fields"][1]["fields"]] == ["city", "zip"]


async def test_trino_query_job_and_column_lineage(client: httpx.AsyncClient) -> None:
    await post(client, raw("trino_complete.json"))
    trino = "trino://trino.example:8080"
    job = await node(client, "job", trino, "20261120_131540_00042_x7k2p")
    assert job["inputs"] == [f"dataset:{trino}:iceberg.sales.orders"]
    assert job["outputs"] == [f"dataset:{trino}:iceberg.analytics.daily_orders"]
    edges = await column_edges(client, trino, "iceberg.analytics.daily_orders")
    assert {(s, t) for s, t, _ in edges} == {
        (
            f"datasetField:{trino}:iceberg.sales.orders:orderdate",
            f"datasetField:{trino}:iceberg.analytics.daily_orders:orderdate",
        ),
        (
            f"datasetField:{trino}:iceberg.sales.orders:orderkey",
            f"datasetField:{trino}:iceberg.analytics.daily_orders:orders",
        ),
    }
    (run,) = await runs(client, trino, "20261120_131540_00042_x7k2p")
    assert run["state"] == "COMPLETE"


async def test_great_expectations_results_on_the_dataset(client: httpx.AsyncClient) -> None:
    await post(client, raw("great_expectations_complete.json"))
    quality = await client.get("/api/v1/quality", params={"nodeId": f"dataset:{PG}:shop.public.orders"})
    assert quality.status_code == 200, quality.text
    answer = quality.json()["quality"]
    assert answer["status"] == "failing"
    results = {(a["type"] or a["name"], a["column"], a["success"]) for a in answer["assertions"]}
    assert results == {
        ("expect_table_row_count_to_be_between", None, True),
        ("expect_column_values_to_not_be_null", "order_id", True),
        ("expect_column_values_to_be_between", "amount", False),
    }
    orders = await node(client, "dataset", PG, "shop.public.orders")
    assert field_names(orders) == ["order_id", "customer_id", "region", "amount"]


async def test_hive_ctas_with_symlinks(client: httpx.AsyncClient) -> None:
    await post(client, raw("hive_complete.json"))
    hdfs = "hdfs://namenode:8020"
    out = "/warehouse/tablespace/managed/hive/monthly_summary"
    summary = await node(client, "dataset", hdfs, out)
    assert field_names(summary) == ["month", "total"]
    assert summary["facets"]["symlinks"]["identifiers"][0]["name"] == "default.monthly_summary"
    edges = await column_edges(client, hdfs, out)
    assert (
        f"datasetField:{hdfs}:/warehouse/tablespace/managed/hive/transactions:amount",
        f"datasetField:{hdfs}:{out}:total",
        "AGGREGATION",
    ) in edges


async def test_spark_events_of_older_spec_versions(client: httpx.AsyncClient) -> None:
    for name in ("spark_0_2.json", "spark_0_12.json", "spark_1_8.json"):
        await post(client, raw(name))
    counts = await node(client, "dataset", "gs://legacy-bucket", "/output/counts")
    assert field_names(counts) == ["word", "count"]
    legacy_job = await node(client, "job", "spark_legacy", "word_count.execute_insert_into_hadoop_fs_relation_command")
    assert legacy_job["parent"] == "job:airflow_legacy:etl_dag.spark_task"
    # 1-0-0 column lineage: transformationType at the field's level
    assert await column_edges(client, "s3a://lake-curated", "/customer_ltv") == {
        (
            "datasetField:s3a://lake-raw:/orders:customer_id",
            "datasetField:s3a://lake-curated:/customer_ltv:customer_id",
            "IDENTITY",
        ),
        (
            "datasetField:s3a://lake-raw:/orders:amount",
            "datasetField:s3a://lake-curated:/customer_ltv:ltv",
            "TRANSFORMATION",
        ),
    }
    (start_only,) = await runs(
        client, "spark_prod", "sessions_rollup.append_data_exec_v1.iceberg_analytics_sessions_daily"
    )
    assert start_only["state"] == "START"
    daily = await column_edges(client, "s3://lake", "warehouse/analytics.db/sessions_daily")
    assert {(s, t) for s, t, _ in daily} == {
        (
            "datasetField:s3://lake:warehouse/analytics.db/sessions:started_at",
            "datasetField:s3://lake:warehouse/analytics.db/sessions_daily:day",
        ),
        (
            "datasetField:s3://lake:warehouse/analytics.db/sessions:session_id",
            "datasetField:s3://lake:warehouse/analytics.db/sessions_daily:sessions",
        ),
    }


async def test_static_lineage_dataset_and_job_events(client: httpx.AsyncClient) -> None:
    await post(client, raw("dataset_event.json"))
    await post(client, raw("job_event.json"))
    accounts = await node(client, "dataset", "bigquery", "acme-prod.crm.accounts")
    assert field_names(accounts) == ["account_id", "billing", "tags"]
    assert accounts["facets"]["documentation"]["description"] == "Every customer account."
    assert accounts["facets"]["acme_retention"]["days"] == 400
    job = await node(client, "job", "crm_sync", "accounts_to_warehouse")
    assert job["inputs"] == ["dataset:salesforce://acme.my.salesforce.com:Account"]
    assert job["outputs"] == ["dataset:bigquery:acme-prod.crm.accounts"]
    assert job["latestRun"] is None
    assert job["facets"]["documentation"]["description"] == "Copies CRM accounts nightly."
    edges = await column_edges(client, "bigquery", "acme-prod.crm.accounts")
    assert {(s, t) for s, t, _ in edges} == {
        (
            "datasetField:salesforce://acme.my.salesforce.com:Account:Id",
            "datasetField:bigquery:acme-prod.crm.accounts:account_id",
        ),
        (
            "datasetField:salesforce://acme.my.salesforce.com:Account:BillingCountry",
            "datasetField:bigquery:acme-prod.crm.accounts:billing.country",
        ),
    }


async def test_custom_facets_are_kept_where_they_were_sent(client: httpx.AsyncClient) -> None:
    await post(client, raw("custom_facets.json"))
    (run,) = await runs(client, "acme_platform", "nightly_export")
    assert run["state"] == "OTHER"
    assert run["facets"]["acme.cost"]["breakdown"][1] == {"item": "storage", "amount": 0.5}
    assert run["facets"]["acme-trace"]["attributes"]["note"] is None
    archive = await node(client, "dataset", "s3://acme-archive", "nightly/2026-11-22")
    assert archive["facets"]["acme_checksum"]["sha256"].startswith("9f86d081")


async def test_unicode_names_round_trip(client: httpx.AsyncClient) -> None:
    await post(client, raw("unicode_names.json"))
    target = await node(client, "dataset", PG.replace("db.shop.internal", "db.example"), "crm.public.客户")
    assert field_names(target) == ["名字", "город"]
    source = await node(client, "dataset", "file", "/srv/données/façade/clients-été.csv")
    assert field_names(source) == ["prénom", "город", "âge"]
    assert source["fields"][2]["description"] == "âge en années 🎂"
    job = await node(client, "job", "équipe_données", "chargement_客户_📦")
    assert job["outputs"] == ["dataset:postgres://db.example:5432:crm.public.客户"]
    found = await client.get("/api/v1/graph/search", params={"q": "客户"})
    assert {r["id"] for r in found.json()["results"]} >= {
        "dataset:postgres://db.example:5432:crm.public.客户",
        "job:équipe_données:chargement_客户_📦",
    }


# --- facets deleted with `_deleted` ----------------------------------------------------------------


async def test_a_deleted_facet_is_acknowledged_without_warnings_and_leaves_the_node(client: httpx.AsyncClient) -> None:
    """``_deleted: true`` is the spec's way to remove a facet (DatasetFacet and JobFacet); a deletion marker carries
    no content, so the facet's own required properties (documentation's ``description``) are not asked of it."""
    await post(client, raw("dataset_event.json"))
    await post(client, raw("job_event.json"))
    deleted = await post(client, raw("dataset_event_deleted.json"))
    assert deleted["warnings"] == []
    job_deleted = await post(client, raw("job_event_deleted.json"))
    assert job_deleted["warnings"] == []

    accounts = await node(client, "dataset", "bigquery", "acme-prod.crm.accounts")
    assert "documentation" not in accounts["facets"]
    assert "acme_retention" not in accounts["facets"]
    assert accounts["facets"]["ownership"]["owners"] == [{"name": "team:crm", "type": "MAINTAINER"}]
    assert field_names(accounts) == ["account_id", "billing", "tags"]
    job = await node(client, "job", "crm_sync", "accounts_to_warehouse")
    assert "documentation" not in job["facets"]
    assert job["facets"]["jobType"]["integration"] == "FIVETRAN"


async def test_deleting_the_graph_facets_of_a_dataset(client: httpx.AsyncClient) -> None:
    """A deleted ``schema`` removes the dataset's columns; a deleted ``columnLineage`` (whose ``fields`` the schema
    requires of a facet with content) is accepted and leaves no column edges."""
    await post(client, raw("job_event.json"))
    meta = {"_producer": "https://github.com/example/catalog-sync/v2.3.0", "_deleted": True}
    event = json.loads(raw("job_event.json"))
    event["eventTime"] = "2026-11-21T10:00:00Z"
    event["outputs"][0]["facets"] = {
        "columnLineage": {
            **meta,
            "_schemaURL": "https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json#/$defs/ColumnLineageDatasetFacet",
        }
    }
    answer = await client.post("/api/v1/lineage", json=event)
    assert answer.status_code == 201, answer.text
    assert answer.json()["warnings"] == []
    assert await column_edges(client, "bigquery", "acme-prod.crm.accounts") == set()

    dataset = json.loads(raw("dataset_event.json"))
    await post(client, raw("dataset_event.json"))
    dataset["eventTime"] = "2026-11-21T11:00:00Z"
    dataset["dataset"]["facets"] = {
        "schema": {
            **meta,
            "_schemaURL": "https://openlineage.io/spec/facets/1-1-1/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet",
        }
    }
    answer = await client.post("/api/v1/lineage", json=dataset)
    assert answer.status_code == 201, answer.text
    accounts = await node(client, "dataset", "bigquery", "acme-prod.crm.accounts")
    assert accounts["fields"] == []
    assert "schema" not in accounts["facets"]
    await assert_all_projected(client)


async def test_a_job_facet_deleted_by_a_later_event_of_the_same_run(client: httpx.AsyncClient) -> None:
    start = json.loads(raw("airflow_task_start.json"))
    start["job"]["facets"]["documentation"] = {
        "_producer": start["producer"],
        "_schemaURL": "https://openlineage.io/spec/facets/1-1-0/DocumentationJobFacet.json#/$defs/DocumentationJobFacet",
        "description": "Loads region sales.",
    }
    complete = json.loads(raw("airflow_task_complete.json"))
    complete["job"]["facets"]["documentation"] = {"_producer": start["producer"], "_deleted": True}
    for event in (start, complete):
        answer = await client.post("/api/v1/lineage", json=event)
        assert answer.status_code == 201, answer.text
    task = await node(client, "job", "shop_airflow", "shop_sales.load_region_sales")
    assert "documentation" not in task["facets"]
    assert task["facets"]["sql"]["dialect"] == "postgres"  # sent by the START only: kept
    (run,) = await runs(client, "shop_airflow", "shop_sales.load_region_sales")
    assert run["state"] == "COMPLETE"


# --- null where a value is optional ----------------------------------------------------------------


def _with_nulls() -> list[dict[str, Any]]:
    """Producers that write every optional property, null when unknown (a Jackson or Go emitter without
    NON_NULL/omitempty, openlineage-python before it dropped None facets: ``"sql": None``), on the graph's facets."""
    complete = json.loads(raw("airflow_task_complete.json"))
    output = complete["outputs"][0]["facets"]
    output["schema"]["fields"] = [
        {"name": "region", "type": "text", "description": None},
        {"name": "total_amount", "type": None, "description": None, "fields": None},
    ]
    output["columnLineage"]["fields"]["region"]["inputFields"][0]["transformations"][0]["description"] = None
    output["columnLineage"]["dataset"] = None
    complete["run"]["facets"]["parent"]["root"] = None
    complete["job"]["facets"]["sql"] = None
    complete["job"]["facets"]["documentation"] = None
    complete["inputs"][0]["facets"]["schema"] = None  # the orders' columns stay those of an earlier event
    fail = json.loads(raw("airflow_task_fail.json"))
    fail["run"]["facets"]["errorMessage"]["stackTrace"] = None
    fail["run"]["facets"]["parent"] = None
    return [complete, fail]


async def test_null_optional_values_in_graph_facets_are_warnings_read_as_absent(client: httpx.AsyncClient) -> None:
    await post(client, raw("dbt_model_complete.json"))  # the orders' columns, before an event with a null schema
    complete, fail = _with_nulls()
    answer = await client.post("/api/v1/lineage", json=complete)
    assert answer.status_code == 201, answer.text
    warned = {w["path"]: w["message"] for w in answer.json()["warnings"]}
    assert warned == {
        "$.outputs[0].facets.schema.fields[0].description": "expected string, got null",
        "$.outputs[0].facets.schema.fields[1].type": "expected string, got null",
        "$.outputs[0].facets.schema.fields[1].description": "expected string, got null",
        "$.outputs[0].facets.schema.fields[1].fields": "expected array, got null",
        "$.outputs[0].facets.columnLineage.fields.region.inputFields[0].transformations[0].description": (
            "expected string, got null"
        ),
        "$.outputs[0].facets.columnLineage.dataset": "expected array, got null",
        "$.run.facets.parent.root": "expected object, got null",
        "$.job.facets.sql": "expected object, got null",
        "$.job.facets.documentation": "expected object, got null",
        "$.inputs[0].facets.schema": "expected object, got null",
    }
    answer = await client.post("/api/v1/lineage", json=fail)
    assert answer.status_code == 201, answer.text
    assert {w["path"] for w in answer.json()["warnings"]} == {
        "$.run.facets.errorMessage.stackTrace",
        "$.run.facets.parent",
    }

    output = await node(client, "dataset", PG, "shop.public.region_sales")
    assert [(f["name"], f["type"], f["description"], f["fields"]) for f in output["fields"]] == [
        ("region", "text", None, []),
        ("total_amount", None, None, []),
    ]
    orders = await node(client, "dataset", PG, "shop.public.orders")
    assert field_names(orders) == ["order_id", "customer_id", "amount"]
    assert {(s, t) for s, t, _ in await column_edges(client, PG, "shop.public.region_sales")} == {
        (f"datasetField:{PG}:shop.public.orders:region", f"datasetField:{PG}:shop.public.region_sales:region"),
        (f"datasetField:{PG}:shop.public.orders:amount", f"datasetField:{PG}:shop.public.region_sales:total_amount"),
    }
    (task,) = await runs(client, "shop_airflow", "shop_sales.load_region_sales")
    assert task["parentRunId"] == "01935a2b-7c00-7e11-8a00-000000000001"
    (failed,) = await runs(client, "shop_airflow", "shop_sales.publish_report")
    assert failed["state"] == "FAIL"
    assert failed["errorMessage"].startswith('relation "public.customers"')
    assert (failed["stackTrace"], failed["parentRunId"]) == (None, None)
    await assert_all_projected(client)


async def test_null_where_a_value_is_required_is_refused_with_its_path(client: httpx.AsyncClient) -> None:
    fail = json.loads(raw("airflow_task_fail.json"))
    fail["run"]["facets"]["errorMessage"]["message"] = None
    fail["run"]["facets"]["parent"]["job"]["name"] = None
    answer = await client.post("/api/v1/lineage", json=fail)
    assert answer.status_code == 422, answer.text
    assert answer.json()["error"]["details"] == [
        {"path": "$.run.facets.errorMessage.message", "message": "expected string, got null"},
        {"path": "$.run.facets.parent.job.name", "message": "expected string, got null"},
    ]


async def test_null_optional_values_are_refused_when_validation_is_strict(store: Store) -> None:
    app = create_app(load_settings({"parse_processes": 0, "validation": "strict"}, environ={}), store)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://headwater.test") as c:
        complete, _ = _with_nulls()
        answer = await c.post("/api/v1/lineage", json=complete)
        assert answer.status_code == 422, answer.text
        paths = {d["path"] for d in answer.json()["error"]["details"]}
        assert {"$.outputs[0].facets.schema.fields[1].type", "$.job.facets.sql"} <= paths


async def test_numbers_beyond_a_double_survive_a_batch_as_sent(client: httpx.AsyncClient) -> None:
    """A batch's events keep their text too: a decimal longer than a double holds, an exponent's form, an escape
    and the producer's whitespace are read back as sent (parsed and written again they became 12.4 and 100.0)."""
    custom = raw("custom_facets.json").replace(b'"amount":"12.40"', b'"amount":12.400000000000000000001,"rate":1E+2')
    dbt = raw("dbt_test_complete.json").replace(b'"min": 0.5', b'"min": 0.50000000000000000001')
    dataset = raw("dataset_event.json").replace(b"Every customer account.", b"Every customer \\u00e9 account.")
    for envelope in (b"[%s]", b'{"events": [ %s ]}'):
        bodies = [custom, dbt, dataset] if envelope.startswith(b"[") else [dbt, custom]
        answer = await client.post("/api/v1/lineage/batch", content=envelope % b" ,\n ".join(bodies), headers=JSON)
        assert answer.status_code == 200, answer.text
        for body, event_id in zip(bodies, answer.json()["ids"], strict=True):
            got = await client.get(f"/api/v1/events/{event_id}")
            assert got.content == body.strip()


# --- long names, and what is refused ---------------------------------------------------------------


async def test_names_up_to_the_limit_in_bytes_are_accepted_and_found(client: httpx.AsyncClient) -> None:
    """``max_name_bytes`` (512) counts ``namespace:name`` in UTF-8 bytes: a name of 3-byte characters that fills it
    exactly is accepted and found again; one byte more is refused, naming the place and the setting."""
    namespace = "trino://trino.example:8080"  # 26 bytes, then ":" and the name
    fits = "表" * ((512 - len(namespace) - 1) // 3) + "x" * ((512 - len(namespace) - 1) % 3)
    assert len(f"{namespace}:{fits}".encode()) == 512
    event = json.loads(raw("trino_complete.json"))
    event["outputs"][0]["name"] = fits
    event["outputs"][0]["facets"] = {}
    answer = await client.post("/api/v1/lineage", json=event)
    assert answer.status_code == 201, answer.text
    assert (await node(client, "dataset", namespace, fits))["name"] == fits
    job = await node(client, "job", namespace, "20261120_131540_00042_x7k2p")
    assert job["outputs"] == [f"dataset:{namespace}:{fits}"]

    event["outputs"][0]["name"] = fits + "y"
    answer = await client.post("/api/v1/lineage", json=event)
    assert answer.status_code == 422, answer.text
    assert answer.json()["error"]["details"] == [
        {
            "path": "$.outputs[0].name",
            "message": "namespace and name take 513 bytes (UTF-8); the limit is 512 (setting max_name_bytes)",
        }
    ]


def _changed(name: str, change: Any) -> dict[str, Any]:
    event: dict[str, Any] = json.loads(raw(name))
    change(event)
    return event


# what producers get wrong, where it is, and what the answer says of it (written out by hand)
REFUSED = [
    (
        "a Spark-style state name",
        _changed("airflow_task_complete.json", lambda e: e.update(eventType="STARTED")),
        "$.eventType",
        '"STARTED" is not one of: START, RUNNING, COMPLETE, ABORT, FAIL, OTHER',
    ),
    (
        "an Airflow run id instead of a UUID",
        _changed("airflow_task_complete.json", lambda e: e["run"].update(runId="scheduled__2026-11-20T10:00:00")),
        "$.run.runId",
        '"scheduled__2026-11-20T10:00:00" is not a valid uuid',
    ),
    (
        "a parent facet naming its run by a dag run id",
        _changed("dbt_model_complete.json", lambda e: e["run"]["facets"]["parent"]["run"].update(runId="manual_1")),
        "$.run.facets.parent.run.runId",
        '"manual_1" is not a valid uuid',
    ),
    (
        "a local time without a date",
        _changed("trino_complete.json", lambda e: e.update(eventTime="13:15:42")),
        "$.eventTime",
        '"13:15:42" is not a valid date-time',
    ),
    (
        "a column-lineage input without its field",
        _changed(
            "hive_complete.json",
            lambda e: e["outputs"][0]["facets"]["columnLineage"]["fields"]["month"]["inputFields"][0].pop("field"),
        ),
        "$.outputs[0].facets.columnLineage.fields.month.inputFields[0].field",
        "required field is missing",
    ),
    (
        "schema fields as an object",
        _changed("spark_0_12.json", lambda e: e["outputs"][0]["facets"]["schema"].update(fields={"ltv": "double"})),
        "$.outputs[0].facets.schema.fields",
        'expected array, got object {"ltv": "double"}',
    ),
    (
        "an errorMessage without its language",
        _changed("airflow_task_fail.json", lambda e: e["run"]["facets"]["errorMessage"].pop("programmingLanguage")),
        "$.run.facets.errorMessage.programmingLanguage",
        "required field is missing",
    ),
    (
        "a dataset without a namespace",
        _changed("great_expectations_complete.json", lambda e: e["inputs"][0].pop("namespace")),
        "$.inputs[0].namespace",
        "required field is missing",
    ),
]


@pytest.mark.parametrize(("label", "event", "path", "message"), REFUSED, ids=[r[0] for r in REFUSED])
async def test_what_is_refused_names_its_place_and_rule(
    client: httpx.AsyncClient, label: str, event: dict[str, Any], path: str, message: str
) -> None:
    answer = await client.post("/api/v1/lineage", json=event)
    assert answer.status_code == 422, answer.text
    error = answer.json()["error"]
    assert error["code"] == "invalid_event"
    assert {"path": path, "message": message} in error["details"], error["details"]
    assert f"{path}: {message}" in error["message"]
    # in a batch, after two good events: the same problem at $[2]..., or $.events[2]...; nothing stored
    good = [json.loads(raw("trino_complete.json")), json.loads(raw("hive_complete.json"))]
    for body, root in (([*good, event], "$[2]"), ({"events": [*good, event]}, "$.events[2]")):
        answer = await client.post("/api/v1/lineage/batch", json=body)
        assert answer.status_code == 422, answer.text
        assert {"path": root + path[1:], "message": message} in answer.json()["error"]["details"]
    listed = await client.get("/api/v1/events")
    assert listed.json()["events"] == []


# --- run states from the events of one run -----------------------------------------------------------


async def test_an_other_event_after_the_end_adds_metadata_without_reopening_the_run(client: httpx.AsyncClient) -> None:
    """The spec: "Additional events with OTHER eventType can be added to the same run. For example to send additional
    metadata after the run is complete". A late RUNNING (the Spark integration's job-end events can carry a later
    time than the execution's end) does not reopen a finished run either."""
    for name in ("airflow_task_start.json", "airflow_task_complete.json"):
        await post(client, raw(name))
    other = json.loads(raw("airflow_task_complete.json"))
    other["eventType"] = "OTHER"
    other["eventTime"] = "2026-11-20T10:05:00+00:00"
    other["run"]["facets"] = {
        "acme_review": {
            "_producer": other["producer"],
            "_schemaURL": "https://schemas.acme.example/Review.json",
            "ok": 1,
        }
    }
    other["inputs"], other["outputs"] = [], []
    late = json.loads(raw("airflow_task_complete.json"))
    late["eventType"] = "RUNNING"
    late["eventTime"] = "2026-11-20T10:00:10+00:00"
    for event in (other, late):
        answer = await client.post("/api/v1/lineage", json=event)
        assert answer.status_code == 201, answer.text
    (run,) = await runs(client, "shop_airflow", "shop_sales.load_region_sales")
    assert (run["state"], run["startedAt"], run["endedAt"], run["durationMs"]) == (
        "COMPLETE",
        "2026-11-20T10:00:05.412006Z",
        "2026-11-20T10:00:09.870553Z",
        4458,
    )
    assert run["facets"]["acme_review"]["ok"] == 1
    assert run["facets"]["airflow"]["task"]["task_id"] == "load_region_sales"
    assert (await node(client, "job", "shop_airflow", "shop_sales.load_region_sales"))["latestRun"][
        "state"
    ] == "COMPLETE"

    # a run that only ever said OTHER is OTHER; one that started and then said OTHER is still running
    only_other = json.loads(raw("custom_facets.json"))
    answer = await client.post("/api/v1/lineage", json=only_other)
    assert answer.status_code == 201, answer.text
    (run,) = await runs(client, "acme_platform", "nightly_export")
    assert (run["state"], run["endedAt"]) == ("OTHER", None)
    start = json.loads(raw("airflow_task_start.json"))
    start["run"]["runId"] = "01935a2b-8d10-7f22-9b11-0000000000aa"
    start["job"]["name"] = "shop_sales.slow_task"
    then_other = json.loads(json.dumps(start))
    then_other["eventType"], then_other["eventTime"] = "OTHER", "2026-11-20T10:01:00+00:00"
    for event in (start, then_other):
        answer = await client.post("/api/v1/lineage", json=event)
        assert answer.status_code == 201, answer.text
    (run,) = await runs(client, "shop_airflow", "shop_sales.slow_task")
    assert (run["state"], run["endedAt"]) == ("START", None)


# --- the graph is a function of the log -------------------------------------------------------------------


async def test_the_graph_of_every_producer_equals_a_rebuild_from_the_log(
    store: Store, client: httpx.AsyncClient
) -> None:
    """Everything above in one store — deletions, nulls, OTHER after the end, a late RUNNING — then the derived
    tables compared with a rebuild from the log."""
    for name in [*SINGLE, "dataset_event_deleted.json", "job_event_deleted.json"]:
        answer = await client.post("/api/v1/lineage", content=raw(name), headers=JSON)
        assert answer.status_code in (200, 201), answer.text
    flink = await client.post("/api/v1/lineage/batch", content=raw("flink.batch.json"), headers=JSON)
    assert flink.status_code == 200, flink.text
    for event in _with_nulls():
        event["run"]["runId"] = event["run"]["runId"][:-4] + "beef"
        answer = await client.post("/api/v1/lineage", json=event)
        assert answer.status_code == 201, answer.text
    other = json.loads(raw("airflow_task_complete.json"))
    other["eventType"], other["eventTime"] = "OTHER", "2026-11-20T10:05:00+00:00"
    answer = await client.post("/api/v1/lineage", json=other)
    assert answer.status_code == 201, answer.text
    await assert_all_projected(client)
    before = derived_state(store)
    store.rebuild()
    assert derived_state(store) == before
