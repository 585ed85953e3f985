"""Rewrite the expected files of tests/store/test_golden.py from today's derivation:
``.venv/bin/python tests/store/make_golden.py [NAME ...]`` (all cases without a name).

The expected files are the reference the test holds the code to: review ``git diff
tests/fixtures/stories/golden`` by hand before committing — a changed answer must be the one you meant.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: `fixtures` and this package

from store.golden_cases import CASES, GOLDEN


def main(names: list[str]) -> int:
    unknown = sorted(set(names) - set(CASES))
    if unknown:
        print(f"unknown case(s) {unknown}; the cases are {sorted(CASES)}", file=sys.stderr)
        return 2
    for name in names or sorted(CASES):
        path = GOLDEN / f"{name}.expected.json"
        got = CASES[name](json.loads((GOLDEN / f"{name}.input.json").read_text()))
        text = json.dumps(got, indent=1, sort_keys=True) + "\n"
        old = path.read_text() if path.exists() else None
        path.write_text(text)
        print(
            f"{path.relative_to(Path.cwd()) if path.is_relative_to(Path.cwd()) else path}: "
            f"{'unchanged' if old == text else 'WRITTEN — review the diff'}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
