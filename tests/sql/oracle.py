"""A perturbation oracle for column lineage: run a query on a real engine over generated data, change one input
column at a time, and see which output columns change. It knows nothing of the lineage engine, so it cannot be
tuned to it.

Agreement, per query: every (input column, output column) pair where perturbing the input changed the output
column's values must be a dependency the engine reports (on that column, or on the dataset-level list when the
perturbation changed which rows appear); every DIRECT dependency the engine reports must change the output
column under some perturbation (a value flows). A column that only decides which rows appear (WHERE, JOIN keys)
may change an output's values only by changing the rows.

Queries are generated from a small grammar (projections, arithmetic, CASE, COALESCE, aggregates with GROUP BY,
windows, joins, UNION ALL, subqueries in FROM and scalar subqueries) over ``t(a, b, c, d)`` and ``u(k, e)``.
"""

from __future__ import annotations

import random
import sqlite3
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from headwater.sql import Catalog, analyze_script

T_COLS = ("a", "b", "c", "d")
U_COLS = ("k", "e")
Run = Callable[[str, dict[str, list[tuple[int | None, ...]]]], list[tuple[object, ...]]]


def _expr(rnd: random.Random, cols: tuple[str, ...], depth: int = 0) -> str:
    c = rnd.choice(cols)
    roll = rnd.randrange(7 if depth < 2 else 2)
    if roll == 0:
        return c
    if roll == 1:
        return f"{c} + {rnd.randint(1, 5)}"
    if roll == 2:
        return f"{c} * {rnd.choice(cols)}"
    if roll == 3:
        return f"CASE WHEN {c} > {rnd.randint(0, 5)} THEN {_expr(rnd, cols, depth + 1)} ELSE {rnd.randint(0, 9)} END"
    if roll == 4:
        return f"COALESCE({c}, {rnd.randint(0, 9)})"
    if roll == 5:
        return f"ABS({_expr(rnd, cols, depth + 1)} - {rnd.choice(cols)})"
    return f"({_expr(rnd, cols, depth + 1)}) + ({_expr(rnd, cols, depth + 1)})"


def generate(rnd: random.Random) -> str:
    """One SELECT over t and u (its output columns named o0, o1, ...)."""
    form = rnd.randrange(13)
    where = f" WHERE {rnd.choice(T_COLS)} > {rnd.randint(0, 4)}" if rnd.random() < 0.4 else ""
    if form == 0:  # projection
        items = [_expr(rnd, T_COLS) for _ in range(rnd.randint(1, 3))]
        return f"SELECT {', '.join(f'{x} AS o{i}' for i, x in enumerate(items))} FROM t{where}"
    if form == 1:  # aggregate
        g = rnd.choice(T_COLS)
        agg = rnd.choice(["SUM", "MAX", "MIN"])
        having = f" HAVING COUNT({rnd.choice(T_COLS)}) > 1" if rnd.random() < 0.3 else ""
        return f"SELECT {g} AS o0, {agg}({_expr(rnd, T_COLS)}) AS o1 FROM t{where} GROUP BY {g}{having}"
    if form == 2:  # window
        p, o = rnd.choice(T_COLS), rnd.choice(T_COLS)
        v = rnd.choice(T_COLS)
        return (
            f"SELECT {rnd.choice(T_COLS)} AS o0, SUM({v}) OVER (PARTITION BY {p} ORDER BY {o}, a, b, c, d"
            f" ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS o1 FROM t{where}"
        )
    if form == 3:  # join
        kind = rnd.choice(["JOIN", "LEFT JOIN"])
        return f"SELECT {_expr(rnd, ('t.a', 't.b', 'u.e'))} AS o0, t.c AS o1 FROM t {kind} u ON u.k = t.{rnd.choice(T_COLS)}"
    if form == 4:  # union
        return f"SELECT {_expr(rnd, T_COLS)} AS o0 FROM t{where} UNION ALL SELECT {_expr(rnd, U_COLS)} FROM u"
    if form == 5:  # subquery in FROM
        inner = f"SELECT {_expr(rnd, T_COLS)} AS x, {rnd.choice(T_COLS)} AS y FROM t{where}"
        return f"SELECT x + y AS o0, y AS o1 FROM ({inner}) s"
    if form == 6:  # scalar subquery
        return f"SELECT a AS o0, (SELECT MAX(e) FROM u WHERE u.k = t.{rnd.choice(T_COLS)}) AS o1 FROM t"
    if form == 7:  # CTE chain
        return (
            f"WITH c AS (SELECT {_expr(rnd, T_COLS)} AS x, {rnd.choice(T_COLS)} AS g FROM t{where}) "
            "SELECT g AS o0, MAX(x) AS o1 FROM c GROUP BY g"
        )
    if form == 8:  # DISTINCT
        return f"SELECT DISTINCT {_expr(rnd, T_COLS)} AS o0 FROM t{where}"
    if form == 9:  # INTERSECT / EXCEPT: the right side decides which rows of the left stay
        op = rnd.choice(["INTERSECT", "EXCEPT"])
        return f"SELECT {rnd.choice(T_COLS)} AS o0 FROM t {op} SELECT {rnd.choice(U_COLS)} FROM u"
    if form == 10:  # EXISTS / IN
        if rnd.random() < 0.5:
            return f"SELECT {_expr(rnd, T_COLS)} AS o0 FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.{rnd.choice(T_COLS)})"
        return f"SELECT {_expr(rnd, T_COLS)} AS o0 FROM t WHERE {rnd.choice(T_COLS)} IN (SELECT e FROM u)"
    if form == 11:  # a ranking window: reads only its window
        return (
            f"SELECT {rnd.choice(T_COLS)} AS o0, ROW_NUMBER() OVER (PARTITION BY {rnd.choice(T_COLS)} "
            f"ORDER BY {rnd.choice(T_COLS)}, a, b, c, d) AS o1 FROM t"
        )
    # nested subqueries with an aggregate over a join
    return (
        f"SELECT s.g AS o0, s.n + {rnd.randint(1, 3)} AS o1 FROM (SELECT t.{rnd.choice(T_COLS)} AS g, "
        f"SUM(u.e) AS n FROM t JOIN u ON u.k = t.{rnd.choice(T_COLS)} GROUP BY 1) s"
    )


def data(rnd: random.Random) -> dict[str, list[tuple[int | None, ...]]]:
    def v() -> int | None:
        return None if rnd.random() < 0.05 else rnd.randint(0, 6)

    return {
        "t": [tuple(v() for _ in T_COLS) for _ in range(12)],
        "u": [(rnd.randint(0, 6), v()) for _ in range(8)],
    }


def _perturbed(tables: dict, table: str, col: int, rnd: random.Random) -> dict:
    out = dict(tables)
    out[table] = [tuple(rnd.randint(0, 9) if i == col else x for i, x in enumerate(row)) for row in tables[table]]
    return out


def observed(sql: str, run: Run, rnd: random.Random, tries: int = 4) -> dict[tuple[str, str], set[str]]:
    """(input column, output column) → {"value"} when perturbing the input changed the output column's values
    with the same number of rows, {"rows"} when it changed the rows."""
    base = data(rnd)
    before = run(sql, base)
    seen: dict[tuple[str, str], set[str]] = {}
    for table, cols in (("t", T_COLS), ("u", U_COLS)):
        for i, col in enumerate(cols):
            for _ in range(tries):
                after = run(sql, _perturbed(base, table, i, rnd))
                width = len(before[0]) if before else (len(after[0]) if after else 0)
                for j in range(width):
                    b = Counter(r[j] for r in before)
                    a = Counter(r[j] for r in after)
                    if a != b:
                        how = "value" if len(before) == len(after) else "rows"
                        seen.setdefault((f"{table}.{col}", f"o{j}"), set()).add(how)
    return seen


@dataclass
class Verdict:
    sql: str
    agree: bool
    why: str = ""


def judge(sql: str, run: Run, rnd: random.Random, dialect: str) -> Verdict:
    records = analyze_script(
        f"CREATE TABLE out AS {sql}",
        dialect=dialect,
        namespace="x",
        catalog=Catalog(tables={"t": list(T_COLS), "u": list(U_COLS)}, namespace="x"),
    )
    (record,) = records
    (output,) = record.outputs
    engine: dict[tuple[str, str], set[str]] = {}
    for name, deps in output.columns or []:
        for (ds, f), kinds in deps.items():
            engine.setdefault((f"{ds.split('.')[-1]}.{f}", name), set()).update(k.type for k in kinds)
    dataset = {f"{ds.split('.')[-1]}.{f}" for ds, f in output.dataset}
    seen = observed(sql, run, rnd)
    for (src, out), hows in seen.items():
        if (src, out) not in engine and src not in dataset:
            return Verdict(
                sql, False, f"{src} changes {out} ({'/'.join(sorted(hows))}) but the engine has no dependency"
            )
    for (src, out), types in engine.items():
        if "DIRECT" in types and (src, out) not in seen:
            return Verdict(sql, False, f"the engine says {src} flows into {out} but no perturbation changed it")
    return Verdict(sql, True)


def _load_sql(tables: dict[str, list[tuple[int | None, ...]]], create: str) -> list[str]:
    """Statements (re)creating t and u with the rows given, as literals: one round trip per table."""
    out = []
    for name, cols in (("t", T_COLS), ("u", U_COLS)):
        out.append(create.format(name=name, cols=", ".join(f"{c} INTEGER" for c in cols)))
        rows = ", ".join(
            "(" + ", ".join("NULL" if x is None else str(int(x)) for x in row) + ")" for row in tables[name]
        )
        if rows:
            out.append(f"INSERT INTO {name} VALUES {rows}")
    return out


def _inline(sql: str, tables: dict[str, list[tuple[int | None, ...]]]) -> str:
    """``sql`` reading t and u from CTEs of literal rows (DuckDB, PostgreSQL): no table written per run."""
    ctes = []
    for name, cols in (("t", T_COLS), ("u", U_COLS)):
        rows = ", ".join(
            "(" + ", ".join("NULL" if x is None else str(int(x)) for x in row) + ")" for row in tables[name]
        )
        typed = ", ".join(f"CAST({c} AS INTEGER) AS {c}" for c in cols)
        ctes.append(f"{name} AS (SELECT {typed} FROM (VALUES {rows}) AS v({', '.join(cols)}))")
    if sql.startswith("WITH "):
        return f"WITH {', '.join(ctes)}, {sql[5:]}"
    return f"WITH {', '.join(ctes)} {sql}"


def duckdb_runner() -> Run:
    import duckdb

    con = duckdb.connect()

    def run(sql: str, tables: dict) -> list[tuple[object, ...]]:
        return con.execute(_inline(sql, tables)).fetchall()

    return run


def sqlite_runner() -> Run:
    con = sqlite3.connect(":memory:")

    def run(sql: str, tables: dict) -> list[tuple[object, ...]]:
        for name, cols in (("t", T_COLS), ("u", U_COLS)):
            con.execute(f"DROP TABLE IF EXISTS {name}")
            con.execute(f"CREATE TABLE {name} ({', '.join(f'{c} INTEGER' for c in cols)})")
            con.executemany(f"INSERT INTO {name} VALUES ({', '.join('?' for _ in cols)})", tables[name])
        return con.execute(sql).fetchall()

    return run


def postgres_runner(url: str) -> Run:
    import psycopg

    con = psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://"), autocommit=True)

    def run(sql: str, tables: dict) -> list[tuple[object, ...]]:
        with con.cursor() as cur:
            cur.execute(_inline(sql, tables).encode())
            return cur.fetchall()

    return run


def agreement(run: Run, dialect: str, count: int, seed: int = 0) -> tuple[float, list[Verdict]]:
    rnd = random.Random(seed)
    verdicts = [judge(generate(rnd), run, rnd, dialect) for _ in range(count)]
    return sum(v.agree for v in verdicts) / max(len(verdicts), 1), verdicts
