"""The import graph points one way: cli -> demo -> harvest -> sql | crawl -> client -> api -> catalog -> graph ->
store -> ingest -> spec -> model; the PySpark agent (capture) imports none of the server's packages;
no api/ module imports the store's schema (tables are reached through their owner modules).

The contracts live in pyproject.toml (``[tool.importlinter]``); these tests run them with
import-linter, and check on a copy of the package that a back arrow (the store importing the graph)
is caught, so the check itself cannot silently pass.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

LINT = [
    sys.executable,
    "-c",
    "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())",
]


def _lint(pythonpath: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(pythonpath)}
    return subprocess.run(
        [*LINT, "--no-cache", str(REPO / "pyproject.toml")],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_layering_contracts_are_kept() -> None:
    result = _lint(REPO / "src")
    assert result.returncode == 0, result.stdout + result.stderr
    contracts = (REPO / "pyproject.toml").read_text().count("[[tool.importlinter.contracts]]")
    assert contracts >= 3 and f"{contracts} kept, 0 broken" in result.stdout


def test_a_back_arrow_breaks_the_contract(tmp_path: Path) -> None:
    shutil.copytree(
        REPO / "src" / "headwater", tmp_path / "headwater", ignore=shutil.ignore_patterns("__pycache__", "static")
    )
    store_init = tmp_path / "headwater" / "store" / "__init__.py"
    store_init.write_text(store_init.read_text() + "\nfrom headwater.graph import GraphReader  # a back arrow\n")
    spline_api = tmp_path / "headwater" / "api" / "spline.py"
    spline_api.write_text(spline_api.read_text() + "\nfrom headwater.store.schema import spline_plans  # a table\n")
    capture_init = tmp_path / "headwater" / "capture" / "__init__.py"
    capture_init.write_text(capture_init.read_text() + "\nimport headwater.store  # the agent importing the server\n")
    result = _lint(tmp_path)
    assert result.returncode != 0
    assert "headwater.store -> headwater.graph" in result.stdout
    assert "headwater.capture -> headwater.store" in result.stdout
    assert "headwater.api.spline -> headwater.store.schema" in result.stdout
    assert " 3 broken" in result.stdout
