"""The PySpark agent: lineage captured from Spark jobs as OpenLineage events, without changing job code.

Three ways to turn it on (docs/capture.md):

- ``headwater run -- python job.py`` / ``headwater run -- spark-submit job.py`` for one job;
- ``headwater agent install`` + ``HEADWATER_AUTO=1`` for every PySpark driver of an environment;
- in a notebook::

      import headwater.capture
      tracker = headwater.capture.track(spark)   # idempotent; tracker.flush(), tracker.stop()

The plan analysis (datasets, facets, column lineage) lives in :mod:`headwater.capture.lineage`;
this package wraps it with the listener, the events, delivery (queue, spool, transports) and config.

The names below are loaded on first use: ``headwater run`` imports :mod:`headwater.capture.bootstrap` in
*every* Python process it starts (the driver, but also PySpark's worker daemons and any tool the job
runs), and those must not pay for importing openlineage-python and the agent until a SparkSession is
actually tracked.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from headwater.capture.config import AgentConfig, ConfigError, load_config
    from headwater.capture.connect import is_connect_session
    from headwater.capture.tracker import Tracker, track

_EXPORTS = {
    "AgentConfig": "headwater.capture.config",
    "ConfigError": "headwater.capture.config",
    "load_config": "headwater.capture.config",
    "is_connect_session": "headwater.capture.connect",
    "Tracker": "headwater.capture.tracker",
    "track": "headwater.capture.tracker",
}

__all__ = ["AgentConfig", "ConfigError", "Tracker", "is_connect_session", "load_config", "track"]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
