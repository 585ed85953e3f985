"""Writing a small state file so that a crash leaves either the old file or the new one, never a mix.

:func:`write_atomic` writes a temporary file beside the target, flushes and fsyncs it, renames it over the
target and fsyncs the folder (so the rename itself survives a power cut); on any failure the temporary file
is removed. The crawler's state and the harvesters' checkpoints are written with it.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def write_atomic(path: Path, text: str) -> None:
    """Replace ``path``'s content with ``text`` (UTF-8), atomically and durably; creates the folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    with contextlib.suppress(OSError):  # a folder that cannot be opened for fsync (some platforms): renamed anyway
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
