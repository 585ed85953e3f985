"""Ingest benchmark: events per second into POST /api/v1/lineage(/batch) over real HTTP.

Realistic events: Spark-like COMPLETE RunEvents with 50-column schemas and a column lineage facet
(about 25 kB of JSON each). Measured for single posts and batches, with 1, 4 and 16 concurrent
clients, on SQLite and (when --pg is given) PostgreSQL. Durability stays on: every 2xx answer
means the events are committed and synced.

    python bench/ingest.py [--events 4000] [--batch 500] [--pg postgresql://...] [--repeat 3]

Prints a table and writes bench/results/ingest.json. Runs are interleaved (each configuration
once per round, rounds repeated) and the median of the rounds is reported.
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
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
import synthetic  # noqa: E402
from _server import running_server  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"


def make_events(n: int) -> list[dict[str, Any]]:
    shape = synthetic.Shape(jobs=n, outputs_per_job=1, columns=50, layers=10, seed=11)
    return [e for _, e in zip(range(n), synthetic.events(shape, changes=0))]


def fresh(events: list[dict[str, Any]]) -> list[bytes]:
    """New run ids so that each round stores new events (duplicates would be free)."""
    out = []
    for e in events:
        e = dict(e)
        e["run"] = {"runId": str(uuid.uuid4()), "facets": {}}
        out.append(json.dumps(e).encode())
    return out


def run_clients(url: str, bodies: list[bytes], clients: int, batch: int) -> float:
    chunks: list[list[bytes]] = [bodies[i::clients] for i in range(clients)]
    errors: list[str] = []

    def worker(mine: list[bytes]) -> None:
        with httpx.Client(base_url=url, timeout=60) as http:
            if batch <= 1:
                for body in mine:
                    r = http.post("/api/v1/lineage", content=body, headers={"Content-Type": "application/json"})
                    if r.status_code >= 300:
                        errors.append(r.text[:200])
            else:
                for i in range(0, len(mine), batch):
                    body = b"[" + b",".join(mine[i : i + batch]) + b"]"
                    r = http.post("/api/v1/lineage/batch", content=body, headers={"Content-Type": "application/json"})
                    if r.status_code >= 300:
                        errors.append(r.text[:200])

    threads = [threading.Thread(target=worker, args=(c,)) for c in chunks]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - t0
    if errors:
        raise RuntimeError(f"{len(errors)} requests failed, first: {errors[0]}")
    return len(bodies) / elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--events", type=int, default=4000, help="events per measurement")
    ap.add_argument("--batch", type=int, default=500, help="events per batch request")
    ap.add_argument("--repeat", type=int, default=3, help="interleaved rounds (median reported)")
    ap.add_argument("--pg", help="PostgreSQL URL of an empty database to measure too")
    args = ap.parse_args()

    base = make_events(args.events)
    size = statistics.mean(len(json.dumps(e)) for e in base[:50])
    stores = {"sqlite": None}
    if args.pg:
        stores["postgresql"] = args.pg
    configs = [(mode, c) for mode in ("single", "batch") for c in (1, 4, 16)]
    figures: dict[str, dict[str, list[float]]] = {s: {f"{m}/{c}": [] for m, c in configs} for s in stores}
    with tempfile.TemporaryDirectory() as tmp:
        for store, pg in stores.items():
            db = pg or f"sqlite:///{tmp}/bench.db"
            with running_server(db) as url:
                for _ in range(args.repeat):
                    for mode, clients in configs:
                        n = args.events if mode == "batch" else max(500, args.events // 4)
                        rate = run_clients(url, fresh(base[:n]), clients, args.batch if mode == "batch" else 1)
                        figures[store][f"{mode}/{clients}"].append(rate)
    table = {s: {k: round(statistics.median(v)) for k, v in f.items()} for s, f in figures.items()}
    print(f"event size ≈ {size / 1024:.1f} kB, batch = {args.batch} events, median of {args.repeat} interleaved rounds")
    print(f"{'store':<11}{'mode/clients':<14}{'events/s':>10}")
    for s, rows in table.items():
        for k, v in rows.items():
            print(f"{s:<11}{k:<14}{v:>10}")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "ingest.json").write_text(json.dumps({"event_bytes": size, "batch": args.batch, "events_per_s": table, "raw": figures}, indent=2))


if __name__ == "__main__":
    main()
