"""Regenerate tests/sql/golden/*.expected.json for REVIEW (never run by the tests): `python tests/sql/make_golden.py
[case ...]`, then read the diff line by line before committing — the expectations are the specification."""

from __future__ import annotations

import json
import sys

from golden_util import GOLDEN, cases, lineage_document


def main() -> None:
    wanted = set(sys.argv[1:])
    for path in cases():
        if wanted and path.stem not in wanted:
            continue
        doc = lineage_document(path.read_text())
        (GOLDEN / f"{path.stem}.expected.json").write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
        print(f"wrote {path.stem}.expected.json")


if __name__ == "__main__":
    main()
