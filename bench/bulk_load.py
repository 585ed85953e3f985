"""Bulk-load benchmark: ``headwater db load`` of an events file against the in-process append path.

    python bench/bulk_load.py                      # the default graph shape (55,000 events), SQLite, 1 round each
    python bench/bulk_load.py --jobs 10000 --rounds 2 --pg postgresql://user:pw@host/postgres

The events of bench/graph_queries.py's shape (bench/synthetic.py, ``--jobs``) are written once to an NDJSON
file (not timed). Each round loads them into a fresh store both ways, alternating which goes first:

- ``append``: ``Store.append`` in batches of 1,000 with the background projector (what bench/graph_queries.py
  loads with: no schema validation), timed until the graph is derived;
- ``bulk``: :func:`headwater.store.bulkload.load_file` from the file (what ``headwater db load`` runs: every line
  parsed and validated like a post, in worker processes; durable batches of 20,000; the graph derived in steps
  of up to 20,000), timed until the graph is derived.

Reported per method: wall seconds, events/s, and CPU seconds of this process and its worker processes, and of this
process alone (the bulk load's bottleneck: it appends and derives; wall time on a busy machine says more about the
neighbours than about the code; CPU seconds less so), with the load average before and after. Each figure includes
opening the fresh store (its migrations: ~1 s). For the bulk load also its rate as the store grows (``curve``: per
``--curve-every`` events derived, events/s and events per main-process CPU second over that stretch: the
estimate for a bigger shape starts from its last points). Writes bench/results/bulk_load.json.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))
import synthetic
from headwater.ingest.accept import Policy
from headwater.settings import load_settings
from headwater.store import IncomingEvent, Store
from headwater.store.bulkload import Progress, load_file

RESULTS = Path(__file__).resolve().parent / "results"


def cpu_seconds() -> tuple[float, float]:
    """CPU seconds (user + system) of this process, and of this process and its children that ended."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    mine = own.ru_utime + own.ru_stime
    return mine, mine + kids.ru_utime + kids.ru_stime


def fresh_url(kind: str, pg: str | None, tmp: Path, name: str) -> tuple[str, Any]:
    if kind == "sqlite":
        return f"sqlite:///{tmp / f'{name}.db'}", None
    import psycopg

    assert pg is not None
    db = f"hw_bench_load_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(pg, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{db}"')

    def drop() -> None:
        with psycopg.connect(pg, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')

    return urlunsplit(urlsplit(pg)._replace(path=f"/{db}")), drop


def by_append(url: str, path: Path) -> int:
    n = 0
    with Store.open(url) as store:
        buf: list[IncomingEvent] = []
        with path.open() as lines:
            for line in lines:
                buf.append(IncomingEvent(payload=json.loads(line), raw=line.rstrip("\n")))
                if len(buf) >= 1000:
                    store.append(buf)
                    n, buf = n + len(buf), []
        if buf:
            store.append(buf)
            n += len(buf)
        while not store.caught_up(600):
            pass
    return n


CURVE: list[tuple[int, float, float]] = []  # the last bulk load's (events derived, seconds, main-process CPU s)


BULK_SIZES: dict[str, int] = {}  # the bulk load's ``batch`` and ``step`` when given (--batch, --step)


def by_bulk(url: str, path: Path) -> int:
    settings = load_settings({}, environ={})
    CURVE.clear()
    t0, c0 = time.perf_counter(), cpu_seconds()[0]

    def mark(p: Progress) -> None:
        if p.phase == "derive":
            CURVE.append((p.derived, round(time.perf_counter() - t0, 1), round(cpu_seconds()[0] - c0, 1)))

    with Store.open(url, background=False) as store:
        report = load_file(
            store,
            path,
            Policy.from_settings(settings),
            max_bytes=int(settings.max_body_bytes),
            progress=mark,
            **BULK_SIZES,
        )
    assert not report.rejected, report.rejected[:3]
    return report.appended


def curve(points: list[tuple[int, float, float]], every: int) -> list[dict[str, float]]:
    """The load's rate as the store grows: per ``every`` events derived, events/s and events per main-process CPU
    second over that stretch."""
    out, last = [], (0, 0.0, 0.0)
    for n, secs, cpu in points:
        if n - last[0] >= every or (n, secs, cpu) == points[-1]:
            done = n - last[0]
            out.append(
                {
                    "derived": n,
                    "events_per_s": round(done / max(secs - last[1], 1e-9)),
                    "events_per_main_cpu_s": round(done / max(cpu - last[2], 1e-9)),
                }
            )
            last = (n, secs, cpu)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jobs", type=int, default=50_000, help="jobs of the graph shape (events ~ 1.1 x jobs)")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--pg", help="PostgreSQL server URL (a fresh database per load); default SQLite only")
    ap.add_argument("--only", choices=("append", "bulk"), help="measure one method only")
    ap.add_argument("--curve-every", type=int, default=20_000, help="events per point of the bulk load's rate curve")
    ap.add_argument("--batch", type=int, help="the bulk load's events per append transaction (default: load_file's)")
    ap.add_argument(
        "--step", type=int, help="the bulk load's events per derivation step at most (default: load_file's)"
    )
    ap.add_argument("--tmp", type=Path, default=RESULTS / "bulk_load_tmp", help="where the SQLite stores go")
    args = ap.parse_args()
    BULK_SIZES.update({k: v for k, v in (("batch", args.batch), ("step", args.step)) if v})
    shape = synthetic.Shape(jobs=args.jobs)
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"graph-{shape.jobs}x{shape.outputs_per_job}x{shape.columns}.ndjson"
    if not path.exists():
        with path.open("w") as out:
            for event in synthetic.events(shape):
                out.write(json.dumps(event) + "\n")
    args.tmp.mkdir(parents=True, exist_ok=True)
    methods = {"append": by_append, "bulk": by_bulk}
    if args.only:
        methods = {args.only: methods[args.only]}
    stores = ["sqlite"] + (["postgresql"] if args.pg else [])
    found: dict[str, list[dict[str, Any]]] = {}
    for rnd in range(args.rounds):
        for kind in stores:
            order = list(methods) if rnd % 2 == 0 else list(reversed(methods))
            for name in order:
                url, drop = fresh_url(kind, args.pg, args.tmp, f"{name}{rnd}")
                before, t0, c0 = os.getloadavg(), time.perf_counter(), cpu_seconds()
                try:
                    n = methods[name](url, path)
                finally:
                    if drop is not None:
                        drop()
                    elif url.startswith("sqlite"):
                        for f in args.tmp.glob(f"{name}{rnd}*"):
                            f.unlink()
                c1 = cpu_seconds()
                secs, main_cpu, cpu = time.perf_counter() - t0, c1[0] - c0[0], c1[1] - c0[1]
                row: dict[str, Any] = {
                    "events": n,
                    "seconds": round(secs, 1),
                    "events_per_s": round(n / secs),
                    "cpu_seconds": round(cpu, 1),
                    "events_per_cpu_s": round(n / cpu),
                    "main_cpu_seconds": round(main_cpu, 1),
                    "events_per_main_cpu_s": round(n / main_cpu),
                    "load_before": round(before[0], 1),
                    "load_after": round(os.getloadavg()[0], 1),
                }
                if name == "bulk":
                    row["curve"] = curve(CURVE, args.curve_every)
                found.setdefault(f"{kind} {name}", []).append(row)
                print(f"round {rnd + 1} {kind:<10} {name:<7} {row}", flush=True)
    median = {
        k: {
            m: statistics.median(r[m] for r in rows)
            for m in ("seconds", "events_per_s", "events_per_cpu_s", "events_per_main_cpu_s")
        }
        for k, rows in found.items()
    }
    for k, v in median.items():
        print(f"{k:<20} {v}")
    (RESULTS / "bulk_load.json").write_text(
        json.dumps(
            {"jobs": shape.jobs, "events": synthetic.event_count(shape), "median": median, "raw": found}, indent=2
        )
    )


if __name__ == "__main__":
    main()
