"""The agent imported in a thread while the JVM starts (headwater.capture.prefetch): real modules written to a
temporary directory, a real slow launch function, failures swallowed and imported again on use, and a real
tracked PySpark child process (the import happens in the prefetch thread; the job and its warnings filters
are as without it)."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from headwater.capture.bootstrap import boot_dir
from headwater.capture.prefetch import Prefetch, prefetching, wrap_gateway_launch


@pytest.fixture
def modules(tmp_path: Path) -> Iterator[Path]:
    """A directory on sys.path for throw-away modules; they are forgotten afterwards."""
    sys.path.insert(0, str(tmp_path))
    before = set(sys.modules)
    yield tmp_path
    sys.path.remove(str(tmp_path))
    for name in set(sys.modules) - before:
        if name.startswith("hwpf_"):
            del sys.modules[name]


def write(directory: Path, name: str, body: str) -> str:
    (directory / f"{name}.py").write_text(textwrap.dedent(body), encoding="utf-8")
    importlib.invalidate_caches()
    return name


RECORD = """
import threading
IMPORTED_BY = threading.current_thread().name
"""

# A module whose import blocks until the test lets it go: ``hwpf_gate`` holds the events (imported by the test
# first, so both threads share it). ``entered`` is set when the import has begun, ``release`` lets it finish.
GATE = """
import threading
entered = threading.Event()
release = threading.Event()
"""
GATED = """
import threading, hwpf_gate
hwpf_gate.entered.set()
FINISHED_IN_TIME = hwpf_gate.release.wait(60)
IMPORTED_BY = threading.current_thread().name
"""


def gate(directory: Path) -> Any:
    return importlib.import_module(write(directory, "hwpf_gate", GATE))


def test_the_first_launch_imports_in_a_thread_and_joins_before_returning(modules: Path) -> None:
    g = gate(modules)
    name = write(modules, "hwpf_ok", GATED)
    seen_by_launch: list[tuple[bool, str]] = []

    def launch(conf: Any = None) -> str:
        # the import has begun in the other thread while launch runs (it would wait here 30 s and record
        # False if it had not); then it may finish, and the wrapper must wait for it before returning
        seen_by_launch.append((g.entered.wait(30), threading.current_thread().name))
        g.release.set()
        return f"gateway {conf}"

    wrapped = prefetching(launch, [name])
    assert wrapped("c") == "gateway c"
    assert seen_by_launch == [(True, threading.current_thread().name)]  # launch ran in the caller's thread
    module = sys.modules[name]  # joined: fully imported when launch returns
    assert module.FINISHED_IN_TIME is True and module.IMPORTED_BY == "headwater-prefetch"
    assert not [t for t in threading.enumerate() if t.name == "headwater-prefetch"]
    second = write(modules, "hwpf_second", RECORD)
    assert prefetching(launch, [second]) is not wrapped
    assert wrapped(conf=1) == "gateway 1"  # later launches start no prefetch
    assert second not in sys.modules
    assert len(seen_by_launch) == 2


@pytest.mark.parametrize(
    "error",
    [
        "raise RuntimeError('broken at import')",
        "raise SystemExit(3)",
        "raise KeyboardInterrupt",
        "import hwpf_does_not_exist",
    ],
)
def test_a_failing_import_is_swallowed_and_happens_again_on_use(modules: Path, error: str) -> None:
    name = write(modules, "hwpf_bad", f"{error}\n")
    after = write(modules, "hwpf_after", RECORD)
    prefetch = Prefetch.start([name, after])
    assert prefetch is not None and prefetch.join(30)
    assert [m for m, _ in prefetch.failed] == [name] and prefetch.imported == [after]
    assert sys.modules[after].IMPORTED_BY == "headwater-prefetch"
    assert name not in sys.modules
    with pytest.raises(BaseException) as raised:
        importlib.import_module(name)  # the caller's own import: the module's real behaviour
    assert type(raised.value).__name__ in prefetch.failed[0][1]


def test_the_launch_error_is_the_callers(modules: Path) -> None:
    name = write(modules, "hwpf_slow", RECORD)

    def launch() -> None:
        raise ValueError("no java")

    with pytest.raises(ValueError, match="no java"):
        prefetching(launch, [name])()
    assert sys.modules[name].IMPORTED_BY == "headwater-prefetch"


def test_nothing_to_import_starts_no_thread() -> None:
    assert Prefetch.start(["json", "headwater"]) is None


def test_the_join_is_bounded(modules: Path) -> None:
    """Past the join timeout the launch returns while the import is still running; the agent's own import
    later waits for that one (the module lock) and gets the module the thread imported."""
    g = gate(modules)
    name = write(modules, "hwpf_sleepy", GATED)
    try:
        assert prefetching(lambda: "gw", [name], timeout=0.1)() == "gw"
        assert g.entered.wait(30)
        # returned with the import blocked (release not set): the join gave up instead of waiting for it
        assert not g.release.is_set()
        assert [t for t in threading.enumerate() if t.name == "headwater-prefetch"]
    finally:
        g.release.set()
    module = importlib.import_module(name)
    assert module.FINISHED_IN_TIME is True and module.IMPORTED_BY == "headwater-prefetch"


def test_wraps_the_launch_gateway_pyspark_calls() -> None:
    """The ``launch_gateway`` that SparkContext's module calls (its global, read through the public module:
    ``pyspark.context`` on 3.5, ``pyspark.core.context`` on 4.x) is replaced by the prefetching wrapper."""
    from pyspark import SparkContext
    from pyspark.java_gateway import launch_gateway

    module = sys.modules[SparkContext.__module__]
    original = module.launch_gateway
    assert original is launch_gateway
    try:
        assert wrap_gateway_launch(SparkContext)
        wrapped = module.launch_gateway
        assert wrapped is not original and wrapped.__wrapped__ is original
        assert wrap_gateway_launch(SparkContext) and module.launch_gateway is wrapped  # idempotent
        assert not wrap_gateway_launch(object)
    finally:
        module.launch_gateway = original


CHILD = """
import json, sys, threading, warnings
importers = {}
# modules the agent's import statements load (importlib.import_module of the top one raises no audit event)
WATCHED = ("openlineage.client", "headwater.capture.events", "headwater.capture.lineage.snapshot")
def audit(event, args):
    if event == "import" and args[0] in WATCHED:
        importers.setdefault(args[0], threading.current_thread().name)
sys.addaudithook(audit)
from pyspark.sql import SparkSession
spark = SparkSession.builder.master("local[1]").appName("prefetch_child").config("spark.ui.enabled", "false").getOrCreate()
filters = sorted({(f[0], f[2].__module__ + "." + f[2].__qualname__, str(f[3])) for f in warnings.filters})
rows = spark.range(10).selectExpr("id * 2 AS x").collect()
spark.range(3).write.mode("overwrite").parquet(sys.argv[1])
spark.stop()
print(json.dumps({"importers": importers, "filters": filters, "sum": sum(r.x for r in rows)}))
"""


def _child(tmp_path: Path, tracked: bool) -> dict[str, Any]:
    script = tmp_path / "child.py"
    script.write_text(CHILD, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HEADWATER_", "OPENLINEAGE"))}
    if tracked:
        env.update(
            {
                "HEADWATER_CAPTURE": "1",
                "PYTHONPATH": os.pathsep.join([boot_dir(), env.get("PYTHONPATH", "")]),
                "HEADWATER_CONF": json.dumps(
                    {
                        "spark.openlineage.transport.type": "file",
                        "spark.openlineage.transport.location": str(tmp_path / "ev.ndjson"),
                        "spark.headwater.spool.dir": str(tmp_path / "spool"),
                    }
                ),
            }
        )
    out = subprocess.run(
        [sys.executable, str(script), str(tmp_path / f"out-{tracked}")],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.spark
def test_a_tracked_child_imports_the_agent_while_the_jvm_starts(tmp_path: Path) -> None:
    tracked = _child(tmp_path, True)
    assert tracked["importers"] == {
        "openlineage.client": "headwater-prefetch",
        "headwater.capture.events": "headwater-prefetch",
        "headwater.capture.lineage.snapshot": "headwater-prefetch",
    }
    events = [json.loads(line) for line in (tmp_path / "ev.ndjson").read_text().splitlines()]
    assert {e["eventType"] for e in events} >= {"START", "COMPLETE"}
    untracked = _child(tmp_path, False)
    assert untracked["importers"] == {} and tracked["sum"] == untracked["sum"]
    # the warnings filters the job sees after getOrCreate: everything it would have without the agent, and
    # nothing more than the agent's own libraries add (no leftover "ignore DeprecationWarning" from a
    # catch_warnings that overlapped PySpark's imports)
    plain = {tuple(f) for f in untracked["filters"]}
    extra = {tuple(f) for f in tracked["filters"]} - plain
    assert plain <= {tuple(f) for f in tracked["filters"]}
    assert all(f[1].startswith(("requests.", "urllib3.", "openlineage.")) for f in extra), extra
