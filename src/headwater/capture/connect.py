"""Spark Connect: capture on the Connect server, per client session.

A Spark Connect client (``SparkSession.builder.remote("sc://...")``, ``SPARK_REMOTE``, ``spark.api.mode=connect``)
holds no JVM: its plans run in the Connect server's driver. Headwater captures there, with no JAR and nothing on
the client's side:

- ``headwater connect-server`` starts a Connect server (``SparkConnectPlugin`` in a PySpark driver, which is what
  ``start-connect-server.sh`` runs too) whose driver is tracked (:mod:`headwater.capture.connect_server`);
- ``SparkSession.builder.remote("local[*]")`` in a tracked process starts a Connect server inside that process;
  :func:`headwater.capture.tracker.track` then tracks that server (:func:`local_server_session`).

Every client session runs on its own ``SparkSession`` of the server, which a ``QueryExecutionListener`` registered
on one session does not hear. So the tracker of a Connect server listens on Spark's listener bus instead
(:class:`BusListener`, on a queue of its own), where every session's executions end
(``SparkListenerSQLExecutionEnd``, which carries the ``QueryExecution``), and learns whose they are from the
Connect server's own events: ``SparkListenerConnectOperationStarted`` names the operation's job tag, session id,
user id and user name, and carries the request (its ``client_type``); ``SparkListenerSQLExecutionStart`` lists the
job tags of the execution. Each session is a run of its own (:class:`ConnectSession`), parented to the server's
application run; its executions are named after the session's ``spark.app.name`` (what the client's
``appName`` sets) and parented to the session's run; ``SparkListenerConnectSessionClosed`` ends it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from headwater.capture.delivery import OnceLogger
from headwater.capture.jvmtypes import JavaObject, PySparkObject

log = logging.getLogger("headwater.capture")

CONNECT_MESSAGE = (
    "headwater: this is a Spark Connect client session ({kind}); its plans run in the Connect server's JVM, so "
    "lineage is captured on the server: start the server with `headwater connect-server` (a drop-in for "
    "start-connect-server.sh), or use SparkSession.builder.remote('local[*]') under `headwater run`, which tracks "
    "the local server PySpark starts. Nothing is needed on the client's side."
)

# the listener-bus queue the Connect server's tracker listens on (a queue of its own: a slow listener there
# delays no other listener of the application)
QUEUE = "headwater"
PLUGIN = "org.apache.spark.sql.connect.SparkConnectPlugin"


def is_connect_session(spark: PySparkObject) -> bool:
    """True for a Spark Connect session object, False for a classic (py4j) one."""
    module = type(spark).__module__ or ""
    if module.startswith("pyspark.sql.connect"):
        return True
    if getattr(spark, "_jsparkSession", None) is not None:
        return False
    # a Connect-style object: a client to a remote server and no JVM session
    return hasattr(spark, "client") and not hasattr(spark, "_jvm")


def describe(spark: PySparkObject) -> str:
    return f"{type(spark).__module__}.{type(spark).__qualname__}"


def local_server_session() -> JavaObject:
    """The classic session of the Connect server PySpark started in this process (``remote("local[*]")``), or
    None when there is none (a client of a remote server)."""
    try:
        from pyspark import SparkContext
        from pyspark.sql import SparkSession
    except ImportError:
        return None
    sc = SparkContext._active_spark_context
    if sc is None or getattr(sc, "_jsc", None) is None:
        return None
    if PLUGIN not in str(sc.getConf().get("spark.plugins", "") or ""):
        return None
    session = SparkSession._instantiatedSession
    if session is None or getattr(session, "_jsparkSession", None) is None:
        session = SparkSession(sc)
    return session


@dataclass(frozen=True)
class ConnectSession:
    """Who ran an execution on a Connect server: the client session, its user and client, its app name."""

    session_id: str
    user_id: str = ""
    user_name: str = ""
    client_type: str = ""
    app_name: str = ""  # the session's spark.app.name (the client's appName, else the server's)


@dataclass(frozen=True)
class _Operation:
    session_id: str
    user_id: str
    user_name: str
    client_type: str


def _option(value: JavaObject) -> JavaObject:
    if value is None:
        return None
    return value.get() if value.isDefined() else None


class BusListener:
    """A py4j ``SparkListenerInterface`` for a Connect server's driver: every event but ``onOtherEvent`` is
    ignored; nothing raises into Spark."""

    class Java:
        implements = ["org.apache.spark.scheduler.SparkListenerInterface"]

    def __init__(
        self,
        handle: Callable[[str, Any, float, float, Any, ConnectSession | None], None],
        session_closed: Callable[[str, float], None],
        errors: OnceLogger,
        jvm: JavaObject,
    ) -> None:
        self._handle = handle  # QueryListener.handle: snapshot → tracker
        self._session_closed = session_closed
        self._errors = errors
        self._jvm = jvm
        self._operations: dict[str, _Operation] = {}  # Connect job tag → operation
        self._executions: dict[int, str] = {}  # SQL execution id → Connect job tag
        self.enabled = True

    def toString(self) -> str:  # noqa: N802 - what Spark prints when it names the listener
        return "headwater-connect-listener"

    def __getattr__(self, name: str) -> Any:
        if name.startswith("on"):  # the listener interface's other callbacks: nothing to do
            return _ignore
        raise AttributeError(name)

    def onOtherEvent(self, event: JavaObject) -> None:  # noqa: N802 - Spark's name
        if not self.enabled:
            return
        try:
            kind = str(event.getClass().getSimpleName())
            if kind == "SparkListenerSQLExecutionEnd":
                self._execution_end(event)
            elif kind == "SparkListenerSQLExecutionStart":
                self._execution_start(event)
            elif kind == "SparkListenerConnectOperationStarted":
                self._operation_started(event)
            elif kind == "SparkListenerConnectOperationClosed":
                self._operations.pop(str(event.jobTag()), None)
            elif kind == "SparkListenerConnectSessionClosed":
                self._session_closed(str(event.sessionId()), int(event.eventTime()) / 1000.0)
        except Exception as exc:  # noqa: BLE001 - capture never fails the server
            self._errors.capture_failed("connect", "a Spark Connect event", "the server", exc)

    def _operation_started(self, event: JavaObject) -> None:
        client = ""
        request = _option(event.planRequest())
        if request is not None:
            client = str(request.getClientType() or "")
        self._operations[str(event.jobTag())] = _Operation(
            str(event.sessionId()), str(event.userId() or ""), str(event.userName() or ""), client
        )

    def _execution_start(self, event: JavaObject) -> None:
        try:
            tags = str(event.jobTags().mkString("\u0001")).split("\u0001")
        except Exception:  # noqa: BLE001 - a Spark without job tags on the event: executions are not attributed
            return
        for tag in tags:
            if tag in self._operations:
                self._executions[int(event.executionId())] = tag
                return

    def _execution_end(self, event: JavaObject) -> None:
        execution_id = int(event.executionId())
        tag = self._executions.pop(execution_id, None)
        name = _option(event.executionName())
        qe = event.qe()
        if name is None or qe is None:  # not a user action (an execution inside a command, a micro-batch)
            return
        ended = int(event.time()) / 1000.0
        started = ended - max(0, int(event.duration())) / 1e9
        failure = _option(event.executionFailure())
        operation = self._operations.get(tag) if tag is not None else None
        session = None
        if operation is not None:
            app = ""
            try:
                app = str(qe.sparkSession().conf().get("spark.app.name"))
            except Exception:  # noqa: BLE001
                app = ""
            session = ConnectSession(
                operation.session_id, operation.user_id, operation.user_name, operation.client_type, app
            )
        self._handle(str(name), qe, started if failure is None else ended, ended or time.time(), failure, session)


def _ignore(*args: Any) -> None:
    return None
