"""Node ids are sliced and formatted only in headwater/model/nodeid.py: a scan of the source for the hand-made
forms (a prefix literal with a value after it, a prefix's length, a prefix constant glued to text). Sorting ids
by kind with ``id.startswith(DATASET)`` is allowed (the prefix is still written in nodeid.py only)."""

from __future__ import annotations

import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "headwater"
PREFIXES = r"(?:dataset|job|run|datasetField|error)"
CONSTANTS = r"(?:DATASET|JOB|FIELD|RUN|ERROR)"
HAND_MADE = [
    re.compile(rf"""[fF]?["']{PREFIXES}:(?:\{{|["'])"""),  # f"dataset:{ns}..." or the bare prefix "dataset:"
    re.compile(rf"""["']{PREFIXES}:\{{\}}"""),  # "job:{}:{}".format(...)
    re.compile(rf"""len\(\s*(?:{CONSTANTS}|["']{PREFIXES}:["'])\s*\)"""),  # slicing by a prefix's length
    re.compile(rf"""(?<![\w.]){CONSTANTS}\s*\+|\{{{CONSTANTS}\}}"""),  # DATASET + rest, f"{DATASET}{rest}"
]


def offenders(root: Path) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.py")):
        if path == root / "model" / "nodeid.py":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if any(p.search(line) for p in HAND_MADE):
                found.append(f"{path.relative_to(root)}:{number}: {line.strip()}")
    return found


def test_node_ids_are_made_and_cut_only_in_nodeid() -> None:
    assert offenders(SRC) == []


def test_the_scan_finds_each_hand_made_form(tmp_path: Path) -> None:
    lines = [
        'node = f"dataset:{namespace}:{name}"',
        'rest = text[len("datasetField:") :]',
        "rest = text[len(FIELD) :]",
        'found.add("job:{}:{}".format(*job))',
        "prefix = FIELD + rest",
        'key = f"{DATASET}{ns}:{name}"',
        'kind = "run:"',
        'node = f"error:{row.id}"',
    ]
    for i, line in enumerate(lines):
        (tmp_path / f"m{i}.py").write_text(line + "\n")
    (tmp_path / "fine.py").write_text(
        'ok = node.startswith(DATASET)\nhelp = "dataset:<ns>:<name> or job:<ns>:<name>"\nDATASET_LIST = [1] + [2]\n'
    )
    assert len(offenders(tmp_path)) == len(lines)
