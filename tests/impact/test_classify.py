"""Classifications along column lineage on the pipeline of pipeline.py, through the API (SQLite, PostgreSQL):
a PII tag on source columns flows to every column computed from their values, not past a hash or a count
(nor past an aggregation when the policy says so), as of a time, without revealing hidden nodes; and an
impact check warns when a changed script would carry a tagged column into a published asset."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

sys.path.insert(0, str(Path(__file__).parent))
from pipeline import DATABASE, DIALECT, MART, NS, PIPELINE_SQL, RAW, REPORT, STAGING, col, writer

from databases import pg_database
from headwater.api import create_app
from headwater.client import StoreClient
from headwater.settings import load_settings
from headwater.sql import script_events
from headwater.sql.changes import script_changes
from headwater.store import Store

ADMIN = "admin-token-classify"
T0 = datetime(2026, 1, 1, tzinfo=UTC)  # the pipeline runs
T1 = datetime(2026, 2, 1, tzinfo=UTC)  # a data steward tags raw.customers
BETWEEN = "2026-01-15T00:00:00Z"
RULES = '{"Contact": "(?i)^country$"}'


def tags_event() -> dict[str, Any]:
    """A DatasetEvent tagging raw.customers' email and phone PII (tags facet) and commenting notes."""
    fields = [{"name": n, "type": t} for n, t in (("id", "INT"), ("email", "TEXT"), ("phone", "TEXT"))]
    fields += [{"name": "country", "type": "TEXT"}, {"name": "signup_date", "type": "DATE"}]
    fields.append({"name": "notes", "type": "TEXT", "description": "free text, may hold contact details #PII"})
    producer = "https://example.com/steward"
    return {
        "eventTime": T1.isoformat(),
        "producer": producer,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/DatasetEvent",
        "dataset": {
            "namespace": NS,
            "name": "shop.raw.customers",
            "facets": {
                "schema": {
                    "_producer": producer,
                    "_schemaURL": "https://openlineage.io/spec/facets/1-1-1/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet",
                    "fields": fields,
                },
                "tags": {
                    "_producer": producer,
                    "_schemaURL": "https://openlineage.io/spec/facets/1-0-0/TagsDatasetFacet.json#/$defs/TagsDatasetFacet",
                    "tags": [
                        {"key": "PII", "value": "true", "source": "steward", "field": "email"},
                        {"key": "classification", "value": "PII", "source": "steward", "field": "phone"},
                        {"key": "raw", "value": "", "source": "steward"},
                    ],
                },
            },
        },
    }


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def store(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    with ExitStack() as cleanup:
        if request.param == "sqlite":
            url = f"sqlite:///{tmp_path_factory.mktemp('classify') / 'headwater.db'}"
        else:
            url = cleanup.enter_context(
                pg_database(request.getfixturevalue("pg_server_url"), "hw_classify", migrated=True)
            )
        s = Store.open(url)
        events = script_events(PIPELINE_SQL, dialect=DIALECT, namespace=NS, default_database=DATABASE, event_time=T0)
        StoreClient(s).send([*events, tags_event()])
        yield s
        s.close()


@pytest.fixture(scope="module")
def jobs() -> dict[str, str]:
    events = script_events(PIPELINE_SQL, dialect=DIALECT, namespace=NS, default_database=DATABASE, event_time=T0)
    return {"staging": writer(events, STAGING), "mart": writer(events, MART), "report": writer(events, REPORT)}


def client(store: Store, **settings: str) -> TestClient:
    app = create_app(load_settings({"write_tokens": ADMIN, "classify_rules": RULES, **settings}, environ={}), store)
    return TestClient(app, base_url="http://localhost", headers={"Authorization": f"Bearer {ADMIN}"})


@pytest.fixture(scope="module")
def catalog(store: Store) -> dict[str, str]:
    """Analytics publishes the mart (owner ana); a token of a reader in no project."""
    http = client(store)
    c = "/api/v1/catalog"
    for path, body in (
        (f"{c}/domains", {"id": "sales", "name": "Sales"}),
        (f"{c}/projects", {"id": "analytics", "domain": "sales"}),
    ):
        assert http.post(path, json=body).status_code == 201
    tokens = {}
    for user in ("ana", "outsider"):
        answer = http.post(f"{c}/users", json={"id": user})
        assert answer.status_code == 201, answer.text
        tokens[user] = answer.json()["token"]
    assert http.put(f"{c}/projects/analytics/members/ana", json={"role": "owner"}).status_code == 200
    asset = http.post(f"{c}/assets", json={"nodeId": MART, "project": "analytics"})
    assert asset.status_code == 201, asset.text
    assert http.post(f"{c}/assets/{asset.json()['id']}/publish").status_code == 200
    return tokens


def pii(store: Store, **params: str) -> dict[str, Any]:
    answer = client(store, **params.pop("settings", {})).get("/api/v1/classify/report", params={"tag": "PII", **params})  # type: ignore[arg-type]
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert isinstance(body, dict)
    return body


def test_pii_flows_by_value_and_stops_at_a_hash_and_a_count(store: Store, jobs: dict[str, str]) -> None:
    found = pii(store)
    columns = {c["id"]: (c["inherited"], c["origin"], c["hops"]) for c in found["columns"]}
    assert columns == {
        col(RAW, "email"): (False, None, 0),
        col(RAW, "phone"): (False, None, 0),
        col(RAW, "notes"): (False, None, 0),  # its comment says #PII
        col(STAGING, "email"): (True, col(RAW, "email"), 1),  # lower(email)
        col(STAGING, "phone"): (True, col(RAW, "phone"), 1),
        col(MART, "email"): (True, col(RAW, "email"), 2),
        col(REPORT, "sample_email"): (True, col(RAW, "email"), 3),  # max(email) is still an email
    }
    sample = next(c for c in found["columns"] if c["id"] == col(REPORT, "sample_email"))
    assert sample["path"] == [
        col(RAW, "email"), jobs["staging"], col(STAGING, "email"), jobs["mart"], col(MART, "email"), jobs["report"],
        col(REPORT, "sample_email"),
    ]  # fmt: skip
    assert sample["transformations"] == ["DIRECT/TRANSFORMATION", "DIRECT/IDENTITY", "DIRECT/AGGREGATION"]
    sources = {c["id"]: c["sources"] for c in found["columns"] if not c["inherited"]}
    assert sources[col(RAW, "phone")] == [{"kind": "openlineage", "detail": "classification=PII (steward)"}]
    assert sources[col(RAW, "notes")] == [{"kind": "comment", "detail": "free text, may hold contact details #PII"}]
    stops = {(s["column"], s["reason"], s["job"], s["origin"]) for s in found["stops"]}
    assert stops == {
        (col(MART, "phone_hash"), "masked", jobs["mart"], col(RAW, "phone")),  # md5(phone)
        (col(REPORT, "emails"), "masked", jobs["report"], col(RAW, "email")),  # count(email)
    }
    assert {d["id"]: (d["columns"], d["inherited"]) for d in found["datasets"]} == {
        RAW: (["email", "notes", "phone"], False),
        STAGING: (["email", "phone"], True),
        MART: (["email"], True),
        REPORT: (["sample_email"], True),
    }


def test_the_policy_stops_a_tag_at_aggregations_and_rules_tag_by_name(store: Store, jobs: dict[str, str]) -> None:
    found = pii(store, settings={"classify_aggregation_stops": "pii"})  # type: ignore[arg-type]
    assert col(REPORT, "sample_email") not in {c["id"] for c in found["columns"]}
    aggregated = [s for s in found["stops"] if s["reason"] == "aggregated"]
    assert [(s["column"], s["job"], s["transformation"]) for s in aggregated] == [
        (col(REPORT, "sample_email"), jobs["report"], "DIRECT/AGGREGATION")
    ]
    contact = client(store).get("/api/v1/classify/report", params={"tag": "contact"}).json()
    # the rule tags every column named country; GROUP BY country keeps it (identity) in the report
    assert {c["id"] for c in contact["columns"] if not c["inherited"]} == {
        col(d, "country") for d in (RAW, STAGING, MART, REPORT)
    }


def test_as_of_before_the_steward_tagged_nothing_was_pii(store: Store) -> None:
    found = pii(store, at=BETWEEN)
    assert found["columns"] == [] and found["stops"] == [] and found["at"] == "2026-01-15T00:00:00Z"
    raw_tags = client(store).get("/api/v1/classify/report", params={"tag": "raw"}).json()
    assert [(d["id"], d["sources"]) for d in raw_tags["datasets"]] == [
        (RAW, [{"kind": "openlineage", "detail": "steward"}])
    ]


def test_csv(store: Store) -> None:
    text = client(store).get("/api/v1/classify/report", params={"tag": "PII", "format": "csv"}).text
    lines = text.splitlines()
    assert lines[0] == "tag,type,id,field,inherited,sources,origin,hops,path,transformations"
    assert sum(line.startswith("PII,FIELD,") for line in lines) == 7
    assert sum(line.startswith("PII,STOP,") for line in lines) == 2


def test_a_reader_sees_no_tag_of_a_node_hidden_from_it(store: Store, catalog: dict[str, str]) -> None:
    """The published mart's inventory is hidden from a reader in no project (only its published node shows)."""
    http = client(store)
    answer = http.get(
        "/api/v1/classify/report", params={"tag": "PII"}, headers={"Authorization": f"Bearer {catalog['outsider']}"}
    ).json()
    ids = {c["id"] for c in answer["columns"]}
    assert col(MART, "email") not in ids and MART not in {d["id"] for d in answer["datasets"]}
    assert "customer_contacts" not in str(answer)  # no name of the hidden mart, nor of the job writing it
    sample = next(c for c in answer["columns"] if c["id"] == col(REPORT, "sample_email"))
    assert sample["path"][4].startswith("dataset:restricted://hidden:")
    assert sample["path"][3].startswith("job:restricted://hidden:")


def test_an_impact_check_warns_when_a_change_carries_pii_into_a_published_asset(
    store: Store, catalog: dict[str, str]
) -> None:
    """The new mart script exposes the phone column (PII) instead of its hash: the mart is published."""
    script = """CREATE OR REPLACE TABLE mart.customer_contacts AS
      SELECT id AS customer_id, email, phone AS phone_hash, country FROM staging.customers"""
    changes = script_changes(script, dialect=DIALECT, namespace=NS, default_database=DATABASE)
    answer = client(store).post("/api/v1/impact/check", json={"changes": [c.to_json() for c in changes]})
    assert answer.status_code == 200, answer.text
    tagged = [i for i in answer.json()["items"] if i["effect"] == "TAGGED"]
    assert [(i["id"], i["severity"], i["project"], i["owners"], i["published"], i["reason"]) for i in tagged] == [
        (
            MART,
            "warning",
            "analytics",
            ["ana"],
            True,
            f"would carry classification=PII from {col(RAW, 'phone')} into a published asset",
        )
    ]
    assert tagged[0]["path"] == [col(STAGING, "phone"), col(MART, "phone_hash"), MART]
    # the same script keeping the hash carries nothing new
    keep = script_changes(
        script.replace("phone AS phone_hash", "md5(phone) AS phone_hash"), dialect=DIALECT, namespace=NS,
        default_database=DATABASE,
    )  # fmt: skip
    again = client(store).post("/api/v1/impact/check", json={"changes": [c.to_json() for c in keep]}).json()
    assert again["severity"] == "none" and again["items"] == []


def test_impact_checks_as_of_and_as_a_reader_who_may_not_see_the_changed_dataset(
    store: Store, catalog: dict[str, str], jobs: dict[str, str]
) -> None:
    http = client(store)
    drop = {"kind": "drop_column", "namespace": NS, "name": "shop.mart.customer_contacts", "column": "email"}
    now = http.post("/api/v1/impact/check", json={"changes": [drop]}).json()
    assert now["severity"] == "breaking" and {i["id"] for i in now["items"]} >= {jobs["report"]}
    before = http.post("/api/v1/impact/check", json={"changes": [drop], "at": "2025-12-01T00:00:00Z"}).json()
    assert before["severity"] == "none" and before["changes"][0]["found"] is False
    # the outsider may not see the mart's inventory node: answered as for a dataset the graph does not hold
    hidden = http.post(
        "/api/v1/impact/check", json={"changes": [drop]}, headers={"Authorization": f"Bearer {catalog['outsider']}"}
    ).json()
    unknown = {**drop, "name": "shop.mart.nowhere"}
    missing = http.post(
        "/api/v1/impact/check", json={"changes": [unknown]}, headers={"Authorization": f"Bearer {catalog['outsider']}"}
    ).json()
    assert hidden["items"] == [] and hidden["changes"][0]["found"] is False
    assert hidden["changes"][0]["notes"] == [f"{MART} is not in the graph: nothing downstream is known"]
    assert missing["changes"][0]["notes"] == [
        f"dataset:{NS}:shop.mart.nowhere is not in the graph: nothing downstream is known"
    ]


def test_a_changed_script_compared_with_one_named_job(store: Store, jobs: dict[str, str]) -> None:
    script = "CREATE OR REPLACE TABLE staging.customers AS SELECT id, email, country FROM raw.customers"
    for job, gone in ((jobs["staging"], [col(STAGING, "phone")]), ("job:elsewhere:other", [col(STAGING, "phone")])):
        changes = script_changes(script, dialect=DIALECT, namespace=NS, default_database=DATABASE, job=job)
        result = client(store).post("/api/v1/impact/check", json={"changes": [c.to_json() for c in changes]}).json()
        assert result["changes"][0]["gone"] == gone
        if job.startswith("job:elsewhere"):  # no lineage of that job: only the dataset's schema is compared
            assert result["changes"][0]["notes"][-1] == f"the graph holds no column lineage of {job} writing {STAGING}"
            assert result["changes"][0]["values"] == []
        else:  # email was lower(email): now the column as is, from the same source: no change of values
            assert result["changes"][0]["values"] == []


def test_the_tags_of_one_dataset(store: Store) -> None:
    http = client(store)
    mart = http.get("/api/v1/classify/node", params={"nodeId": MART}).json()
    assert {(c["field"], c["tag"], c["inherited"]) for c in mart["columns"]} == {
        ("email", "PII", True),
        ("country", "Contact", False),  # the rule of RULES
    }
    # phone's tag is {key: classification, value: PII}: named classification=PII when every tag is listed
    assert {(s["column"], s["tag"], s["reason"]) for s in mart["stops"]} == {
        (col(MART, "phone_hash"), "classification=PII", "masked")
    }
    assert http.get("/api/v1/classify/node", params={"nodeId": f"dataset:{NS}:nowhere"}).status_code == 404
