"""Documentation stays true: every setting is documented, with its variable and default."""

from __future__ import annotations

import re
from pathlib import Path

from headwater.settings import SETTINGS

DOCS = Path(__file__).resolve().parent.parent / "docs"


def _rows() -> dict[str, list[str]]:
    rows: dict[str, list[str]] = {}
    for line in (DOCS / "settings.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        m = re.fullmatch(r"`(\w+)`", cells[0]) if line.startswith("|") else None
        if m:
            rows[m.group(1)] = cells
    return rows


def test_every_setting_is_documented_with_its_variable_and_default() -> None:
    rows = _rows()
    missing = [s.name for s in SETTINGS if s.name not in rows]
    assert not missing, f"settings missing from docs/settings.md: {', '.join(missing)}"
    for s in SETTINGS:
        env_cell, default_cell = rows[s.name][1], rows[s.name][3]
        assert env_cell == f"`{s.env}`", f"{s.name}: documented variable {env_cell} is not {s.env}"
        if s.default in ("", None):
            assert "empty" in default_cell, f"{s.name}: default should read (empty), got {default_cell}"
        else:
            assert str(s.default) in default_cell, f"{s.name}: default {s.default!r} not in {default_cell!r}"


def test_docs_mention_no_setting_that_does_not_exist() -> None:
    names = {s.name for s in SETTINGS}
    extra = sorted(set(_rows()) - names)
    assert not extra, f"docs/settings.md documents unknown settings: {', '.join(extra)}"


def test_serve_options_in_the_docs_exist() -> None:
    from click.testing import CliRunner

    from headwater.cli import cli

    help_text = CliRunner().invoke(cli, ["serve", "--help"]).output
    for cells in _rows().values():
        option = cells[2].strip("`")
        if option.startswith("--"):
            assert option in help_text, f"docs/settings.md names {option}, which `headwater serve` lacks"
