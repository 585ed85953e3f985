"""The UI's API types are generated from the current OpenAPI document (docs/ui.md, "API types").

ui/src/api/openapi.json is the document ui/src/api/schema.d.ts is generated from
(``cd ui && npm run gen-api-types``); it must be what the current code's app gives, so a changed
response model or route fails here until the UI's types are regenerated (and the UI type-checks
against them). scripts/test also runs ``npm run check-api-types``, which regenerates both files and
compares them with the committed ones.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[2]
COMMITTED = REPO / "ui" / "src" / "api" / "openapi.json"
DUMP = REPO / "ui" / "scripts" / "dump_openapi.py"


def dump_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("dump_openapi", DUMP)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_committed_openapi_document_is_the_current_one() -> None:
    dump = dump_module()
    current: str = dump.text(dump.document())
    committed = COMMITTED.read_text(encoding="utf-8")
    if committed != current:
        old, new = json.loads(committed), json.loads(current)
        changed = sorted(
            {*old["components"]["schemas"], *new["components"]["schemas"]}
            - {
                name
                for name in old["components"]["schemas"]
                if old["components"]["schemas"][name] == new["components"]["schemas"].get(name)
            }
        )
        paths = sorted(p for p in {*old["paths"], *new["paths"]} if old["paths"].get(p) != new["paths"].get(p))
        raise AssertionError(
            f"ui/src/api/openapi.json is not the current API's document (schemas changed: {changed}; "
            f"paths changed: {paths}). Regenerate the UI's types: cd ui && npm run gen-api-types, "
            "then npm run typecheck and commit ui/src/api/."
        )
