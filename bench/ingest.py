"""Ingest benchmark: events per second into POST /api/v1/lineage (single) and /batch, over real HTTP.

    python bench/ingest.py [--quick] [--pg postgresql://user:pass@host:5432/postgres] [--rounds 3]
                           [--single-events 1200] [--batch-events 4000] [--batch 500]

Matrix: single posts and batches (``--batch`` events per request) × 1, 4 and 16 concurrent clients
× SQLite (always) and PostgreSQL (with ``--pg``: a fresh database is created on that server for
every round and dropped after). Each round starts a real ``headwater serve`` on a fresh store and
runs every configuration once, in an order rotated from round to round (interleaved); the figure
is the median over rounds.

Events (``spark_events.py``): what the OpenLineage Spark integration sends — START and COMPLETE
per job run, 50-column schemas on two inputs and one output, column lineage for all 50 output
columns, parent/processing_engine/spark_properties/jobType/sql/dataSource/symlinks/outputStatistics
facets, about 25 kB of JSON each. Each client sends its own Spark application's events in time
order (as a driver does). Bodies are serialized before the clock starts.

Durability stays on: a 2xx answer means the events are committed and synced (SQLite WAL +
synchronous=FULL, PostgreSQL default synchronous_commit). Two figures per configuration:

- ``ack``: events / seconds from the first request to the last 2xx (the ingest rate clients see);
- ``graph``: events / seconds from the first request until a graph read returns — the read waits
  until the background projector has derived every event, so this is the sustained rate at which
  events reach the lineage graph.

Plus p50/p99 request latency. Prints a table and writes bench/results/ingest.json.
``--quick`` (fewer events, 2 rounds) finishes in about 3 minutes on SQLite on a quiet 2-core machine.

``--bytes`` measures instead, in this process, the bytes on disk per event of a store fed ``--bytes-events``
Spark events (``--bytes-apps`` Spark applications, each running its 8 jobs again and again as daily runs
do: START and COMPLETE per run, posted in batches of 100), on SQLite and, with ``--pg``, PostgreSQL:
the log (``events``, ``event_warnings``, ``event_dictionaries``: table data, TOAST included), the derived
tables (the observation index and the graph tables) and the indexes of both, per table; measured after the
projector caught up and again after ``headwater db compact`` (when the code has it), median of
``--rounds`` rounds; writes bench/results/ingest-bytes.json. SQLite: allocated pages per b-tree (``dbstat``)
after a WAL checkpoint; PostgreSQL: ``pg_table_size``/``pg_indexes_size`` after ``VACUUM ANALYZE``. For a
before/after: ``PYTHONPATH=<other checkout>/src python bench/ingest.py --bytes`` and the same without,
alternately.

``--cpu`` measures instead, in this process and without HTTP, the CPU time per event of each step
of the write path on SQLite (parse + validate, event id + log row, log insert, projection in steps
of 200 and of 10 events), median of ``--rounds`` rounds, and writes bench/results/ingest-cpu.json
(about 1 minute). For an A/B against other code: ``PYTHONPATH=<other checkout>/src python
bench/ingest.py --cpu`` and the same without ``PYTHONPATH``, alternately.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import statistics
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _server import running_server
from spark_events import Pipeline

RESULTS = Path(__file__).resolve().parent / "results"
CLIENTS = (1, 4, 16)
MODES = ("single", "batch")


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def make_bodies(tag: str, clients: int, events: int, batch: int) -> tuple[list[list[bytes]], int]:
    """Per client, the request bodies it sends (its own Spark application's events, in time order); the event count."""
    per_client = max(2, events // clients)
    out: list[list[bytes]] = []
    total = 0
    for c in range(clients):
        evs = Pipeline(f"{tag}c{c}").events(per_client)
        total += len(evs)
        texts = [json.dumps(e, separators=(",", ":")).encode() for e in evs]
        if batch <= 1:
            out.append(texts)
        else:
            out.append([b"[" + b",".join(texts[i : i + batch]) + b"]" for i in range(0, len(texts), batch)])
    return out, total


def _post(conn: http.client.HTTPConnection, path: str, body: bytes) -> tuple[int, bytes]:
    conn.request("POST", path, body=body, headers={"Content-Type": "application/json"})
    response = conn.getresponse()
    return response.status, response.read()


def measure(url: str, bodies: list[list[bytes]], n: int, batch: int) -> dict[str, float]:
    """Send every client's bodies concurrently; then one graph read (it waits for the projector)."""
    parts = urlsplit(url)
    path = "/api/v1/lineage/batch" if batch > 1 else "/api/v1/lineage"
    latencies: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()
    start_gate = threading.Barrier(len(bodies) + 1)

    def client(mine: list[bytes]) -> None:
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=600)
        conn.connect()
        start_gate.wait()
        mine_lat: list[float] = []
        for body in mine:
            t0 = time.perf_counter()
            status, text = _post(conn, path, body)
            mine_lat.append(time.perf_counter() - t0)
            if status >= 300:
                with lock:
                    errors.append(f"{status}: {text[:300]!r}")
                break
        conn.close()
        with lock:
            latencies.extend(mine_lat)

    threads = [threading.Thread(target=client, args=(b,)) for b in bodies]
    for t in threads:
        t.start()
    start_gate.wait()
    t0 = time.perf_counter()
    for t in threads:
        t.join()
    acked = time.perf_counter() - t0
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=600)
    conn.request("GET", "/api/v1/graph/namespaces")  # waits until the graph has caught up with the log
    response = conn.getresponse()
    response.read()
    graph = time.perf_counter() - t0
    conn.close()
    if errors:
        raise RuntimeError(f"{len(errors)} requests failed, first: {errors[0]}")
    if response.status != 200:
        raise RuntimeError(f"graph read answered {response.status}")
    latencies.sort()
    return {
        "events": n,
        "ack_s": acked,
        "graph_s": graph,
        "ack": n / acked,
        "graph": n / graph,
        "p50_ms": latencies[len(latencies) // 2] * 1e3,
        "p99_ms": latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1e3,
    }


@contextmanager
def fresh_store(kind: str, pg: str | None, tmp: Path, name: str) -> Iterator[str]:
    """A new empty store: a SQLite file, or a PostgreSQL database created (and dropped) on ``pg``'s server."""
    if kind == "sqlite":
        yield f"sqlite:///{tmp / name}.db"
        return
    import psycopg

    assert pg is not None
    admin = pg.replace("postgresql+psycopg://", "postgresql://").replace("postgres://", "postgresql://")
    db = f"hw_bench_{name}_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{db}"')
    try:
        yield urlunsplit(urlsplit(admin)._replace(path=f"/{db}"))
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')


LOG_TABLES = ("events", "event_warnings", "event_dictionaries")


def store_bytes(url: str) -> dict[str, dict[str, int]]:
    """Bytes on disk of each table's data and of its indexes, by table: {table: {"data": n, "indexes": n}}."""
    import sqlalchemy as sa

    from headwater.store.engine import create_store_engine

    engine = create_store_engine(url)
    out: dict[str, dict[str, int]] = {}
    try:
        if engine.dialect.name == "sqlite":
            with engine.connect() as conn:
                schemas = [r[1] for r in conn.exec_driver_sql("PRAGMA database_list")]
                for schema in schemas:
                    conn.exec_driver_sql(f"PRAGMA {schema}.wal_checkpoint(TRUNCATE)")
                    owner = dict(conn.exec_driver_sql(f"SELECT name, tbl_name FROM {schema}.sqlite_master").all())
                    for name, size in conn.exec_driver_sql(
                        f"SELECT name, SUM(pgsize) FROM dbstat('{schema}') GROUP BY name"
                    ):
                        table = owner.get(name, name)
                        kind = "data" if table == name else "indexes"
                        out.setdefault(table, {"data": 0, "indexes": 0})[kind] += int(size)
        else:
            with engine.connect() as conn:
                conn.execution_options(isolation_level="AUTOCOMMIT").exec_driver_sql("VACUUM ANALYZE")
                rows = conn.execute(
                    sa.text(
                        "SELECT relname, pg_table_size(c.oid), pg_indexes_size(c.oid) FROM pg_class c "
                        "JOIN pg_namespace n ON n.oid = c.relnamespace "
                        "WHERE c.relkind = 'r' AND n.nspname = current_schema()"
                    )
                )
                for name, data, indexes in rows:
                    out[str(name)] = {"data": int(data), "indexes": int(indexes)}
    finally:
        engine.dispose()
    return out


def _bytes_summary(sizes: dict[str, dict[str, int]], events: int) -> dict[str, float]:
    """Per event: the log's data, the derived tables' data, every index; and the total."""
    from headwater.store.schema import DERIVED_TABLES

    derived = {t.name for t in DERIVED_TABLES} | {
        "observations",
        "derived_parts",
        "fields",
    }  # parts and column edges' field dictionary (newer code)
    log = sum(v["data"] for k, v in sizes.items() if k in LOG_TABLES)
    graph = sum(v["data"] for k, v in sizes.items() if k in derived)
    indexes = sum(v["indexes"] for k, v in sizes.items() if k in derived or k in LOG_TABLES)
    return {
        "log": log / events,
        "derived": graph / events,
        "indexes": indexes / events,
        "total": (log + graph + indexes) / events,
    }


def observations_what_if(url: str) -> dict[str, int]:
    """The observation index's ``data`` texts as stored (with newer code: without the parts they name), their
    bytes, and what zstd (level 3, no dictionary) would make of each."""
    import sqlalchemy as sa
    import zstandard

    from headwater.store.engine import create_store_engine
    from headwater.store.schema import observations

    engine = create_store_engine(url)
    text = packed = 0
    compressor = zstandard.ZstdCompressor(level=3)
    try:
        with engine.connect() as conn:
            for (data,) in conn.execute(sa.select(observations.c.data)):
                raw = data.encode()
                text += len(raw)
                packed += len(compressor.compress(raw))
    finally:
        engine.dispose()
    return {"text": text, "zstd": packed}


def bytes_round(url: str, events: int, apps: int) -> dict[str, Any]:
    """Feed a fresh store ``events`` Spark events; its bytes per event as ingested and after compaction."""
    from headwater.store import IncomingEvent, Store

    per_app = max(2, events // apps)
    payloads = [e for a in range(apps) for e in Pipeline(f"app{a}").events(per_app)]
    texts = [json.dumps(e, separators=(",", ":")) for e in payloads]
    incoming = [IncomingEvent(e, t) for e, t in zip(payloads, texts, strict=True)]
    order = sorted(range(len(incoming)), key=lambda i: (i % per_app, i))  # the applications' runs interleave
    sent = [incoming[i] for i in order]
    with Store.open(url) as store:
        for i in range(0, len(sent), 100):
            store.append(sent[i : i + 100])
        assert store.caught_up(600), "the projector did not catch up"
        trainer = getattr(store, "_trainer", None)  # bench only: wait for a dictionary training under way
        if trainer is not None:
            trainer.join(120)
    result: dict[str, Any] = {"events": len(sent), "text_bytes": sum(len(t.encode()) for t in texts)}
    result["ingested"] = store_bytes(url)
    result["observations_data"] = observations_what_if(url)
    try:
        from headwater.store import codec
    except ImportError:  # code from before the log was compressed
        return result
    try:
        from headwater.store import parts
    except ImportError:  # code from before the derived texts were parts
        parts = None  # type: ignore[assignment]
    with Store.open(url) as store:  # what `headwater db compact --vacuum` does
        codec.train(store.engine)
        codec.compact(store.engine)
        if parts is not None:
            parts.compact(store.engine)
        codec.vacuum(store.engine)
    if url.startswith("postgresql"):  # the steady state's size: VACUUM FULL gives the table's freed pages back
        import sqlalchemy as sa  # once the store is closed: an open reader's snapshot would keep the old versions

        engine = sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
        try:
            with engine.connect() as conn:
                auto = conn.execution_options(isolation_level="AUTOCOMMIT")
                auto.exec_driver_sql("VACUUM FULL events")
                if parts is not None:
                    auto.exec_driver_sql("VACUUM FULL derived_parts")
        finally:
            engine.dispose()
    result["compacted"] = store_bytes(url)
    return result


def bytes_main(args: argparse.Namespace) -> None:
    stores = ["sqlite"] + (["postgresql"] if args.pg else [])
    runs: dict[str, list[dict[str, Any]]] = {s: [] for s in stores}
    loads = [load()]
    with tempfile.TemporaryDirectory() as tmp_dir:
        for rnd in range(args.rounds):
            for kind in stores if rnd % 2 == 0 else reversed(stores):
                with fresh_store(kind, args.pg, Path(tmp_dir), f"b{rnd}_{kind}") as url:
                    found = bytes_round(url, args.bytes_events, args.bytes_apps)
                runs[kind].append(found)
                line = {s: _bytes_summary(found[s], found["events"]) for s in ("ingested", "compacted") if s in found}
                print(
                    f"round {rnd + 1}/{args.rounds} {kind:<10} "
                    + "; ".join(f"{s}: " + ", ".join(f"{k} {v:,.0f}" for k, v in f.items()) for s, f in line.items())
                    + f" B/event (load {load()})",
                    flush=True,
                )
            loads.append(load())
    median: dict[str, dict[str, dict[str, float]]] = {}
    for kind, found in runs.items():
        for stage in ("ingested", "compacted"):
            per = [_bytes_summary(f[stage], f["events"]) for f in found if stage in f]
            if per:
                median.setdefault(kind, {})[stage] = {k: round(statistics.median(p[k] for p in per), 1) for k in per[0]}
    text = statistics.median(f["text_bytes"] / f["events"] for fs in runs.values() for f in fs)
    print()
    print(f"event text ≈ {text:,.0f} B; median of {args.rounds} rounds; load average seen: {', '.join(loads)}")
    print(f"{'store':<11}{'stage':<11}{'log':>10}{'derived':>10}{'indexes':>10}{'total':>10}  bytes/event")
    for kind, stages in median.items():
        for stage, v in stages.items():
            print(
                f"{kind:<11}{stage:<11}{v['log']:>10,.0f}{v['derived']:>10,.0f}{v['indexes']:>10,.0f}{v['total']:>10,.0f}"
            )
    largest = {
        kind: sorted(
            ((t, v["data"] + v["indexes"]) for t, v in runs[kind][-1]["ingested"].items()), key=lambda x: -x[1]
        )[:6]
        for kind in runs
    }
    for kind, found in runs.items():
        what = found[-1]["observations_data"]
        print(
            f"{kind} observations.data: {what['text'] / found[-1]['events']:,.0f} B/event of text, "
            f"{what['zstd'] / found[-1]['events']:,.0f} B/event if each were zstd-compressed"
        )
    for (
        kind,
        found,
    ) in runs.items():  # column lineage's own bytes: its edges, and (migration 0012) their field dictionary
        sizes, events = found[-1]["ingested"], found[-1]["events"]
        print(
            f"{kind} column lineage (data + indexes, B/event): "
            + ", ".join(
                f"{t} {(sizes[t]['data'] + sizes[t]['indexes']) / events:,.0f}"
                for t in ("column_edges", "fields")
                if t in sizes
            )
        )
    for kind, tables in largest.items():
        events = runs[kind][-1]["events"]
        print(
            f"{kind} largest tables (data + indexes, B/event): "
            + ", ".join(f"{t} {b / events:,.0f}" for t, b in tables)
        )
    out = args.out if args.out != RESULTS / "ingest.json" else RESULTS / "ingest-bytes.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(
        json.dumps(
            {"load_average": loads, "event_text_bytes": text, "rounds": args.rounds, "median": median, "raw": runs},
            indent=2,
        )
    )
    print(f"wrote {out}")


def cpu_per_event(events: int) -> dict[str, float]:
    """CPU milliseconds per event of each write-path step, in this process (one round)."""
    import gc

    from headwater.ingest import parse_batch, parse_event
    from headwater.spec import EventValidator
    from headwater.store import IncomingEvent, eventlog, migrate, projector
    from headwater.store.engine import create_store_engine

    gc.freeze()
    gc.set_threshold(50_000, 50, 100)  # as `headwater serve` does
    evs = [e for c in range(4) for e in Pipeline(f"cpu{c}").events(events // 4)]
    texts = [json.dumps(e, separators=(",", ":")) for e in evs]
    validator = EventValidator()
    clock = time.process_time
    out: dict[str, float] = {}

    def timed(name: str, fn: Any) -> Any:
        t0 = clock()
        result = fn()
        out[name] = (clock() - t0) / len(evs) * 1e3
        return result

    batches = ["[" + ",".join(texts[i : i + 100]) + "]" for i in range(0, len(texts), 100)]
    parsed = timed(
        "parse + validate, batches of 100", lambda: [p for b in batches for p in parse_batch(b, validator, 1000)]
    )
    timed("parse + validate, single events", lambda: [parse_event(t, validator) for t in texts])
    prepared = timed("event id + log row", lambda: eventlog.prepare([IncomingEvent(p.payload, p.raw) for p in parsed]))
    try:  # where the projection stands (newer code: its own module)
        from headwater.store.watermark import pending_events, projected_seq
    except ImportError:
        pending_events, projected_seq = projector.pending_events, projector.projected_seq
    try:  # the memo the background projector keeps between steps (newer code)
        from headwater.store.projector import ProjectionMemo

        make_memo: Any = ProjectionMemo
    except ImportError:
        make_memo = None
    with tempfile.TemporaryDirectory() as tmp:
        for step in (200, 10):
            engine = create_store_engine(f"sqlite:///{tmp}/cpu{step}.db")
            migrate.upgrade(engine)

            def insert(engine: Any = engine) -> None:
                for i in range(0, len(prepared), 100):
                    with engine.connect().execution_options(hw_write="log") as conn, conn.begin():
                        eventlog.insert_events(conn, prepared[i : i + 100], 1)

            timed("log insert + commit, 100 per transaction" if step == 200 else "(log insert, again)", insert)
            memo = make_memo() if make_memo is not None else None

            def project(engine: Any = engine, step: int = step, memo: Any = memo) -> None:
                while True:
                    with engine.connect().execution_options(hw_write=True) as conn, conn.begin():
                        rows = pending_events(conn, projected_seq(conn), step)
                        if not rows:
                            return
                        if memo is not None:
                            projector.project_rows(conn, rows, memo)
                        else:
                            projector.project_rows(conn, rows)

            timed(f"projection, steps of {step} events", project)
            engine.dispose()
    out.pop("(log insert, again)")
    return out


def cpu_main(args: argparse.Namespace) -> None:
    began = time.monotonic()
    loads = [load()]
    runs = []
    for rnd in range(args.rounds):
        runs.append(cpu_per_event(args.cpu_events))
        loads.append(load())
        print(f"round {rnd + 1}/{args.rounds}: " + ", ".join(f"{k} {v:.3f}" for k, v in runs[-1].items()), flush=True)
    median = {k: round(statistics.median(r[k] for r in runs), 3) for k in runs[0]}
    import headwater

    print(
        f"\nCPU ms per ~25 kB Spark event ({args.cpu_events} events, median of {args.rounds} rounds; "
        f"code: {Path(headwater.__file__).parent}; load average seen: {', '.join(loads)})"
    )
    for k, v in median.items():
        print(f"  {k:<44}{v:>8.3f}")
    out = args.out if args.out != RESULTS / "ingest.json" else RESULTS / "ingest-cpu.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(
        json.dumps(
            {
                "machine": {
                    "cpus": os.cpu_count(),
                    "python": platform.python_version(),
                    "platform": platform.platform(),
                },
                "code": str(Path(headwater.__file__).parent),
                "load_average": loads,
                "seconds": round(time.monotonic() - began, 1),
                "events": args.cpu_events,
                "median_ms_per_event": median,
                "rounds": runs,
            },
            indent=2,
        )
    )
    print(f"wrote {out}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="fewer events and 2 rounds (about 3 minutes on SQLite)")
    ap.add_argument("--single-events", type=int, default=1200, help="events per single-post measurement")
    ap.add_argument("--batch-events", type=int, default=4000, help="events per batch measurement")
    ap.add_argument("--batch", type=int, default=500, help="events per batch request")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds (median reported)")
    ap.add_argument("--pg", help="PostgreSQL server URL (a fresh database is created on it per round)")
    ap.add_argument("--out", type=Path, default=RESULTS / "ingest.json")
    ap.add_argument("--cpu", action="store_true", help="CPU time per event of each write-path step, in process")
    ap.add_argument("--cpu-events", type=int, default=2000, help="events per --cpu round")
    ap.add_argument("--bytes", action="store_true", help="bytes on disk per event (log, derived, indexes), in process")
    ap.add_argument("--bytes-events", type=int, default=4000, help="events per --bytes round")
    ap.add_argument("--bytes-apps", type=int, default=4, help="Spark applications the --bytes events come from")
    args = ap.parse_args()
    if args.cpu:
        cpu_main(args)
        return
    if args.bytes:
        bytes_main(args)
        return
    if args.quick:
        args.single_events, args.batch_events, args.rounds = 300, 1000, 2

    stores = ["sqlite"] + (["postgresql"] if args.pg else [])
    configs = [(mode, c) for mode in MODES for c in CLIENTS]
    raw: dict[str, dict[str, list[dict[str, float]]]] = {s: {f"{m}/{c}": [] for m, c in configs} for s in stores}
    loads = [load()]
    began = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        for rnd in range(args.rounds):
            for store in stores if rnd % 2 == 0 else reversed(stores):
                with fresh_store(store, args.pg, tmp, f"r{rnd}_{store}") as db, running_server(db) as url:
                    order = configs[rnd % len(configs) :] + configs[: rnd % len(configs)]
                    for mode, clients in order:
                        batch = args.batch if mode == "batch" else 1
                        events = args.batch_events if mode == "batch" else args.single_events
                        bodies, n = make_bodies(f"r{rnd}{mode[0]}{clients}", clients, events, batch)
                        figures = measure(url, bodies, n, batch)
                        raw[store][f"{mode}/{clients}"].append(figures)
                        print(
                            f"round {rnd + 1}/{args.rounds} {store:<10} {mode:<6} {clients:>2} clients: "
                            f"ack {figures['ack']:7.0f} ev/s, graph {figures['graph']:7.0f} ev/s "
                            f"(load {load()})",
                            flush=True,
                        )
            loads.append(load())

    table = {
        s: {
            k: {f: round(statistics.median(r[f] for r in runs), 1) for f in ("ack", "graph", "p50_ms", "p99_ms")}
            for k, runs in rows.items()
        }
        for s, rows in raw.items()
    }
    size = statistics.mean(len(json.dumps(e)) for e in Pipeline("size").events(20))
    print()
    print(
        f"event ≈ {size / 1024:.1f} kB; batch = {args.batch} events; median of {args.rounds} interleaved rounds; "
        f"load average seen: {', '.join(loads)}"
    )
    print(f"{'store':<11}{'mode':<8}{'clients':>7}{'ack ev/s':>10}{'graph ev/s':>12}{'p50 ms':>9}{'p99 ms':>9}")
    for s, rows in table.items():
        for k, v in rows.items():
            mode, clients = k.split("/")
            print(
                f"{s:<11}{mode:<8}{clients:>7}{v['ack']:>10.0f}{v['graph']:>12.0f}{v['p50_ms']:>9.1f}{v['p99_ms']:>9.1f}"
            )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(
        json.dumps(
            {
                "machine": {
                    "cpus": os.cpu_count(),
                    "python": platform.python_version(),
                    "platform": platform.platform(),
                },
                "load_average": loads,
                "seconds": round(time.monotonic() - began, 1),
                "event_bytes": size,
                "batch": args.batch,
                "rounds": args.rounds,
                "single_events": args.single_events,
                "batch_events": args.batch_events,
                "median": table,
                "raw": raw,
            },
            indent=2,
        )
    )
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
