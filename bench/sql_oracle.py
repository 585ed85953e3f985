"""The perturbation oracle at scale: generated queries run on DuckDB, SQLite and PostgreSQL over generated data,
one input column perturbed at a time; the share of queries whose observed column dependencies agree with the
SQL lineage engine's (tests/sql/oracle.py has the generator and the rules of agreement).

    python bench/sql_oracle.py [--queries 300] [--seed 1] [--pg postgresql://...]

Prints the agreement rate per engine and the disagreements (recorded in docs/sql.md). Target: >= 95 % each.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "sql"))

import oracle


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--pg", default=os.environ.get("HEADWATER_TEST_PG_URL"))
    args = parser.parse_args()
    engines = [("duckdb", oracle.duckdb_runner(), "duckdb"), ("sqlite", oracle.sqlite_runner(), "sqlite")]
    if args.pg:
        engines.append(("postgres", oracle.postgres_runner(args.pg), "postgres"))
    for name, run, dialect in engines:
        rate, verdicts = oracle.agreement(run, dialect, args.queries, seed=args.seed)
        print(f"{name}: {rate:.1%} of {len(verdicts)} generated queries agree")
        for v in verdicts:
            if not v.agree:
                print(f"  {v.why}: {v.sql}")


if __name__ == "__main__":
    main()
