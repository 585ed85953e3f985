"""Names, for the type checker, of the values the agent reaches through py4j.

A Java object seen from Python through py4j (a ``JavaObject``, a ``JavaMember``, the gateway's ``jvm`` view, a
Scala ``Option`` or ``Seq``, a Catalyst plan node, a Spark listener event) answers *any* attribute with a remote
call that is resolved at run time, in the JVM: no static type can describe it, and py4j ships no type stubs.
The agent reads such handles with guarded calls (``headwater.capture.lineage.handlers.jvm``) and turns what it
needs into plain, typed Python values at once. These aliases say so in signatures, so that ``Any`` appears in a
capture signature only where the value is such a handle:

- :data:`JavaObject`: a py4j handle on a JVM object (or the ``jvm`` view of the gateway);
- :data:`PySparkObject`: a PySpark object the agent uses only for its py4j handles and private fields
  (``SparkSession._jsparkSession``, ``SparkContext._jvm``/``_jsc``, ``RDD._jrdd``, a streaming listener's
  event): PySpark is untyped for the type checker here (``ignore_missing_imports`` in pyproject.toml), and the
  agent must run unchanged across PySpark 3.5 and 4.x, whose private fields differ.
"""

from __future__ import annotations

from typing import Any, TypeAlias

JavaObject: TypeAlias = Any
PySparkObject: TypeAlias = Any

__all__ = ["JavaObject", "PySparkObject"]
