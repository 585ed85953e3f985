"""Print the Headwater API's OpenAPI document (``app.openapi()``) as the JSON committed in
ui/src/api/openapi.json: 2-space indent, UTF-8, a final newline.

Run by ``npm run gen-api-types`` / ``npm run check-api-types`` (ui/scripts/gen-api-types.mjs) and by
tests/api/test_api_openapi_types.py. The app is built over a throwaway SQLite store: the document
depends on the code only, not on data or settings.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any


def document() -> dict[str, Any]:
    from headwater.api import create_app
    from headwater.settings import load_settings
    from headwater.store import Store

    with tempfile.TemporaryDirectory(prefix="headwater-openapi-") as folder:
        store = Store.open(f"sqlite:///{Path(folder) / 'empty.db'}")
        try:
            doc: dict[str, Any] = create_app(load_settings({}, environ={}), store).openapi()
        finally:
            store.close()
    return doc


def text(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    sys.stdout.write(text(document()))
