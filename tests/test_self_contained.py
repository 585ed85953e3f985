"""A fresh clone must install and pass with nothing beside it.

The development checkout has a sibling ``shared/`` folder (the official OpenLineage spec and design
notes); a clone on a new machine does not. Code, tests, scripts and benchmarks must read only what
the repository carries: the spec lives in ``tests/fixtures/openlineage-spec`` (tests) and
``src/headwater/spec/schemas`` (run time).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SPEC_DIR = REPO / "tests" / "fixtures" / "openlineage-spec"  # what tests/conftest.py's spec_dir gives

# the sibling folder by a relative or absolute path, or a Path built with a "shared" part next to the spec
_SIBLING = re.compile(r"""\.\./shared\b|/work/shared\b|["']shared["']\s*/|/\s*["']shared["']""")


def _tracked_sources() -> list[Path]:
    out = subprocess.run(
        ["git", "ls-files", "-z", "--", "*.py", "*.sh", "*.toml", "*.cfg", "*.ini", "scripts/*", ".ci/*"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.decode()
    return [REPO / name for name in out.split("\0") if name]


def test_no_source_reads_a_sibling_shared_folder() -> None:
    files = _tracked_sources()
    assert len(files) > 50, "git ls-files found too few files: is this a git checkout?"
    offending = [
        f"{path.relative_to(REPO)}:{number}: {line.strip()}"
        for path in files
        if path.is_file() and path != Path(__file__).resolve()
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1)
        if _SIBLING.search(line)
    ]
    assert offending == []


def test_the_pattern_catches_each_way_of_reaching_shared() -> None:
    sibling = "shared"  # written apart so that these examples are not themselves lines that reach the folder
    for line in (
        f'SPEC = REPO.parent / "{sibling}" / "openlineage-spec"',
        f"open('../{sibling}/x.json')",
        f'p = "/work/{sibling}/openlineage-spec"',
    ):
        assert _SIBLING.search(line), line
    assert not _SIBLING.search('shared = Leaf("shared", [])')


def test_the_official_spec_is_in_the_repository() -> None:
    assert SPEC_DIR.is_relative_to(REPO)
    assert (SPEC_DIR / "OpenLineage.json").is_file()
    assert len(list((SPEC_DIR / "facets").glob("*.json"))) >= 20
    assert len(list((SPEC_DIR / "tests").glob("*/*.json"))) >= 20
    notice = (SPEC_DIR / "NOTICE").read_text()
    assert "Apache License" in notice and "OpenLineage" in notice


def test_no_test_imports_from_conftest() -> None:
    """``conftest`` names a different module in every test folder; which one an import finds depends on
    what pytest collected first, so ``from conftest import ...`` passes alone and fails in another run.
    Shared helpers live in modules with their own names (tests/live_server.py, tests/spline/spline_helpers.py)."""
    offenders = [
        str(path.relative_to(REPO))
        for path in _tracked_sources()
        if path.is_file()
        and path.suffix == ".py"
        and path.parts[len(REPO.parts)] == "tests"
        and path != Path(__file__).resolve()
        and any(line.startswith(("from conftest import", "import conftest")) for line in path.read_text().splitlines())
    ]
    assert offenders == []
