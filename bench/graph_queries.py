"""Graph-query benchmark on a synthetic lineage graph of chosen size ("Graph queries at scale").

    python bench/graph_queries.py                 # default shape: ~100,000 datasets, 50,000 jobs, ~1,000,000 column edges
    python bench/graph_queries.py --quick         # small shape (~4,000 datasets), a smoke run in well under 2 minutes
    python bench/graph_queries.py --keep          # reuse the database loaded by an earlier run of the same shape
    python bench/graph_queries.py --db postgresql://user:pw@host/hw_bench_graph   # PostgreSQL (database created)

1. Generates a deterministic layered graph (bench/synthetic.py). ``--jobs 500000`` reaches
   1,000,000 datasets and ~10,000,000 column edges.
2. Loads it through the real ingest path, in-process: ``Store.append`` in batches of 1,000 (the
   code ``POST /api/v1/lineage/batch`` runs, minus HTTP and schema validation: the generator's
   events are known-valid, tests/bench checks them against the official schema). Durability stays
   on. The load time runs until the graph is derived (the store's projector has caught up with
   the log); it is printed and recorded.
3. Times the queries through ``GraphReader`` (what the HTTP API calls), each answer encoded as the JSON bytes
   the route sends (lineage: ``GraphReader.lineage_json``, which assembles them from kept byte fragments), interleaved: round after
   round, one query of each kind on a fresh random node, so drift hits every kind alike. Kinds:
   upstream and downstream lineage at depth 1, 5 and 20; column lineage (both directions, depth
   10); column impact (depth 20); search; and each graph kind again with ``at=`` a past
   timestamp (the graph before a tenth of the jobs changed an input). Answers are capped at
   ``max_graph_nodes`` (5,000), as in the server. First the steady state of a server: a SQLite
   file is read once into the OS page cache, and ``--warmup`` rounds (default 5) run untimed.

Prints a table (wall-clock p50 and p99, the same of the querying thread's CPU time — what a shared, loaded machine
disturbs least — and the mean answer size) and writes bench/results/graph_queries.json. ``--adjacency off`` walks
the store alone (as a server with ``graph_adjacency = off``, or the code before the in-memory adjacency).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))
import orjson
import sqlalchemy as sa

import synthetic
from headwater.graph import GraphReader
from headwater.model.nodeid import NodeRef
from headwater.settings import SETTINGS_BY_NAME
from headwater.store import IncomingEvent, Store
from headwater.store.engine import events_file
from headwater.store.schema import events as events_table

RESULTS = Path(__file__).resolve().parent / "results"
QUICK_JOBS = 2_000
MAX_NODES = int(SETTINGS_BY_NAME["max_graph_nodes"].default)


def load(store: Store, shape: synthetic.Shape, batch: int = 1000, skip: int = 0) -> tuple[int, float]:
    """The real ingest path: ``Store.append`` (dedupe, log, observations, projector, durable commit).

    ``skip``: the first events of the shape are in the store already (an interrupted load); the generator
    is deterministic and ``Store.append`` drops events it holds, so resuming at a batch boundary is exact.
    """
    t0 = time.perf_counter()
    buf: list[IncomingEvent] = []
    n = 0
    for i, event in enumerate(synthetic.events(shape)):
        if i < skip:
            continue
        buf.append(IncomingEvent(payload=event, raw=json.dumps(event)))
        if len(buf) >= batch:
            store.append(buf)
            n += len(buf)
            buf = []
            if n % 10_000 == 0:
                print(f"  loaded {n:,} events ({n / (time.perf_counter() - t0):,.0f}/s)", flush=True)
    if buf:
        store.append(buf)
        n += len(buf)
    wait = getattr(store, "caught_up", None)  # the graph is derived in the background: wait for all of it
    while wait is not None and not wait(600):
        print("  waiting for the projector to derive the graph ...", flush=True)
    return n, time.perf_counter() - t0


def bulk_load(url: str, shape: synthetic.Shape) -> tuple[int, float]:
    """``headwater db load``'s path: the shape's events written to an NDJSON file (not timed), then loaded from it
    (parsed and validated like the HTTP door, in worker processes; appended in durable batches; the graph derived
    in big steps). Answers (events, seconds until the graph is derived)."""
    from headwater.ingest.accept import Policy
    from headwater.settings import load_settings
    from headwater.store.bulkload import Progress, load_file

    path = RESULTS / f"graph-{shape.jobs}x{shape.outputs_per_job}x{shape.columns}.ndjson"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("w") as out:
            for event in synthetic.events(shape):
                out.write(json.dumps(event) + "\n")
    settings = load_settings({}, environ={})
    last = [0.0]

    def progress(p: Progress) -> None:
        if p.seconds - last[0] >= 30:
            last[0] = p.seconds
            print(
                f"  {p.phase}: {p.appended:,} appended, graph derived for {p.derived:,} ({p.seconds:,.0f} s)",
                flush=True,
            )

    with Store.open(url, background=False) as store:
        report = load_file(
            store, path, Policy.from_settings(settings), max_bytes=int(settings.max_body_bytes), progress=progress
        )
    return report.appended, report.seconds


def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile of ``values`` (p in 0..100)."""
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]


def _sqlite_path(url: str) -> Path | None:
    """The SQLite file of a store URL, or None (PostgreSQL)."""
    return Path(url.split(":///", 1)[1]) if urlsplit(url).scheme.startswith("sqlite") else None


def _pg_admin(url: str) -> tuple[str, str]:
    """A PostgreSQL store URL's server, as the URL of its ``postgres`` database, and its database's name."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(scheme="postgresql", path="/postgres")), parts.path.lstrip("/")


def fresh_database(url: str) -> None:
    """Start from an empty store: delete a SQLite file; drop and create a ``hw_bench*`` PostgreSQL database."""
    path = _sqlite_path(url)
    if path is not None:
        for file in (path, events_file(path)):  # the store's main file and its event log's
            for suffix in ("", "-wal", "-shm"):
                Path(f"{file}{suffix}").unlink(missing_ok=True)
        path.parent.mkdir(parents=True, exist_ok=True)
        return
    import psycopg

    admin, name = _pg_admin(url)
    if not name.startswith("hw_bench"):
        raise SystemExit(f"refusing to drop database {name!r}: benchmark databases must be named hw_bench...")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def resident_bytes() -> int:
    """This process's resident memory (Linux: /proc/self/statm; 0 elsewhere)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except OSError:
        return 0
    return pages * os.sysconf("SC_PAGE_SIZE")


def database_exists(url: str) -> bool:
    """Whether the store's database is there to reuse (a SQLite file; a PostgreSQL database)."""
    path = _sqlite_path(url)
    if path is not None:
        return path.exists()
    import psycopg

    admin, name = _pg_admin(url)
    with psycopg.connect(admin, autocommit=True) as conn:
        found = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
    return found is not None


def count_events(store: Store) -> int:
    assert store.caught_up()  # store.engine does not wait for the projector
    with store.engine.connect() as conn:
        return int(conn.scalar(sa.select(sa.func.count()).select_from(events_table)) or 0)


def query_kinds(g: GraphReader, shape: synthetic.Shape, rng: random.Random) -> dict[str, Callable[[], Any]]:
    """Every timed query kind: name -> a call on a fresh random node."""

    def ds() -> NodeRef:  # a written dataset (exists at the past timestamp too)
        return NodeRef("dataset", "s3://bench", synthetic.dataset_name(rng.randrange(shape.sources, shape.datasets)))

    def field() -> NodeRef:
        d = ds()
        return NodeRef("datasetField", d.namespace, d.name, synthetic.column(rng.randrange(shape.columns)))

    # lineage as the HTTP route answers it: JSON bytes (GraphReader.lineage_json where the code has it,
    # otherwise the answer encoded as api/answers.py's json_answer does); the other kinds are encoded too
    lineage_json = getattr(g, "lineage_json", None)

    def lineage(node: NodeRef, **options: Any) -> Any:
        if lineage_json is None:
            return orjson.dumps(g.lineage(node, **options))
        found = lineage_json(node, **options)
        return found if isinstance(found, bytes) else orjson.dumps(found)

    kinds: dict[str, Callable[[], Any]] = {}
    for label, at in (("", None), (" at=past", synthetic.midpoint())):
        for direction in ("upstream", "downstream"):
            for depth in (1, 5, 20):
                kinds[f"{direction} depth {depth}{label}"] = lambda direction=direction, depth=depth, at=at: lineage(
                    ds(), direction=direction, depth=depth, at=at, max_nodes=MAX_NODES
                )
        kinds[f"column lineage depth 10{label}"] = lambda at=at: orjson.dumps(
            g.column_lineage(field(), depth=10, at=at, max_nodes=MAX_NODES)
        )
        kinds[f"column impact depth 20{label}"] = lambda at=at: orjson.dumps(
            g.impact(field(), depth=20, at=at, max_nodes=MAX_NODES)
        )
    kinds["search"] = lambda: orjson.dumps(
        g.search(f"ds_{rng.randrange(shape.datasets):07d}"[: rng.choice((6, 8, 10))], limit=20)
    )
    return kinds


def answer_size(answer: dict[str, Any]) -> int:
    for key in ("nodes", "items", "results"):
        if key in answer:
            return len(answer[key])
    return 0


def warm_sqlite_file(url: str) -> float:
    """Read a SQLite database file once, so the OS page cache holds it (a server's steady state)."""
    t0 = time.perf_counter()
    with open(url.split(":///", 1)[1], "rb") as f:
        while f.read(1 << 24):
            pass
    return time.perf_counter() - t0


def run_queries(kinds: dict[str, Callable[[], Any]], rounds: int, warmup: int) -> dict[str, dict[str, Any]]:
    """Round robin: each round runs every kind once (in a shuffled order), after untimed warm-up rounds."""
    times: dict[str, list[float]] = {k: [] for k in kinds}
    cpu: dict[str, list[float]] = {k: [] for k in kinds}  # this thread's CPU: what a loaded machine disturbs least
    sizes: dict[str, list[int]] = {k: [] for k in kinds}
    truncated: dict[str, int] = {k: 0 for k in kinds}
    order = list(kinds)
    shuffle = random.Random(2)
    for _ in range(warmup):  # imports, statement caches, database pages: not timed
        for k in order:
            kinds[k]()
    for r in range(rounds):
        shuffle.shuffle(order)
        for k in order:
            c0, t0 = time.thread_time(), time.perf_counter()
            body = kinds[k]()
            times[k].append((time.perf_counter() - t0) * 1000)
            cpu[k].append((time.thread_time() - c0) * 1000)
            answer = orjson.loads(body)  # counted after the clock stopped
            sizes[k].append(answer_size(answer))
            truncated[k] += bool(answer.get("truncated"))
        if (r + 1) % max(1, rounds // 10) == 0:
            print(f"  round {r + 1}/{rounds}", flush=True)
    return {
        k: {
            "p50_ms": round(percentile(v, 50), 2),
            "p99_ms": round(percentile(v, 99), 2),
            "cpu_p50_ms": round(percentile(cpu[k], 50), 2),
            "cpu_p99_ms": round(percentile(cpu[k], 99), 2),
            "mean_size": round(sum(sizes[k]) / len(sizes[k]), 1),
            "truncated": truncated[k],
            "n": len(v),
        }
        for k, v in times.items()
    }


def loadavg() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help=f"small shape ({QUICK_JOBS:,} jobs), 30 rounds")
    ap.add_argument("--jobs", type=int, help="jobs in the graph (default 50,000; datasets ~ 2 x jobs)")
    ap.add_argument("--outputs-per-job", type=int, default=2)
    ap.add_argument("--columns", type=int, default=7)
    ap.add_argument("--layers", type=int, default=40)
    ap.add_argument(
        "--db",
        help="store URL (default: a SQLite file in bench/results/ named after the shape); "
        "a PostgreSQL database must be named hw_bench... (it is dropped and created)",
    )
    ap.add_argument("--rounds", type=int, help="rounds of every query kind (default 100; --quick 30)")
    ap.add_argument("--warmup", type=int, default=5, help="untimed rounds before the timed ones (default 5)")
    ap.add_argument(
        "--adjacency",
        choices=("on", "off"),
        default="on",
        help="walk lineage on the in-memory adjacency as a server does (default), or on the store alone",
    )
    ap.add_argument("--keep", action="store_true", help="reuse the database if it already holds this shape")
    ap.add_argument(
        "--bulk",
        action="store_true",
        help="load through `headwater db load` (an NDJSON file, validated, parsed in worker processes, derived in "
        "big steps) instead of Store.append in batches of 1,000",
    )
    ap.add_argument(
        "--resume",
        action="store_true",
        help="with --keep: a store holding the first part of this shape (an interrupted load) gets "
        "the rest instead of being loaded afresh",
    )
    args = ap.parse_args()

    jobs = args.jobs or (QUICK_JOBS if args.quick else 50_000)
    rounds = args.rounds or (30 if args.quick else 100)
    shape = synthetic.Shape(jobs=jobs, outputs_per_job=args.outputs_per_job, columns=args.columns, layers=args.layers)
    url = args.db or f"sqlite:///{RESULTS / f'graph-{jobs}x{args.outputs_per_job}x{args.columns}.db'}"
    print(
        f"graph: {shape.datasets:,} datasets, {shape.jobs:,} jobs, ~{shape.column_edges_estimate:,} column edges; "
        f"store {urlsplit(url).scheme}; load average {loadavg()}"
    )
    want = synthetic.event_count(shape)
    load_info: dict[str, Any]
    store: Store | None = None
    if args.keep and not database_exists(url):
        print("--keep: no store there yet: loading afresh")
    elif args.keep:
        store = Store.open(url)
        have = count_events(store)
        if args.resume and 0 < have < want:
            skip = have - have % 1000  # a whole number of batches; the overlap is deduplicated
            print(f"--resume: the store holds {have:,} of {want:,} events; loading from event {skip:,} ...")
            n, secs = load(store, shape, skip=skip)
            print(f"loaded {n:,} more events in {secs:,.1f} s ({n / secs:,.0f} events/s)")
            have = count_events(store)
        if have != want:
            print(f"--keep: the store holds {have:,} events, this shape has {want:,}: loading afresh")
            store.close()
            store = None
    if store is not None:
        load_info = {"method": "reused (--keep)", "events": want}
        print(f"reusing the loaded store ({want:,} events)")
    else:
        fresh_database(url)
        if args.bulk:
            print(f"loading {want:,} events through headwater db load's path ...")
            n, secs = bulk_load(url, shape)
            store = Store.open(url)
        else:
            store = Store.open(url)
            print(f"loading {want:,} events through the real ingest path (Store.append, batches of 1,000) ...")
            n, secs = load(store, shape)
        load_info = {
            "method": "headwater db load (NDJSON file, validated)"
            if args.bulk
            else "Store.append in batches of 1,000 (real ingest path)",
            "events": n,
            "seconds": round(secs, 1),
            "events_per_s": round(n / secs),
        }
        print(f"loaded {n:,} events in {secs:,.1f} s ({n / secs:,.0f} events/s)")
    if urlsplit(url).scheme.startswith("sqlite"):
        print(f"read the SQLite file once into the OS page cache in {warm_sqlite_file(url):,.1f} s")
    adjacency_info: dict[str, Any] = {"on": args.adjacency == "on"}
    with store:
        adjacency = None
        if args.adjacency == "on":  # as a server builds it at start
            from headwater.graph.adjacency import Adjacency  # here: --adjacency off also runs older code

            adjacency = Adjacency(store.engine)
            rss0 = resident_bytes()
            t0 = time.perf_counter()
            adjacency.build()
            snap = adjacency.snapshot
            assert snap is not None
            nodes, edge_count = snap.counts()
            versions = getattr(snap, "versions_memory", lambda: 0)()  # records of versions (older code: none)
            shapes = adjacency.now_nodes
            adjacency_info.update(
                build_s=round(time.perf_counter() - t0, 2),
                nodes=nodes,
                edges=edge_count,
                bytes=snap.memory(),
                versions_bytes=versions,
                now_shapes=len(shapes),
                now_shapes_bytes=shapes.held_bytes,
                now_shapes_compressed=getattr(shapes, "compressed", False),  # older code: never
                resident_growth_bytes=resident_bytes() - rss0,  # the process's memory the build and warm added
            )
            print(
                f"adjacency built and warmed in {adjacency_info['build_s']} s: {nodes:,} nodes, {edge_count:,} edges, "
                f"{snap.memory() / 1e6:,.1f} MB; records of versions {versions / 1e6:,.1f} MB; shapes of now "
                f"{len(shapes):,} held, {shapes.held_bytes / 1e6:,.1f} MB"
                f"{' compressed' if adjacency_info['now_shapes_compressed'] else ''}; the process grew by "
                f"{adjacency_info['resident_growth_bytes'] / 1e6:,.0f} MB (resident)"
            )
        reader = GraphReader(store) if adjacency is None else GraphReader(store, adjacency=adjacency)
        print(
            f"{args.warmup} untimed warm-up rounds, then timing {rounds} interleaved rounds of {len(query_kinds(reader, shape, random.Random(0)))} "
            f"query kinds; load average {loadavg()}"
        )
        t0 = time.perf_counter()
        figures = run_queries(query_kinds(reader, shape, random.Random(1)), rounds, args.warmup)
        elapsed = time.perf_counter() - t0
    after = loadavg()
    print(f"\n{'query':<34}{'p50 ms':>9}{'p99 ms':>9}{'cpu p50':>9}{'cpu p99':>9}{'nodes':>9}{'cut':>6}")
    for k, f in figures.items():
        print(
            f"{k:<34}{f['p50_ms']:>9.1f}{f['p99_ms']:>9.1f}{f['cpu_p50_ms']:>9.1f}{f['cpu_p99_ms']:>9.1f}"
            f"{f['mean_size']:>9.0f}{f['truncated']:>6}"
        )
    print(f"\nqueries took {elapsed:,.0f} s; load average after: {after}")
    print(f"load: {load_info}")
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / "graph_queries.json"
    out.write_text(
        json.dumps(
            {
                "shape": {
                    "datasets": shape.datasets,
                    "jobs": shape.jobs,
                    "column_edges_estimate": shape.column_edges_estimate,
                    "columns": shape.columns,
                    "layers": shape.layers,
                },
                "store": urlsplit(url).scheme,
                "load": load_info,
                "adjacency": adjacency_info,
                "rounds": rounds,
                "warmup_rounds": args.warmup,
                "max_nodes": MAX_NODES,
                "load_average_after": after,
                "python": platform.python_version(),
                "ms": figures,
            },
            indent=2,
        )
    )
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
