"""Settings are typed: ``Settings`` declares one typed read per row of the settings table, for the type checker
(at run time the values come from the table), and this test keeps the declarations equal to the table."""

from __future__ import annotations

import re
from pathlib import Path

from headwater.settings import SETTINGS, Settings, load_settings

SOURCE = Path(__file__).resolve().parent.parent / "src" / "headwater" / "settings.py"
BEGIN, END = "# typed reads: begin", "# typed reads: end"


def expected_block() -> str:
    lines = [f"        {BEGIN} (one per row of SETTINGS; tests/test_settings_typed.py keeps them equal)"]
    for s in SETTINGS:
        lines += ["        @property", f"        def {s.name}(self) -> {s.type.__name__}: ..."]
    lines += ["", f"        {END}"]  # the blank line: as the formatter writes it
    return "\n".join(lines)


def test_the_typed_reads_are_the_settings_table() -> None:
    text = SOURCE.read_text(encoding="utf-8")
    found = re.search(rf" *{re.escape(BEGIN)}.*?{re.escape(END)}", text, re.S)
    assert found is not None, f"settings.py has no block between {BEGIN!r} and {END!r}"
    assert found.group(0) == expected_block(), "write this block into Settings:\n" + expected_block()


def test_each_value_has_its_declared_type() -> None:
    settings = load_settings({}, environ={})
    for s in SETTINGS:
        assert isinstance(getattr(settings, s.name), s.type), s.name
    assert isinstance(Settings(settings.values).port, int)
