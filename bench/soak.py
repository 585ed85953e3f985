"""Soak: a mixed load for a long time against a real ``headwater serve``, minute by minute.

    python bench/soak.py --db sqlite --minutes 30
    python bench/soak.py --db postgresql --pg postgresql://headwater:headwater@127.0.0.1:5432/headwater --minutes 30

The load, all at once, paced (a steady load, not a saturation test):

- ``--writers`` producers, each one Spark application (bench/spark_events.py: ~25 kB COMPLETE events with
  50-column schemas and column lineage), alternately posting a batch of ``--batch`` job runs
  (``/api/v1/lineage/batch``) and one run as two single posts (``/api/v1/lineage``), ``--rate`` runs/s each;
- ``--readers`` readers, one request every ``--read-every`` seconds each, in turn: the lineage graph of a
  written table, its column lineage, a search, the impact of a column;
- the UI's home page polling every 5 s: ``/api/v1/graph/recent``, ``/api/v1/graph/namespaces``,
  ``/api/v1/status``.

Every 10 s it samples the server process: RSS (all, and its anonymous part: the heap), the parse worker's
RSS, open file descriptors, database connections (PostgreSQL: ``pg_stat_activity`` rows of the server;
SQLite: the pool's checked-out connections from ``/metrics``), projection lag, and the machine's load
average. Per minute it reports p50/p99 latency per kind of request and errors (any answer but 2xx, or no
answer). Writes bench/results/soak_<db>.json; the verdict checks the issue's targets: no error, RSS growth
< 5 % after the first 5 minutes, p99 flat (last 5 minutes' median p99 within 1.5x of minutes 5-10's).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _server import free_port
from ingest import fresh_store
from spark_events import Pipeline

RESULTS = Path(__file__).resolve().parent / "results"


class Recorder:
    """Latencies and errors per (minute, kind), from every thread."""

    def __init__(self, start: float) -> None:
        self.start = start
        self.lock = threading.Lock()
        self.latencies: dict[tuple[int, str], list[float]] = defaultdict(list)
        self.errors: dict[tuple[int, str], int] = defaultdict(int)
        self.error_samples: list[str] = []

    def timed(self, client: httpx.Client, kind: str, method: str, url: str, **kwargs: Any) -> httpx.Response | None:
        began = time.monotonic()
        try:
            answer = client.request(method, url, **kwargs)
        except httpx.HTTPError as exc:
            self._error(began, kind, f"{kind}: {type(exc).__name__}: {exc}")
            return None
        took = time.monotonic() - began
        minute = int((began - self.start) // 60)
        with self.lock:
            self.latencies[(minute, kind)].append(took)
        if answer.status_code >= 300:
            self._error(began, kind, f"{kind}: {answer.status_code} {answer.text[:300]}")
        return answer

    def _error(self, began: float, kind: str, text: str) -> None:
        with self.lock:
            self.errors[(int((began - self.start) // 60), kind)] += 1
            if len(self.error_samples) < 20:
                self.error_samples.append(text)


def writer(k: int, url: str, rec: Recorder, stop: threading.Event, rate: float, batch: int, tables: list[str]) -> None:
    pipeline = Pipeline(f"soak{k}", jobs=8, seed=k)
    with httpx.Client(timeout=120) as client:
        turn = 0
        while not stop.is_set():
            began = time.monotonic()
            if turn % 2 == 0:
                events = [e for _ in range(batch) for e in pipeline.run()]
                rec.timed(client, "ingest_batch", "POST", f"{url}/api/v1/lineage/batch", json=events)
                runs = batch
            else:
                for event in pipeline.run():
                    rec.timed(client, "ingest_single", "POST", f"{url}/api/v1/lineage", json=event)
                runs = 1
            for event in events if turn % 2 == 0 else []:
                for output in event.get("outputs", []):
                    name = f"dataset:{output['namespace']}:{output['name']}"
                    if name not in tables and len(tables) < 200:
                        tables.append(name)
            turn += 1
            stop.wait(max(0.0, runs / rate - (time.monotonic() - began)))


def reader(k: int, url: str, rec: Recorder, stop: threading.Event, every: float, tables: list[str]) -> None:
    rng = random.Random(k)
    g = f"{url}/api/v1/graph"
    with httpx.Client(timeout=120) as client:
        turn = 0
        while not stop.is_set():
            began = time.monotonic()
            if tables:
                table = rng.choice(tables)
                kind = ("lineage", "column_lineage", "search", "impact")[turn % 4]
                if kind == "lineage":
                    rec.timed(client, kind, "GET", f"{g}/lineage", params={"nodeId": table, "depth": 3})
                elif kind == "column_lineage":
                    rec.timed(client, kind, "GET", f"{g}/column-lineage", params={"nodeId": table})
                elif kind == "search":
                    rec.timed(client, kind, "GET", f"{g}/search", params={"q": f"table_0{rng.randrange(8)}"})
                else:
                    column = "datasetField:" + table.removeprefix("dataset:") + ":o_01"
                    rec.timed(client, kind, "GET", f"{g}/impact", params={"nodeId": column})
                turn += 1
            stop.wait(max(0.0, every - (time.monotonic() - began)))


def ui_poller(url: str, rec: Recorder, stop: threading.Event) -> None:
    with httpx.Client(timeout=120) as client:
        while not stop.is_set():
            began = time.monotonic()
            rec.timed(client, "ui_poll", "GET", f"{url}/api/v1/graph/recent", params={"limit": 20})
            rec.timed(client, "ui_poll", "GET", f"{url}/api/v1/graph/namespaces")
            rec.timed(client, "ui_poll", "GET", f"{url}/api/v1/status")
            stop.wait(max(0.0, 5.0 - (time.monotonic() - began)))


def _rss_kb(pid: int, field: str = "VmRSS") -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        children = task / "children"
        if children.exists():
            found += [int(c) for c in children.read_text().split()]
    return found


def _metric(text: str, name: str) -> float | None:
    for line in text.splitlines():
        if line.startswith((name + " ", name + "{")):
            return float(line.rsplit(" ", 1)[1])
    return None


def sampler(pid: int, url: str, db_url: str, start: float, stop: threading.Event, out: list[dict[str, Any]]) -> None:
    engine = None
    if db_url.startswith("postgresql"):
        import sqlalchemy as sa

        engine = sa.create_engine(db_url.replace("postgresql://", "postgresql+psycopg://", 1))
    with httpx.Client(timeout=60) as client:
        while not stop.is_set():
            try:
                metrics = client.get(f"{url}/metrics").text
            except httpx.HTTPError:
                metrics = ""
            connections: float | None
            if engine is not None:
                import sqlalchemy as sa

                with engine.connect() as conn:
                    connections = conn.scalar(
                        sa.text(
                            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                            "AND application_name LIKE 'headwater-%'"
                        )
                    )
            else:
                line = [
                    ln
                    for ln in metrics.splitlines()
                    if ln.startswith("headwater_db_connections{") and "checked_out" in ln
                ]
                connections = float(line[0].rsplit(" ", 1)[1]) if line else None
            out.append(
                {
                    "t": round(time.monotonic() - start, 1),
                    "rss_mb": round(_rss_kb(pid) / 1024, 1),
                    # the heap's part of it (RssFile is the mapped code and libraries: constant)
                    "rss_anon_mb": round(_rss_kb(pid, "RssAnon") / 1024, 1),
                    "workers_rss_mb": round(sum(_rss_kb(c) for c in _children(pid)) / 1024, 1),
                    "fds": len(os.listdir(f"/proc/{pid}/fd")),
                    "connections": connections,
                    "lag_events": _metric(metrics, "headwater_projection_lag_events"),
                    "log_position": _metric(metrics, "headwater_log_position"),
                    "load1": os.getloadavg()[0],  # the machine's, for reading the latencies
                }
            )
            stop.wait(10)
    if engine is not None:
        engine.dispose()


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] * 1e3


def report(rec: Recorder, samples: list[dict[str, Any]], minutes: int) -> dict[str, Any]:
    kinds = sorted({k for _, k in rec.latencies})
    per_minute = []
    for m in range(minutes):
        row: dict[str, Any] = {"minute": m + 1, "errors": sum(v for (mm, _), v in rec.errors.items() if mm == m)}
        for kind in kinds:
            values = rec.latencies.get((m, kind), [])
            if values:
                row[kind] = {
                    "n": len(values),
                    "p50_ms": round(_pct(values, 0.5), 1),
                    "p99_ms": round(_pct(values, 0.99), 1),
                }
        in_minute = [s for s in samples if m * 60 <= s["t"] < (m + 1) * 60]
        if in_minute:
            row["rss_mb"] = in_minute[-1]["rss_mb"]
            row["fds"] = in_minute[-1]["fds"]
            row["connections"] = in_minute[-1]["connections"]
            row["lag_events"] = in_minute[-1]["lag_events"]
            row["load1"] = in_minute[-1]["load1"]
        per_minute.append(row)
    after5 = [s["rss_mb"] for s in samples if s["t"] >= 300]
    growth = (after5[-1] - after5[0]) / after5[0] * 100 if len(after5) >= 2 else None
    flat: dict[str, Any] = {}
    for kind in kinds:
        p99 = [r[kind]["p99_ms"] for r in per_minute if kind in r]
        if len(p99) >= 10:
            early, late = statistics.median(p99[5:10]), statistics.median(p99[-5:])
            flat[kind] = {"p99_min6_10_ms": early, "p99_last5_ms": late, "ratio": round(late / early, 2)}
    return {
        "per_minute": per_minute,
        "errors": sum(rec.errors.values()),
        "error_samples": rec.error_samples,
        "rss_growth_after_5min_pct": None if growth is None else round(growth, 2),
        "p99_flat": flat,
        "requests": sum(len(v) for v in rec.latencies.values()),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument("--pg", default=os.environ.get("HEADWATER_TEST_PG_URL"))
    parser.add_argument("--minutes", type=int, default=30)
    parser.add_argument("--writers", type=int, default=3)
    parser.add_argument("--rate", type=float, default=1.0, help="job runs (2 events) per second per writer")
    parser.add_argument("--batch", type=int, default=5, help="job runs per batch post")
    parser.add_argument("--readers", type=int, default=2)
    parser.add_argument("--read-every", type=float, default=1.0)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp, fresh_store(args.db, args.pg, Path(tmp), "soak") as db_url:
        port = free_port()
        log = Path(tmp) / "serve.log"
        with log.open("wb") as out:
            proc = subprocess.Popen(
                [sys.executable, "-m", "headwater", "serve", "--db", db_url, "--port", str(port)],
                stdout=out,
                stderr=subprocess.STDOUT,
                env={**os.environ, "HEADWATER_DATA_DIR": str(Path(tmp) / "data")},
            )
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 180  # a busy machine starts slowly
            while True:
                try:
                    if httpx.get(f"{url}/readyz", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
                time.sleep(0.2)
            start = time.monotonic()
            rec = Recorder(start)
            stop = threading.Event()
            tables: list[str] = []
            samples: list[dict[str, Any]] = []
            threads = [
                threading.Thread(target=writer, args=(k, url, rec, stop, args.rate, args.batch, tables))
                for k in range(args.writers)
            ]
            threads += [
                threading.Thread(target=reader, args=(k, url, rec, stop, args.read_every, tables))
                for k in range(args.readers)
            ]
            threads.append(threading.Thread(target=ui_poller, args=(url, rec, stop)))
            threads.append(threading.Thread(target=sampler, args=(proc.pid, url, db_url, start, stop, samples)))
            for t in threads:
                t.start()
            load_before = os.getloadavg()
            try:
                for m in range(args.minutes):
                    time.sleep(
                        60
                    )  # not stop.wait: a Ctrl-C inside it can leave the event's lock held, and stop.set() below hangs
                    print(f"minute {m + 1}: {samples[-1] if samples else ''}", flush=True)
            finally:
                stop.set()
                for t in threads:
                    t.join(300)
            result = report(rec, samples, args.minutes)
            result.update(
                {
                    "db": args.db,
                    "minutes": args.minutes,
                    "writers": args.writers,
                    "rate_runs_per_s_per_writer": args.rate,
                    "batch": args.batch,
                    "readers": args.readers,
                    "loadavg_start": load_before,
                    "loadavg_end": os.getloadavg(),
                    "cpus": os.cpu_count(),
                    "samples": samples,
                }
            )
        finally:
            proc.terminate()
            proc.wait(60)
    RESULTS.mkdir(exist_ok=True)
    target = RESULTS / f"soak_{args.db}.json"
    target.write_text(json.dumps(result, indent=1))
    for row in result["per_minute"]:
        cells = [
            f"min {row['minute']:>2}",
            f"rss {row.get('rss_mb')} MB",
            f"fds {row.get('fds')}",
            f"conns {row.get('connections')}",
            f"load {row.get('load1')}",
        ]
        cells += [f"{k} {v['p50_ms']}/{v['p99_ms']} ms" for k, v in row.items() if isinstance(v, dict)]
        cells.append(f"errors {row['errors']}")
        print("  ".join(cells))
    print(
        f"errors {result['errors']}; RSS growth after 5 min {result['rss_growth_after_5min_pct']} %; "
        f"p99 flat {result['p99_flat']}; load {result['loadavg_start']} -> {result['loadavg_end']}; wrote {target}"
    )


if __name__ == "__main__":
    main()
