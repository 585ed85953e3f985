"""Guarded py4j reads, and the session-side context the handlers read from.

Capture must never fail or change the user's job, and py4j raises many kinds of errors (a method a
Spark version does not have, a ``null``, a class from an extension): every read that may fail goes
through :func:`guarded` or one of the typed chain readers below, which answer ``None`` (or a given
default) instead of raising and log the failure at debug level on ``headwater.capture.lineage``.

The chain readers call methods without arguments one after the other, so the common reads need no
lambda::

    text(root, "mode", "toString")      # str(root.mode().toString()), or None
    option(root, "catalogTable")        # root.catalogTable(): a Scala Option's value, or None
    flag(root, "overwrite")             # bool(root.overwrite()), or None
    struct_json(ct, "schema")           # the JSON of ct.schema().json() (loads_json), or None
    call(root, "query")                 # root.query(), or None

A read that needs arguments or arithmetic uses ``guarded(lambda: ...)``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any, TypeVar, overload

import orjson

from headwater.capture.jvmtypes import JavaObject, PySparkObject

log = logging.getLogger("headwater.capture.lineage.snapshot")  # the logger these reads always used

T = TypeVar("T")
D = TypeVar("D")

SEP = "\u0001"


_DIGITS_TO_ZERO = bytes.maketrans(b"123456789", b"000000000")


def loads_json(text: str) -> Any:
    """JSON text from the JVM (a plan's ``toJSON``, a schema's ``json``) → exactly what ``json.loads`` returns,
    faster: orjson (a wide plan is ~1 MB, ~3× faster), and the standard library where orjson would differ — a
    run of 20+ digits (an integer beyond 64 bits, which orjson reads as a float; a decimal literal in a plan can
    be one) — or refuses (NaN, Infinity). The same rule as the server's ``headwater.store.canonical.loads_text``;
    the agent does not import the store."""
    if b"0" * 20 not in text.encode("utf-8", "surrogatepass").translate(_DIGITS_TO_ZERO):
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            pass
    return json.loads(text)


def _failed(exc: BaseException) -> None:
    text = str(exc)
    log.debug("headwater lineage: py4j read failed: %s", text.splitlines()[0] if text else exc)


@overload
def guarded(fn: Callable[[], T]) -> T | None: ...
@overload
def guarded(fn: Callable[[], T], default: D) -> T | D: ...
def guarded(fn: Callable[[], Any], default: Any = None) -> Any:
    """``fn()``, or ``default`` when it raises (logged at debug level)."""
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - py4j raises many kinds; all mean "not available"
        _failed(exc)
        return default


def scala_option(value: JavaObject) -> JavaObject:
    """A Scala ``Option``'s value or None (unguarded: use inside a guarded read)."""
    if value is None:
        return None
    return value.get() if value.isDefined() else None


def _chain(obj: JavaObject, methods: tuple[str, ...]) -> JavaObject:
    for name in methods:
        obj = getattr(obj, name)()
    return obj


def call(obj: JavaObject, *methods: str) -> JavaObject:
    """``obj.m1().m2()...``, or None when any step fails."""
    try:
        return _chain(obj, methods)
    except Exception as exc:  # noqa: BLE001
        _failed(exc)
        return None


def text(obj: JavaObject, *methods: str) -> str | None:
    """``str(obj.m1().m2()...)``, or None when any step fails or the value is null."""
    try:
        value = _chain(obj, methods)
    except Exception as exc:  # noqa: BLE001
        _failed(exc)
        return None
    return None if value is None else str(value)


def option(obj: JavaObject, *methods: str) -> JavaObject:
    """The value of the Scala ``Option`` that ``obj.m1().m2()...`` returns, or None (empty, or the read failed)."""
    try:
        return scala_option(_chain(obj, methods))
    except Exception as exc:  # noqa: BLE001
        _failed(exc)
        return None


def flag(obj: JavaObject, *methods: str) -> bool | None:
    """``bool(obj.m1().m2()...)``, or None when the read fails."""
    try:
        return bool(_chain(obj, methods))
    except Exception as exc:  # noqa: BLE001
        _failed(exc)
        return None


def struct_json(obj: JavaObject, *methods: str) -> Any:
    """The Spark ``StructType`` that ``obj.m1()...`` returns, as its JSON (``{"type": "struct", ...}``), or None."""
    try:
        return loads_json(str(_chain(obj, methods).json()))
    except Exception as exc:  # noqa: BLE001
        _failed(exc)
        return None


def string_list(obj: JavaObject, *methods: str) -> list[str] | None:
    """A Scala ``Seq[String]`` that ``obj.m1()...`` returns, as a list (one py4j call for the whole list), or None."""
    raw = guarded(lambda: _chain(obj, methods).mkString(SEP))
    return None if raw is None else ([c for c in str(raw).split(SEP)] if raw != "" else [])


def class_name(obj: JavaObject) -> str:
    """The Java class name of a py4j object (unguarded)."""
    return str(obj.getClass().getName())


# Spark's marker trait of every logical command, V1 (RunnableCommand, DataWritingCommand) and V2
# (V2WriteCommand, MergeIntoTable, ...), in Spark 3.x and 4.x
COMMAND_TRAIT = "org.apache.spark.sql.catalyst.plans.logical.Command"


class Jvm:
    """The tracked session's JVM side: its configuration, its session catalog, the metastore namespace."""

    def __init__(self, spark: PySparkObject) -> None:
        self.spark = spark
        self.jsession = spark._jsparkSession
        self._metastore: str | None = None
        self._conf: JavaObject = None  # the session's RuntimeConfig, read on first use (most plans need none)

    def conf(self, key: str) -> str | None:
        def read() -> Any:
            if self._conf is None:
                self._conf = self.jsession.conf()
            return self._conf.get(key, "")

        value = guarded(read, "")
        return str(value) if value else None

    @property
    def metastore(self) -> str:
        """Symlink namespace of session-catalog tables: ``hive://host:port`` or the warehouse URI."""
        if self._metastore is None:
            self._metastore = self._metastore_uri() or self._warehouse()
        return self._metastore

    def _metastore_uri(self) -> str | None:
        """``hive://host:port`` of the first ``hive.metastore.uris`` (the integration's ``prepareHiveUri``)."""
        uris = self.conf("spark.hadoop.hive.metastore.uris") or self.conf("spark.sql.hive.metastore.uris")
        if not uris:
            uris = guarded(lambda: self.jsession.sparkContext().hadoopConfiguration().get("hive.metastore.uris"))
        if not uris:
            return None
        first = str(uris).split(",")[0].strip()
        return "hive://" + first.split("://", 1)[-1]

    def _warehouse(self) -> str:
        """The warehouse location as a URI without a trailing slash (``/tmp/wh`` → ``file:/tmp/wh``)."""
        wh = self.conf("spark.sql.warehouse.dir") or "spark-warehouse"
        return wh.rstrip("/") if ":" in wh else f"file:{wh.rstrip('/')}"

    def hive_catalog(self) -> dict[str, str] | None:
        """The Hive ``catalog`` dataset facet of this session (the integration's
        ``CatalogDatasetFacetUtils.getCatalogDatasetFacetForHive``), None unless it runs with Hive support."""
        if self.conf("spark.sql.catalogImplementation") != "hive":
            return None
        facet = {"name": "default", "framework": "hive", "type": "hive", "source": "spark"}
        facet["warehouseUri"] = self._warehouse()
        metadata = self._metastore_uri()
        if metadata:
            facet["metadataUri"] = metadata
        return facet

    def session_catalog(self) -> JavaObject:
        return self.jsession.sessionState().catalog()

    def is_command(self, plan: JavaObject) -> bool:
        """Whether ``plan`` is a Spark logical ``Command`` (one py4j call); False when that cannot be read."""
        return bool(guarded(lambda: self.spark._jvm.py4j.reflection.TypeUtil.isInstanceOf(COMMAND_TRAIT, plan), False))
