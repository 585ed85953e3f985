"""Query-history harvest benchmark: a 100,000-statement PostgreSQL csvlog harvested end to end.

    python bench/harvest.py [--statements 100000] [--distinct 3000] [--reads 0.4] [--db sqlite|postgresql://...]

Writes a csvlog as PostgreSQL 15 writes it with ``log_min_duration_statement = 0`` (one ``duration: … ms
statement: …`` record per statement, 40 sessions, 3 ms apart): ``--statements`` records, of which ``--reads`` are
SELECTs (read, skipped: no lineage) and the rest executions of ``--distinct`` different writing statements from
bench/sql_lineage.py's TPC-H mix (the postgres dialect; most executions repeat a statement, as in a warehouse).
Starts a real ``headwater serve`` (a fresh SQLite store, or a fresh database on the PostgreSQL server given) and
runs ``headwater harvest postgres --csvlog FILE --url …`` as a subprocess, then reads the graph (which waits for
the projector). Figures: harvest wall time (every event acknowledged), end to end (the graph read answered),
statements/s and events/s. Target: 100,000 statements end to end in <= 5 min. Writes
bench/results/harvest.json.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).parent))
from _server import started_server
from sql_lineage import MERGELESS, TEMPLATES

DSN = "postgresql://bench@warehouse:5432/tpch"
READS = [
    "SELECT o_orderkey, o_totalprice FROM orders WHERE o_custkey = {n}",
    "SELECT COUNT(*) FROM lineitem WHERE l_shipdate > DATE '1995-01-01' + {n}",
    "SELECT c_name FROM customer WHERE c_custkey = {n}",
]


def write_csvlog(path: Path, statements: int, distinct: int, reads: float, seed: int = 7) -> None:
    rnd = random.Random(seed)
    templates = [t for t in TEMPLATES if not t.startswith("MERGE") or "postgres" not in MERGELESS]
    writers = [rnd.choice(templates).format(i=i, n=rnd.randint(1, 900)) for i in range(distinct)]
    start = datetime(2026, 11, 24, 8, 0, tzinfo=UTC)
    lines = [0] * 40
    with path.open("w", newline="") as f:
        w = csv.writer(f, quoting=csv.QUOTE_MINIMAL)
        for k in range(statements):
            s = k % 40
            lines[s] += 1
            when = start + timedelta(milliseconds=3 * k)
            sql = rnd.choice(READS).format(n=rnd.randint(1, 10_000)) if rnd.random() < reads else rnd.choice(writers)
            ms = f"{rnd.uniform(0.2, 900):.3f}"
            w.writerow(
                [
                    when.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3] + " UTC",
                    "etl",
                    "tpch",
                    4000 + s,
                    f"10.0.0.{s}:5{s:04d}",
                    f"6743a1b2.{4000 + s:x}",
                    lines[s],
                    "INSERT",
                    "2026-11-24 07:59:00 UTC",
                    f"{s}/{k}",
                    0,
                    "LOG",
                    "00000",
                    f"duration: {ms} ms  statement: {sql}",
                    "",
                    "",
                    "",
                    "",
                    "",
                    "",
                    "",
                    "",
                    "psql",
                    "client backend",
                    "",
                    0,
                ]
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--statements", type=int, default=100_000)
    parser.add_argument("--distinct", type=int, default=3_000)
    parser.add_argument("--reads", type=float, default=0.4)
    parser.add_argument("--db", default="sqlite", help="sqlite (a temporary file) or a PostgreSQL server URL")
    parser.add_argument("--no-start-events", action="store_true", help="one COMPLETE per execution (half the events)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "postgresql-2026-11-24_080000.csv"
        write_csvlog(log, args.statements, args.distinct, args.reads)
        db_url = f"sqlite:///{tmp}/hw.db" if args.db == "sqlite" else args.db
        with started_server(db_url) as server:
            t0 = time.perf_counter()
            proc = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "headwater",
                    "harvest",
                    "postgres",
                    "--dsn",
                    DSN,
                    "--csvlog",
                    str(log),
                    "--no-schemas",
                    "--url",
                    server.url,
                    "--state",
                    f"{tmp}/state.json",
                    "-q",
                    *(["--no-start-events"] if args.no_start_events else []),
                ],
                capture_output=True,
                text=True,
            )
            harvested = time.perf_counter() - t0
            if proc.returncode != 0:
                raise SystemExit(f"harvest failed ({proc.returncode}): {proc.stderr[-2000:]}")
            answer = httpx.get(
                f"{server.url}/api/v1/graph/jobs",
                params={"namespace": "postgres://warehouse:5432", "limit": 1},
                timeout=600,
            )
            answer.raise_for_status()
            end_to_end = time.perf_counter() - t0
    summary = proc.stderr.strip().splitlines()[-1 - sum(1 for x in proc.stderr.splitlines() if x.startswith("  "))]
    events = int(summary.split(" events sent")[0].rsplit(" ", 1)[1].replace(",", ""))
    result = {
        "statements": args.statements,
        "distinct_writing": args.distinct,
        "reads": args.reads,
        "store": "sqlite" if args.db == "sqlite" else "postgresql",
        "events": events,
        "start_events": not args.no_start_events,
        "harvest_s": round(harvested, 1),
        "end_to_end_s": round(end_to_end, 1),
        "statements_per_s": round(args.statements / end_to_end),
        "events_per_s": round(events / harvested),
        "summary": proc.stderr.strip().splitlines()[-4:],
        "target_s": 300,
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    print(json.dumps(result, indent=2))
    out = (
        Path(__file__).parent
        / "results"
        / ("harvest.json" if not args.no_start_events else "harvest-no-start-events.json")
    )
    out.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
