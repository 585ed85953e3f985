"""The job's script, for the job facets of the application and its executions: its ``file://`` URL and its source
(``sourceCode``), cut to ``spark.headwater.sourceCode.maxBytes``. Read once, when tracking starts."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

from headwater.capture.config import AgentConfig
from headwater.capture.events import SOURCE_CODE_FACET

log = logging.getLogger("headwater.capture")


def script_path() -> Path | None:
    script = sys.argv[0] if sys.argv else ""
    if script and script.endswith(".py") and os.path.isfile(script):
        return Path(script).resolve()
    return None


def script_url() -> str | None:
    script = script_path()
    return script.as_uri() if script is not None else None


def source_code(config: AgentConfig) -> tuple[str, str] | None:
    """("python", the script's text) for the ``sourceCode`` job facet: cut at the last line that fits in
    ``spark.headwater.sourceCode.maxBytes`` (a last comment line says so); None when off or unreadable."""
    limit = config.source_code_max_bytes
    script = script_path()
    if script is None or limit <= 0 or SOURCE_CODE_FACET in config.disabled_facets:
        return None
    try:
        with script.open("rb") as f:
            raw = f.read(limit + 1)
    except OSError as exc:
        log.debug("headwater: the script's source is not sent: %s", exc)
        return None
    if len(raw) > limit:
        cut = raw.rfind(b"\n", 0, limit)
        raw = raw[: cut + 1 if cut >= 0 else limit]
        text = raw.decode("utf-8", errors="replace")
        text += f"# ... cut by Headwater at {limit} bytes (spark.headwater.sourceCode.maxBytes)\n"
    else:
        text = raw.decode("utf-8", errors="replace")
    return ("python", text)
