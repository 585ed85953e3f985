"""The PySpark agent: lineage captured from Spark jobs as OpenLineage events, without changing job code.

Three ways to turn it on (docs/capture.md):

- ``headwater run -- python job.py`` / ``headwater run -- spark-submit job.py`` for one job;
- ``headwater agent install`` + ``HEADWATER_AUTO=1`` for every PySpark driver of an environment;
- in a notebook::

      import headwater.capture
      tracker = headwater.capture.track(spark)   # idempotent; tracker.flush(), tracker.stop()

The plan analysis (datasets, facets, column lineage) lives in :mod:`headwater.capture.lineage`;
this package wraps it with the listener, the events, delivery (queue, spool, transports) and config.
"""

from __future__ import annotations

from headwater.capture.config import AgentConfig, ConfigError, load_config
from headwater.capture.connect import is_connect_session
from headwater.capture.tracker import Tracker, track

__all__ = ["AgentConfig", "ConfigError", "Tracker", "is_connect_session", "load_config", "track"]
