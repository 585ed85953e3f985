"""Golden SQL cases: ``golden/<case>.sql`` (a header of ``-- key: value`` lines, then the script) →
a compact lineage document compared with ``golden/<case>.expected.json`` (written by make_golden.py for
review, then frozen: the test never writes it).

Header keys: ``dialect``, ``namespace``, ``default-database``, ``default-schema`` and any number of
``schema: <dataset name>(col, col, ...)`` lines (what the Headwater store or a live database would answer).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from headwater.sql import Catalog, analyze_script, get_dialect

GOLDEN = Path(__file__).resolve().parent / "golden"
_SCHEMA = re.compile(r"^\s*([^()\s]+)\s*\((.*)\)\s*$")


def header(text: str) -> dict[str, Any]:
    opts: dict[str, Any] = {"schema": {}}
    for line in text.splitlines():
        if not line.startswith("--"):
            break
        key, _, value = line[2:].partition(":")
        key, value = key.strip(), value.strip()
        if key == "schema":
            found = _SCHEMA.match(value)
            assert found, f"bad schema line {line!r}"
            opts["schema"][found.group(1)] = [c.strip() for c in found.group(2).split(",") if c.strip()]
        elif key:
            opts[key] = value
    return opts


def kind(t: Any) -> str:
    return f"{t.type}/{t.subtype}" + ("/masked" if t.masking else "")


def lineage_document(sql: str) -> list[dict[str, Any]]:
    opts = header(sql)
    dialect = get_dialect(opts.get("dialect", "ansi"))
    namespace = opts.get("namespace") or dialect.system
    records = analyze_script(
        sql,
        dialect=dialect,
        namespace=namespace,
        default_database=opts.get("default-database"),
        default_schema=opts.get("default-schema"),
        catalog=Catalog(tables=opts["schema"], namespace=namespace),
    )
    doc = []
    for r in records:
        if not (r.writes or r.error):
            continue
        entry: dict[str, Any] = {"statement": r.statement.index, "verb": r.verb}
        if r.error:
            entry["error"] = r.error
        entry["inputs"] = [f"{ns} {name}" for ns, name in r.inputs]
        outputs = {}
        for o in r.outputs:
            cols = None
            if o.columns is not None:
                cols = {
                    c: {
                        f"{ds}.{f}" if ds.split(".")[-1] != "" else f: sorted(kind(k) for k in kinds)
                        for (ds, f), kinds in sorted(deps.items())
                    }
                    for c, deps in o.columns
                }
            outputs[f"{o.namespace} {o.name}"] = {"kind": o.kind, "lifecycle": o.lifecycle, "columns": cols}
            if o.dataset:
                outputs[f"{o.namespace} {o.name}"]["dataset"] = {
                    f"{ds}.{f}": sorted(kind(k) for k in kinds) for (ds, f), kinds in sorted(o.dataset.items())
                }
        entry["outputs"] = outputs
        if r.notes:
            entry["notes"] = r.notes
        doc.append(entry)
    return doc


def cases() -> list[Path]:
    return sorted(GOLDEN.glob("*.sql"))
