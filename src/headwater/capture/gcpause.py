"""Python's cyclic garbage collector held off while the agent reads and analyses a plan.

Reading a wide plan creates ~100,000 container objects (the 1 MB ``toJSON`` parsed, the expression tree, the
lineage graph, the events) that live only until its events are built. While they exist, every ~700 allocations
start a young-generation collection that walks them again, and once enough of them have been promoted the
collector runs a *full* collection, which walks every object of the driver process — PySpark, pandas, numpy
and pyarrow make that 125,000+ objects. Measured on the wide job's plan in a process holding PySpark's heap:
the same work costs 30–35 ms with the collector off and 35–140 ms with it on, depending on whether a full
collection falls inside it. The agent's own work has no reference cycles it needs collected.

:func:`paused` holds the collector off for the duration of a section of the agent's work (the listener's
snapshot, the worker's analysis and event building):

- sections from the agent's threads are counted: the collector is disabled when the first one starts and
  enabled again when the last one ends, so overlapping sections never switch it back on early;
- only a collector that was on is paused: when it is off at the first section's start (the user's choice),
  nothing is changed, then or at the end;
- the collections skipped are not owed afterwards: the collector's allocation count also goes down when
  objects are freed, and the section's objects are mostly freed by the time it ends;
- it never raises, and the section's own exceptions pass through unchanged.

What it changes for the user's code: while a section runs (from the listener's callback to the end of the
analysis: the JVM's ``toJSON`` included, ~0.3–0.6 s on the wide benchmark plan on a loaded machine, milliseconds
on small plans), cyclic garbage the user's threads make waits for the next collection after it; nothing else. A user
thread that calls ``gc.disable()`` while a section runs would see the collector enabled again at its end.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_active = 0  # sections running now
_paused_by_us = False  # whether the running sections disabled an enabled collector


def _enter() -> None:
    global _active, _paused_by_us
    with _lock:
        if _active == 0:
            _paused_by_us = gc.isenabled()
            if _paused_by_us:
                gc.disable()
        _active += 1


def _leave() -> None:
    global _active, _paused_by_us
    with _lock:
        _active -= 1
        if _active == 0 and _paused_by_us:
            _paused_by_us = False
            gc.enable()


class Hold:
    """One section, started by :func:`hold`; :meth:`release` ends it (idempotent: callable from any thread, any
    number of times, so every path that may own the section can end it)."""

    def __init__(self) -> None:
        self._held = False
        try:
            _enter()
            self._held = True
        except Exception:  # noqa: BLE001 - without the pause the work still runs, only slower
            pass

    def release(self) -> None:
        with _lock:
            if not self._held:
                return
            self._held = False
        try:
            _leave()
        except Exception:  # noqa: BLE001
            pass


def hold() -> Hold:
    """Start a section that may end in another thread (the listener's snapshot, analysed on the worker)."""
    return Hold()


@contextmanager
def paused() -> Iterator[None]:
    """Hold the cyclic collector off while the ``with`` block runs (see the module's contract)."""
    section = Hold()
    try:
        yield
    finally:
        section.release()
