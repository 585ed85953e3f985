"""What `headwater db prune` saves: bytes of JSON in the log, the observation index and the runs, before and after.

    python bench/retention.py                 # 4 Spark applications x 300 events (~25 kB each), SQLite
    python bench/retention.py --pg postgresql://...   # on a fresh PostgreSQL database

Prunes at the median event time (half the events) and prints what went and what stayed (docs/store.md, "Retention").
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import sqlalchemy as sa

sys.path.insert(0, str(Path(__file__).resolve().parent))
from headwater.model.times import from_micros
from headwater.store import IncomingEvent, Store
from ingest import fresh_store
from spark_events import Pipeline

SIZES = {
    "events": "SELECT COALESCE(SUM(LENGTH(raw)), 0) FROM events",
    "observations": "SELECT COALESCE(SUM(LENGTH(data)), 0) FROM observations",
    "runs": "SELECT COALESCE(SUM(LENGTH(facets) + LENGTH(job_facets) + LENGTH(inputs) + LENGTH(outputs)"
    " + LENGTH(column_lineage)), 0) FROM runs",
}


def sizes(store: Store) -> dict[str, int]:
    with store.engine.connect() as conn:
        return {name: int(conn.scalar(sa.text(sql)) or 0) for name, sql in SIZES.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--apps", type=int, default=4, help="Spark applications")
    ap.add_argument("--events", type=int, default=300, help="events per application")
    ap.add_argument("--pg", help="PostgreSQL server URL (a fresh database is created on it)")
    args = ap.parse_args()
    with (
        tempfile.TemporaryDirectory() as tmp,
        fresh_store("postgresql" if args.pg else "sqlite", args.pg, Path(tmp), "retention") as url,
    ):
        with Store.open(url) as store:
            sent = [e for k in range(args.apps) for e in Pipeline(f"r{k}").events(args.events)]
            for i in range(0, len(sent), 200):
                store.append([IncomingEvent(e, json.dumps(e)) for e in sent[i : i + 200]])
            store.catch_up()
            before = sizes(store)
            with store.engine.connect() as conn:
                times = sorted(conn.scalars(sa.text("SELECT event_time FROM events")))
            result = store.prune(from_micros(times[len(times) // 2]))
            after = sizes(store)
    went = sum(before.values()) - sum(after.values())
    print(
        f"{len(sent)} events; pruned {result.events} events and {result.runs} runs ({result.job_samples} job samples kept)"
    )
    for name in SIZES:
        print(f"  {name:<13}{before[name] / 1e6:8.1f} MB -> {after[name] / 1e6:8.1f} MB")
    print(
        f"  total        {sum(before.values()) / 1e6:8.1f} MB -> {sum(after.values()) / 1e6:8.1f} MB: "
        f"{went / 1e6:.1f} MB went, {went / max(1, result.events) / 1e3:.0f} kB per pruned event"
    )


if __name__ == "__main__":
    main()
