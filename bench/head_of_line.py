"""Head-of-line blocking: small events posted while a 10 MB event is derived.

    python bench/head_of_line.py [--mb 10] [--small 80] [--interval 0.1] [--db sqlite|postgresql://...]

Starts a real ``headwater serve`` (a fresh SQLite store, or a fresh database on the PostgreSQL
server given), posts one wide event of about ``--mb`` MB (a job writing one table of 9,000 columns,
each fed by the same column of several input tables, with column lineage), and from the moment
that POST is sent posts ``--small`` events of about 1 kB, one every ``--interval`` seconds, each
on its own connection (as independent producers do). For each small event it measures

- **ack**: the time from sending the POST to its 2xx (the event is durable);
- **graph-ready**: the time from sending the POST until a graph read (``GET /api/v1/graph/node``, which waits for the projector,
  of its output dataset) finds the node — polled every 20 ms.

Targets: ack p99 ≤ 1 s and graph-ready ≤ 5 s while the big event is derived. The
big event's own ack and graph-ready are printed too. Writes bench/results/head_of_line.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _server import started_server

RUN_EVENT = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"
CL = "https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json#/$defs/ColumnLineageDatasetFacet"
SCHEMA = "https://openlineage.io/spec/facets/1-1-1/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet"
P = "https://github.com/headwater-lineage/headwater/tree/main/bench/head_of_line.py"


def _schema(columns: int) -> dict[str, Any]:
    return {
        "_producer": P,
        "_schemaURL": SCHEMA,
        "fields": [{"name": f"c{i}", "type": "string"} for i in range(columns)],
    }


def big_event(megabytes: float, columns: int = 9_000) -> dict[str, Any]:
    """A COMPLETE of a job writing ``columns`` columns, each fed by column ``c<i>`` of as many input
    tables as it takes to reach about ``megabytes`` MB."""

    def build(inputs: int) -> dict[str, Any]:
        names = [f"/bench/wide/in{k}" for k in range(inputs)]
        fields = {
            f"c{i}": {
                "inputFields": [
                    {
                        "namespace": "file",
                        "name": n,
                        "field": f"c{i}",
                        "transformations": [{"type": "DIRECT", "subtype": "IDENTITY"}],
                    }
                    for n in names
                ]
            }
            for i in range(columns)
        }
        return {
            "eventType": "COMPLETE",
            "eventTime": datetime.now(UTC).isoformat(),
            "producer": P,
            "schemaURL": RUN_EVENT,
            "run": {"runId": str(uuid.uuid4())},
            "job": {"namespace": "bench", "name": "wide_job"},
            "inputs": [{"namespace": "file", "name": n, "facets": {"schema": _schema(columns)}} for n in names],
            "outputs": [
                {
                    "namespace": "file",
                    "name": "/bench/wide/out",
                    "facets": {
                        "schema": _schema(columns),
                        "columnLineage": {"_producer": P, "_schemaURL": CL, "fields": fields},
                    },
                }
            ],
        }

    inputs = 1
    while len(json.dumps(build(inputs))) < megabytes * 1e6:
        inputs += 1
    return build(inputs)


def small_event(i: int) -> dict[str, Any]:
    """About 1 kB: a job reading one table and writing another, three columns each."""
    fields = [{"name": c, "type": "string"} for c in ("id", "name", "amount")]
    return {
        "eventType": "COMPLETE",
        "eventTime": datetime.now(UTC).isoformat(),
        "producer": P,
        "schemaURL": RUN_EVENT,
        "run": {"runId": str(uuid.uuid4())},
        "job": {"namespace": "bench", "name": f"small_job_{i}"},
        "inputs": [
            {
                "namespace": "file",
                "name": f"/bench/small/in{i}",
                "facets": {"schema": {"_producer": P, "_schemaURL": SCHEMA, "fields": fields}},
            }
        ],
        "outputs": [
            {
                "namespace": "file",
                "name": f"/bench/small/out{i}",
                "facets": {"schema": {"_producer": P, "_schemaURL": SCHEMA, "fields": fields}},
            }
        ],
    }


def node_url(base: str, dataset: str) -> str:
    return f"{base}/api/v1/graph/node?nodeId={quote('dataset:file:' + dataset, safe='')}"


def post_and_wait(base: str, body: dict[str, Any], dataset: str, timeout: float) -> tuple[float, float]:
    """(ack seconds, graph-ready seconds), both from the moment the POST is sent."""
    raw = json.dumps(body).encode()
    with httpx.Client(timeout=timeout) as client:
        t0 = time.perf_counter()
        answer = client.post(f"{base}/api/v1/lineage", content=raw, headers={"Content-Type": "application/json"})
        ack = time.perf_counter() - t0
        if answer.status_code not in (200, 201):
            raise RuntimeError(f"POST answered {answer.status_code}: {answer.text[:300]}")
        while client.get(node_url(base, dataset)).status_code != 200:
            if time.perf_counter() - t0 > timeout:
                raise RuntimeError(f"{dataset} not in the graph after {timeout} s")
            time.sleep(0.02)
        return ack, time.perf_counter() - t0


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def run(db: str, megabytes: float, small: int, interval: float) -> dict[str, Any]:
    big = big_event(megabytes)
    size = len(json.dumps(big))
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/hol.db" if db == "sqlite" else db
        with started_server(url, extra_env={"HEADWATER_PROJECTOR_WAIT": "120"}) as server:
            post_and_wait(server.url, small_event(-1), "/bench/small/out-1", 60)  # warm up
            big_result: dict[str, float] = {}

            def post_big() -> None:
                ack, ready = post_and_wait(server.url, big, "/bench/wide/out", 600)
                big_result.update(ack=ack, ready=ready)

            results: list[tuple[float, float]] = []
            lock = threading.Lock()

            def post_small(i: int) -> None:
                r = post_and_wait(server.url, small_event(i), f"/bench/small/out{i}", 600)
                with lock:
                    results.append(r)

            big_thread = threading.Thread(target=post_big)
            big_thread.start()
            threads = []
            for i in range(small):
                time.sleep(interval)
                t = threading.Thread(target=post_small, args=(i,))
                t.start()
                threads.append(t)
            for t in [big_thread, *threads]:
                t.join()
    acks = [a for a, _ in results]
    ready = [r for _, r in results]
    return {
        "db": "sqlite" if db == "sqlite" else "postgresql",
        "big_event_mb": round(size / 1e6, 2),
        "big_ack_s": round(big_result["ack"], 3),
        "big_graph_ready_s": round(big_result["ready"], 3),
        "small_events": len(results),
        "small_ack_p50_s": round(statistics.median(acks), 3),
        "small_ack_p99_s": round(pct(acks, 0.99), 3),
        "small_ack_max_s": round(max(acks), 3),
        "small_graph_ready_p50_s": round(statistics.median(ready), 3),
        "small_graph_ready_p99_s": round(pct(ready, 0.99), 3),
        "small_graph_ready_max_s": round(max(ready), 3),
        "targets": {"small_ack_p99_s": 1.0, "small_graph_ready_max_s": 5.0},
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=float, default=10.0, help="size of the big event (MB)")
    parser.add_argument("--small", type=int, default=80, help="how many 1 kB events to post meanwhile")
    parser.add_argument("--interval", type=float, default=0.1, help="seconds between two small events")
    parser.add_argument("--db", default="sqlite", help="sqlite, or a PostgreSQL URL whose database is used as is")
    args = parser.parse_args()
    result = run(args.db, args.mb, args.small, args.interval)
    print(json.dumps(result, indent=2))
    out = HERE / "results" / "head_of_line.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    met = result["small_ack_p99_s"] <= 1.0 and result["small_graph_ready_max_s"] <= 5.0
    print("targets met" if met else "targets NOT met", file=sys.stderr)


if __name__ == "__main__":
    main()
