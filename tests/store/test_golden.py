"""Golden tests of the pure derivation (input file → expected file, in tests/fixtures/stories/golden).

The test only compares: it never writes an expected file. When the derivation is meant to change, run
``.venv/bin/python tests/store/make_golden.py``, review the diff of the ``*.expected.json`` files by hand
and commit them with the change that explains them.
"""

from __future__ import annotations

import json

import pytest

from .golden_cases import CASES, GOLDEN


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden(name: str) -> None:
    given = json.loads((GOLDEN / f"{name}.input.json").read_text())
    expected = json.loads((GOLDEN / f"{name}.expected.json").read_text())
    assert CASES[name](given) == expected


def test_every_golden_input_has_a_case_and_an_expected_file() -> None:
    inputs = {p.name.removesuffix(".input.json") for p in GOLDEN.glob("*.input.json")}
    expected = {p.name.removesuffix(".expected.json") for p in GOLDEN.glob("*.expected.json")}
    assert inputs == expected == set(CASES)
