"""The DataZone lineage API with boto3's real ``datazone`` client (SigV4-signed) against a real server on
SQLite and PostgreSQL: the five lineage operations, Client-Token idempotency, pagination, node ids,
DataZone's error shapes, and the authentication modes."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import botocore.exceptions
import pytest
import sqlalchemy as sa
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from datazone_helpers import DOMAIN, KEY_ID, REGION, SECRET, Served, body, datazone, run_event

from headwater.api import datazone_shapes as dz
from headwater.store.schema import datazone_events, events

ORDERS = ("postgres://db.internal:5432", "shop.public.orders")
CUSTOMERS = ("s3://lake", "raw/customers")
DAILY = ("postgres://db.internal:5432", "shop.public.daily_sales")


def _error(call: Any, code: str, status: int) -> dict[str, Any]:
    with pytest.raises(botocore.exceptions.ClientError) as caught:
        call()
    response = caught.value.response
    assert response["Error"]["Code"] == code, response
    assert response["ResponseMetadata"]["HTTPStatusCode"] == status
    assert response["Error"]["Message"]
    return dict(response)


def _rows(s: Served, table: sa.Table) -> int:
    assert s.store is not None
    with s.store.engine.connect() as conn:
        return int(conn.scalar(sa.select(sa.func.count()).select_from(table)) or 0)


def _post(client: Any, event: dict[str, Any], **extra: Any) -> dict[str, Any]:
    answer = client.post_lineage_event(domainIdentifier=DOMAIN, event=body(event), **extra)
    assert answer["ResponseMetadata"]["HTTPStatusCode"] == 200
    return dict(answer)


def test_post_get_list_events(served: Served) -> None:
    client = datazone(served.url)
    first = run_event("etl.daily_sales", [ORDERS, CUSTOMERS], [DAILY], event_type="START", time_="2026-11-20T10:00:00Z")
    second = {**first, "eventType": "COMPLETE", "eventTime": "2026-11-20T10:05:00Z"}
    ids = [_post(client, e)["id"] for e in (first, second)]
    assert all(dz.EVENT_ID_PATTERN.match(i) for i in ids)
    assert len(set(ids)) == 2

    got = client.get_lineage_event(domainIdentifier=DOMAIN, identifier=ids[1])
    assert json.loads(got["event"].read()) == second  # the event as it was sent
    assert got["domainId"] == DOMAIN and got["id"] == ids[1]
    assert got["createdBy"] == KEY_ID
    assert got["processingStatus"] == "SUCCESS"
    assert got["eventTime"] == datetime(2026, 11, 20, 10, 5, tzinfo=UTC)

    listed = client.list_lineage_events(domainIdentifier=DOMAIN)
    assert [i["id"] for i in listed["items"]] == [ids[1], ids[0]]  # newest event time first
    summary = listed["items"][0]["eventSummary"]["openLineageRunEventSummary"]
    assert summary == {
        "eventType": "COMPLETE",
        "runId": first["run"]["runId"],
        "job": {"namespace": "airflow", "name": "etl.daily_sales"},
        "inputs": [{"namespace": ORDERS[0], "name": ORDERS[1]}, {"namespace": CUSTOMERS[0], "name": CUSTOMERS[1]}],
        "outputs": [{"namespace": DAILY[0], "name": DAILY[1]}],
    }
    ascending = client.list_lineage_events(domainIdentifier=DOMAIN, sortOrder="ASCENDING")
    assert [i["id"] for i in ascending["items"]] == ids
    after = client.list_lineage_events(
        domainIdentifier=DOMAIN, timestampAfter=datetime(2026, 11, 20, 10, 1, tzinfo=UTC)
    )
    assert [i["id"] for i in after["items"]] == [ids[1]]
    assert client.list_lineage_events(domainIdentifier=DOMAIN, processingStatus="FAILED")["items"] == []
    # another domain holds none of them
    assert client.list_lineage_events(domainIdentifier="dzd_other")["items"] == []
    _error(
        lambda: client.get_lineage_event(domainIdentifier="dzd_other", identifier=ids[0]),
        "ResourceNotFoundException",
        404,
    )


def test_list_events_pages_with_next_token(served: Served) -> None:
    client = datazone(served.url)
    posted = [
        _post(client, run_event(f"job_{i}", [ORDERS], [DAILY], time_=f"2026-11-20T10:{i:02d}:00Z"))["id"]
        for i in range(7)
    ]
    pages = list(
        client.get_paginator("list_lineage_events").paginate(
            domainIdentifier=DOMAIN, sortOrder="ASCENDING", PaginationConfig={"PageSize": 3}
        )
    )
    assert [len(p["items"]) for p in pages] == [3, 3, 1]
    assert [i["id"] for p in pages for i in p["items"]] == posted
    first = client.list_lineage_events(domainIdentifier=DOMAIN, maxResults=3)
    _error(
        lambda: client.list_lineage_events(
            domainIdentifier=DOMAIN, maxResults=3, nextToken=first["nextToken"], sortOrder="ASCENDING"
        ),
        "ValidationException",
        400,
    )
    _error(lambda: client.list_lineage_events(domainIdentifier=DOMAIN, nextToken="garbage"), "ValidationException", 400)
    _error(lambda: client.list_lineage_events(domainIdentifier=DOMAIN, maxResults=51), "ValidationException", 400)


def test_client_token_resend_is_stored_once(served: Served) -> None:
    client = datazone(served.url)
    event = run_event("etl.orders", [ORDERS], [DAILY])
    one = _post(client, event, clientToken="token-0001")
    again = _post(client, event, clientToken="token-0001")  # a retry: the same request again
    assert one["id"] == again["id"]
    assert _rows(served, events) == 1
    assert _rows(served, datazone_events) == 1
    # the same token for another event is a conflict, and nothing of it is recorded for the domain
    other = run_event("etl.other", [ORDERS], [DAILY])
    _error(lambda: _post(client, other, clientToken="token-0001"), "ConflictException", 409)
    assert _rows(served, datazone_events) == 1
    # the same event without a token, or with another one, is still one event in the log
    _post(client, event)
    _post(client, event, clientToken="token-0002")
    assert _rows(served, events) == 1  # the conflicting event was not stored
    assert [i["id"] for i in client.list_lineage_events(domainIdentifier=DOMAIN)["items"]] == [one["id"]]
    # posted to a second domain: the domain records it, the log still holds it once
    elsewhere = client.post_lineage_event(domainIdentifier="dzd-second", event=body(event))
    assert elsewhere["id"] == one["id"] and elsewhere["domainId"] == "dzd-second"
    assert [i["id"] for i in client.list_lineage_events(domainIdentifier="dzd-second")["items"]] == [one["id"]]
    assert (_rows(served, events), _rows(served, datazone_events)) == (1, 2)


def test_get_lineage_node_by_source_identifier_and_id(served: Served) -> None:
    client = datazone(served.url)
    run_id = "0190f1c2-7a34-7b55-8c66-9d77e8f90a1b"
    _post(client, run_event("etl.daily_sales", [ORDERS, CUSTOMERS], [DAILY], run_id=run_id, fields=["id", "amount"]))

    node = client.get_lineage_node(domainIdentifier=DOMAIN, identifier=f"{DAILY[0]}/{DAILY[1]}")
    assert node["typeName"] == dz.TYPE_DATASET
    assert node["name"] == DAILY[1]
    assert node["sourceIdentifier"] == f"{DAILY[0]}/{DAILY[1]}"
    assert node["id"] == dz.node_id(f"dataset:{DAILY[0]}:{DAILY[1]}")
    assert len(node["id"]) <= 36
    assert node["eventTimestamp"] == datetime(2026, 11, 20, 10, tzinfo=UTC)
    schema = next(f for f in node["formsOutput"] if f["formName"] == "SchemaForm")
    assert [f["name"] for f in json.loads(schema["content"])["fields"]] == ["id", "amount"]
    assert node["downstreamNodes"] == []
    (job_ref,) = node["upstreamNodes"]

    job = client.get_lineage_node(
        domainIdentifier=DOMAIN, identifier=job_ref["id"], eventTimestamp=job_ref["eventTimestamp"]
    )
    assert job["typeName"] == dz.TYPE_JOB
    assert job["sourceIdentifier"] == "airflow.etl.daily_sales"
    assert {r["id"] for r in job["upstreamNodes"]} == {
        dz.node_id(f"dataset:{ORDERS[0]}:{ORDERS[1]}"),
        dz.node_id(f"dataset:{CUSTOMERS[0]}:{CUSTOMERS[1]}"),
    }
    assert [r["id"] for r in job["downstreamNodes"]] == [node["id"]]
    for ref in job["upstreamNodes"]:  # every id handed out resolves
        upstream = client.get_lineage_node(domainIdentifier=DOMAIN, identifier=ref["id"])
        assert upstream["downstreamNodes"][0]["id"] == job["id"]

    # the job by its sourceIdentifier, the dataset by its Headwater node id, the run by its sourceIdentifier
    assert client.get_lineage_node(domainIdentifier=DOMAIN, identifier="airflow.etl.daily_sales")["id"] == job["id"]
    by_hw = client.get_lineage_node(domainIdentifier=DOMAIN, identifier=f"dataset:{CUSTOMERS[0]}:{CUSTOMERS[1]}")
    assert by_hw["sourceIdentifier"] == "s3://lake/raw/customers"
    run = client.get_lineage_node(domainIdentifier=DOMAIN, identifier=f"airflow.etl.daily_sales/{run_id}")
    assert run["typeName"] == dz.TYPE_JOB_RUN
    assert run["sourceIdentifier"] == f"airflow.etl.daily_sales/{run_id}"
    assert [r["id"] for r in run["downstreamNodes"]] == [node["id"]]
    assert client.get_lineage_node(domainIdentifier=DOMAIN, identifier=run["id"])["id"] == run["id"]

    _error(
        lambda: client.get_lineage_node(domainIdentifier=DOMAIN, identifier="dnotanodeidatallhereatall0"),
        "ResourceNotFoundException",
        404,
    )
    _error(
        lambda: client.get_lineage_node(domainIdentifier=DOMAIN, identifier="nowhere/nothing"),
        "ResourceNotFoundException",
        404,
    )


def test_a_source_identifier_ending_in_history_is_a_node(served: Served) -> None:
    client = datazone(served.url)
    _post(client, run_event("etl.archive", [DAILY], [("file", "/archive/history")], time_="2026-11-20T10:00:00Z"))
    _post(
        client,
        run_event("etl.archive", [DAILY], [("file", "/archive/history")], time_="2026-11-21T10:00:00Z", fields=["id"]),
    )
    node = client.get_lineage_node(domainIdentifier=DOMAIN, identifier="file//archive/history")
    assert node["name"] == "/archive/history"
    old = client.get_lineage_node(
        domainIdentifier=DOMAIN,
        identifier="file//archive/history",
        eventTimestamp=datetime(2026, 11, 20, 12, tzinfo=UTC),
    )
    assert old["eventTimestamp"] == datetime(2026, 11, 20, 10, tzinfo=UTC)
    history = client.list_lineage_node_history(domainIdentifier=DOMAIN, identifier="file//archive/history")
    assert len(history["nodes"]) == 2


def test_node_as_of_a_time_and_history(served: Served) -> None:
    client = datazone(served.url)
    _post(client, run_event("etl.daily_sales", [ORDERS], [DAILY], time_="2026-11-20T10:00:00Z", fields=["id"]))
    _post(client, run_event("etl.daily_sales", [ORDERS], [DAILY], time_="2026-11-21T10:00:00Z", fields=["id", "total"]))
    _post(client, run_event("etl.report", [DAILY], [("file", "/reports/daily.csv")], time_="2026-11-22T10:00:00Z"))
    ident = f"{DAILY[0]}/{DAILY[1]}"

    old = client.get_lineage_node(
        domainIdentifier=DOMAIN, identifier=ident, eventTimestamp=datetime(2026, 11, 20, 12, tzinfo=UTC)
    )
    fields = json.loads(next(f for f in old["formsOutput"] if f["formName"] == "SchemaForm")["content"])["fields"]
    assert [f["name"] for f in fields] == ["id"]
    assert old["downstreamNodes"] == []  # the report job read it only later

    history = client.list_lineage_node_history(domainIdentifier=DOMAIN, identifier=ident)
    stamps = [n["eventTimestamp"] for n in history["nodes"]]
    assert stamps == [datetime(2026, 11, 21, 10, tzinfo=UTC), datetime(2026, 11, 20, 10, tzinfo=UTC)]
    assert {n["id"] for n in history["nodes"]} == {old["id"]}
    ascending = client.list_lineage_node_history(domainIdentifier=DOMAIN, identifier=ident, sortOrder="ASCENDING")
    assert [n["eventTimestamp"] for n in ascending["nodes"]] == stamps[::-1]
    paged = list(
        client.get_paginator("list_lineage_node_history").paginate(
            domainIdentifier=DOMAIN, identifier=ident, PaginationConfig={"PageSize": 1}
        )
    )
    assert [n["eventTimestamp"] for p in paged for n in p["nodes"]] == stamps
    since = client.list_lineage_node_history(
        domainIdentifier=DOMAIN, identifier=ident, eventTimestampGTE=datetime(2026, 11, 21, tzinfo=UTC)
    )
    assert [n["eventTimestamp"] for n in since["nodes"]] == stamps[:1]
    # direction: versions with neighbours on that side (the report job read only the second version)
    down = client.list_lineage_node_history(domainIdentifier=DOMAIN, identifier=ident, direction="DOWNSTREAM")
    assert [n["eventTimestamp"] for n in down["nodes"]] == stamps[:1]
    up = client.list_lineage_node_history(domainIdentifier=DOMAIN, identifier=ident, direction="UPSTREAM")
    assert len(up["nodes"]) == 2


def test_error_shapes(served: Served) -> None:
    client = datazone(served.url)
    bad = _error(
        lambda: client.post_lineage_event(domainIdentifier=DOMAIN, event=b'{"eventType": '), "ValidationException", 400
    )
    assert bad["ResponseMetadata"]["HTTPHeaders"]["x-amzn-errortype"] == "ValidationException"
    bad_run = run_event("j", [], [DAILY], run_id="not-a-uuid")
    message = _error(
        lambda: client.post_lineage_event(domainIdentifier=DOMAIN, event=body(bad_run)), "ValidationException", 400
    )
    assert "runId" in message["Error"]["Message"]  # the path of the problem, as the native ingest says it
    dataset_event = {
        "eventTime": "2026-11-20T10:00:00Z",
        "dataset": {"namespace": DAILY[0], "name": DAILY[1]},
        "producer": "https://example.com/p",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/DatasetEvent",
    }
    refused = _error(
        lambda: client.post_lineage_event(domainIdentifier=DOMAIN, event=body(dataset_event)),
        "ValidationException",
        400,
    )
    assert "RunEvent" in refused["Error"]["Message"]
    assert _rows(served, events) == 0  # nothing of a refused request is stored
    _error(lambda: client.post_lineage_event(domainIdentifier="not-a-domain", event=b"{}"), "ValidationException", 400)
    _error(
        lambda: client.get_lineage_event(domainIdentifier=DOMAIN, identifier="0123456789abcd"),
        "ResourceNotFoundException",
        404,
    )
    _error(
        lambda: client.get_lineage_event(domainIdentifier=DOMAIN, identifier="TOO-SHORT"), "ValidationException", 400
    )
    _error(
        lambda: client.delete_lineage_event(domainIdentifier=DOMAIN, identifier="0123456789abcd"),
        "ValidationException",
        400,
    )
    # the raw answer: DataZone's header and body
    answer = served.http.get(f"/v2/domains/{DOMAIN}/lineage/events")
    assert answer.status_code == 403
    assert answer.headers["x-amzn-ErrorType"] == "AccessDeniedException"
    assert set(answer.json()) == {"message"}


def test_signatures_are_checked(served: Served) -> None:
    _post(datazone(served.url), run_event("etl.orders", [ORDERS], [DAILY]))
    denied = _error(
        lambda: datazone(served.url, secret="not-the-secret").list_lineage_events(domainIdentifier=DOMAIN),
        "AccessDeniedException",
        403,
    )
    assert "signature" in denied["Error"]["Message"]
    unknown = _error(
        lambda: datazone(served.url, key_id="AKIANOTCONFIGURED").list_lineage_events(domainIdentifier=DOMAIN),
        "AccessDeniedException",
        403,
    )
    assert "AKIANOTCONFIGURED" in unknown["Error"]["Message"]
    _error(
        lambda: datazone(served.url, secret="nope").post_lineage_event(
            domainIdentifier=DOMAIN, event=body(run_event("x", [], [DAILY]))
        ),
        "AccessDeniedException",
        403,
    )
    assert _rows(served, events) == 1
    # the second configured key works too
    assert datazone(served.url, key_id="AKIASECONDKEY", secret="other-secret").list_lineage_events(
        domainIdentifier=DOMAIN
    )["items"]


def _signed(url: str, payload: bytes, *, when: datetime | None = None) -> AWSRequest:
    request = AWSRequest(method="POST", url=f"{url}/v2/domains/{DOMAIN}/lineage/events", data=payload)
    signer = SigV4Auth(Credentials(KEY_ID, SECRET), "datazone", REGION)
    if when is None:
        signer.add_auth(request)
    else:  # botocore's own steps with a chosen signing time
        stamp = when.strftime("%Y%m%dT%H%M%SZ")
        request.context["timestamp"] = stamp
        request.headers["X-Amz-Date"] = stamp
        canonical = signer.canonical_request(request)
        signature = signer.signature(signer.string_to_sign(request, canonical), request)
        request.headers["Authorization"] = (
            f"AWS4-HMAC-SHA256 Credential={signer.scope(request)}, "
            f"SignedHeaders={signer.signed_headers(signer.headers_to_sign(request))}, Signature={signature}"
        )
    return request


def test_a_changed_body_or_an_old_signature_is_refused(served: Served) -> None:
    event = body(run_event("etl.orders", [ORDERS], [DAILY]))
    good = _signed(served.url, event)
    answer = served.http.post(good.url, content=event, headers=dict(good.headers.items()))
    assert answer.status_code == 200, answer.text
    tampered = body(run_event("etl.evil", [ORDERS], [DAILY]))
    changed = served.http.post(good.url, content=tampered, headers=dict(good.headers.items()))
    assert changed.status_code == 403 and changed.headers["x-amzn-ErrorType"] == "AccessDeniedException"
    old = _signed(served.url, event, when=datetime(2026, 1, 1, tzinfo=UTC))
    expired = served.http.post(old.url, content=event, headers=dict(old.headers.items()))
    assert expired.status_code == 403 and "expired" in expired.json()["message"]
    assert _rows(served, events) == 1


def test_unsigned_requests_where_no_keys_are_configured(open_served: Served) -> None:
    event = run_event("etl.orders", [ORDERS], [DAILY])
    answer = open_served.http.post(f"/v2/domains/{DOMAIN}/lineage/events", content=body(event))
    assert answer.status_code == 200, answer.text
    assert set(answer.json()) == {"id", "domainId"}
    # boto3 signs with whatever keys it has; without configured keys nothing is checked
    listed = datazone(open_served.url, key_id="ANY", secret="any").list_lineage_events(domainIdentifier=DOMAIN)
    assert [i["id"] for i in listed["items"]] == [answer.json()["id"]]
    assert "createdBy" not in listed["items"][0]


def test_posts_wait_for_the_projector_s_writes(open_served: Served) -> None:
    """The domain's record is written while the projector derives earlier events: on SQLite its transaction
    must queue behind that writer, never fail with 'database is locked' after the event was stored."""
    path = f"/v2/domains/{DOMAIN}/lineage/events"
    for i in range(300):
        event = run_event(f"job_{i % 20}", [("s3://b", f"in/{i % 50}")], [("s3://b", f"out/{i % 30}")])
        answer = open_served.http.post(path, content=body(event), headers={"Client-Token": f"token-{i}"})
        assert answer.status_code == 200, (i, answer.text)
    assert (_rows(open_served, events), _rows(open_served, datazone_events)) == (300, 300)


def test_bearer_tokens_apply_where_no_keys_are_configured(token_served: Served) -> None:
    client = datazone(token_served.url)
    denied = _error(lambda: client.list_lineage_events(domainIdentifier=DOMAIN), "AccessDeniedException", 403)
    assert "datazone_access_keys" in denied["Error"]["Message"]
    path = f"/v2/domains/{DOMAIN}/lineage/events"
    event = body(run_event("etl.orders", [ORDERS], [DAILY]))
    read_only = token_served.http.post(path, content=event, headers={"Authorization": "Bearer r-token"})
    assert read_only.status_code == 403 and read_only.headers["x-amzn-ErrorType"] == "AccessDeniedException"
    assert token_served.http.post(path, content=event, headers={"Authorization": "Bearer w-token"}).status_code == 200
    assert token_served.http.get(path, headers={"Authorization": "Bearer r-token"}).json()["items"]


def test_history_of_many_versions_pages_at_the_boundaries(served: Served) -> None:
    """Seven versions of one dataset (a column added each day, written at 10:00 on 2026-11-01 … 07); a report job
    reads it from the 3rd at 12:00 until it switches to another input on the 5th at 12:00. Pages are read by hand
    with maxResults and nextToken."""
    client = datazone(served.url)
    for day in range(1, 8):
        columns = [f"c{i}" for i in range(1, day + 1)]
        _post(client, run_event("etl.load", [], [DAILY], time_=f"2026-11-0{day}T10:00:00Z", fields=columns))
    _post(client, run_event("etl.report", [DAILY], [("file", "/reports/r.csv")], time_="2026-11-03T12:00:00Z"))
    _post(client, run_event("etl.report", [ORDERS], [("file", "/reports/r.csv")], time_="2026-11-05T12:00:00Z"))
    ident = f"{DAILY[0]}/{DAILY[1]}"

    def day(n: int) -> datetime:
        return datetime(2026, 11, n, 10, tzinfo=UTC)

    def pages(size: int, **params: Any) -> list[list[datetime]]:
        out: list[list[datetime]] = []
        token: str | None = None
        while True:
            extra = {"nextToken": token} if token else {}
            answer = client.list_lineage_node_history(
                domainIdentifier=DOMAIN, identifier=ident, maxResults=size, **params, **extra
            )
            out.append([n["eventTimestamp"] for n in answer["nodes"]])
            token = answer.get("nextToken")
            if token is None:
                return out
            assert len(out) < 10, "the pages do not end"

    assert pages(3) == [[day(7), day(6), day(5)], [day(4), day(3), day(2)], [day(1)]]
    assert pages(7) == [[day(7), day(6), day(5), day(4), day(3), day(2), day(1)]]  # exactly one full page
    assert pages(3, eventTimestampGTE=day(2)) == [[day(7), day(6), day(5)], [day(4), day(3), day(2)]]
    assert pages(2, sortOrder="ASCENDING", eventTimestampLTE=day(5)) == [[day(1), day(2)], [day(3), day(4)], [day(5)]]
    # read by the report job during the 3rd version (from 12:00 on), the 4th, and the 5th (until 12:00)
    assert pages(2, sortOrder="ASCENDING", direction="DOWNSTREAM") == [[day(3), day(4)], [day(5)]]
    assert pages(3, direction="UPSTREAM") == [[day(7), day(6), day(5)], [day(4), day(3), day(2)], [day(1)]]
    # a token belongs to its listing
    first = client.list_lineage_node_history(domainIdentifier=DOMAIN, identifier=ident, maxResults=3)
    _error(
        lambda: client.list_lineage_node_history(
            domainIdentifier=DOMAIN, identifier=ident, maxResults=3, sortOrder="ASCENDING", nextToken=first["nextToken"]
        ),
        "ValidationException",
        400,
    )
