"""The CPU floor of ingest on this machine, against the raw durable-append limit.

    python bench/ingest_floor.py [--events 2000] [--rounds 3]

``bench/ingest_limit.py`` compares Headwater's ack and graph-ready rates with a bare durable SQLite append of the
same event bytes. This asks what any implementation of the same guarantees must spend per event, whatever its
own code: the C/Rust library calls alone, on the benchmark's Spark events (bench/spark_events.py, ~24 kB each),
CPU time per event, median of ``--rounds``:

- **parse**: ``orjson.loads`` of the event's text (an acknowledged event is valid JSON: it must be parsed);
- **validate**: jsonschema-rs on the event and on each standard facet (the fast path of Headwater's validator,
  which answers only "valid"; an invalid event costs more);
- **id**: the canonical form (``orjson.dumps`` with sorted keys) and its SHA-256;
- **append**: the raw durable append itself (``bench/ingest_limit.py``'s raw measurement, per event);
- **parse again**: the derivation reads the event from the log when it runs in another process (unpickling
  builds the same objects); the server's own projector is handed the parsed event instead.

That is the floor when every byte of every event is new. Producers repeat themselves (a Spark job's schema,
column lineage, symlinks and parent facets are the same in every run), and a facet seen before needs no parse
and no validation, only to be recognized. The floor of such an event:

- **scan**: msgspec reading the event's bytes once (to know it is JSON and to find its facets' bytes);
- **hash**: SHA-256 of the event's bytes (the RFC 8785 id covers every byte, repeated or not);
- **append**, as above; nothing to parse again (the projector is handed the parsed event).

With ``cores`` cores used perfectly, a sustained rate ``r`` needs ``r × (floor per event) ≤ cores``; the graph
cannot stay behind the acknowledgements by more than a bounded backlog, so a sustained ack rate pays for the
derivation too. Printed: the floors, the budget per event at the issue's targets (ack ≥ 60 %, graph-ready ≥ 40 %
of raw), and the best rates the floors allow even with a derivation that costs nothing. Writes
bench/results/ingest_floor.json.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec
import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
from headwater.spec import EventValidator
from ingest_limit import raw_append
from spark_events import Pipeline

RESULTS = Path(__file__).resolve().parent / "results"
TARGET_ACK, TARGET_GRAPH = 0.6, 0.4


def per_event(fn: Callable[[], Any], n: int) -> float:
    """CPU microseconds per event of ``fn`` (which handles ``n`` events), collector off (as serve tunes it)."""
    gc.collect()
    gc.disable()
    try:
        t0 = time.process_time()
        fn()
        return (time.process_time() - t0) / n * 1e6
    finally:
        gc.enable()


def one_round(events: int, tmp: Path, tag: str) -> dict[str, float]:
    payloads = [e for c in range(4) for e in Pipeline(f"{tag}c{c}").events(events // 4)]
    texts = [orjson.dumps(p) for p in payloads]
    n = len(texts)
    validator = EventValidator()
    objs = [orjson.loads(t) for t in texts]
    assert all(validator.fast_accepts(o) for o in objs), "the benchmark's events must be valid"
    out = {
        "bytes": sum(map(len, texts)) / n,
        "parse": per_event(lambda: [orjson.loads(t) for t in texts], n),
        "validate": per_event(lambda: [validator.fast_accepts(o) for o in objs], n),
        "id": per_event(
            lambda: [hashlib.sha256(orjson.dumps(o, option=orjson.OPT_SORT_KEYS)).digest() for o in objs], n
        ),
    }
    scan = msgspec.json.Decoder(dict[str, msgspec.Raw])
    out["scan"] = per_event(lambda: [scan.decode(t) for t in texts], n)
    out["hash"] = per_event(lambda: [hashlib.sha256(t).digest() for t in texts], n)
    raw = raw_append(tmp / f"{tag}.db", texts, 500)
    out["raw_events_per_s"] = raw
    # the raw append's wall time per event (its CPU and its fsyncs) less the SHA-256 it computes (counted in id)
    out["append"] = 1e6 / raw - per_event(lambda: [hashlib.sha256(t).hexdigest() for t in texts], n)
    out["parse_again"] = out["parse"]
    return out


def verdict(m: dict[str, float], cores: int) -> dict[str, float]:
    ack_floor = m["parse"] + m["validate"] + m["id"] + m["append"]
    graph_floor = ack_floor + m["parse_again"]  # + the derivation, counted as free
    repeat_floor = m["scan"] + m["hash"] + m["append"]  # facets seen before; the parsed event handed over
    raw = m["raw_events_per_s"]
    return {
        "repeat_floor_us": repeat_floor,
        "best_repeat_of_raw": cores * 1e6 / repeat_floor / raw,
        "ack_floor_us": ack_floor,
        "graph_floor_us": graph_floor,
        "budget_us_at_ack_target": cores * 1e6 / (TARGET_ACK * raw),
        "budget_us_at_graph_target": cores * 1e6 / (TARGET_GRAPH * raw),
        "best_sustained_of_raw": cores * 1e6 / graph_floor / raw,
        "best_ack_alone_of_raw": cores * 1e6 / ack_floor / raw,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cores", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    rounds = []
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            rounds.append(one_round(args.events, Path(tmp), f"r{r}"))
            print(
                f"round {r + 1}: " + ", ".join(f"{k} {v:,.1f}" for k, v in rounds[-1].items()),
                flush=True,
            )
    median = {k: statistics.median(r[k] for r in rounds) for k in rounds[0]}
    result = verdict(median, args.cores)
    print(f"\nfloors per event (CPU µs, median of {args.rounds}; {median['bytes']:,.0f}-byte events):")
    for key in ("parse", "validate", "id", "append", "parse_again", "scan", "hash"):
        print(f"  {key:12s} {median[key]:8.1f}")
    print(f"raw durable append: {median['raw_events_per_s']:,.0f} events/s; {args.cores} cores")
    print(
        f"ack: floor {result['ack_floor_us']:.0f} µs/event vs a budget of "
        f"{result['budget_us_at_ack_target']:.0f} µs/event ({args.cores} cores) at {TARGET_ACK:.0%} of raw"
    )
    print(
        f"graph: floor {result['graph_floor_us']:.0f} µs/event + the derivation vs a budget of "
        f"{result['budget_us_at_graph_target']:.0f} µs/event at {TARGET_GRAPH:.0%} of raw"
    )
    print(
        f"best the floors allow, with a free derivation and every core busy: sustained (ack = graph) "
        f"{result['best_sustained_of_raw']:.0%} of raw; ack alone, deriving nothing {result['best_ack_alone_of_raw']:.0%}"
    )
    print(
        f"facets seen before: floor {result['repeat_floor_us']:.0f} µs/event (scan, hash, append); the best it "
        f"allows, ack = graph with a free derivation: {result['best_repeat_of_raw']:.0%} of raw"
    )
    out = {
        "rounds": rounds,
        "median": median,
        "verdict": result,
        "cores": args.cores,
        "load": " ".join(f"{x:.2f}" for x in os.getloadavg()),
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "ingest_floor.json").write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
