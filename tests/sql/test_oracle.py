"""The perturbation oracle (oracle.py) against the lineage engine on real engines: DuckDB, SQLite and PostgreSQL
run generated queries over generated data; the engine's column lineage must agree on >= 95 % of them.
A modest count here (CI time); ``python bench/sql_oracle.py`` runs more and prints the rates (docs/sql.md)."""

from __future__ import annotations

import os
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from . import oracle

COUNT = 40


@pytest.mark.parametrize("engine", ["duckdb", "sqlite", "postgres"])
def test_the_engine_agrees_with_the_oracle(engine: str) -> None:
    if engine == "duckdb":
        run, dialect = oracle.duckdb_runner(), "duckdb"
    elif engine == "sqlite":
        run, dialect = oracle.sqlite_runner(), "sqlite"
    else:
        url = os.environ.get("HEADWATER_TEST_PG_URL")
        if not url:
            if os.environ.get("HEADWATER_REQUIRE_SERVICES"):
                pytest.fail("HEADWATER_TEST_PG_URL is not set")
            pytest.skip("no PostgreSQL")
        run, dialect = oracle.postgres_runner(url), "postgres"
    rate, verdicts = oracle.agreement(run, dialect, COUNT, seed=28)
    wrong = [f"{v.why}: {v.sql}" for v in verdicts if not v.agree]
    assert rate >= 0.95, "\n".join(wrong)


_SQLITE = oracle.sqlite_runner()


@settings(max_examples=20, deadline=None)
@given(st.integers(min_value=0, max_value=2**32))
def test_no_generated_query_loses_a_dependency(seed: int) -> None:
    """Whatever the query: a column whose perturbation changes an output is never missing from the lineage."""
    rnd = random.Random(seed)
    verdict = oracle.judge(oracle.generate(rnd), _SQLITE, rnd, "sqlite")
    assert verdict.agree or "no perturbation changed it" in verdict.why, verdict
