"""The graph read API as a data engineer uses it, over a story written out event by event below.

Every expected value is read off the events by hand (the comments say which event), never computed
by the code under test. The story, on SQLite and PostgreSQL, sent through the ingest endpoint:

    s3://raw-bucket  "landing/orders 2026/part.v1.csv"  (id, amt; a symlinks facet naming the Hive table
                                                        hive://metastore:9083 raw.orders)
      --(spark orders.clean)--> postgres://db.example.com:5432  shop.public.orders_clean
      --(spark orders.summary)--> bigquery proj.ds.summary, bigquery "proj.ds.été%20#1"

- 11-01 10:00-10:05  orders.clean run r1: orders_clean = (id, amount); id <- raw.id (IDENTITY),
                     amount <- raw.amt (TRANSFORMATION).
- 11-01 09:00        DatasetEvent: proj.ds.extra = (a, b) with a documentation facet.
- 11-02 10:00-10:05  orders.summary run r3 reads orders_clean, writes summary (total <- orders_clean.amount,
                     AGGREGATION) and été (x <- orders_clean.id, IDENTITY).
- 11-03 10:00-10:05  orders.clean run r2: the column amount renamed total_amount (total_amount <- raw.amt).
- 11-04 10:00-10:05  orders.summary run r4 writes only été: it stopped writing summary.
- 11-05 00:00        DatasetEvent: summary dropped (lifecycleStateChange DROP).
- 11-06 00:00        DatasetEvent: extra's documentation facet deleted (``_deleted: true``).
- 11-06 12:00-12:05  late.job run r5 reads orders_clean, writes extra; its COMPLETE is sent before its START.
- 11-07 08:00:00.123456  DatasetEvent: proj.ds.micro = (m), at a moment with microseconds.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import anyio
import httpx
import pytest
from api_helpers import assert_error, client_for, make_settings, module_db_url
from fastapi import FastAPI

from headwater.api import create_app
from headwater.store import Store

pytestmark = pytest.mark.anyio

PRODUCER = "https://example.test/audit"
RUN_EVENT = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"
DATASET_EVENT = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/DatasetEvent"
FACET = "https://openlineage.io/spec/facets/1-0-1/Facet.json"

RAW = ("s3://raw-bucket", "landing/orders 2026/part.v1.csv")
CLEAN = ("postgres://db.example.com:5432", "shop.public.orders_clean")
SUMMARY = ("bigquery", "proj.ds.summary")
WEIRD = ("bigquery", "proj.ds.été%20#1")
EXTRA = ("bigquery", "proj.ds.extra")
CLEAN_JOB = ("spark", "orders.clean")
SUMMARY_JOB = ("spark", "orders.summary")
LATE_JOB = ("spark", "late.job")
MICRO = ("bigquery", "proj.ds.micro")


def node_id(kind: str, ds: tuple[str, str], field: str | None = None) -> str:
    return f"{kind}:{ds[0]}:{ds[1]}" + (f":{field}" if field else "")


def run_id(tag: str) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"audit-{tag}"))


def facet(**body: Any) -> dict[str, Any]:
    return {"_producer": PRODUCER, "_schemaURL": FACET, **body}


def dataset(
    ds: tuple[str, str],
    fields: list[tuple[str, str]] | None = None,
    lineage: dict[str, list[tuple[tuple[str, str], str, str]]] | None = None,
    **facets: Any,
) -> dict[str, Any]:
    if fields is not None:
        facets["schema"] = facet(fields=[{"name": n, "type": t} for n, t in fields])
    if lineage is not None:
        facets["columnLineage"] = facet(
            fields={
                out: {
                    "inputFields": [
                        {
                            "namespace": src[0],
                            "name": src[1],
                            "field": f,
                            "transformations": [{"type": "DIRECT", "subtype": subtype}],
                        }
                        for src, f, subtype in inputs
                    ]
                }
                for out, inputs in lineage.items()
            }
        )
    return {"namespace": ds[0], "name": ds[1], "facets": facets}


def run_events(
    tag: str, job: tuple[str, str], start: str, end: str, inputs: list[Any], outputs: list[Any]
) -> list[dict[str, Any]]:
    return [
        {
            "eventType": kind,
            "eventTime": when,
            "producer": PRODUCER,
            "schemaURL": RUN_EVENT,
            "run": {"runId": run_id(tag), "facets": {}},
            "job": {"namespace": job[0], "name": job[1], "facets": {}},
            "inputs": inputs,
            "outputs": outputs,
        }
        for kind, when in (("START", start), ("COMPLETE", end))
    ]


def dataset_event(when: str, body: dict[str, Any]) -> dict[str, Any]:
    return {"eventTime": when, "producer": PRODUCER, "schemaURL": DATASET_EVENT, "dataset": body}


def story() -> list[dict[str, Any]]:
    raw = dataset(
        RAW,
        [("id", "int"), ("amt", "decimal")],
        symlinks=facet(identifiers=[{"namespace": "hive://metastore:9083", "name": "raw.orders", "type": "TABLE"}]),
    )
    clean_1 = dataset(
        CLEAN,
        [("id", "int"), ("amount", "decimal")],
        {"id": [(RAW, "id", "IDENTITY")], "amount": [(RAW, "amt", "TRANSFORMATION")]},
    )
    clean_2 = dataset(
        CLEAN,
        [("id", "int"), ("total_amount", "decimal")],
        {"id": [(RAW, "id", "IDENTITY")], "total_amount": [(RAW, "amt", "TRANSFORMATION")]},
    )
    summary = dataset(SUMMARY, [("total", "decimal")], {"total": [(CLEAN, "amount", "AGGREGATION")]})
    weird = dataset(WEIRD, [("x", "int")], {"x": [(CLEAN, "id", "IDENTITY")]})
    late_start, late_complete = run_events(
        "r5", LATE_JOB, "2026-11-06T12:00:00Z", "2026-11-06T12:05:00Z", [dataset(CLEAN)], [dataset(EXTRA)]
    )
    return [
        *run_events("r1", CLEAN_JOB, "2026-11-01T10:00:00Z", "2026-11-01T10:05:00Z", [raw], [clean_1]),
        dataset_event(
            "2026-11-01T09:00:00Z",
            dataset(EXTRA, [("a", "int"), ("b", "int")], documentation=facet(description="extra table")),
        ),
        *run_events(
            "r3", SUMMARY_JOB, "2026-11-02T10:00:00Z", "2026-11-02T10:05:00Z", [dataset(CLEAN)], [summary, weird]
        ),
        *run_events("r2", CLEAN_JOB, "2026-11-03T10:00:00Z", "2026-11-03T10:05:00Z", [raw], [clean_2]),
        *run_events("r4", SUMMARY_JOB, "2026-11-04T10:00:00Z", "2026-11-04T10:05:00Z", [dataset(CLEAN)], [weird]),
        dataset_event(
            "2026-11-05T00:00:00Z", dataset(SUMMARY, lifecycleStateChange=facet(lifecycleStateChange="DROP"))
        ),
        dataset_event("2026-11-06T00:00:00Z", dataset(EXTRA, documentation=facet(_deleted=True))),
        late_complete,
        late_start,
        dataset_event("2026-11-07T08:00:00.123456Z", dataset(MICRO, [("m", "int")])),
    ]


async def _send(app: FastAPI, events: list[dict[str, Any]]) -> None:
    async with client_for(app) as c:
        for event in events:
            answer = await c.post("/api/v1/lineage", json=event)
            assert answer.status_code == 201, answer.text


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def audit(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FastAPI]:
    pg = request.getfixturevalue("pg_server_url") if request.param == "postgresql" else None
    url, drop = module_db_url(request.param, tmp_path_factory.mktemp("audit"), pg)
    opened = Store.open(url)
    try:
        app = create_app(make_settings(), opened)
        anyio.run(_send, app, story())
        yield app
    finally:
        opened.close()
        if drop is not None:
            drop()


async def call(app: FastAPI, path: str, **params: Any) -> httpx.Response:
    async with client_for(app) as client:
        return await client.get(path, params=params)


async def get(app: FastAPI, path: str, **params: Any) -> Any:
    answer = await call(app, path, **params)
    assert answer.status_code == 200, answer.text
    return answer.json()


G = "/api/v1/graph"
CLEAN_ID = node_id("dataset", CLEAN)
RAW_AMT = node_id("datasetField", RAW, "amt")


# --- columns: a column that is not there is not "nothing downstream" ----------------------------------------------


@pytest.mark.parametrize("path", ["/impact", "/column-lineage"])
async def test_a_column_the_dataset_never_had_is_404_naming_it(audit: FastAPI, path: str) -> None:
    answer = await call(audit, G + path, nodeId=node_id("datasetField", RAW, "amount_typo"))
    body = assert_error(answer, 404, "not_found")
    assert "amount_typo" in body["message"] and RAW[1] in body["message"]


@pytest.mark.parametrize("path", ["/impact", "/column-lineage"])
async def test_a_renamed_column_is_404_now_and_answers_as_of_before_the_rename(audit: FastAPI, path: str) -> None:
    old = node_id("datasetField", CLEAN, "amount")  # renamed total_amount by r2 (11-03 10:00)
    body = assert_error(await call(audit, G + path, nodeId=old), 404, "not_found")
    assert "'amount'" in body["message"]
    then = await get(audit, G + path, nodeId=old, at="2026-11-02T12:00:00Z")
    if path == "/impact":  # r3: summary.total <- orders_clean.amount
        assert node_id("datasetField", SUMMARY, "total") in {i["id"] for i in then["items"]}
    else:  # r1: amount <- raw.amt; r3: summary.total <- amount
        assert {n["id"] for n in then["nodes"]} == {old, RAW_AMT, node_id("datasetField", SUMMARY, "total")}


async def test_impact_of_a_column_now_and_before_the_rename(audit: FastAPI) -> None:
    now = await get(audit, G + "/impact", nodeId=RAW_AMT)
    # r2: total_amount <- amt; nothing reads total_amount (r4's été.x reads id)
    assert {i["id"] for i in now["items"]} == {
        node_id("job", CLEAN_JOB),
        CLEAN_ID,
        node_id("datasetField", CLEAN, "total_amount"),
    }
    then = await get(audit, G + "/impact", nodeId=RAW_AMT, at="2026-11-02T12:00:00Z")
    # r1: amount <- amt; r3: summary.total <- amount
    assert {i["id"] for i in then["items"]} == {
        node_id("job", CLEAN_JOB),
        CLEAN_ID,
        node_id("datasetField", CLEAN, "amount"),
        node_id("job", SUMMARY_JOB),
        node_id("dataset", SUMMARY),
        node_id("datasetField", SUMMARY, "total"),
    }
    assert then["summary"] == {"datasets": 2, "jobs": 2, "fields": 2}


# --- facets deleted with ``_deleted`` ------------------------------------------------------------------------------


async def test_a_facet_sent_with_deleted_true_is_gone_from_the_dataset(audit: FastAPI) -> None:
    extra = node_id("dataset", EXTRA)
    now = await get(audit, G + "/node", nodeId=extra)  # 11-06: documentation {"_deleted": true}
    assert "documentation" not in now["facets"] and "documentation" not in now["currentVersion"]["facets"]
    assert [f["name"] for f in now["fields"]] == ["a", "b"]  # the event without a schema keeps the fields
    before = await get(audit, G + "/node", nodeId=extra, at="2026-11-05T12:00:00Z")
    assert before["facets"]["documentation"]["description"] == "extra table"
    versions = (await get(audit, G + "/history", nodeId=extra))["versions"]
    assert [(v["validFrom"], v["changes"]) for v in versions] == [
        ("2026-11-06T00:00:00Z", ["facets"]),
        ("2026-11-01T09:00:00Z", ["created"]),
    ]


# --- compare: a dataset dropped between the two moments -----------------------------------------------------------


async def test_compare_says_a_dataset_was_dropped_between_the_moments(audit: FastAPI) -> None:
    summary = node_id("dataset", SUMMARY)
    # 11-04 10:00 orders.summary stopped writing it; 11-05 00:00 DROP: between the two, only the drop happened
    answer = await get(
        audit, G + "/compare", nodeId=summary, **{"from": "2026-11-04T12:00:00Z"}, to="2026-11-05T12:00:00Z"
    )
    assert answer["nodes"]["added"] == [] and answer["nodes"]["removed"] == []
    assert [(n["id"], n["deleted"]) for n in answer["nodes"]["dropped"]] == [(summary, True)]
    assert answer["nodes"]["restored"] == []
    # from before r4: the job and its input were around it then, not after; the drop as well
    wider = await get(
        audit, G + "/compare", nodeId=summary, **{"from": "2026-11-02T12:00:00Z"}, to="2026-11-05T12:00:00Z"
    )
    assert {n["id"] for n in wider["nodes"]["removed"]} == {node_id("job", SUMMARY_JOB), CLEAN_ID}
    assert [n["id"] for n in wider["nodes"]["dropped"]] == [summary]
    backwards = await get(
        audit, G + "/compare", nodeId=summary, **{"from": "2026-11-04T12:00:00Z"}, to="2026-11-04T13:00:00Z"
    )
    assert backwards["nodes"]["dropped"] == [] and backwards["nodes"]["restored"] == []


# --- times: the forms of ISO 8601 and their zones -----------------------------------------------------------------


def _columns(node: dict[str, Any]) -> list[str]:
    return [f["name"] for f in node["fields"]]


@pytest.mark.parametrize(
    ("at", "columns"),
    [  # r2 renamed amount to total_amount at 2026-11-03T10:00:00Z
        ("2026-11-03T11:30:00+02:00", ["id", "amount"]),  # 09:30Z
        ("2026-11-03T11:30:00 02:00", ["id", "amount"]),  # the same with its "+" not encoded in the query
        ("2026-11-03T05:30:00-05:00", ["id", "total_amount"]),  # 10:30Z
        ("2026-11-03T10:00:00Z", ["id", "total_amount"]),  # the version is valid from its first moment
        ("2026-11-03T09:59:59.999999Z", ["id", "amount"]),
        ("2026-11-03T10:00:00.000000001Z", ["id", "total_amount"]),  # nanoseconds, as Java sends them
        ("2026-11-03T10:30", ["id", "total_amount"]),  # naive: UTC
        ("2026-11-03", ["id", "amount"]),  # a date: its midnight, UTC
        ("2026-11-04", ["id", "total_amount"]),
        ("20261103T103000Z", ["id", "total_amount"]),  # the basic format
        ("2026-W45-2", ["id", "amount"]),  # a week date: Tuesday 3 November, midnight UTC
        ("2026-W45-3", ["id", "total_amount"]),
        ("1793701800000", ["id", "total_amount"]),  # epoch milliseconds: 2026-11-03T10:30:00Z
        ("2099-01-01T00:00:00Z", ["id", "total_amount"]),  # the future: the graph as it is now
    ],
)
async def test_at_in_iso_8601_forms_and_zones(audit: FastAPI, at: str, columns: list[str]) -> None:
    assert _columns(await get(audit, G + "/node", nodeId=CLEAN_ID, at=at)) == columns


async def test_at_before_the_first_event_is_404_naming_node_and_moment(audit: FastAPI) -> None:
    body = assert_error(await call(audit, G + "/lineage", nodeId=CLEAN_ID, at="2026-11-01T09:59:59Z"), 404, "not_found")
    assert CLEAN_ID in body["message"] and "2026-11-01T09:59:59Z" in body["message"]


async def test_as_of_updated_at_is_at_most_the_moment(audit: FastAPI) -> None:
    # orders_clean's newest observation is r5's at 11-06 12:05; as of 11-03 12:00 it is shown updated at most then
    assert (await get(audit, G + "/node", nodeId=CLEAN_ID))["updatedAt"] == "2026-11-06T12:05:00Z"
    assert (await get(audit, G + "/node", nodeId=CLEAN_ID, at="2026-11-03T12:00:00Z"))["updatedAt"] == (
        "2026-11-03T12:00:00Z"
    )


# --- raw events: the time window and the cursor ---------------------------------------------------------------------


async def test_events_since_and_until_both_include_their_moment(audit: FastAPI) -> None:
    moment = "2026-11-05T00:00:00Z"  # the DROP of summary
    page = await get(audit, "/api/v1/events", since=moment, until=moment)
    assert [e["event"]["dataset"]["name"] for e in page["events"]] == [SUMMARY[1]]


async def test_event_pages_walk_every_event_once_and_a_garbage_cursor_is_400(audit: FastAPI) -> None:
    seen: list[str] = []
    cursor = None
    for _ in range(20):
        page = await get(audit, "/api/v1/events", limit=3, **({"cursor": cursor} if cursor else {}))
        seen.extend(e["id"] for e in page["events"])
        cursor = page["nextCursor"]
        if cursor is None:
            break
    assert len(seen) == len(set(seen)) == len(story())
    times = [e["eventTime"] for e in (await get(audit, "/api/v1/events", limit=100))["events"]]
    assert times == sorted(times, reverse=True) and times[:2] == [
        "2026-11-07T08:00:00.123456Z",
        "2026-11-06T12:05:00.000Z",
    ]
    # garbage; "1:1" with a stray ":" (base64 skips it); " 1:1", "+1:1", "1_000:1" (int() takes them); 10**21:1
    for forged in ("not-a-cursor", "MTox:", "IDE6MQ", "KzE6MQ", "MV8wMDA6MQ", "OTk5OTk5OTk5OTk5OTk5OTk5OTk5OjE"):
        body = assert_error(await call(audit, "/api/v1/events", cursor=forged), 400, "invalid_parameter")
        assert body["details"][0]["path"] == "cursor"


async def test_an_event_time_from_the_events_list_finds_what_that_event_made(audit: FastAPI) -> None:
    micro = node_id("dataset", MICRO)
    (summary,) = (await get(audit, "/api/v1/events", nodeId=micro))["events"]
    assert summary["eventTime"] == "2026-11-07T08:00:00.123456Z"  # as sent: no microsecond cut off
    assert _columns(await get(audit, G + "/node", nodeId=micro, at=summary["eventTime"])) == ["m"]


# --- impact: depth counts the hops of the paths it answers ----------------------------------------------------------

THEN = "2026-11-02T12:00:00Z"  # r1 and r3 in force: raw.amt -> orders_clean.amount -> summary.total


@pytest.mark.parametrize(
    ("root", "depth", "expected"),
    [
        (RAW_AMT, 1, {node_id("job", CLEAN_JOB)}),
        (RAW_AMT, 2, {node_id("job", CLEAN_JOB), CLEAN_ID, node_id("datasetField", CLEAN, "amount")}),
        (
            RAW_AMT,
            3,
            {
                node_id("job", CLEAN_JOB),
                CLEAN_ID,
                node_id("datasetField", CLEAN, "amount"),
                node_id("job", SUMMARY_JOB),
            },
        ),
        (node_id("dataset", RAW), 1, {node_id("job", CLEAN_JOB)}),
        (
            node_id("dataset", RAW),
            2,
            {
                node_id("job", CLEAN_JOB),
                CLEAN_ID,
                node_id("datasetField", CLEAN, "amount"),
                node_id("datasetField", CLEAN, "id"),
            },
        ),
    ],
)
async def test_impact_answers_the_items_within_depth_hops(
    audit: FastAPI, root: str, depth: int, expected: set[str]
) -> None:
    answer = await get(audit, G + "/impact", nodeId=root, depth=depth, at=THEN)
    assert {i["id"] for i in answer["items"]} == expected
    assert max(i["depth"] for i in answer["items"]) <= depth


# --- what was checked and found right: unknown nodes, names, symlinks, drops, late events ---------------------------


@pytest.mark.parametrize(
    ("path", "node", "extra"),
    [
        ("/node", "dataset:bigquery:proj.ds.nothing", {}),
        ("/node", "job:spark:nothing", {}),
        ("/lineage", "dataset:bigquery:proj.ds.nothing", {}),
        ("/lineage", "datasetField:bigquery:proj.ds.nothing:x", {}),
        ("/column-lineage", "datasetField:bigquery:proj.ds.nothing:x", {}),
        ("/impact", "dataset:bigquery:proj.ds.nothing", {}),
        ("/history", "job:spark:nothing", {}),
        ("/runs", "job:spark:nothing", {}),
        ("/compare", "dataset:bigquery:proj.ds.nothing", {"from": "2026-11-01"}),
    ],
)
async def test_an_unknown_node_is_404_naming_it(audit: FastAPI, path: str, node: str, extra: dict[str, str]) -> None:
    body = assert_error(await call(audit, G + path, nodeId=node, **extra), 404, "not_found")
    assert node.split(":x")[0].removeprefix("datasetField:").split(":")[-1] in body["message"]


@pytest.mark.parametrize("ds", [RAW, CLEAN, WEIRD])
async def test_names_with_slashes_spaces_ports_unicode_percent_and_hash_round_trip(
    audit: FastAPI, ds: tuple[str, str]
) -> None:
    by_id = await get(audit, G + "/node", nodeId=node_id("dataset", ds))
    by_parts = await get(audit, G + "/node", type="dataset", namespace=ds[0], name=ds[1])
    assert by_id == by_parts and (by_id["namespace"], by_id["name"]) == ds
    found = (await get(audit, G + "/search", q=ds[1][-6:]))["results"]
    assert node_id("dataset", ds) in {r["id"] for r in found}


async def test_a_symlinked_dataset_is_found_by_its_own_name_and_keeps_the_facet(audit: FastAPI) -> None:
    raw = await get(audit, G + "/node", nodeId=node_id("dataset", RAW))
    assert raw["kind"] == "table"  # a symlinks identifier of type TABLE (docs/store.md, Kind)
    assert raw["facets"]["symlinks"]["identifiers"][0]["name"] == "raw.orders"
    assert (await get(audit, G + "/search", q="raw.orders"))["results"] == []  # documented: own names only


async def test_a_dropped_dataset_stays_in_the_graph_marked_deleted(audit: FastAPI) -> None:
    summary = node_id("dataset", SUMMARY)
    now = await get(audit, G + "/lineage", nodeId=summary, direction="upstream", depth=3)
    assert [(n["id"], n["deleted"]) for n in now["nodes"]] == [(summary, True)]  # nothing writes it since r4
    assert (await get(audit, G + "/node", nodeId=summary))["currentVersion"]["changes"] == ["dropped"]
    then = await get(audit, G + "/lineage", nodeId=summary, direction="upstream", depth=3, at=THEN)
    assert {n["id"] for n in then["nodes"]} == {
        summary,
        node_id("job", SUMMARY_JOB),
        CLEAN_ID,
        node_id("job", CLEAN_JOB),
    }
    listed = (await get(audit, G + "/datasets", namespace="bigquery"))["items"]
    assert {n["id"]: n["deleted"] for n in listed}[summary] is True


async def test_a_job_that_stopped_writing_an_output(audit: FastAPI) -> None:
    job = node_id("job", SUMMARY_JOB)
    assert (await get(audit, G + "/node", nodeId=job))["outputs"] == [node_id("dataset", WEIRD)]
    assert (await get(audit, G + "/node", nodeId=job, at=THEN))["outputs"] == [
        node_id("dataset", SUMMARY),
        node_id("dataset", WEIRD),
    ]
    versions = (await get(audit, G + "/history", nodeId=job))["versions"]
    assert [(v["validFrom"], v["changes"]) for v in versions] == [
        ("2026-11-04T10:00:00Z", ["outputs", "columnLineage"]),  # r4: no summary, so no summary.total <- amount
        ("2026-11-02T10:00:00Z", ["created"]),
    ]


async def test_a_late_start_after_complete(audit: FastAPI) -> None:
    (run,) = (await get(audit, G + "/runs", nodeId=node_id("job", LATE_JOB)))["runs"]
    assert (run["state"], run["startedAt"], run["endedAt"], run["durationMs"]) == (
        "COMPLETE",
        "2026-11-06T12:00:00Z",
        "2026-11-06T12:05:00Z",
        300_000,
    )


async def test_a_renamed_column_in_history_and_lineage(audit: FastAPI) -> None:
    (newest, oldest) = (await get(audit, G + "/history", nodeId=CLEAN_ID))["versions"]
    assert newest["schemaChanges"]["added"] == [{"field": "total_amount", "type": "decimal", "nullable": None}]
    assert newest["schemaChanges"]["removed"] == [{"field": "amount", "type": "decimal", "nullable": None}]
    assert newest["madeBy"]["runId"] == run_id("r2") and oldest["madeBy"]["runId"] == run_id("r1")
    upstream = await get(
        audit, G + "/column-lineage", nodeId=node_id("datasetField", CLEAN, "total_amount"), direction="upstream"
    )
    assert [(e["source"], e["target"]) for e in upstream["edges"]] == [
        (RAW_AMT, node_id("datasetField", CLEAN, "total_amount"))
    ]


async def test_depth_zero_and_above_the_cap(audit: FastAPI) -> None:
    only = await get(audit, G + "/lineage", nodeId=CLEAN_ID, depth=0)
    assert [n["id"] for n in only["nodes"]] == [CLEAN_ID] and only["edges"] == []
    assert only["nodes"][0]["hasMoreUpstream"] is True and only["nodes"][0]["hasMoreDownstream"] is True
    for path, cap in (("/lineage", 50), ("/column-lineage", 100), ("/impact", 100), ("/compare", 50)):
        params = {"nodeId": CLEAN_ID, "depth": cap + 1, "from": "2026-11-02"}
        body = assert_error(await call(audit, G + path, **params), 400, "invalid_parameter")
        assert body["details"][0]["path"] == "depth" and str(cap) in body["message"]


async def test_compare_from_later_than_to_says_both_moments(audit: FastAPI) -> None:
    body = assert_error(
        await call(audit, G + "/compare", nodeId=CLEAN_ID, **{"from": "2026-11-04"}, to="2026-11-03T12:00:00+02:00"),
        400,
        "invalid_parameter",
    )
    assert body["details"][0]["path"] == "from"
    assert "2026-11-04T00:00:00Z" in body["message"] and "2026-11-03T10:00:00Z" in body["message"]
    future = assert_error(
        await call(audit, G + "/compare", nodeId=CLEAN_ID, **{"from": "2099-01-01"}), 400, "invalid_parameter"
    )
    assert "2099-01-01T00:00:00Z" in future["message"] and "now" in future["message"]


@pytest.mark.parametrize("path", [G + "/search", "/api/v1/search"])
@pytest.mark.parametrize("q", ["   ", "\t", " \n "])
async def test_a_blank_search_is_400_naming_q(audit: FastAPI, path: str, q: str) -> None:
    body = assert_error(await call(audit, path, q=q), 400, "invalid_parameter")
    assert body["details"][0]["path"] == "q" and "blank" in body["message"]


# --- NUL in a parameter: no name holds one (ingest refuses it), so it is a 400, on PostgreSQL as on SQLite ---------


@pytest.mark.parametrize(
    ("path", "params", "named"),
    [
        (G + "/node", {"nodeId": "dataset:bigquery:a\x00b"}, "nodeId"),
        (G + "/lineage", {"type": "job", "namespace": "a\x00", "name": "x"}, "namespace"),
        (G + "/search", {"q": "a\x00"}, "q"),
        (G + "/search", {"q": "a", "namespace": "\x00"}, "namespace"),
        (G + "/datasets", {"namespace": "\x00"}, "namespace"),
        (G + "/jobs", {"namespace": "\x00"}, "namespace"),
        ("/api/v1/events", {"nodeId": "dataset:a:\x00"}, "nodeId"),
        ("/api/v1/namespaces/a%00b/datasets", {}, "path"),
    ],
)
async def test_a_nul_in_a_parameter_is_400_naming_it(
    audit: FastAPI, path: str, params: dict[str, str], named: str
) -> None:
    body = assert_error(await call(audit, path, **params), 400, "invalid_parameter")
    assert body["details"][0]["path"] == named and "NUL" in body["message"]


async def test_a_dropped_datasets_shown_columns_answer_empty_not_404(audit: FastAPI) -> None:
    # summary is dropped (11-05) and its node still shows its last schema (total): the UI offers that column
    total = node_id("datasetField", SUMMARY, "total")
    assert [f["name"] for f in (await get(audit, G + "/node", nodeId=node_id("dataset", SUMMARY)))["fields"]] == [
        "total"
    ]
    lineage = await get(audit, G + "/column-lineage", nodeId=total)
    assert [n["id"] for n in lineage["nodes"]] == [total] and lineage["edges"] == []  # r4 stopped writing it
    assert (await get(audit, G + "/impact", nodeId=total))["items"] == []
    assert_error(await call(audit, G + "/impact", nodeId=node_id("datasetField", SUMMARY, "totl")), 404, "not_found")
