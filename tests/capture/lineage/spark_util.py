"""Helpers for the plan-analysis tests: a SparkSession per module, a real py4j
QueryExecutionListener that collects the executions of one action, and a compact view of
column lineage for exact assertions."""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from openlineage.client.event_v2 import Job, Run, RunEvent, RunState
from openlineage.client.serde import Serde

from headwater.capture.lineage import LineageOptions, PlanSnapshot, QueryLineage, analyze, take_snapshot

JDBC_JARS = "/usr/share/java/postgresql.jar,/usr/share/java/mariadb-java-client.jar"


def new_session(app: str, warehouse: Path, *, hive: bool = False, extra: dict[str, str] | None = None) -> Any:
    from pyspark.sql import SparkSession

    builder = (
        SparkSession.builder.master("local[2]")
        .appName(app)
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.warehouse.dir", str(warehouse))
        .config("spark.jars", JDBC_JARS)
        .config("spark.driver.extraClassPath", JDBC_JARS.replace(",", ":"))
    )
    for key, value in (extra or {}).items():
        builder = builder.config(key, value)
    if hive:
        builder = builder.config("spark.sql.catalogImplementation", "hive").config(
            "spark.hadoop.javax.jdo.option.ConnectionURL",
            f"jdbc:derby:;databaseName={warehouse / 'metastore_db'};create=true",
        )
    # Python workers must run this interpreter (pandas UDFs need its pyarrow); PySpark reads
    # PYSPARK_PYTHON once, when the SparkContext starts, so it is set only around that moment
    previous = os.environ.get("PYSPARK_PYTHON")
    os.environ["PYSPARK_PYTHON"] = sys.executable
    try:
        return builder.getOrCreate()
    finally:
        if previous is None:
            del os.environ["PYSPARK_PYTHON"]
        else:
            os.environ["PYSPARK_PYTHON"] = previous


class Collector:
    """A QueryExecutionListener implemented in Python through the py4j callback server."""

    def __init__(self) -> None:
        self.items: list[tuple[str, Any, bool]] = []
        self.lock = threading.Lock()

    def onSuccess(self, func: str, qe: Any, duration: int) -> None:  # noqa: N802 - Java interface
        with self.lock:
            self.items.append((func, qe, True))

    def onFailure(self, func: str, qe: Any, exc: Any) -> None:  # noqa: N802
        with self.lock:
            self.items.append((func, qe, False))

    class Java:
        implements = ["org.apache.spark.sql.util.QueryExecutionListener"]


def install_collector(spark: Any) -> Collector:
    from pyspark.java_gateway import ensure_callback_server_started

    ensure_callback_server_started(spark.sparkContext._gateway)
    collector = Collector()
    spark._jsparkSession.listenerManager().register(collector)
    return collector


class Runner:
    def __init__(self, spark: Any) -> None:
        self.spark = spark
        self.collector = install_collector(spark)

    def executions(self, action: Callable[[], Any], *, expect_error: bool = False) -> list[tuple[str, Any, bool]]:
        """Run ``action`` and return the executions Spark reported for it (listener bus is async)."""
        with self.collector.lock:
            self.collector.items.clear()
        try:
            action()
        except Exception:
            if not expect_error:
                raise
        else:
            assert not expect_error, "the action was expected to fail"
        self.spark.sparkContext._jsc.sc().listenerBus().waitUntilEmpty(30_000)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with self.collector.lock:
                if self.collector.items:
                    break
            time.sleep(0.05)
        with self.collector.lock:
            return list(self.collector.items)

    def snapshots(self, action: Callable[[], Any], **kw: Any) -> list[PlanSnapshot]:
        return [take_snapshot(qe, self.spark) for _f, qe, _ok in self.executions(action, **kw)]

    def lineage(
        self, action: Callable[[], Any], *, root: str | None = None, options: LineageOptions | None = None, **kw: Any
    ) -> QueryLineage:
        """The lineage of the (last, or the one with root class ``root``) execution of ``action``."""
        snaps = self.snapshots(action, **kw)
        chosen = [s for s in snaps if root is None or s.root == root]
        assert chosen, f"no execution with root {root!r}; got {[s.root for s in snaps]}"
        return analyze(chosen[-1], options)


def to_json(obj: Any) -> dict[str, Any]:
    return json.loads(Serde.to_json(obj))


def dataset_key(ds: Any) -> tuple[str, str]:
    return ds.namespace, ds.name


def column_map(ql: QueryLineage, index: int = 0) -> dict[str, set[tuple[str, str, str, str]]]:
    """``{output field: {(input name, input field, type, subtype[+masked])}}`` of one output."""
    facet = ql.outputs[index].facets.get("columnLineage")
    assert facet is not None, f"no columnLineage on {ql.outputs[index].name}"
    out: dict[str, set[tuple[str, str, str, str]]] = {}
    for name, fields in facet.fields.items():
        bucket = out.setdefault(name, set())
        for f in fields.inputFields:
            for t in f.transformations:
                bucket.add((f.name, f.field, t.type, t.subtype + ("+masked" if t.masking else "")))
    return out


def dataset_deps(ql: QueryLineage, index: int = 0) -> set[tuple[str, str, str, str]]:
    facet = ql.outputs[index].facets["columnLineage"]
    return {(f.name, f.field, t.type, t.subtype) for f in facet.dataset for t in f.transformations}


def as_run_event(ql: QueryLineage) -> dict[str, Any]:
    """Wrap the datasets in a RunEvent, the way the runtime emits them, for schema validation."""
    event = RunEvent(
        eventType=RunState.COMPLETE,
        eventTime="2026-01-01T00:00:00Z",
        run=Run(runId="01890f6a-7d6e-7c3a-9e0c-0123456789ab"),
        job=Job(namespace="test", name=f"app.{ql.action}"),
        inputs=ql.inputs,
        outputs=ql.outputs,
        producer="https://headwater.test",
    )
    return to_json(event)


@contextmanager
def session(app: str, warehouse: Path, **kw: Any) -> Iterator[Any]:
    spark = new_session(app, warehouse, **kw)
    try:
        yield spark
    finally:
        spark.stop()
