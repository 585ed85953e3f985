"""The py4j ``QueryExecutionListener`` the agent registers on a SparkSession.

Spark calls :meth:`QueryListener.onSuccess` / :meth:`QueryListener.onFailure` on its listener-bus
thread *after* each action, asynchronously to the job, through py4j's callback server. The callback
only *snapshots* the plan (``headwater.capture.lineage.take_snapshot``: one ``toJSON`` plus a few calls on
leaf relations and the command, into plain Python data), hands an :class:`Observed` to the tracker and
returns; the lineage analysis (pure Python), building and sending the events happen on the emitter's
worker thread. Any error inside is caught, logged once, and
never reaches Spark or the job.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from headwater.capture.delivery import OnceLogger, log
from headwater.capture.events import Failure
from headwater.capture.jvmtypes import JavaObject

if TYPE_CHECKING:
    from headwater.capture.connect import ConnectSession
    from headwater.capture.debugstats import DebugStats
    from headwater.capture.lineage import PlanSnapshot


@dataclass(frozen=True)
class Observed:
    """What the listener saw of one execution; ``snapshot`` is a ``headwater.capture.lineage.PlanSnapshot``."""

    snapshot: PlanSnapshot | None
    func_name: str
    started: float
    ended: float
    execution_id: int | None
    failure: Failure | None
    session_uuid: str | None = None  # the executing session's id, read only while streaming queries run
    connect: ConnectSession | None = (
        None  # the Spark Connect client session that ran it (headwater.capture.connect.ConnectSession)
    )


class CaptureDisabled(RuntimeError):
    """Raised inside capture by ``spark.headwater.debug.failCapture=true`` (to test that capture errors stay inside)."""


class QueryListener:
    """Implements ``org.apache.spark.sql.util.QueryExecutionListener`` for py4j."""

    class Java:
        implements = ["org.apache.spark.sql.util.QueryExecutionListener"]

    def __init__(
        self,
        snapshot: Callable[[JavaObject, int | None], PlanSnapshot | None],
        deliver: Callable[[Observed], None],
        errors: OnceLogger,
        *,
        jvm: JavaObject = None,
        fail_for_test: bool = False,
        stats: DebugStats | None = None,
        wants_session: Callable[[], bool] | None = None,
    ) -> None:
        self._jvm = jvm
        self._wants_session = wants_session  # whether to read each execution's session id (one py4j call)
        self._stats = stats  # a headwater.capture.debugstats.DebugStats (spark.headwater.debug.stats), else None
        self._snapshot = snapshot
        self._deliver = deliver
        self._errors = errors
        self._fail_for_test = fail_for_test
        self.enabled = True
        self.seen = 0
        self.token = f"headwater-listener-{id(self):x}"

    def toString(self) -> str:  # noqa: N802 - lets unregister() find our Java proxy among the session's listeners
        return self.token

    # py4j entry points: never raise
    def onSuccess(self, funcName: str, qe: JavaObject, durationNs: int) -> None:  # noqa: N802, N803
        ended = time.time()
        started = ended - max(0, int(durationNs)) / 1e9
        self._handle(funcName, qe, started, ended, None)

    def onFailure(self, funcName: str, qe: JavaObject, exception: JavaObject) -> None:  # noqa: N802, N803
        ended = time.time()
        failure = None
        try:
            failure = _java_failure(exception, self._jvm)
        except Exception:  # noqa: BLE001
            failure = Failure(message="the Spark execution failed (error not readable)")
        self._handle(funcName, qe, ended, ended, failure)

    def bus_execution_end(
        self,
        func_name: str,
        qe: JavaObject,
        started: float,
        ended: float,
        exception: JavaObject,
        connect: ConnectSession | None,
    ) -> None:
        """An execution end heard on the listener bus (a Spark Connect server: :class:`headwater.capture.connect.
        BusListener`), with the Java exception it failed with and the client session that ran it."""
        failure = None
        if exception is not None:
            try:
                failure = _java_failure(exception, self._jvm)
            except Exception:  # noqa: BLE001
                failure = Failure(message="the Spark execution failed (error not readable)")
        self._handle(func_name, qe, started, ended, failure, connect)

    def _handle(
        self,
        func_name: str,
        qe: JavaObject,
        started: float,
        ended: float,
        failure: Failure | None,
        connect: ConnectSession | None = None,
    ) -> None:
        if not self.enabled:
            return
        self.seen += 1
        token = self._stats.listener_begin() if self._stats is not None else None
        try:
            if self._fail_for_test:
                raise CaptureDisabled("spark.headwater.debug.failCapture is set: failing inside capture on purpose")
            execution_id = _execution_id(qe)
            if failure is not None:
                started = _submission_time(qe, execution_id) or started
            try:
                snap = self._snapshot(qe, execution_id)
            except Exception:
                if failure is not None:  # e.g. an AnalysisException: there is no plan to read; the job reports it
                    log.debug("headwater: no plan for a failed execution (%s)", failure.message, exc_info=True)
                    return
                raise
            session = _session_uuid(qe) if self._wants_session is not None and self._wants_session() else None
            self._deliver(Observed(snap, str(func_name), started, ended, execution_id, failure, session, connect))
        except Exception as exc:  # noqa: BLE001 - capture never fails the job
            self._errors.warning(
                "listener",
                "headwater: lineage capture failed for a Spark execution (%s: %s); "
                "the job is not affected; further capture errors of this kind are not logged",
                type(exc).__name__,
                exc,
                exc_info=True,
            )
        finally:
            if token is not None and self._stats is not None:
                self._stats.listener_end(token)


def _execution_id(qe: JavaObject) -> int | None:
    try:
        return int(qe.id())
    except Exception:  # noqa: BLE001 - older Sparks have no QueryExecution.id
        return None


def _session_uuid(qe: JavaObject) -> str | None:
    try:
        return str(qe.sparkSession().sessionUUID())
    except Exception:  # noqa: BLE001
        return None


def _submission_time(qe: JavaObject, execution_id: int | None) -> float | None:
    """The execution's real start, from Spark's SQL status store (failed executions carry no duration)."""
    if execution_id is None:
        return None
    try:
        store = qe.sparkSession().sharedState().statusStore()
        data = store.execution(execution_id)
        if data.isDefined():
            return int(data.get().submissionTime()) / 1000.0
    except Exception:  # noqa: BLE001
        return None
    return None


def _java_failure(exception: JavaObject, jvm: JavaObject) -> Failure:
    """The Java exception's message and stack trace (two py4j calls)."""
    message = str(exception.toString())
    trace: str | None = None
    if jvm is not None:
        try:
            trace = str(jvm.org.apache.spark.util.Utils.exceptionString(exception))
        except Exception:  # noqa: BLE001
            trace = None
    return Failure(message=message, stack_trace=trace, language="JAVA")


def unregister(listener_manager: JavaObject, listener: QueryListener) -> bool:
    """Remove our listener from a session's ``ExecutionListenerManager``.

    py4j wraps the Python object in a new Java proxy each time it crosses over, so ``unregister(listener)``
    would not find it; the registered proxy is found by its ``toString`` instead. Returns True if removed.
    """
    removed = False
    for registered in listener_manager.listListeners():
        if str(registered.toString()) == listener.token:
            listener_manager.unregister(registered)
            removed = True
    return removed
