"""Timing from inside one benchmark process, the same with and without the agent.

A workload script calls :func:`install` before it builds its SparkSession. The probe wraps
``SparkSession.Builder.getOrCreate`` and ``SparkSession.stop`` (after the agent's bootstrap has wrapped
``getOrCreate``, so session start-up *includes* ``track()`` when the process is tracked) and records:

- ``session_s``   building the session (JVM start-up, and the agent's start when tracked)
- ``work_s``      from the session being ready to ``spark.stop()`` being called: the job's own work
- ``stop_s``      ``spark.stop()`` (the agent's final flush happens here when tracked)
- ``actions``     the script's own per-action timings (``mark``)
- ``py_cpu_s``    CPU of this Python process (driver side: PySpark and the agent)
- ``jvm_cpu_s``   CPU of the driver JVM (from /proc, read right after ``spark.stop()``)
- ``jvm_<group>_cpu_s`` the JVM's CPU by thread group when ``spark.stop()`` is called: ``jit``
                  (C1/C2 compilers), ``gc``, ``listener_bus`` (the agent's callbacks run there), ``tasks``, ``other``
- ``py_max_rss_bytes``, ``jvm_max_rss_bytes`` (VmHWM)

and writes them as JSON to ``$HW_BENCH_OUT`` when the script ends.
"""

from __future__ import annotations

import atexit
import json
import os
import resource
import time
from pathlib import Path
from typing import Any

_T0 = time.perf_counter()
_result: dict[str, Any] = {"actions": {}, "sessions": 0, "work_s": 0.0, "stop_s": 0.0, "session_s": 0.0}
_state: dict[str, Any] = {"ready": None, "jvm_pid": None}


def _jvm_pid(spark: Any) -> int | None:
    try:
        return int(spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid())
    except Exception:  # noqa: BLE001
        return None


def _proc_cpu(pid: int) -> float | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def _proc_hwm(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        return None
    return None


_THREAD_GROUPS = (
    ("C1 CompilerThre", "jit"),
    ("C2 CompilerThre", "jit"),
    ("GC Thread", "gc"),
    ("G1 ", "gc"),
    ("spark-listener", "listener_bus"),
    ("Executor task", "tasks"),
)


def _jvm_threads_cpu(pid: int) -> dict[str, float]:
    """CPU seconds of the JVM's threads so far, grouped by name: JIT compilers, GC, Spark's listener bus
    (where the agent's callbacks run), task threads, everything else."""
    out: dict[str, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return out
    for task in tasks:
        try:
            name = (task / "comm").read_text().strip()
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
            cpu = (int(fields[11]) + int(fields[12])) / tick
        except (OSError, IndexError, ValueError):
            continue
        group = next((g for prefix, g in _THREAD_GROUPS if name.startswith(prefix)), "other")
        out[group] = out.get(group, 0.0) + cpu
    return out


def mark(name: str, seconds: float) -> None:
    """Record the time of one action of the script."""
    _result["actions"][name] = seconds


def install() -> None:
    from pyspark.sql import SparkSession

    builder_cls = SparkSession.Builder
    original_get = builder_cls.getOrCreate
    original_stop = SparkSession.stop

    def get_or_create(self: Any) -> Any:
        started = time.perf_counter()
        spark = original_get(self)
        if _state["ready"] is None:
            _result["session_s"] += time.perf_counter() - started
            _result["sessions"] += 1
            _state["ready"] = time.perf_counter()
            _state["jvm_pid"] = _state["jvm_pid"] or _jvm_pid(spark)
        return spark

    def stop(self: Any) -> None:
        began = time.perf_counter()
        if _state["ready"] is not None:
            _result["work_s"] += began - _state["ready"]
            _state["ready"] = None
        if _state["jvm_pid"] is not None:  # before stop: the executor's threads still exist
            for group, cpu in _jvm_threads_cpu(_state["jvm_pid"]).items():
                _result[f"jvm_{group}_cpu_s"] = _result.get(f"jvm_{group}_cpu_s", 0.0) + cpu
        original_stop(self)
        _result["stop_s"] += time.perf_counter() - began
        pid = _state["jvm_pid"]
        if pid is not None:  # the JVM lives until the interpreter exits; read it now
            _result["jvm_cpu_s"] = _proc_cpu(pid)
            _result["jvm_max_rss_bytes"] = _proc_hwm(pid)

    builder_cls.getOrCreate = get_or_create  # type: ignore[method-assign]
    SparkSession.stop = stop  # type: ignore[method-assign]
    atexit.register(_write)


def _write() -> None:
    target = os.environ.get("HW_BENCH_OUT")
    if not target:
        return
    usage = resource.getrusage(resource.RUSAGE_SELF)
    _result["script_s"] = time.perf_counter() - _T0
    _result["py_cpu_s"] = usage.ru_utime + usage.ru_stime
    _result["py_max_rss_bytes"] = usage.ru_maxrss * 1024
    _result["tracked"] = os.environ.get("HEADWATER_CAPTURE") == "1"
    Path(target).write_text(json.dumps(_result), encoding="utf-8")
