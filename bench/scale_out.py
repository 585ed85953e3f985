"""Scale out on PostgreSQL: acknowledged and graph-ready events/s with 1, 2 and 4 server processes.

    python bench/scale_out.py --pg postgresql://headwater:headwater@127.0.0.1:5432/headwater

Each measurement is a fresh PostgreSQL database and ``headwater serve --workers N`` on one port (N
uvicorn processes, each with its own connections and background projector; the kernel spreads the
clients' connections over them). ``--clients`` clients send their own Spark application's events
(bench/spark_events.py, ~25 kB each) in batches at once; *ack* is events / time until the last 2xx,
*graph* is events / time until a graph read (which waits for the projection, on whichever process
answers it) returns. The process counts are interleaved (1 2 4, 2 4 1, 4 1 2, ...) and the median of
the rounds is reported with the range. Writes to bench/results/scale_out.json.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _server import free_port
from ingest import fresh_store, load, make_bodies, measure

RESULTS = Path(__file__).resolve().parent / "results"


@contextlib.contextmanager
def workers(db_url: str, n: int, tmp: Path) -> Iterator[str]:
    """``headwater serve --workers n --db db_url`` on a free port; yields its URL once every worker answers."""
    port = free_port()
    log = tmp / f"serve_{port}.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "headwater", "serve", "--db", db_url, "--port", str(port), "--workers", str(n)],
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, "HEADWATER_DATA_DIR": str(tmp / "data")},
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        started = 0
        while started < n:  # uvicorn logs "Application startup complete." once per worker
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"headwater serve --workers {n} did not start: {log.read_text()[-2000:]}")
            started = log.read_text().count("Application startup complete")
            time.sleep(0.2)
        httpx.get(f"{url}/api/v1/status", timeout=30).raise_for_status()
        yield url
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pg", required=True, help="PostgreSQL server URL (a fresh database is created per measurement)")
    ap.add_argument("--procs", default="1,2,4", help="server process counts, comma-separated")
    ap.add_argument("--events", type=int, default=4000, help="events per measurement")
    ap.add_argument("--clients", type=int, default=8, help="concurrent clients")
    ap.add_argument("--batch", type=int, default=50, help="events per batch request")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds (median reported)")
    ap.add_argument("--out", type=Path, default=RESULTS / "scale_out.json")
    args = ap.parse_args()
    procs = [int(p) for p in args.procs.split(",")]
    raw: dict[int, list[dict[str, float]]] = {n: [] for n in procs}
    loads = [load()]
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        for rnd in range(args.rounds):
            order = procs[rnd % len(procs) :] + procs[: rnd % len(procs)]
            for n in order:
                with fresh_store("postgresql", args.pg, tmp, f"so{rnd}_{n}") as db, workers(db, n, tmp) as url:
                    bodies, count = make_bodies(f"so{rnd}n{n}", args.clients, args.events, args.batch)
                    figures = measure(url, bodies, count, args.batch)
                raw[n].append(figures)
                print(
                    f"round {rnd + 1}/{args.rounds} {n} process(es): ack {figures['ack']:6.0f} ev/s, "
                    f"graph {figures['graph']:6.0f} ev/s (load {load()})",
                    flush=True,
                )
            loads.append(load())
    table: dict[str, Any] = {}
    print()
    print(
        f"{args.events} events/measurement, {args.clients} clients, batches of {args.batch}; median of "
        f"{args.rounds} interleaved rounds [min-max]; load average seen: {', '.join(loads)}"
    )
    print(f"{'processes':>9}{'ack ev/s':>20}{'graph ev/s':>20}")
    for n, runs in raw.items():
        ack = [r["ack"] for r in runs]
        graph = [r["graph"] for r in runs]
        table[str(n)] = {"ack": statistics.median(ack), "graph": statistics.median(graph), "runs": runs}
        print(
            f"{n:>9}{statistics.median(ack):>9.0f} [{min(ack):.0f}-{max(ack):.0f}]"
            f"{statistics.median(graph):>9.0f} [{min(graph):.0f}-{max(graph):.0f}]"
        )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(
        json.dumps({"args": {k: str(v) for k, v in vars(args).items()}, "loads": loads, "table": table})
    )


if __name__ == "__main__":
    main()
