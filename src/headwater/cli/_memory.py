"""Keep a long-running server's C heap from holding on to memory it has freed (glibc only).

The server allocates and frees large blocks all the time — request bodies of hundreds of kB, parsed
25 kB events, SQLite's pages, orjson's buffers — from many threads (uvicorn's loop, the thread pool
that runs the endpoints, the projector). glibc's ``malloc`` gives each thread that needs one an arena
of its own (up to 8 per core) and gives freed memory back to the system only from the top of a heap:
free memory in the middle of an arena stays in the process's RSS. Measured in the soak
(docs/benchmarks.md, "Soak"): the Python heap (tracemalloc) stayed flat while glibc's free-but-kept
memory grew, and the RSS with it, by ~0.8 MB a minute for as long as the server ran.

:func:`bound_malloc` bounds that, once, at the start of ``headwater serve`` (each worker process):

- at most :data:`ARENAS` arenas (``mallopt(M_ARENA_MAX)``, what the ``MALLOC_ARENA_MAX`` environment
  variable does; an operator's own ``MALLOC_ARENA_MAX`` is left as it is);
- a daemon thread calls ``malloc_trim(0)`` every :data:`TRIM_EVERY` seconds, which hands the free
  pages inside every arena back to the system (``madvise``), not only those at the top.

On a C library other than glibc (musl, macOS) nothing is done: :func:`glibc` is None there.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import threading
import time
from typing import Any

ARENAS = 2  # soak: RSS growth +2.4 % with 2, +9.8 % with glibc's default (8 per core); the GIL leaves little contention
TRIM_EVERY = 10.0  # seconds; a trim of the server's heap takes ~1 ms (1-15 ms on the busy 2-core build machine)
_M_ARENA_MAX = -8  # from glibc's malloc.h

_started = threading.Lock()
_trimmer: threading.Thread | None = None


def glibc() -> Any | None:
    """glibc's library handle (with ``mallopt`` and ``malloc_trim``), or None on another C library."""
    name = ctypes.util.find_library("c")
    if not name:
        return None
    try:
        libc = ctypes.CDLL(name)
        libc.gnu_get_libc_version  # noqa: B018 - only glibc has it
        libc.mallopt, libc.malloc_trim  # noqa: B018
    except (OSError, AttributeError):
        return None
    libc.mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    libc.malloc_trim.argtypes = [ctypes.c_size_t]
    return libc


def limit_arenas(arenas: int = ARENAS) -> bool:
    """Let glibc make at most ``arenas`` arenas from now on; False when not applied (not glibc, or the
    operator's ``MALLOC_ARENA_MAX`` already says how many)."""
    libc = glibc()
    if libc is None or os.environ.get("MALLOC_ARENA_MAX"):
        return False
    return bool(libc.mallopt(_M_ARENA_MAX, arenas))


def trim() -> bool:
    """Hand the free pages of every arena back to the system now; whether any were (False when not glibc)."""
    libc = glibc()
    return bool(libc.malloc_trim(0)) if libc is not None else False


def _trim_forever(libc: Any, every: float) -> None:
    while True:
        time.sleep(every)
        libc.malloc_trim(0)


def bound_malloc(every: float = TRIM_EVERY) -> None:
    """Limit the arenas and start the trimming thread (once per process; nothing on another C library)."""
    global _trimmer
    libc = glibc()
    if libc is None:
        return
    with _started:
        if _trimmer is not None and _trimmer.is_alive():
            return
        limit_arenas()
        _trimmer = threading.Thread(target=_trim_forever, args=(libc, every), name="headwater-malloc-trim", daemon=True)
        _trimmer.start()
