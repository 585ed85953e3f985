"""What reading the derived texts costs: the projector's full re-derivation and the dataset histories.

    python bench/derived_reads.py [--pg postgresql://...] [--events 2000] [--rounds 5]

A fresh store (SQLite, and with ``--pg`` a fresh PostgreSQL database) is fed ``--events`` Spark events
(``spark_events.py``: 4 applications of 8 jobs run again and again, as ``bench/ingest.py --bytes`` feeds), then,
``--rounds`` times, in this process:

- ``rederive``: every run, job and dataset derived again from all of its observations (the projector's full
  path, what a late event or ``headwater db rebuild`` runs: it reads every observation and every run's job facets
  and column lineage back), in a transaction rolled back afterwards; milliseconds per event;
- ``history``: ``GraphReader.history`` of every dataset and job (dataset versions with the runs that made them,
  whose job facets it reads); milliseconds per node.

The histories' rounds run first, then the re-derivations' (a rolled-back re-derivation leaves dead rows
that slow PostgreSQL's later reads). Medians of the rounds (the first round, which fills the caches, is
reported apart). For a before/after:
``PYTHONPATH=<other checkout>/src python bench/derived_reads.py`` and the same without, alternately.
Writes bench/results/derived-reads.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ingest import fresh_store
from spark_events import Pipeline

RESULTS = Path(__file__).resolve().parent / "results"


def one_store(url: str, events: int, rounds: int) -> dict[str, Any]:
    import sqlalchemy as sa

    from headwater.graph import GraphReader
    from headwater.model.nodeid import parse_node_id
    from headwater.store import IncomingEvent, Store
    from headwater.store.canonical import JsonMemo
    from headwater.store.projector import derive_nodes, node_group
    from headwater.store.schema import observations

    apps = 4
    per_app = events // apps
    payloads = [e for a in range(apps) for e in Pipeline(f"app{a}").events(per_app)]
    order = sorted(range(len(payloads)), key=lambda i: (i % per_app, i))
    sent = [IncomingEvent(payloads[i], json.dumps(payloads[i], separators=(",", ":"))) for i in order]
    out: dict[str, list[float]] = {"rederive": [], "history": []}
    with Store.open(url) as store:
        for i in range(0, len(sent), 100):
            store.append(sent[i : i + 100])
        assert store.caught_up(600), "the projector did not catch up"
        with store.engine.connect() as conn:
            nodes: dict[str, set[str]] = {"run": set(), "job": set(), "dataset": set()}
            for node, role in conn.execute(sa.select(observations.c.node, observations.c.role).distinct()):
                nodes[node_group(role)].add(node)
        graph = GraphReader(store)
        named = sorted(nodes["dataset"] | nodes["job"])
        for _ in range(rounds + 1):  # the histories first: a rolled-back re-derivation leaves dead rows behind
            t0 = time.perf_counter()
            for node in named:
                graph.history(parse_node_id(node))
            out["history"].append((time.perf_counter() - t0) / len(named) * 1e3)
        for _ in range(rounds + 1):
            with store.engine.connect().execution_options(hw_write=True) as conn:
                trans = conn.begin()
                t0 = time.perf_counter()
                derive_nodes(conn, nodes["run"], nodes["job"], nodes["dataset"], JsonMemo())
                out["rederive"].append((time.perf_counter() - t0) / len(sent) * 1e3)
                trans.rollback()
    return {
        "events": len(sent),
        "nodes": {k: len(v) for k, v in nodes.items()},
        "first_round_ms": {k: round(v[0], 3) for k, v in out.items()},
        "median_ms": {k: round(statistics.median(v[1:]), 3) for k, v in out.items()},
        "rounds_ms": out,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pg", help="a PostgreSQL server URL: measure there too (a fresh database, dropped after)")
    ap.add_argument("--events", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--out", type=Path, default=RESULTS / "derived-reads.json")
    args = ap.parse_args()
    import headwater

    found: dict[str, Any] = {"code": str(Path(headwater.__file__).parent), "load_average": [os.getloadavg()]}
    with tempfile.TemporaryDirectory() as tmp:
        for kind in ["sqlite"] + (["postgresql"] if args.pg else []):
            with fresh_store(kind, args.pg, Path(tmp), f"reads_{kind}") as url:
                found[kind] = one_store(url, args.events, args.rounds)
            median = found[kind]["median_ms"]
            print(
                f"{kind:<11} re-derivation {median['rederive']:.3f} ms/event, history {median['history']:.3f} ms/node "
                f"(first round {found[kind]['first_round_ms']}; {found[kind]['nodes']})",
                flush=True,
            )
    found["load_average"].append(os.getloadavg())
    print(f"code: {found['code']}; load average: {found['load_average']}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(found, indent=2))


if __name__ == "__main__":
    main()
