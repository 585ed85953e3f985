"""Graph-query benchmark on a synthetic lineage graph of chosen size.

    python bench/graph_queries.py [--jobs 50000] [--outputs-per-job 2] [--columns 7] [--db URL] [--queries 200]

1. Generates a deterministic layered graph (bench/synthetic.py): by default 100,000 datasets,
   50,000 jobs, ~1,000,000 column edges. ``--jobs 500000`` reaches 1,000,000
   datasets and ~10,000,000 column edges.
2. Loads it through the real ingest path, in-process: ``Store.append`` in batches (the same code
   POST /api/v1/lineage/batch calls, minus HTTP; schema validation is skipped because the generator's
   events are known-valid — tests/bench check a sample against the official schema). ``--keep``
   reuses an already-loaded database.
3. Runs each query ``--queries`` times on random nodes through ``GraphReader`` and reports p50/p99:
   upstream/downstream at depth 1, 5, 20; column lineage; column impact; search; and the same with
   ``at=`` a past timestamp.

Prints a table and writes bench/results/graph_queries.json.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import synthetic  # noqa: E402

from headwater.graph.nodeid import NodeRef  # noqa: E402
from headwater.store import IncomingEvent, Store  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"


def load(store: Store, shape: synthetic.Shape, batch: int = 1000) -> tuple[int, float]:
    t0 = time.perf_counter()
    buf: list[IncomingEvent] = []
    n = 0
    for event in synthetic.events(shape):
        buf.append(IncomingEvent(payload=event, raw=json.dumps(event)))
        if len(buf) >= batch:
            store.append(buf)
            n += len(buf)
            buf = []
            if n % 20_000 == 0:
                print(f"  loaded {n:,} events ({n / (time.perf_counter() - t0):,.0f}/s)", flush=True)
    if buf:
        store.append(buf)
        n += len(buf)
    return n, time.perf_counter() - t0


def percentile(values: list[float], p: float) -> float:
    values = sorted(values)
    k = min(len(values) - 1, max(0, round(p / 100 * (len(values) - 1))))
    return values[k]


def measure(fn: Callable[[], Any], n: int) -> tuple[float, float]:
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return percentile(times, 50), percentile(times, 99)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jobs", type=int, default=50_000)
    ap.add_argument("--outputs-per-job", type=int, default=2)
    ap.add_argument("--columns", type=int, default=7)
    ap.add_argument("--layers", type=int, default=40)
    ap.add_argument("--db", default="sqlite:///bench-graph.db")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--keep", action="store_true", help="reuse a loaded database")
    args = ap.parse_args()

    shape = synthetic.Shape(jobs=args.jobs, outputs_per_job=args.outputs_per_job, columns=args.columns, layers=args.layers)
    print(f"graph: {shape.datasets:,} datasets, {shape.jobs:,} jobs, ~{shape.column_edges_estimate:,} column edges")
    store = Store.open(args.db)
    load_figures: dict[str, float] = {}
    if not args.keep:
        n, secs = load(store, shape)
        load_figures = {"events": n, "seconds": round(secs, 1), "events_per_s": round(n / secs)}
        print(f"loaded {n:,} events in {secs:,.1f} s ({n / secs:,.0f} events/s)")
    g = store.graph
    rng = random.Random(1)
    total = shape.datasets

    def ds() -> NodeRef:
        # written datasets (every one exists at the past timestamp too)
        return NodeRef("dataset", "s3://bench", synthetic.dataset_name(rng.randrange(shape.sources, total)))

    def field() -> NodeRef:
        d = ds()
        return NodeRef("datasetField", d.namespace, d.name, synthetic.column(rng.randrange(shape.columns)))

    past = synthetic.midpoint()
    rows: dict[str, tuple[float, float]] = {}
    for at_label, at in (("now", None), ("past", past)):
        for direction in ("upstream", "downstream"):
            for depth in (1, 5, 20):
                rows[f"{direction} depth {depth} ({at_label})"] = measure(
                    lambda: g.lineage(ds(), direction=direction, depth=depth, at=at), args.queries)
        rows[f"column lineage depth 10 ({at_label})"] = measure(lambda: g.column_lineage(field(), depth=10, at=at), args.queries)
        rows[f"column impact depth 20 ({at_label})"] = measure(lambda: g.impact(field(), depth=20, at=at), args.queries)
    rows["search"] = measure(lambda: g.search(f"ds_{rng.randrange(total):07d}"[:9], limit=20), args.queries)
    print(f"{'query':<36}{'p50 ms':>10}{'p99 ms':>10}")
    for k, (p50, p99) in rows.items():
        print(f"{k:<36}{p50:>10.1f}{p99:>10.1f}")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "graph_queries.json").write_text(json.dumps({
        "shape": {"datasets": shape.datasets, "jobs": shape.jobs, "column_edges_estimate": shape.column_edges_estimate},
        "load": load_figures, "queries": args.queries,
        "ms": {k: {"p50": round(a, 2), "p99": round(b, 2)} for k, (a, b) in rows.items()},
    }, indent=2))
    store.close()


if __name__ == "__main__":
    main()
