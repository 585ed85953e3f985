"""SQL lineage benchmark: statements per second through the SQL engine (parse → qualify → column lineage →
OpenLineage event), on a TPC-H/TPC-DS-like mix in several dialects.

    python bench/sql_lineage.py [--statements 1200] [--rounds 3] [--against OLD_SRC] [--script 10000] [--calls 20]

The mix (generated, deterministic): INSERT … SELECT with joins and aggregates over TPC-H tables, CTAS with
CASE/COALESCE and window functions, CTE chains, UNION ALL, MERGE, UPDATE … FROM, views, each in postgres,
redshift, mysql, snowflake, bigquery, tsql and spark, with the TPC-H schemas known to the catalog (so SELECT *
is expanded and every column resolved). Figure: statements / second, median of the rounds (one process, one
core), wall clock and CPU time of the process (the shared machine's load moves the first much more than the
second: both are printed, with the load average). Writes bench/results/sql_lineage.json.
Target: >= 1,000 statements/s on one core.

``--against OLD_SRC`` (a ``src`` directory holding other code, e.g. ``git worktree add /tmp/old <commit>``) runs
each round twice, the other code and this one alternating (one fresh process each), and prints both sides' medians:
the way to compare on a machine whose load moves. ``--script N`` times one ``headwater sql lineage`` call on a
script of N statements of the mix (PostgreSQL; schemas from a ``--schema-from`` file) instead, and ``--calls N``
times N one-statement calls (wall and CPU of each process: what a hook calling it per statement waits; with
``--against``, the two codes alternate).

The 100,000-statement harvest end to end (csvlog → harvester → a real server) is bench/harvest.py.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from headwater.sql import Catalog, get_dialect, script_events

TABLES = {
    "lineitem": [
        "l_orderkey",
        "l_partkey",
        "l_suppkey",
        "l_quantity",
        "l_extendedprice",
        "l_discount",
        "l_tax",
        "l_returnflag",
        "l_linestatus",
        "l_shipdate",
    ],
    "orders": ["o_orderkey", "o_custkey", "o_orderstatus", "o_totalprice", "o_orderdate", "o_orderpriority"],
    "customer": ["c_custkey", "c_name", "c_nationkey", "c_acctbal", "c_mktsegment"],
    "nation": ["n_nationkey", "n_name", "n_regionkey"],
    "supplier": ["s_suppkey", "s_name", "s_nationkey", "s_acctbal"],
    "part": ["p_partkey", "p_name", "p_brand", "p_type", "p_retailprice"],
}
DIALECTS = {
    "postgres": ("postgres://wh:5432", "tpch"),
    "redshift": ("redshift://c.eu-west-1:5439", "dev"),
    "mysql": ("mysql://db:3306", "tpch"),
    "snowflake": ("snowflake://acme", "TPCH"),
    "bigquery": ("bigquery", "proj"),
    "tsql": ("sqlserver://sql:1433", "tpch"),
    "spark": ("hive://ms:9083", "tpch"),
}

TEMPLATES = [
    "INSERT INTO rpt.revenue_{i} (nation, revenue, orders) SELECT n.n_name, SUM(l.l_extendedprice * (1 - l.l_discount)),"
    " COUNT(DISTINCT o.o_orderkey) FROM lineitem l JOIN orders o ON o.o_orderkey = l.l_orderkey JOIN customer c ON"
    " c.c_custkey = o.o_custkey JOIN nation n ON n.n_nationkey = c.c_nationkey WHERE l.l_shipdate >= DATE '1995-01-01'"
    " AND o.o_orderstatus = 'F' GROUP BY n.n_name ORDER BY 2 DESC",
    "CREATE TABLE rpt.cust_{i} AS SELECT c_custkey, c_name, CASE WHEN c_acctbal > {n} THEN 'rich' ELSE c_mktsegment END"
    " AS band, COALESCE(c_acctbal, 0) AS bal, RANK() OVER (PARTITION BY c_nationkey ORDER BY c_acctbal DESC) AS rk"
    " FROM customer WHERE c_mktsegment <> 'X'",
    "WITH big AS (SELECT o_custkey, SUM(o_totalprice) AS spent FROM orders GROUP BY o_custkey HAVING SUM(o_totalprice)"
    " > {n}), named AS (SELECT c.c_name, b.spent FROM big b JOIN customer c ON c.c_custkey = b.o_custkey)"
    " INSERT INTO rpt.big_{i} SELECT * FROM named",
    "INSERT INTO rpt.parts_{i} SELECT p_partkey, p_name FROM part WHERE p_brand = 'B{n}' UNION ALL"
    " SELECT ps.l_partkey, CAST(ps.l_quantity AS VARCHAR(20)) FROM lineitem ps WHERE ps.l_quantity > {n}",
    "MERGE INTO rpt.supp_{i} t USING (SELECT s_suppkey, s_name, s_acctbal FROM supplier WHERE s_acctbal > {n}) s"
    " ON t.s_suppkey = s.s_suppkey WHEN MATCHED THEN UPDATE SET s_acctbal = s.s_acctbal WHEN NOT MATCHED THEN"
    " INSERT (s_suppkey, s_name, s_acctbal) VALUES (s.s_suppkey, s.s_name, s.s_acctbal)",
    "CREATE VIEW rpt.v_{i} AS SELECT o.*, (SELECT MAX(l_extendedprice) FROM lineitem WHERE l_orderkey = o.o_orderkey)"
    " AS max_price FROM orders o WHERE o.o_orderdate > DATE '1996-01-01'",
]
MERGELESS = {"mysql", "spark"}


def workload(count: int) -> list[tuple[str, str]]:
    rnd = random.Random(16)
    out = []
    names = list(DIALECTS)
    for i in range(count):
        dialect = names[i % len(names)]
        choices = [t for t in TEMPLATES if not (dialect in MERGELESS and t.startswith("MERGE"))]
        out.append((dialect, rnd.choice(choices).format(i=i, n=rnd.randint(1, 900))))
    return out


def catalog(dialect: str) -> Catalog:
    ns, db = DIALECTS[dialect]
    schema = {"postgres": "public", "redshift": "public", "tsql": "dbo", "snowflake": "PUBLIC", "bigquery": "tpch"}
    upper = dialect == "snowflake"
    tables = {}
    for t, cols in TABLES.items():
        name = f"{db}.{schema[dialect]}.{t}" if dialect in schema else f"{db}.{t}"
        tables[name.upper() if upper else name] = [c.upper() if upper else c for c in cols]
    return Catalog(tables=tables, namespace=ns)


def run(statements: list[tuple[str, str]]) -> tuple[float, float, int]:
    catalogs = {d: catalog(d) for d in DIALECTS}
    events = 0
    start = time.perf_counter()
    cpu = time.process_time()
    for dialect, sql in statements:
        ns, db = DIALECTS[dialect]
        schema = "tpch" if dialect == "bigquery" else None
        events += len(
            script_events(
                sql,
                dialect=get_dialect(dialect),
                namespace=ns,
                default_database=db,
                default_schema=schema,
                catalog=catalogs[dialect],
            )
        )
    return time.perf_counter() - start, time.process_time() - cpu, events


def _side(src: str, statements: int) -> dict[str, float]:
    """One round in a fresh process with ``src`` first on the path: its wall and CPU rates."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([src, os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, __file__, "--statements", str(statements), "--rounds", "1", "--one-json"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return dict(json.loads(done.stdout.splitlines()[-1]))


def against(old_src: str, statements: int, rounds: int) -> None:
    here = str(Path(__file__).resolve().parents[1] / "src")
    sides: dict[str, list[dict[str, float]]] = {"before": [], "now": []}
    loads = []
    for r in range(rounds):
        for name, src in (("before", old_src), ("now", here)):
            sides[name].append(_side(src, statements))
            loads.append(os.getloadavg()[0])
            got = sides[name][-1]
            print(f"round {r + 1} {name:6s}: {got['rate']:.0f} statements/s, {got['cpu_rate']:.0f} per CPU second")
    for name, runs in sides.items():
        wall = [x["rate"] for x in runs]
        cpu = [x["cpu_rate"] for x in runs]
        print(
            f"{name:6s} median {statistics.median(wall):.0f} statements/s ({min(wall):.0f}-{max(wall):.0f}), "
            f"{statistics.median(cpu):.0f} per CPU second ({min(cpu):.0f}-{max(cpu):.0f})"
        )
    print(f"load average {min(loads):.1f}-{max(loads):.1f}")


def one_script(count: int) -> None:
    """``headwater sql lineage`` on one script of ``count`` statements: its wall and CPU time, events printed."""
    statements = [sql for dialect, sql in workload(count * len(DIALECTS)) if dialect == "postgres"][:count]
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "script.sql"
        script.write_text(";\n".join(statements) + ";\n")
        schemas = Path(tmp) / "schemas.json"
        schemas.write_text(json.dumps({f"tpch.public.{t}": cols for t, cols in TABLES.items()}))
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "headwater", "sql", "lineage", "--dialect", "postgres", "--namespace",
             "postgres://wh:5432", "--default-database", "tpch", "--schema-from", str(schemas), str(script)],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        elapsed = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    events = len(done.stdout.splitlines())
    print(
        f"one call, {len(statements)} statements: exit {done.returncode}, {events} events, {elapsed:.1f} s wall "
        f"({len(statements) / elapsed:.0f} statements/s), {cpu:.1f} s CPU; load average {os.getloadavg()[0]:.1f}"
    )


def calls(count: int, old_src: str | None) -> None:
    """``headwater sql lineage`` on one statement, ``count`` times (per side): median wall and CPU per call."""
    here = str(Path(__file__).resolve().parents[1] / "src")
    sides = [("before", old_src), ("now", here)] if old_src else [("now", here)]
    times: dict[str, list[tuple[float, float]]] = {name: [] for name, _ in sides}
    loads = []
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "one.sql"
        script.write_text(workload(3)[2][1])
        for _ in range(count):
            for name, src in sides:
                env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(src), os.environ.get("PYTHONPATH", "")])}
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                start = time.perf_counter()
                subprocess.run(
                    [sys.executable, "-m", "headwater", "sql", "lineage", "--dialect", "postgres", str(script)],
                    env=env, capture_output=True, check=True,
                )  # fmt: skip
                took = time.perf_counter() - start
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                times[name].append((took, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime))
                loads.append(os.getloadavg()[0])
    for name, runs in times.items():
        wall = sorted(w for w, _ in runs)
        cpu = sorted(c for _, c in runs)
        print(
            f"{name:6s} one-statement call: wall median {statistics.median(wall):.3f} s ({wall[0]:.3f}-{wall[-1]:.3f}), "
            f"CPU median {statistics.median(cpu):.3f} s ({cpu[0]:.3f}-{cpu[-1]:.3f}), {len(runs)} calls"
        )
    print(f"load average {min(loads):.1f}-{max(loads):.1f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--statements", type=int, default=1200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--against", default=None, help="a src directory of other code, run alternately")
    parser.add_argument("--script", type=int, default=0, help="time one CLI call on a script of N statements")
    parser.add_argument("--calls", type=int, default=0, help="time N one-statement CLI calls")
    parser.add_argument("--one-json", action="store_true", help=argparse.SUPPRESS)  # a round of --against
    args = parser.parse_args()
    if args.calls:
        calls(args.calls, args.against)
        return
    if args.against:
        against(args.against, args.statements, args.rounds)
        return
    if args.script:
        one_script(args.script)
        return
    statements = workload(args.statements)
    if args.one_json:
        run(statements[: min(100, len(statements))])  # warm: the first statements of a dialect load its code
        elapsed, cpu, _events = run(statements)
        print(json.dumps({"rate": len(statements) / elapsed, "cpu_rate": len(statements) / cpu}))
        return
    rates, cpu_rates = [], []
    for r in range(args.rounds):
        elapsed, cpu, events = run(statements)
        rates.append(len(statements) / elapsed)
        cpu_rates.append(len(statements) / cpu)
        print(
            f"round {r + 1}: {len(statements)} statements in {elapsed:.2f} s = {rates[-1]:.0f} statements/s "
            f"({cpu_rates[-1]:.0f} per CPU second; {events} events; load average {os.getloadavg()[0]:.1f})"
        )
    median = statistics.median(rates)
    print(
        f"median: {median:.0f} statements/s (min {min(rates):.0f}, max {max(rates):.0f}); "
        f"{statistics.median(cpu_rates):.0f} per CPU second"
    )
    out = Path(__file__).resolve().parent / "results"
    out.mkdir(exist_ok=True)
    (out / "sql_lineage.json").write_text(
        json.dumps({"statements": len(statements), "rates": rates, "median": median, "cpu_rates": cpu_rates}, indent=1)
    )


if __name__ == "__main__":
    main()
