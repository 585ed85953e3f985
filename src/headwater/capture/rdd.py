"""RDD jobs (no Spark SQL): ``sc.textFile(...).map(...).saveAsTextFile(path)``, ``parallelize`` →
``mapPartitions`` → ``saveAsTextFile``, ``sc.textFile(...).count()``. Spark's ``QueryExecutionListener`` never
hears of them, so the agent wraps PySpark's RDD save methods and the three calls every PySpark RDD action ends in
(``RDD.collect`` — ``count``, ``reduce``, ``foreach``, ``sum``... —, ``RDD.toLocalIterator`` and
``SparkContext.runJob`` — ``take``, ``first``, ``isEmpty``...), once per process, while a tracker is live. After
the outermost such call on a thread returns (or fails) it reports one run, as the OpenLineage integration's
``RddExecutionContext`` does —

- job ``<app>.<rdd name>`` (``RddExecutionContext.nameRDD``: the saved RDD's name or class, followed by its
  dependencies' names, normalised), jobType ``RDD_JOB``;
- inputs: the files the RDD reads (its dependency graph walked to Hadoop and file-scan RDDs:
  :func:`headwater.capture.lineage.handlers.reads.rdd_input_paths`); output: the saved path (none for an action,
  which is then reported when it reads files, as read-only SQL executions are).

The wrapper only times the call and hands the RDD to the agent's worker thread, which makes the py4j reads;
any error in capture is swallowed (the save's own result or exception is returned unchanged).
``spark.openlineage.filter.rddEventsDisabled=true`` switches this off.
"""

from __future__ import annotations

import functools
import logging
import re
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from headwater.capture.jvmtypes import JavaObject, PySparkObject

if TYPE_CHECKING:
    from headwater.capture.tracker import Tracker

R = TypeVar("R")
# the live tracker of a SparkContext, or None
FindTracker = Callable[[PySparkObject], "Tracker | None"]
# what to report once a wrapped call returned: (tracker, started, failure, the Spark jobs it ran)
Report = Callable[["Tracker", float, BaseException | None, tuple[int, int] | None], None]

log = logging.getLogger("headwater.capture")

SAVE_METHODS = (
    "saveAsTextFile",
    "saveAsPickleFile",
    "saveAsHadoopFile",
    "saveAsNewAPIHadoopFile",
    "saveAsSequenceFile",
)
MAX_JOB_NAME_LENGTH = 100  # RddExecutionContext.MAX_JOB_NAME_LENGTH (dependency part)
MAX_NAMED_RDDS = 200
_CAMEL_TO_SNAKE = re.compile(r"[\s\-_]?((?<=.)[A-Z](?=[a-z\s\-_])|(?<=[^A-Z])[A-Z]|((?<=[\s\-_])[a-z\d]))")
_INSTALL_LOCK = threading.Lock()
_INSTALLED = False


def _class_name(rdd: JavaObject) -> str:
    return str(rdd.getClass().getSimpleName())


def _class_part(rdd: JavaObject) -> str:
    """``MapPartitionsRDD`` → ``map_partitions`` (the integration's rule: no trailing RDD, camel to snake)."""
    simple = re.sub(r"RDD\d*$", "", _class_name(rdd))
    return _CAMEL_TO_SNAKE.sub(r"_\1", simple).lower()


def name_rdd(rdd: JavaObject, budget: list[int] | None = None) -> str:
    """``RddExecutionContext.nameRDD`` over py4j: the RDD's own name (a HadoopRDD named after its path, or a
    map named like its parent, uses its class instead), then its dependencies' names joined by ``_``."""
    budget = budget if budget is not None else [MAX_NAMED_RDDS]
    budget[0] -= 1
    raw = rdd.name()
    name = None if raw is None else str(raw)
    cls = _class_name(rdd)
    if name is not None and cls == "HadoopRDD":
        dirs = str(rdd.getJobConf().get("mapreduce.input.fileinputformat.inputdir") or "")
        if any(name in d for d in dirs.split(",") if d):
            name = None
    if name is not None and cls == "MapPartitionsRDD":
        prev = rdd.prev().name()
        if prev is not None and str(prev) == name:
            name = None
    if name is None:
        name = _class_part(rdd)
    deps = rdd.dependencies()
    count = int(deps.size())
    if count == 0 or budget[0] <= 0:
        return name
    names = [name_rdd(deps.apply(i).rdd(), budget) for i in range(count)]
    dependency = "_".join(names)[:MAX_JOB_NAME_LENGTH]
    return dependency if dependency.startswith(name) else f"{name}_{dependency}"


ACTION_METHODS = ("collect", "toLocalIterator")  # RDD methods every other action ends in (with runJob)
_DEPTH = threading.local()  # RDD calls under way on this thread: only the outermost is reported


def install(find_tracker: FindTracker) -> None:
    """Wrap PySpark's RDD save and action methods once per process; ``find_tracker(sc)`` answers the live tracker
    or None."""
    global _INSTALLED
    with _INSTALL_LOCK:
        if _INSTALLED:
            return
        from pyspark import SparkContext
        from pyspark.rdd import RDD

        for method in SAVE_METHODS:
            original = getattr(RDD, method, None)
            if original is None or getattr(original, "_headwater", False):
                continue
            setattr(RDD, method, _wrap(method, original, find_tracker))
        for method in ACTION_METHODS:
            original = getattr(RDD, method, None)
            if original is not None and not getattr(original, "_headwater", False):
                setattr(RDD, method, _wrap_action(original, find_tracker, job_rdd=lambda rdd, args: (rdd, False)))
        run_job = getattr(SparkContext, "runJob", None)
        if run_job is not None and not getattr(run_job, "_headwater", False):
            # runJob(rdd, partitionFunc, ...) runs rdd.mapPartitions(partitionFunc): a PythonRDD over rdd
            SparkContext.runJob = _wrap_action(  # type: ignore[method-assign]
                run_job, find_tracker, job_rdd=lambda sc, args: (args[0] if args else None, True)
            )
        _INSTALLED = True


def _outermost() -> bool:
    return getattr(_DEPTH, "value", 0) == 0


def next_job_id(sc: PySparkObject) -> int | None:
    """The id Spark's scheduler gives its next job (one py4j call), to find the jobs a call ran: those between
    the value before and after it. None when it cannot be read."""
    try:
        return int(sc._jsc.sc().dagScheduler().nextJobId())
    except Exception:  # noqa: BLE001 - statistics are then left out
        return None


def _jobs(sc: PySparkObject, first: int | None) -> tuple[int, int] | None:
    """The ids ``[first, next)`` of the jobs run since ``first`` was read, or None."""
    if first is None:
        return None
    last = next_job_id(sc)
    return (first, last) if last is not None and last > first else None


def job_statistics(sc: PySparkObject, jobs: tuple[int, int], wait: float = 2.0) -> dict[str, int]:
    """Records and bytes the jobs ``jobs`` read and wrote, summed over their stages from Spark's status store (what
    the integration's JobMetricsHolder sums from task metrics): ``inputRecords``, ``inputBytes``,
    ``outputRecords``, ``outputBytes``. Runs on the agent's worker thread; waits (bounded) for the listener bus,
    which fills the store. Missing jobs or stages (retention) are skipped."""
    jsc = sc._jsc.sc()
    try:
        jsc.listenerBus().waitUntilEmpty(int(wait * 1000))
    except Exception:  # noqa: BLE001 - a timeout: read what is there
        pass
    store = jsc.statusStore()
    totals = {"inputRecords": 0, "inputBytes": 0, "outputRecords": 0, "outputBytes": 0}
    seen: set[int] = set()
    for job_id in range(jobs[0], min(jobs[1], jobs[0] + 100)):
        try:
            stage_ids = store.job(job_id).stageIds()
        except Exception:  # noqa: BLE001 - not (or no longer) in the store
            continue
        for i in range(int(stage_ids.size())):
            stage_id = int(stage_ids.apply(i))
            if stage_id in seen:
                continue
            seen.add(stage_id)
            try:
                stage = store.lastStageAttempt(stage_id)
            except Exception:  # noqa: BLE001 - a stage that never ran (skipped)
                continue
            for key in totals:
                totals[key] += int(getattr(stage, key)())
    return totals


def _call_and_report(
    call: Callable[[], R],
    rdd: PySparkObject,
    tracker: Tracker | None,
    report: Report,
    what: str,
) -> R:
    """Run ``call`` (the wrapped PySpark method) one level deeper on this thread; afterwards, when a ``tracker``
    was found, ``report(tracker, started, failure, jobs)`` with the Spark jobs it ran. The call's own result or
    exception is returned unchanged: an error in capture is only logged."""
    started = time.time()
    first_job = next_job_id(rdd.ctx) if tracker is not None else None
    failure: BaseException | None = None
    _DEPTH.value = getattr(_DEPTH, "value", 0) + 1
    try:
        return call()
    except BaseException as exc:
        failure = exc
        raise
    finally:
        _DEPTH.value -= 1
        try:
            if tracker is not None:
                report(tracker, started, failure, _jobs(rdd.ctx, first_job))
        except Exception as exc:  # noqa: BLE001 - capture never fails the job
            log.debug("headwater: RDD %s not captured: %s", what, exc)


def _wrap(method: str, original: Callable[..., R], find_tracker: FindTracker) -> Callable[..., R]:
    @functools.wraps(original)
    def save(self: PySparkObject, *args: object, **kwargs: object) -> R:
        tracker = None
        try:
            tracker = find_tracker(getattr(self, "ctx", None)) if _outermost() else None
        except Exception as exc:  # noqa: BLE001 - capture never fails the job
            log.debug("headwater: RDD save not captured: %s", exc)
        path = args[0] if args else kwargs.get("path")

        def report(
            tracker: Tracker, started: float, failure: BaseException | None, jobs: tuple[int, int] | None
        ) -> None:
            tracker.rdd_saved(self, str(path) if path is not None else None, started, time.time(), failure, jobs=jobs)

        return _call_and_report(lambda: original(self, *args, **kwargs), self, tracker, report, "save")

    save._headwater = True  # type: ignore[attr-defined]
    return save


def _wrap_action(
    original: Callable[..., R],
    find_tracker: FindTracker,
    job_rdd: Callable[[PySparkObject, tuple[object, ...]], tuple[PySparkObject, bool]],
) -> Callable[..., R]:
    """``collect``/``toLocalIterator`` (``self`` is the RDD Spark runs) or ``SparkContext.runJob`` (it runs a Python
    map over its first argument): the outermost call of a thread is reported as an RDD job that reads."""

    @functools.wraps(original)
    def action(self: PySparkObject, *args: object, **kwargs: object) -> R:
        if not _outermost():
            return original(self, *args, **kwargs)
        rdd: PySparkObject = None
        python_map = False
        tracker = None
        try:
            rdd, python_map = job_rdd(self, args if args else (kwargs.get("rdd"),))
            tracker = find_tracker(getattr(rdd, "ctx", None)) if rdd is not None else None
        except Exception as exc:  # noqa: BLE001 - capture never fails the job
            log.debug("headwater: RDD action not captured: %s", exc)

        def report(
            tracker: Tracker, started: float, failure: BaseException | None, jobs: tuple[int, int] | None
        ) -> None:
            tracker.rdd_action(rdd, python_map, started, time.time(), failure, jobs=jobs)

        return _call_and_report(lambda: original(self, *args, **kwargs), rdd, tracker, report, "action")

    action._headwater = True  # type: ignore[attr-defined]
    return action
