"""Which line of the job's code ran each Spark action (the ``headwater_callSite`` run facet).

Spark tells its ``QueryExecutionListener`` about an execution after the fact, on its own thread, where the
Python stack of the call is gone. So the agent wraps PySpark's action methods (once per process, like the RDD
save hooks): DataFrame actions (``collect``, ``count``, ``show``, ``toPandas``, ...), the writers
(``DataFrameWriter.save/saveAsTable/insertInto/parquet/csv/...``, ``DataFrameWriterV2``) and
``SparkSession.sql`` (DDL and DML run eagerly there). The wrapper notes, on the calling thread, the first frame
outside PySpark and Headwater — the job's line — with the time window of the call; an execution whose start
falls inside a window was run by that call (the innermost, latest one when calls nest or threads overlap).

The wrapper does nothing else: the action's result or exception is returned unchanged, and any error of the
bookkeeping is swallowed. ``spark.openlineage.facets.headwater_callSite.disabled=true`` leaves the facet out.
"""

from __future__ import annotations

import functools
import os
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from types import FrameType
from typing import Any

DATAFRAME_ACTIONS = (
    "collect",
    "count",
    "show",
    "toPandas",
    "take",
    "tail",
    "head",
    "first",
    "foreach",
    "foreachPartition",
    "toLocalIterator",
    "checkpoint",
    "localCheckpoint",
)
WRITER_ACTIONS = ("save", "saveAsTable", "insertInto", "parquet", "csv", "json", "orc", "text", "jdbc")
WRITER_V2_ACTIONS = ("create", "replace", "createOrReplace", "append", "overwrite", "overwritePartitions")
SESSION_ACTIONS = ("sql",)
MAX_CALLS = 256  # windows remembered (the newest; an execution is reported within seconds of its call)
SLACK = 0.05  # seconds: Spark's clock for an execution's start and time.time() of the wrapper may differ this much

_LOCK = threading.Lock()
_INSTALLED = False
_CALLS: deque[_Call] = deque(maxlen=MAX_CALLS)
_DEPTH = threading.local()
_SKIP_DIRS: tuple[str, ...] = ()


@dataclass(frozen=True)
class CallSite:
    """A line of the job's code: the file, the 1-based line and the function around it."""

    file: str
    line: int
    function: str


@dataclass
class _Call:
    started: float
    ended: float | None
    site: CallSite


def _package_dir(module: str) -> str | None:
    mod = sys.modules.get(module)
    path = getattr(mod, "__file__", None)
    return os.path.dirname(os.path.abspath(path)) + os.sep if path else None


def _skip_dirs() -> tuple[str, ...]:
    global _SKIP_DIRS
    if not _SKIP_DIRS:
        dirs = [d for d in (_package_dir("pyspark"), _package_dir("headwater.capture"), _package_dir("py4j")) if d]
        _SKIP_DIRS = tuple(dirs)
    return _SKIP_DIRS


def caller_site(frame: FrameType | None) -> CallSite | None:
    """The first frame from ``frame`` outwards that is the job's code (not PySpark, py4j or the agent)."""
    skip = _skip_dirs()
    while frame is not None:
        filename = frame.f_code.co_filename
        if filename.startswith("<"):
            # "<stdin>", "<string>", a notebook cell: the job's code, named as Python names it; the import
            # machinery's "<frozen ...>" frames are not
            if not filename.startswith("<frozen"):
                return CallSite(filename, frame.f_lineno, frame.f_code.co_name)
        elif not os.path.abspath(filename).startswith(skip):
            return CallSite(os.path.abspath(filename), frame.f_lineno, frame.f_code.co_name)
        frame = frame.f_back
    return None


def find(started: float) -> CallSite | None:
    """The call site of the action whose call was running when an execution started at ``started`` (epoch s)."""
    best: _Call | None = None
    with _LOCK:
        calls = list(_CALLS)
    for call in calls:
        end = call.ended if call.ended is not None else float("inf")
        if call.started - SLACK <= started <= end + SLACK and (best is None or call.started >= best.started):
            best = call
    return best.site if best is not None else None


def _wrap(cls: type, name: str) -> None:
    original = cls.__dict__.get(name)
    if original is None or getattr(original, "_headwater_callsite", False):
        return

    @functools.wraps(original)
    def action(*args: Any, **kwargs: Any) -> Any:
        depth = getattr(_DEPTH, "value", 0)
        call = None
        if depth == 0:  # the outermost action: first() calls head() calls take() calls collect()
            try:
                site = caller_site(sys._getframe(1))
                if site is not None:
                    call = _Call(time.time(), None, site)
                    with _LOCK:
                        _CALLS.append(call)
            except Exception:  # noqa: BLE001 - bookkeeping never changes the action
                call = None
        _DEPTH.value = depth + 1
        try:
            return original(*args, **kwargs)
        finally:
            _DEPTH.value = depth
            if call is not None:
                call.ended = time.time()

    action._headwater_callsite = True  # type: ignore[attr-defined]
    setattr(cls, name, action)


def _classes() -> list[tuple[type, tuple[str, ...]]]:
    found: list[tuple[type, tuple[str, ...]]] = []
    try:  # PySpark 4: the classic DataFrame implements the actions
        from pyspark.sql.classic.dataframe import DataFrame
    except ImportError:  # PySpark 3.5
        from pyspark.sql.dataframe import DataFrame  # type: ignore[assignment]
    found.append((DataFrame, DATAFRAME_ACTIONS))
    from pyspark.sql.readwriter import DataFrameWriter, DataFrameWriterV2
    from pyspark.sql.session import SparkSession

    found += [
        (DataFrameWriter, WRITER_ACTIONS),
        (DataFrameWriterV2, WRITER_V2_ACTIONS),
        (SparkSession, SESSION_ACTIONS),
    ]
    return found


def install() -> None:
    """Wrap PySpark's action methods once per process."""
    global _INSTALLED
    with _LOCK:
        if _INSTALLED:
            return
        _INSTALLED = True
    for cls, names in _classes():
        for name in names:
            _wrap(cls, name)


def wrapped(method: Callable[..., Any]) -> bool:
    """Whether ``method`` is one of the agent's call-site wrappers (tests)."""
    return bool(getattr(method, "_headwater_callsite", False))
