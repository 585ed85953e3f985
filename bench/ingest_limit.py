"""Headwater's ingest rates as a share of the machine's raw durable-append limit.

    python bench/ingest_limit.py [--events 4000] [--batch 500] [--rounds 3]

Three measurements of the same events (bench/spark_events.py: what the OpenLineage Spark integration
sends, ~25 kB each), interleaved round by round so machine drift hits all three:

- **raw**: the physical limit of a durable append on this machine — the events' bytes inserted with
  Python's sqlite3 into a fresh SQLite file in WAL mode with ``synchronous=FULL``, a SHA-256 id each,
  one transaction (and so one fsync) per batch of ``--batch``: what no ingest path can beat;
- **ack**: a real ``headwater serve`` on a fresh SQLite store, one client posting the same batches to
  ``POST /api/v1/lineage/batch`` — events per second until the last 2xx (durable, validated);
- **graph**: the same run until a graph read answers (it waits until the projector derived them all).

Prints the medians and the ratios ack/raw and graph/raw; the issue's targets are ack ≥ 60 % and
graph ≥ 40 % of raw. Writes bench/results/ingest_limit.json.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sqlite3
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _server import running_server
from ingest import load, make_bodies, measure

RESULTS = Path(__file__).resolve().parent / "results"


def raw_append(path: Path, events: list[bytes], batch: int) -> float:
    """Events per second for the plainest durable append: WAL + synchronous=FULL, one commit per batch."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("CREATE TABLE events (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT UNIQUE, raw TEXT)")
    t0 = time.perf_counter()
    for i in range(0, len(events), batch):
        rows = [(hashlib.sha256(e).hexdigest(), e.decode()) for e in events[i : i + batch]]
        conn.execute("BEGIN IMMEDIATE")
        conn.executemany("INSERT INTO events (id, raw) VALUES (?, ?)", rows)
        conn.execute("COMMIT")
    elapsed = time.perf_counter() - t0
    conn.close()
    return len(events) / elapsed


def one_round(tag: str, n: int, batch: int, tmp: Path) -> dict[str, float]:
    (bodies,), total = make_bodies(tag, 1, n, batch)
    events = [e for body in bodies for e in _split(body)]
    raw = raw_append(tmp / f"{tag}-raw.db", events, batch)
    with running_server(f"sqlite:///{tmp / f'{tag}-hw.db'}") as url:
        served = measure(url, [bodies], total, batch)
    return {"raw": raw, "ack": served["ack"], "graph": served["graph"]}


def _split(body: bytes) -> list[bytes]:
    """The events of a batch body, as the bytes each had (re-serialized the same way make_bodies wrote them)."""
    return [json.dumps(e, separators=(",", ":")).encode() for e in json.loads(body)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=4000)
    parser.add_argument("--batch", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    rounds: list[dict[str, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            result = one_round(f"r{r}", args.events, args.batch, Path(tmp))
            rounds.append(result)
            print(
                f"round {r + 1}: raw {result['raw']:,.0f} ev/s, ack {result['ack']:,.0f} ev/s "
                f"({result['ack'] / result['raw']:.0%}), graph {result['graph']:,.0f} ev/s "
                f"({result['graph'] / result['raw']:.0%})  load {load()}",
                flush=True,
            )
    median: dict[str, Any] = {k: statistics.median(r[k] for r in rounds) for k in ("raw", "ack", "graph")}
    ratios = {
        "ack_of_raw": statistics.median(r["ack"] / r["raw"] for r in rounds),
        "graph_of_raw": statistics.median(r["graph"] / r["raw"] for r in rounds),
    }
    out = {
        "events": args.events,
        "batch": args.batch,
        "rounds": rounds,
        "median_events_per_s": median,
        "ratios": ratios,
        "targets": {"ack_of_raw": 0.6, "graph_of_raw": 0.4},
        "load": load(),
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    print(json.dumps(out, indent=2))
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "ingest_limit.json").write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
