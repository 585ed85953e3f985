"""Crawler benchmark: a 10,000-file, 200-table lake and a 2,000-table database crawled cold and again unchanged.

    python bench/crawl.py [--keep DIR] [--pg postgresql://user:pass@host:5432/postgres] [--no-store]
                          [--files 10000] [--tables 200] [--db-tables 2000]

The lake is generated deterministically (fixed seed; generation time is not a figure) into a temporary folder,
or into ``--keep DIR`` (reused when it already holds a lake of the same shape): ``--tables`` table folders, a
fifth each CSV, JSON lines, Parquet, ORC and Avro, ``--files`` small data files spread evenly (20 rows each), in
four layouts: flat, ``dt=YYYY-MM-DD/``, ``year=2026/month=MM/`` and ``region=xx/dt=YYYY-MM-DD/``; every seventh
table gains a nullable column in its later files (schema drift to merge) and partitioned tables carry ``_SUCCESS``
files (ignored). The database is a SQLite file with ``--db-tables`` tables of 4 to 15 columns (primary keys,
NOT NULL, comments are not a SQLite feature), and the same tables in a fresh PostgreSQL database with ``--pg``
(created on that server and dropped after).

Each crawl runs in this process through ``headwater.crawl.crawl`` as ``headwater crawl`` runs it (default limits,
the SQL engine passed for views), timed with ``time.perf_counter`` around the call, with two sinks:

- ``print``: a :class:`~headwater.client.PrintClient` writing to /dev/null — the crawler's own cost (listing,
  reading footers and samples, inference, state, building and serializing the events);
- ``store``: an embedded SQLite store (``headwater crawl --store``): the crawl including validation and the durable
  append (``crawl_s``), then the wait until the background projector has derived the graph (``graph_s``);
  ``--no-store`` skips it.

Each sink crawls cold (no state) and then again with nothing changed (the state of the first crawl: every file
skipped by size and mtime). One run, no repetitions: the machine's load average is recorded with every figure.
Targets (the crawler issue): lake cold <= 60 s and unchanged <= 10 s; database <= 30 s. Writes
bench/results/crawl.json.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import shutil
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import fastavro
import pyarrow as pa
import pyarrow.orc as orc
import pyarrow.parquet as pq
import sqlalchemy as sa

from headwater.client import PrintClient, StoreClient
from headwater.crawl import crawl
from headwater.store import Store

FORMATS = ("csv", "json", "parquet", "orc", "avro")
EXT = {"csv": "csv", "json": "jsonl", "parquet": "parquet", "orc": "orc", "avro": "avro"}
LAYOUTS = ("flat", "dt", "year_month", "region_dt")
KINDS = ("bigint", "double", "string", "date", "boolean", "timestamp")
ROWS = 20
TARGETS = {"lake_cold_s": 60.0, "lake_unchanged_s": 10.0, "database_s": 30.0}


# ---------------------------------------------------------------------------------------------- the lake


def _columns(t: int, rnd: random.Random) -> list[tuple[str, str]]:
    return [("id", "bigint")] + [(f"c{t}_{j}", rnd.choice(KINDS)) for j in range(3 + t % 12)]


def _rows(columns: list[tuple[str, str]], rnd: random.Random) -> list[dict[str, Any]]:
    base = datetime(2026, 11, 1, tzinfo=UTC)
    out = []
    for r in range(ROWS):
        row: dict[str, Any] = {}
        for name, kind in columns:
            if name == "id":
                row[name] = r
            elif kind == "bigint":
                row[name] = rnd.randint(-(10**6), 10**6)
            elif kind == "double":
                row[name] = round(rnd.uniform(-1000, 1000), 3)
            elif kind == "string":
                row[name] = rnd.choice(["alpha", "beta", "gamma", "delta"]) + str(rnd.randint(0, 99))
            elif kind == "date":
                row[name] = date(2026, 1, 1) + timedelta(days=rnd.randint(0, 300))
            elif kind == "boolean":
                row[name] = rnd.random() < 0.5
            else:
                row[name] = base + timedelta(seconds=rnd.randint(0, 10**6))
        out.append(row)
    return out


_ARROW = {
    "bigint": pa.int64(),
    "double": pa.float64(),
    "string": pa.string(),
    "date": pa.date32(),
    "boolean": pa.bool_(),
    "timestamp": pa.timestamp("us", tz="UTC"),
}
_AVRO = {
    "bigint": "long",
    "double": "double",
    "string": "string",
    "boolean": "boolean",
    "date": {"type": "int", "logicalType": "date"},
    "timestamp": {"type": "long", "logicalType": "timestamp-micros"},
}


def _encode(fmt: str, columns: list[tuple[str, str]], rows: list[dict[str, Any]]) -> bytes:
    if fmt == "csv":
        lines = [",".join(n for n, _k in columns)]
        for row in rows:
            lines.append(
                ",".join(
                    ""
                    if row[n] is None
                    else (
                        str(row[n]).lower()
                        if k == "boolean"
                        else row[n].isoformat()
                        if k in ("date", "timestamp")
                        else str(row[n])
                    )
                    for n, k in columns
                )
            )
        return ("\n".join(lines) + "\n").encode()
    if fmt == "json":
        return "".join(json.dumps(r, default=lambda v: v.isoformat()) + "\n" for r in rows).encode()
    if fmt in ("parquet", "orc"):
        table = pa.table({n: pa.array([r[n] for r in rows], _ARROW[k]) for n, k in columns})
        out = io.BytesIO()
        if fmt == "parquet":
            pq.write_table(table, out)
        else:
            orc.write_table(table, out)
        return out.getvalue()
    schema = {
        "type": "record",
        "name": "Row",
        "fields": [{"name": n, "type": ["null", _AVRO[k]] if n.startswith("extra") else _AVRO[k]} for n, k in columns],
    }
    out = io.BytesIO()
    fastavro.writer(out, fastavro.parse_schema(schema), rows)
    return out.getvalue()


def _partition(layout: str, i: int) -> str:
    day = f"2026-11-{1 + i % 25:02d}"
    if layout == "flat":
        return ""
    if layout == "dt":
        return f"dt={day}/"
    if layout == "year_month":
        return f"year=2026/month={1 + i % 12:02d}/"
    return f"region={('eu', 'us', 'ap')[i % 3]}/dt={day}/"


def write_lake(root: Path, files: int, tables: int, seed: int = 20261124) -> int:
    """The lake (see the module docstring); answers the number of data files written."""
    rnd = random.Random(seed)
    written = 0
    per_table = [files // tables + (1 if t < files % tables else 0) for t in range(tables)]
    for t in range(tables):
        fmt, layout = FORMATS[t % len(FORMATS)], LAYOUTS[(t // len(FORMATS)) % len(LAYOUTS)]
        folder = root / f"t{t:03d}_{fmt}"
        columns = _columns(t, rnd)
        body = _encode(fmt, columns, _rows(columns, rnd))
        drift = None
        if t % 7 == 0:
            wider = [*columns, ("extra", "string")]
            rows = _rows(columns, rnd)
            for r in rows:
                r["extra"] = None if r["id"] % 3 == 0 else "x"
            drift = _encode(fmt, wider, rows)
        for i in range(per_table[t]):
            target = folder / _partition(layout, i) / f"part-{i:05d}.{EXT[fmt]}"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(drift if drift is not None and i >= per_table[t] // 2 else body)
            if layout != "flat" and not (target.parent / "_SUCCESS").exists():
                (target.parent / "_SUCCESS").write_bytes(b"")
            written += 1
    return written


# ---------------------------------------------------------------------------------------------- the database


def _ddl(t: int, rnd: random.Random, dialect: str) -> str:
    types = {
        "sqlite": ["INTEGER", "REAL", "TEXT", "DATE", "BOOLEAN", "TIMESTAMP", "NUMERIC(12,2)", "VARCHAR(40)"],
        "postgresql": [
            "integer",
            "double precision",
            "text",
            "date",
            "boolean",
            "timestamp",
            "numeric(12,2)",
            "varchar(40)",
        ],
    }[dialect]
    cols = [f"c{j} {rnd.choice(types)}{' NOT NULL' if rnd.random() < 0.3 else ''}" for j in range(3 + t % 13)]
    return f"CREATE TABLE tab_{t:04d} (id INTEGER PRIMARY KEY, {', '.join(cols)})"


def write_database(url: str, tables: int, seed: int = 2026) -> None:
    rnd = random.Random(seed)
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        for t in range(tables):
            conn.exec_driver_sql(_ddl(t, rnd, engine.dialect.name))
    engine.dispose()


# ---------------------------------------------------------------------------------------------- measuring


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def measure(
    label: str, source: str, sink: str, work: Path, expect_tables: int, expect_files: int | None = None
) -> dict[str, Any]:
    """Crawl ``source`` cold then unchanged into ``sink`` (print or store); the figures of both."""
    from headwater.sql import view_lineage

    state = work / f"state-{label}-{sink}.json"
    state.unlink(missing_ok=True)
    store = Store.open(f"sqlite:///{work}/hw-{label}.db") if sink == "store" else None
    devnull = open(os.devnull, "w")  # noqa: SIM115 - closed below, after both crawls
    out: dict[str, Any] = {"source": label, "sink": sink}
    try:
        for phase in ("cold", "unchanged"):
            client = StoreClient(store) if store is not None else PrintClient(devnull)
            load_before = _load()
            t0 = time.perf_counter()
            result = crawl(source, client, name=f"bench-{label}", state_path=state, view_lineage=view_lineage)
            crawled = time.perf_counter() - t0
            figures: dict[str, Any] = {
                "crawl_s": round(crawled, 2),
                "tables": len(result.tables),
                "events": result.events,
                "stats": result.stats,
                "added": len(result.summary.added),
                "unchanged": len(result.summary.unchanged),
                "skipped": len(result.summary.failures),
                "load_before": load_before,
            }
            if store is not None:
                store.catch_up(timeout=600)
                figures["graph_s"] = round(time.perf_counter() - t0, 2)
            figures["load_after"] = _load()
            if result.error or len(result.tables) != expect_tables or result.summary.failures:
                raise SystemExit(
                    f"{label}/{sink}/{phase}: unexpected crawl: error={result.error} "
                    f"tables={len(result.tables)} failures={result.summary.failures[:3]}"
                )
            if expect_files is not None:
                read, cached = result.stats["filesRead"], result.stats["filesUnchanged"]
                wanted = (expect_files, 0) if phase == "cold" else (0, expect_files)
                if (read, cached) != wanted:
                    raise SystemExit(f"{label}/{sink}/{phase}: files read/unchanged {read}/{cached}, not {wanted}")
            out[phase] = figures
            print(
                f"  {label:8} {sink:5} {phase:9} crawl {crawled:6.2f} s"
                + (f"  graph {figures['graph_s']:6.2f} s" if "graph_s" in figures else "")
                + f"  {len(result.tables)} tables, {result.events} events  load {load_before[0]}",
                flush=True,
            )
    finally:
        devnull.close()
        if store is not None:
            store.close()
    return out


def _fresh_pg(server_url: str) -> tuple[str, Callable[[], None]]:
    name = f"hw_bench_crawl_{os.getpid()}"
    admin = sa.create_engine(
        server_url.replace("postgresql://", "postgresql+psycopg://", 1), isolation_level="AUTOCOMMIT"
    )
    with admin.connect() as conn:
        conn.exec_driver_sql(f"DROP DATABASE IF EXISTS {name}")
        conn.exec_driver_sql(f"CREATE DATABASE {name}")
    url = sa.make_url(server_url).set(database=name).render_as_string(hide_password=False)

    def drop() -> None:
        with admin.connect() as conn:
            conn.exec_driver_sql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        admin.dispose()

    return url, drop


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--db-tables", type=int, default=2_000)
    parser.add_argument("--keep", type=Path, default=None, help="generate the lake here and keep it (reused)")
    parser.add_argument("--pg", default=None, help="a PostgreSQL server URL: the 2,000 tables there too")
    parser.add_argument("--no-store", action="store_true", help="only the print sink")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="hw-bench-crawl-"))
    sinks = ["print"] if args.no_store else ["print", "store"]
    results: dict[str, Any] = {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "targets": TARGETS,
        "files": args.files,
        "tables": args.tables,
        "db_tables": args.db_tables,
        "cpus": os.cpu_count(),
        "runs": [],
    }
    try:
        lake = args.keep or tmp / "lake"
        marker = lake / "_shape.json"
        shape = {"files": args.files, "tables": args.tables}
        t0 = time.perf_counter()
        if not (marker.exists() and json.loads(marker.read_text()) == shape):
            shutil.rmtree(lake, ignore_errors=True)
            written = write_lake(lake, args.files, args.tables)
            marker.write_text(json.dumps(shape))
            print(f"lake: {written} files, {args.tables} tables in {lake} ({time.perf_counter() - t0:.1f} s to write)")
        size = sum(f.stat().st_size for f in lake.rglob("*") if f.is_file())
        results["lake_bytes"] = size
        sqlite_path = tmp / "catalog.db"
        t0 = time.perf_counter()
        write_database(f"sqlite:///{sqlite_path}", args.db_tables)
        print(f"database: {args.db_tables} SQLite tables ({time.perf_counter() - t0:.1f} s to write)", flush=True)
        for sink in sinks:
            results["runs"].append(measure("lake", str(lake), sink, tmp, args.tables, args.files))
        for sink in sinks:
            results["runs"].append(measure("sqlite", f"sqlite:///{sqlite_path}", sink, tmp, args.db_tables))
        if args.pg:
            pg_url, drop = _fresh_pg(args.pg)
            try:
                t0 = time.perf_counter()
                write_database(pg_url.replace("postgresql://", "postgresql+psycopg://", 1), args.db_tables)
                print(f"database: {args.db_tables} PostgreSQL tables ({time.perf_counter() - t0:.1f} s to write)")
                for sink in sinks:
                    results["runs"].append(measure("postgres", pg_url, sink, tmp, args.db_tables))
            finally:
                drop()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    met = {}
    for run in results["runs"]:
        for phase in ("cold", "unchanged"):
            key = f"lake_{phase}_s" if run["source"] == "lake" else "database_s"
            met[f"{run['source']}/{run['sink']}/{phase}"] = run[phase]["crawl_s"] <= TARGETS[key]
    results["targets_met"] = met
    print(json.dumps({k: v for k, v in results.items() if k != "runs"}, indent=2))
    out = Path(__file__).parent / "results" / "crawl.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"written {out}")


if __name__ == "__main__":
    main()
