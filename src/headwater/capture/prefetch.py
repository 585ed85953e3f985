"""Importing the agent while the JVM starts, not after.

A tracked process pays for importing the agent (openlineage-python's ``client`` package imports every
transport it has, with ``requests``, ``urllib3``, ``httpx``, ``asyncio``, ``yaml``, ``attrs``: ~0.3 s of CPU on
a quiet core) when its first SparkSession is tracked, right after ``getOrCreate()``. While PySpark's
``launch_gateway`` starts the driver JVM (1–4 s), the Python thread that called it only waits (``Popen``, then
a sleep loop until the JVM writes its connection file). :func:`wrap_gateway_launch` uses that wait: the
wrapped ``launch_gateway`` starts a daemon thread that imports the agent's modules, calls the real
``launch_gateway``, and joins the thread (bounded) before it returns.

Why it cannot fail or change the user's job:

- the thread catches everything (``BaseException``) and only records it; a module whose import failed is
  not in ``sys.modules`` and is simply imported again, in the caller's thread, when the agent needs it;
- the thread runs only inside ``launch_gateway`` and is joined before it returns, so the job's own Python
  code (and PySpark's: on PySpark 4 the rest of ``getOrCreate`` imports pandas, numpy and pyarrow, which
  touch the warnings filters) never runs concurrently with it. This matters beyond the import locks:
  openlineage-python's package ``__init__`` uses ``warnings.catch_warnings``, which swaps the process-wide
  filter list and is not thread-safe — overlapping another thread's filter changes could drop them, or leave
  openlineage's temporary "ignore DeprecationWarning" in place for the whole job;
- deadlocks on import locks need two threads each importing a module the other one needs; the thread that
  called ``launch_gateway`` imports nothing while it waits (PySpark 3.5 and 4.x, tested), and holds no lock
  of a module the agent imports (the agent imports no PySpark module at import time). Another thread of the
  user's that imports concurrently is no different from the agent importing itself later;
- the join is bounded (:data:`JOIN_TIMEOUT`): past it, ``launch_gateway`` returns anyway and the import
  goes on in the background — the agent's own import then waits on the import locks, as for any import;
- at most one prefetch per process (the wrapper remembers it ran); a process whose agent is already
  imported (a second session, ``track()`` in a notebook) starts none.
"""

from __future__ import annotations

import importlib
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any

from headwater.capture.jvmtypes import PySparkObject

# what the agent imports when a session is tracked (headwater.capture.tracker pulls openlineage-python)
AGENT_MODULES: tuple[str, ...] = ("headwater.capture.tracker", "headwater.capture.lineage")
JOIN_TIMEOUT = 30.0
_MARK = "_headwater_prefetch"


class Prefetch:
    """A daemon thread importing ``modules``; never raises, in the thread or in :meth:`join`."""

    def __init__(self, modules: Sequence[str] = AGENT_MODULES) -> None:
        self.modules = tuple(modules)
        self.imported: list[str] = []
        self.failed: list[tuple[str, str]] = []  # (module, "Type: message"), for tests and debugging
        self.thread = threading.Thread(target=self._run, name="headwater-prefetch", daemon=True)

    @classmethod
    def start(cls, modules: Sequence[str] = AGENT_MODULES) -> Prefetch | None:
        """A started prefetch, or None when there is nothing to import (or the thread cannot start)."""
        todo = [m for m in modules if m not in sys.modules]
        if not todo:
            return None
        try:
            prefetch = cls(todo)
            prefetch.thread.start()
            return prefetch
        except BaseException:  # noqa: BLE001 - no thread, no prefetch: the agent imports on use
            return None

    def _run(self) -> None:
        for name in self.modules:
            try:
                importlib.import_module(name)
                self.imported.append(name)
            except BaseException as exc:  # noqa: BLE001 - imported again on use, in the caller's thread
                self.failed.append((name, f"{type(exc).__name__}: {exc}"))

    def join(self, timeout: float = JOIN_TIMEOUT) -> bool:
        """Wait at most ``timeout`` seconds; True when the thread is done."""
        try:
            self.thread.join(timeout)
            return not self.thread.is_alive()
        except BaseException:  # noqa: BLE001
            return False


def prefetching(
    launch: Callable[..., Any], modules: Sequence[str] = AGENT_MODULES, timeout: float = JOIN_TIMEOUT
) -> Callable[..., Any]:
    """``launch`` (PySpark's ``launch_gateway``) wrapped: the first call imports ``modules`` in a thread while
    ``launch`` runs, and joins it (at most ``timeout`` s) before returning or raising what ``launch`` did."""
    state: dict[str, bool] = {"ran": False}

    def launch_gateway(*args: Any, **kwargs: Any) -> Any:
        prefetch = None
        if not state["ran"]:
            state["ran"] = True
            prefetch = Prefetch.start(modules)
        try:
            return launch(*args, **kwargs)
        finally:
            if prefetch is not None:
                prefetch.join(timeout)

    launch_gateway.__wrapped__ = launch  # type: ignore[attr-defined]
    setattr(launch_gateway, _MARK, True)
    return launch_gateway


def wrap_gateway_launch(spark_context_class: PySparkObject) -> bool:
    """Wrap the ``launch_gateway`` that ``SparkContext._ensure_initialized`` calls (a global of the module that
    defines it: ``pyspark.context`` on 3.5, ``pyspark.core.context`` on 4.x). Idempotent; False when PySpark
    does not look as expected (then nothing is changed)."""
    try:
        method = spark_context_class._ensure_initialized
        namespace = getattr(method, "__func__", method).__globals__
        current = namespace.get("launch_gateway")
        if not callable(current):
            return False
        if getattr(current, _MARK, False):
            return True
        namespace["launch_gateway"] = prefetching(current)
        return True
    except Exception:  # noqa: BLE001 - an unknown PySpark: no prefetch, capture as before
        return False
