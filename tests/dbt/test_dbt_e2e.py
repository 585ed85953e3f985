"""dbt end to end: the real ``dbt`` with OpenLineage's ``dbt-ol`` wrapper builds a tiny project (tests/dbt/shop)
on the real PostgreSQL server and runs its schema tests, one of which fails on purpose (a customer without an
email), sending its events over HTTP to a real ``headwater serve``. The failing test's assertion is the tested
model's latest data-quality result, and the models built from it are flagged "upstream issue" with the path.

dbt lives in its own virtualenv (``HEADWATER_DBT_VENV``, made by ``scripts/test`` with pinned versions); the
test runs only when that variable is set, and fails when it names no ``dbt-ol``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from databases import pg_database
from live_server import ServeProcess, serve_env

# a dbt run and a dbt test of three models: 10 to 30 s
pytestmark = [pytest.mark.dbt, pytest.mark.postgres, pytest.mark.slow, pytest.mark.timeout(600)]

PROJECT = Path(__file__).resolve().parent / "shop"
NS = "shop_dbt"  # OPENLINEAGE_NAMESPACE: the namespace of dbt-ol's jobs


@pytest.fixture
def dbt_ol() -> Path:
    venv = os.environ.get("HEADWATER_DBT_VENV")
    if not venv:
        pytest.skip("HEADWATER_DBT_VENV is not set: scripts/test runs this test in its own step")
    exe = Path(venv) / "bin" / "dbt-ol"
    assert exe.exists(), f"HEADWATER_DBT_VENV={venv} holds no bin/dbt-ol"
    return exe


@pytest.fixture
def shop_db(pg_server_url: str) -> Iterator[str]:
    with pg_database(pg_server_url, prefix="hw_dbt") as url:
        yield url


def _dbt(exe: Path, command: str, project: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(exe), command, "--project-dir", str(project), "--profiles-dir", str(project)],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _get(url: str, path: str, **params: Any) -> Any:
    r = httpx.get(f"{url}{path}", params=params, timeout=30)
    assert r.status_code == 200, r.text
    return r.json()


def test_a_failing_dbt_test_flags_the_tested_model_and_the_models_downstream(
    dbt_ol: Path, shop_db: str, tmp_path: Path
) -> None:
    project = tmp_path / "shop"
    shutil.copytree(PROJECT, project)
    pg = urlsplit(shop_db)
    db = pg.path.lstrip("/")
    with ServeProcess(f"sqlite:///{tmp_path / 'hw.db'}", tmp_path / "serve.log", serve_env(tmp_path / "data")) as hw:
        env = {
            "PATH": f"{dbt_ol.parent}{os.pathsep}{os.environ['PATH']}",  # dbt-ol runs the venv's dbt
            "HOME": str(tmp_path),
            "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
            "OPENLINEAGE_URL": hw.url,
            "OPENLINEAGE_NAMESPACE": NS,
            "SHOP_PG_HOST": pg.hostname or "127.0.0.1",
            "SHOP_PG_PORT": str(pg.port or 5432),
            "SHOP_PG_USER": pg.username or "",
            "SHOP_PG_PASSWORD": pg.password or "",
            "SHOP_PG_DB": db,
        }
        run = _dbt(dbt_ol, "run", project, env)
        assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-3000:]
        test = _dbt(dbt_ol, "test", project, env)
        # dbt exits 1 when a test fails: the one failing on purpose, and no other
        assert test.returncode == 1, test.stdout[-6000:] + test.stderr[-3000:]
        assert "PASS=3 WARN=0 ERROR=1" in test.stdout, test.stdout[-6000:]

        ds = f"dataset:postgres://{pg.hostname}:{pg.port}:{db}.analytics"
        stg, emails, regions = f"{ds}.stg_customers", f"{ds}.customer_emails", f"{ds}.region_counts"

        tested = _get(hw.url, "/api/v1/quality", nodeId=stg)
        assert tested["quality"]["status"] == "failing"
        results = {(a["name"], a["column"], a["success"]) for a in tested["quality"]["assertions"]}
        # dbt names a schema test <test>_<model>_<column>; dbt-ol sends that name and the column
        assert results == {
            ("not_null_stg_customers_email", "email", False),
            ("not_null_stg_customers_id", "id", True),
            ("unique_stg_customers_id", "id", True),
        }
        assert tested["flagged"] is False and tested["upstream"] == []  # nothing upstream of the staging model

        for model, job in ((emails, "customer_emails"), (regions, "region_counts")):
            answer = _get(hw.url, "/api/v1/quality", nodeId=model)
            assert answer["flagged"] is True, (model, answer)
            [issue] = answer["upstream"]
            assert issue["cause"] == stg
            assert issue["status"] == "failing"
            assert issue["depth"] == 2
            # dbt-ol names a model's job <database>.<schema>.<project>.<model>
            assert issue["path"] == [stg, f"job:{NS}:{db}.analytics.shop.{job}", model]
            assert any("not_null_stg_customers_email" in r for r in issue["reasons"]), issue["reasons"]

        # customer_emails' own test passed: its status is passing, its flag comes from upstream only
        own = _get(hw.url, "/api/v1/quality", nodeId=emails)["quality"]
        assert own["status"] == "passing"
        assert [(a["name"], a["column"], a["success"]) for a in own["assertions"]] == [
            ("not_null_customer_emails_id", "id", True)
        ]
