"""One POST per worker item to Headwater's batch endpoint (headwater.capture.batch): against the real Headwater app
(uvicorn in a thread, SQLite store) the events stored equal ``Serde``'s JSON of the event objects and validate;
against a recording server that answers like Headwater, the fallbacks: a refused batch goes one by one (each event
its own verdict), a server without the endpoint gets no batch again, a failing one spools the batch, and a
server that is not Headwater never sees a batch."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
from openlineage.client.event_v2 import InputDataset, OutputDataset
from openlineage.client.facet_v2 import column_lineage_dataset as cl
from openlineage.client.facet_v2 import schema_dataset
from openlineage.client.serde import Serde

from headwater.api import create_app
from headwater.capture.batch import BatchSender
from headwater.capture.config import load_config
from headwater.capture.delivery import Emitter
from headwater.capture.events import (
    AppContext,
    EventType,
    Execution,
    StreamingRunFacet,
    application_event,
    execution_events,
)
from headwater.capture.plain import plain_events
from headwater.capture.spool import Spool
from headwater.capture.transports import build_transport
from headwater.settings import load_settings
from headwater.store import Store
from live_server import ThreadServer

from .sink import Sink
from .test_delivery import http

ENV = {"HOME": "/nonexistent-home"}
HTTP = {"spark.openlineage.transport.type": "http", "spark.openlineage.transport.url": "http://127.0.0.1:9"}
CTX = AppContext(
    namespace="test", app_job="batch_app", app_run_id="01890000-0000-7000-8000-0000000000b1", spark_version="4.0.0"
)


def execution(i: int, rate: float = 1.5) -> list[Any]:
    """START + COMPLETE of a write of three columns with column lineage (a non-ASCII name, a float)."""
    fields = {
        f"c{k}": cl.Fields(
            inputFields=[
                cl.InputField(
                    namespace="file",
                    name="/in/é",
                    field=f"a{k}",
                    transformations=[
                        cl.Transformation(type="DIRECT", subtype="IDENTITY", description="", masking=False)
                    ],
                )
            ]
        )
        for k in range(3)
    }
    out = OutputDataset(
        namespace="file",
        name=f"/out/{i}",
        facets={
            "schema": schema_dataset.SchemaDatasetFacet(
                fields=[schema_dataset.SchemaDatasetFacetFields(name=f"c{k}", type="double") for k in range(3)]
            ),
            "columnLineage": cl.ColumnLineageDatasetFacet(fields=fields, dataset=[]),
        },
    )
    ex = Execution(
        run_id=f"01890000-0000-7000-8000-00000000{i:04d}",
        job_name=f"batch_app.execute_insert.out_{i}",
        started=1_700_000_000 + i + rate,
        ended=1_700_000_001 + i + rate,
        inputs=[InputDataset(namespace="file", name="/in/é")],
        outputs=[out],
        sql="SELECT 'é' AS c0",
    )
    return execution_events(CTX, ex)


def serde_json(events: list[Any]) -> list[Any]:
    return [json.loads(Serde.to_json(e)) for e in events]


def test_batches_to_the_real_headwater_store_serde_equal_events(
    tmp_path: Path, spool_dir: Path, assert_valid_events: Any
) -> None:
    store = Store.open(f"sqlite:///{tmp_path / 'hw.db'}")
    try:
        with ThreadServer(create_app(load_settings({}, environ={}), store)) as served:
            transport = http(served.url, timeout_ms=10_000)
            batch = BatchSender.for_transport(transport)
            assert batch is not None and not batch.active
            emitter = Emitter(transport, Spool(spool_dir), batch=batch)
            start = application_event(CTX, EventType.START, 1_700_000_000)
            emitter.submit(plain_events([start])[0])  # one event: the transport; its answer shows Headwater
            assert emitter.flush(30)
            assert batch.active
            built = [execution(1), execution(2)]
            for events in built:
                emitter.submit(lambda events=events: plain_events(events))  # a worker item: one batch POST
            assert emitter.flush(30)
            emitter.close(5)
            assert emitter.stats.sent == 5 and emitter.stats.spooled == 0 and emitter.stats.rejected == 0
            page = httpx.get(f"{served.url}/api/v1/events", params={"limit": 100}, timeout=10).json()
    finally:
        store.close()
    stored = [item["event"] for item in sorted(page["events"], key=lambda i: i["receivedAt"])]
    expected = serde_json([start, *built[0], *built[1]])
    assert sorted(stored, key=json.dumps) == sorted(expected, key=json.dumps)
    assert_valid_events(stored)


def test_batch_fallbacks_over_http(spool_dir: Path) -> None:
    with Sink(mode="headwater") as sink:
        transport = http(sink.url)
        batch = BatchSender.for_transport(transport)
        assert batch is not None
        emitter = Emitter(transport, Spool(spool_dir), batch=batch)
        first = application_event(CTX, EventType.START, 1_700_000_000)
        emitter.submit(first)  # an event object (not plain): always the transport
        emitter.submit(lambda: plain_events(execution(1)))
        assert emitter.flush(10)
        assert sink.paths == ["/api/v1/lineage", "/api/v1/lineage/batch", "/api/v1/lineage/batch"]
        assert sink.events() == serde_json([first, *execution(1)])
        sink.batch_status = 422  # a refused batch: each event on its own, each with its own verdict
        emitter.submit(lambda: plain_events(execution(2)))
        assert emitter.flush(10)
        assert sink.paths[3:] == ["/api/v1/lineage"] * 2 and sink.events()[3:] == serde_json(execution(2))
        assert emitter.stats.rejected == 0
        sink.batch_status = 500  # a failing backend: the batch is spooled, then drained (one by one)
        emitter.submit(lambda: plain_events(execution(3)))
        assert emitter.flush(10)
        assert emitter.stats.spooled == 2 and len(sink.events()) == 5
        sink.batch_status = 404  # no batch endpoint: one by one, and never a batch again
        got = sink.wait_for(lambda b: len(b) >= 7, timeout=20)
        assert got[5:] == serde_json(execution(3))
        emitter.submit(lambda: plain_events(execution(4)))
        assert emitter.flush(10)
        assert batch.off and not batch.active
        emitter.submit(lambda: plain_events(execution(5)))
        assert emitter.flush(10)
        emitter.close(5)
        assert sink.paths[5:] == ["/api/v1/lineage"] * 6
        assert sink.events()[7:] == serde_json([*execution(4), *execution(5)])
    assert emitter.stats.sent == 11 and Spool(spool_dir).count() == 0


def test_no_batches_to_a_server_that_is_not_headwater(spool_dir: Path) -> None:
    with Sink() as sink:  # answers {"ok": true}: some other OpenLineage server
        transport = http(sink.url)
        batch = BatchSender.for_transport(transport)
        assert batch is not None
        emitter = Emitter(transport, Spool(spool_dir), batch=batch)
        emitter.submit(lambda: plain_events(execution(1)))
        emitter.submit(lambda: plain_events(execution(2)))
        assert emitter.flush(10)
        emitter.close(5)
        assert not batch.active and sink.paths == ["/api/v1/lineage"] * 4
    assert BatchSender.for_transport(http(sink.url + "/proxy/")) is not None  # the URL may have a path
    custom = build_transport(load_config({**HTTP, "spark.openlineage.transport.endpoint": "ingest/ol"}, ENV), ENV)
    assert BatchSender.for_transport(custom) is None  # another endpoint: not Headwater's ingest


def test_a_batch_holding_a_non_finite_float_stays_objects() -> None:
    """orjson writes NaN as null, Serde as NaN: such a batch is never plain, so never batched."""
    progress = StreamingRunFacet(queryId="q", inputRowsPerSecond=float("nan"), producer="p")
    ex = Execution(run_id=CTX.app_run_id, job_name="j", started=1.0, ended=2.0, inputs=[], outputs=[])
    events = execution_events(CTX, replace(ex, extra_run_facets={"headwater_streaming": progress}))
    kept = plain_events(events)
    assert kept == events and not any(isinstance(e, dict) for e in kept)
    assert '"inputRowsPerSecond": NaN' in Serde.to_json(kept[0])
    assert all(isinstance(e, dict) for e in plain_events(execution(1)))
