"""A real ``headwater serve`` (SigV4 keys from its environment) answering the way a DataZone user's code
calls it: a boto3 script, and OpenLineage's ``amazon_datazone_api`` transport configured by an
``openlineage.yml`` with only ``endpointOverride`` added; what they send is in Headwater's graph."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import botocore.exceptions
import httpx
import pytest
from datazone_helpers import DOMAIN, KEY_ID, REGION, SECRET, body, datazone, headwater_serve, run_event
from openlineage.client import OpenLineageClient
from openlineage.client.event_v2 import InputDataset, Job, OutputDataset, Run, RunEvent, RunState
from openlineage.client.transport.amazon_datazone import AmazonDataZoneTransport

pytestmark = pytest.mark.slow

RAW = ("s3://sales-lake", "raw/orders")
CLEAN = ("s3://sales-lake", "clean/orders")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    tmp = tmp_path_factory.mktemp("datazone-serve")
    env = {"HEADWATER_DATAZONE_ACCESS_KEYS": f"{KEY_ID}:{SECRET}"}
    with headwater_serve(tmp, f"sqlite:///{tmp / 'hw.db'}", env) as url:
        yield url


def test_a_boto3_script_runs_against_headwater_serve(server: str) -> None:
    client = datazone(server)
    run_id = str(uuid.uuid4())
    start = run_event("glue.clean_orders", [RAW], [CLEAN], event_type="START", run_id=run_id, fields=["id", "total"])
    done = {**start, "eventType": "COMPLETE", "eventTime": "2026-11-20T10:03:00Z"}
    token = str(uuid.uuid4())
    posted = client.post_lineage_event(domainIdentifier=DOMAIN, event=body(start), clientToken=token)
    assert posted["domainId"] == DOMAIN
    again = client.post_lineage_event(domainIdentifier=DOMAIN, event=body(start), clientToken=token)
    assert again["id"] == posted["id"]
    last = client.post_lineage_event(domainIdentifier=DOMAIN, event=json.dumps(done))  # boto3 fills a Client-Token

    items = [
        i for p in client.get_paginator("list_lineage_events").paginate(domainIdentifier=DOMAIN) for i in p["items"]
    ]
    assert [i["id"] for i in items] == [last["id"], posted["id"]]  # the resent START is stored once
    assert {i["processingStatus"] for i in items} == {"SUCCESS"}
    event = client.get_lineage_event(domainIdentifier=DOMAIN, identifier=posted["id"])
    assert json.loads(event["event"].read()) == start

    dataset = client.get_lineage_node(domainIdentifier=DOMAIN, identifier=f"{CLEAN[0]}/{CLEAN[1]}")
    (job_ref,) = dataset["upstreamNodes"]
    job = client.get_lineage_node(
        domainIdentifier=DOMAIN, identifier=job_ref["id"], eventTimestamp=job_ref["eventTimestamp"]
    )
    assert job["name"] == "glue.clean_orders"
    assert [n["id"] for n in job["upstreamNodes"]] == [
        client.get_lineage_node(domainIdentifier=DOMAIN, identifier=f"{RAW[0]}/{RAW[1]}")["id"]
    ]
    history = client.list_lineage_node_history(domainIdentifier=DOMAIN, identifier=dataset["id"])
    assert [n["eventTimestamp"] for n in history["nodes"]] == [datetime(2026, 11, 20, 10, tzinfo=UTC)]

    with pytest.raises(botocore.exceptions.ClientError) as denied:
        datazone(server, secret="a-wrong-secret").get_lineage_node(domainIdentifier=DOMAIN, identifier=dataset["id"])
    assert denied.value.response["Error"]["Code"] == "AccessDeniedException"
    assert denied.value.response["ResponseMetadata"]["HTTPStatusCode"] == 403


def test_openlineage_datazone_transport_events_reach_the_graph(
    server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a DataZone user's configuration: their openlineage.yml and AWS credentials, plus endpointOverride
    config = tmp_path / "openlineage.yml"
    config.write_text(
        f"transport:\n  type: amazon_datazone_api\n  domainId: {DOMAIN}\n  endpointOverride: {server}\n",
        encoding="utf-8",
    )
    for name, value in {
        "OPENLINEAGE_CONFIG": str(config),
        "AWS_ACCESS_KEY_ID": KEY_ID,
        "AWS_SECRET_ACCESS_KEY": SECRET,
        "AWS_DEFAULT_REGION": REGION,
        "AWS_CONFIG_FILE": str(tmp_path / "no-aws-config"),
        "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "no-aws-credentials"),
        "AWS_EC2_METADATA_DISABLED": "true",
    }.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("OPENLINEAGE_URL", raising=False)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    client = OpenLineageClient()
    assert isinstance(client.transport, AmazonDataZoneTransport)

    run = Run(runId=str(uuid.uuid4()))
    job = Job(namespace="spark", name="orders_enrichment")
    inputs = [InputDataset(namespace="s3://sales-lake", name="clean/orders")]
    outputs = [OutputDataset(namespace="s3://sales-lake", name="gold/orders_enriched")]
    producer = "https://github.com/headwater-lineage/headwater/tests/datazone"
    for state, time_ in ((RunState.START, "2026-11-21T08:00:00Z"), (RunState.COMPLETE, "2026-11-21T08:10:00Z")):
        client.emit(
            RunEvent(
                eventType=state, eventTime=time_, run=run, job=job, inputs=inputs, outputs=outputs, producer=producer
            )
        )
    client.transport.close()

    # read back through Headwater's native API: the job between its datasets, the run complete
    lineage = httpx.get(
        f"{server}/api/v1/graph/lineage",
        params={"nodeId": "dataset:s3://sales-lake:gold/orders_enriched", "direction": "upstream", "depth": 2},
        timeout=30,
    )
    assert lineage.status_code == 200, lineage.text
    ids = {n["id"] for n in lineage.json()["nodes"]}
    assert {"job:spark:orders_enrichment", "dataset:s3://sales-lake:clean/orders"} <= ids
    runs = httpx.get(f"{server}/api/v1/graph/runs", params={"nodeId": "job:spark:orders_enrichment"}, timeout=30).json()
    assert [(r["runId"], r["state"]) for r in runs["runs"]] == [(run.runId, "COMPLETE")]
    # and through DataZone's: the events are the domain's
    listed = datazone(server).list_lineage_events(
        domainIdentifier=DOMAIN, timestampAfter=datetime(2026, 11, 21, tzinfo=UTC)
    )
    summaries = [i["eventSummary"]["openLineageRunEventSummary"] for i in listed["items"]]
    assert [(s["eventType"], s["runId"]) for s in summaries] == [("COMPLETE", run.runId), ("START", run.runId)]
