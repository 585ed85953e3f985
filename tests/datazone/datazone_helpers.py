"""Helpers of the DataZone lineage API tests (imported by name; conftest.py only holds fixtures)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boto3
import httpx
from botocore.config import Config

from headwater.store import Store
from live_server import ServeProcess, free_port, serve_env

KEY_ID = "AKIAHEADWATERTEST01"
SECRET = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYHEADWATER"
DOMAIN = "dzd_6ck1ipz7lm2a7v"
REGION = "eu-west-1"
PRODUCER = "https://github.com/headwater-lineage/headwater/tests/datazone"
RUN_SCHEMA = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"


@dataclass
class Served:
    url: str
    store: Store | None
    http: httpx.Client


def datazone(url: str, key_id: str = KEY_ID, secret: str = SECRET) -> Any:
    """boto3's DataZone client with only the endpoint changed (and keys given in place of a profile)."""
    return boto3.client(
        "datazone",
        endpoint_url=url,
        region_name=REGION,
        aws_access_key_id=key_id,
        aws_secret_access_key=secret,
        config=Config(retries={"max_attempts": 1}),
    )


def run_event(
    job: str,
    inputs: list[tuple[str, str]],
    outputs: list[tuple[str, str]],
    *,
    event_type: str = "COMPLETE",
    run_id: str | None = None,
    time_: str = "2026-11-20T10:00:00Z",
    fields: list[str] | None = None,
    namespace: str = "airflow",
) -> dict[str, Any]:
    """An OpenLineage RunEvent (dict), the body DataZone's PostLineageEvent takes."""

    def dataset(ns: str, name: str) -> dict[str, Any]:
        out: dict[str, Any] = {"namespace": ns, "name": name}
        if fields is not None:
            out["facets"] = {
                "schema": {
                    "_producer": PRODUCER,
                    "_schemaURL": "https://openlineage.io/spec/facets/1-2-0/SchemaDatasetFacet.json",
                    "fields": [{"name": f, "type": "string"} for f in fields],
                }
            }
        return out

    return {
        "eventType": event_type,
        "eventTime": time_,
        "run": {"runId": run_id or str(uuid.uuid4())},
        "job": {"namespace": namespace, "name": job},
        "inputs": [dataset(*i) for i in inputs],
        "outputs": [dataset(*o) for o in outputs],
        "producer": PRODUCER,
        "schemaURL": RUN_SCHEMA,
    }


def body(event: dict[str, Any]) -> bytes:
    return json.dumps(event).encode("utf-8")


@contextmanager
def headwater_serve(tmp: Path, db_url: str, env: dict[str, str]) -> Iterator[str]:
    """A real ``headwater serve`` process (the environment holds its settings); yields its URL."""
    port = free_port()
    with ServeProcess(db_url, tmp / f"serve-{port}.log", serve_env(tmp / "data", **env), port=port) as server:
        yield server.url
