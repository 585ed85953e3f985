"""Two dbt ``manifest.json`` files (before/after a pull request) → proposed changes (pure).

Models, seeds and snapshots are compared by ``unique_id``; each is the dataset dbt-ol names
``<database>.<schema>.<alias or name>`` in the namespace of the warehouse (``--namespace``: the manifest
does not hold the host). A node gone, or built into another relation, is a ``drop_dataset`` of its old
relation; a documented column gone is a ``drop_column`` (a ``rename_column`` when exactly one column went
and one came with the same ``data_type``); a column whose ``data_type`` changed is a ``retype_column``.
dbt knows the columns a model's YAML documents: undocumented columns are not compared.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from headwater.model.changes import DROP_COLUMN, DROP_DATASET, RENAME_COLUMN, RETYPE_COLUMN, Change

_KINDS = ("model", "seed", "snapshot")


class ManifestError(ValueError):
    """A manifest that cannot be read."""


def _nodes(path: str | Path) -> dict[str, Mapping[str, Any]]:
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ManifestError(f"{path}: cannot read a dbt manifest: {exc}") from None
    nodes = doc.get("nodes") if isinstance(doc, dict) else None
    if not isinstance(nodes, dict):
        raise ManifestError(f"{path}: not a dbt manifest (no 'nodes' object)")
    return {k: v for k, v in nodes.items() if isinstance(v, dict) and v.get("resource_type") in _KINDS}


def relation(node: Mapping[str, Any]) -> str:
    parts = [node.get("database"), node.get("schema"), node.get("alias") or node.get("name")]
    return ".".join(str(p) for p in parts if p)


def _columns(node: Mapping[str, Any]) -> dict[str, str | None]:
    cols = node.get("columns") if isinstance(node.get("columns"), dict) else {}
    out: dict[str, str | None] = {}
    for key, col in (cols or {}).items():
        name = col.get("name", key) if isinstance(col, dict) else key
        dtype = col.get("data_type") if isinstance(col, dict) else None
        out[str(name)] = str(dtype) if dtype else None
    return out


def manifest_changes(before: str | Path, after: str | Path, namespace: str) -> list[Change]:
    """What changes between the two manifests (see the module docstring)."""
    old, new = _nodes(before), _nodes(after)
    relations_after = {relation(n) for n in new.values()}
    changes: list[Change] = []
    for uid in sorted(old):
        was = old[uid]
        name = relation(was)
        origin = f"{after}: {uid}"
        now = new.get(uid)
        if now is None or relation(now) != name:
            if name in relations_after:
                continue  # another node builds the same relation
            note = "removed from the project" if now is None else f"now built as {relation(now)}"
            changes.append(Change(DROP_DATASET, namespace, name, origin=origin, notes=(note,)))
            continue
        before_cols, after_cols = _columns(was), _columns(now)
        lower_after = {c.lower(): c for c in after_cols}
        gone = [c for c in before_cols if c.lower() not in lower_after]
        came = [c for c in after_cols if c.lower() not in {b.lower() for b in before_cols}]
        if len(gone) == 1 and len(came) == 1 and before_cols[gone[0]] == after_cols[came[0]]:
            changes.append(Change(RENAME_COLUMN, namespace, name, column=gone[0], new_name=came[0], origin=origin))
        else:
            changes.extend(Change(DROP_COLUMN, namespace, name, column=c, origin=origin) for c in gone)
        for col, dtype in before_cols.items():
            new_type = after_cols.get(lower_after.get(col.lower(), ""))
            if dtype and new_type and dtype.lower() != new_type.lower():
                changes.append(Change(RETYPE_COLUMN, namespace, name, column=col, new_type=new_type, origin=origin))
    return changes
