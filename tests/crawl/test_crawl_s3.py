"""An s3:// prefix crawled through fsspec (s3fs) against a real local S3 server (moto's ThreadedMotoServer).

Loopback only: the server listens on 127.0.0.1 and every client is pointed at it with storage options
(``crawl(..., storage_options=...)``, ``--storage-option`` on the command line); credentials are moto's
test values. The lake is uploaded with boto3, CSV and partitioned Parquet.
"""

from __future__ import annotations

import io
import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from headwater.client import PrintClient
from headwater.crawl import crawl
from headwater.model.naming import path_dataset
from olschema import event_errors

boto3 = pytest.importorskip("boto3")
pytest.importorskip("s3fs")
moto_server = pytest.importorskip("moto.server")

BUCKET = "landing"
CREDENTIALS = {"key": "testing", "secret": "testing"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def s3(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    """A fresh moto S3 server on 127.0.0.1 with one bucket; yields the storage options that reach it."""
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")  # never ask 169.254.169.254 for credentials
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=_free_port(), verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        endpoint = f"http://{host}:{port}"
        client = boto3.client(
            "s3",
            endpoint_url=endpoint,
            region_name="us-east-1",
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
        )
        client.create_bucket(Bucket=BUCKET)
        yield {"endpoint_url": endpoint, **CREDENTIALS, "client": client}
    finally:
        server.stop()


def _put(client: Any, key: str, body: bytes) -> None:
    client.put_object(Bucket=BUCKET, Key=key, Body=body)


def _parquet(table: pa.Table) -> bytes:
    out = io.BytesIO()
    pq.write_table(table, out)
    return out.getvalue()


def _upload_lake(client: Any, prefix: str) -> None:
    _put(client, f"{prefix}/customers/part-0.csv", b"id,name,since\n1,Ann,2024-01-02\n2,Bob,2024-02-03\n")
    _put(client, f"{prefix}/customers/part-1.csv", b"id,name,since\n3,Cy,2024-03-04\n4,Di,\n")
    _put(client, f"{prefix}/customers/_SUCCESS", b"")
    orders = pa.table(
        {"order_id": pa.array([1, 2, 3], pa.int64()), "amount": [1.5, 2.5, 4.0], "note": ["a", None, "c"]}
    )
    for day in ("2026-11-01", "2026-11-02"):
        for region in ("eu", "us"):
            _put(client, f"{prefix}/orders/dt={day}/region={region}/part-0.parquet", _parquet(orders))


def _crawl(source: str, state: Path, options: dict[str, Any]) -> tuple[Any, list[dict[str, Any]]]:
    out = io.StringIO()
    opts = {k: v for k, v in options.items() if k != "client"}
    result = crawl(source, PrintClient(out), state_path=state, storage_options=opts)
    return result, [json.loads(line) for line in out.getvalue().splitlines()]


def _fields(dataset: dict[str, Any]) -> list[tuple[str, str]]:
    return [(f["name"], f["type"]) for f in dataset["facets"]["schema"]["fields"]]


def test_an_s3_prefix_is_crawled_named_and_recrawled_by_etag(
    s3: dict[str, Any], tmp_path: Path, spec_dir: Path
) -> None:
    _upload_lake(s3["client"], "raw/sales")
    state = tmp_path / "state.json"
    result, events = _crawl(f"s3://{BUCKET}/raw/sales", state, s3)
    assert result.error is None and result.ok, (result.error, result.summary.failures)
    assert sorted(result.summary.added) == ["customers", "orders"]
    assert result.stats == {"filesRead": 6, "filesUnchanged": 0}
    for event in events:
        assert event_errors(event, spec_dir) == []
    inputs = {(i["namespace"], i["name"]): i for e in events for i in e["inputs"]}
    outputs = {o["name"]: o for e in events for o in e["outputs"] if o["namespace"] == "headwater"}
    # storage locations named as headwater.model.naming names object-store paths: s3://bucket + key path
    assert path_dataset(f"s3://{BUCKET}/raw/sales/orders") == ("s3://landing", "raw/sales/orders")
    assert set(inputs) == {("s3://landing", "raw/sales/customers"), ("s3://landing", "raw/sales/orders")}
    orders_location = inputs[("s3://landing", "raw/sales/orders")]
    assert orders_location["facets"]["symlinks"]["identifiers"] == [
        {"namespace": "headwater", "name": "default.orders", "type": "TABLE"}
    ]
    assert _fields(outputs["default.orders"]) == [
        ("order_id", "bigint"),
        ("amount", "double"),
        ("note", "string"),
        ("dt", "string"),
        ("region", "string"),
    ]
    assert outputs["default.orders"]["facets"]["headwater_columns"]["partitionKeys"] == ["dt", "region"]
    assert outputs["default.orders"]["outputFacets"]["outputStatistics"]["rowCount"] == 12
    assert outputs["default.orders"]["outputFacets"]["outputStatistics"]["fileCount"] == 4
    assert _fields(outputs["default.customers"]) == [("id", "bigint"), ("name", "string"), ("since", "date")]
    assert outputs["default.customers"]["facets"]["headwater_columns"]["columns"]["since"]["nullable"] is True
    assert outputs["default.customers"]["facets"]["symlinks"]["identifiers"] == [
        {"namespace": "s3://landing", "name": "raw/sales/customers", "type": "LOCATION"}
    ]
    # the state keeps each object's ETag as its change marker
    saved = json.loads(state.read_text())["files"]
    assert all(len(v["marker"]) == 32 for v in saved.values()), saved  # S3 ETags of single-part uploads: MD5 hex

    # nothing changed: every object is skipped by size and ETag, nothing is read
    again, _ = _crawl(f"s3://{BUCKET}/raw/sales", state, s3)
    assert again.stats == {"filesRead": 0, "filesUnchanged": 6}
    assert sorted(again.summary.unchanged) == ["customers", "orders"] and not again.summary.updated

    # one object rewritten with a new column (same key): its ETag changes, only it is read again
    _put(s3["client"], "raw/sales/customers/part-1.csv", b"id,name,since,tier\n3,Cy,2024-03-04,gold\n")
    drift, events = _crawl(f"s3://{BUCKET}/raw/sales", state, s3)
    assert drift.stats == {"filesRead": 1, "filesUnchanged": 5}, drift.summary.failures
    assert drift.summary.updated == ["customers"]
    outputs = {o["name"]: o for e in events for o in e["outputs"] if o["namespace"] == "headwater"}
    assert _fields(outputs["default.customers"])[-1] == ("tier", "string")


def test_the_command_line_takes_storage_options(s3: dict[str, Any], tmp_path: Path) -> None:
    from headwater.cli import cli

    _upload_lake(s3["client"], "p")
    answer = CliRunner().invoke(
        cli,
        [
            "crawl",
            f"s3://{BUCKET}/p",
            "--state",
            str(tmp_path / "s.json"),
            "--storage-option",
            f"endpoint_url={s3['endpoint_url']}",
            "--storage-option",
            "key=testing",
            "--storage-option",
            "secret=testing",
            "--storage-option",
            'client_kwargs={"region_name": "us-east-1"}',
        ],
    )
    assert answer.exit_code == 0, answer.output
    events = [json.loads(line) for line in answer.stdout.splitlines() if line.startswith("{")]
    names = {(i["namespace"], i["name"]) for e in events for i in e["inputs"]}
    assert names == {("s3://landing", "p/customers"), ("s3://landing", "p/orders")}
    # no storage option (credentials included) is ever in an event
    assert "testing" not in answer.stdout

    bad = CliRunner().invoke(cli, ["crawl", f"s3://{BUCKET}/p", "--storage-option", "endpoint_url"])
    assert bad.exit_code == 2 and "not key=value" in bad.output
