"""What starting a tracked process imports.

``headwater run`` (the launcher) and ``sitecustomize`` (in every Python process of a tracked job, PySpark's
workers included) run before the job's first line; each heavy library they import is start-up time added to
every job. These tests pin *which* modules get imported — a contract, not a timing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

HEAVY = (
    "openlineage",
    "sqlalchemy",
    "alembic",
    "fastapi",
    "starlette",
    "uvicorn",
    "pyspark",
    "requests",
    "httpx",
    "attrs",
    "rich",
    "headwater.store",
    "headwater.api",
    "headwater.capture.tracker",
)


def _heavy_modules_after(code: str, env: dict[str, str] | None = None) -> list[str]:
    probe = (
        f"{code}\nimport json, sys\n"
        f"print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r} "
        f"or m.startswith({HEAVY!r}))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, env={**os.environ, **(env or {})}
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_bootstrap_imports_nothing_heavy_until_a_session_is_tracked() -> None:
    assert _heavy_modules_after("import headwater.capture.bootstrap as b; b.activate()") == []


def test_the_sitecustomize_of_headwater_run_imports_nothing_heavy() -> None:
    from headwater.capture.bootstrap import boot_dir

    env = {"HEADWATER_CAPTURE": "1", "PYTHONPATH": os.pathsep.join([boot_dir(), os.environ.get("PYTHONPATH", "")])}
    assert _heavy_modules_after("import sitecustomize", env) == []


def test_the_run_command_loads_only_itself() -> None:
    code = (
        "from click.testing import CliRunner\nfrom headwater.cli import cli\n"
        "result = CliRunner().invoke(cli, ['run', '--help'])\nassert result.exit_code == 0, result.output"
    )
    assert _heavy_modules_after(code) == []


def test_the_package_still_exports_the_agent_api() -> None:
    import headwater.capture as capture

    assert set(capture.__all__) <= set(dir(capture))
    assert capture.track.__module__ == "headwater.capture.tracker"
    assert capture.Tracker.__name__ == "Tracker"
    assert capture.load_config.__module__ == "headwater.capture.config"
