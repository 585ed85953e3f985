"""JSON paths (``$.run.facets.parent.run.runId``, ``$[3].eventTime``) for problem reports."""

from __future__ import annotations

import re
from collections.abc import Iterable

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def json_path(parts: Iterable[str | int], root: str = "$") -> str:
    """Render path segments as a JSON path: identifiers as ``.key``, others as ``['key']``, indices as ``[i]``."""
    out = [root]
    for part in parts:
        if isinstance(part, int):
            out.append(f"[{part}]")
        elif _IDENT.match(part):
            out.append(f".{part}")
        else:
            escaped = part.replace("\\", "\\\\").replace("'", "\\'")
            out.append(f"['{escaped}']")
    return "".join(out)
