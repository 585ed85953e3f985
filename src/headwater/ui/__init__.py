"""The built lineage explorer (a single-page app), shipped as package data.

The TypeScript source lives in ``ui/`` at the repository root; ``cd ui && npm ci && npm run build``
writes the bundle into ``static/`` here. The API serves :func:`static_dir` at ``/`` with an SPA
fallback (any non-API GET that is not a file answers ``index.html``).
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["static_dir"]


def static_dir() -> Path:
    """Folder holding ``index.html`` and ``assets/`` of the built UI."""
    return Path(__file__).resolve().parent / "static"
