"""Turning capture on for a process without changing its code.

``activate()`` makes every SparkSession the process creates through ``SparkSession.builder.getOrCreate()``
tracked (:func:`headwater.capture.track`). It does not import PySpark: when ``pyspark.sql.session`` is
already imported it patches it at once, otherwise a one-shot import hook patches it right after it is
first imported — so Python processes that never use Spark (PySpark's own worker processes, tools) pay
nothing but a few microseconds.

Two ways in:

- ``headwater run -- <command>`` puts ``headwater/capture/boot`` (a ``sitecustomize.py``) first on
  ``PYTHONPATH`` and sets ``HEADWATER_CAPTURE=1``; the ``sitecustomize`` calls :func:`activate` and then
  loads any ``sitecustomize`` it shadows;
- ``headwater agent install`` writes a ``.pth`` file into site-packages that calls :func:`activate`
  when ``HEADWATER_AUTO=1`` (or ``true``) is set.

The same patch wraps PySpark's ``launch_gateway`` so that the agent is imported in a thread while the JVM
starts (:mod:`headwater.capture.prefetch`).

Options travel in the environment: ``HEADWATER_CONF`` (JSON object of ``spark.*`` defaults, under the
job's own SparkConf), ``HEADWATER_URL`` (the fallback Headwater server).
"""

from __future__ import annotations

import functools
import importlib.abc
import importlib.machinery
import importlib.util
import json
import logging
import os
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any

from headwater.capture.jvmtypes import PySparkObject

log = logging.getLogger("headwater.capture")

SESSION_MODULE = "pyspark.sql.session"
ENV_CAPTURE = "HEADWATER_CAPTURE"
ENV_AUTO = "HEADWATER_AUTO"
ENV_CONF = "HEADWATER_CONF"
_MARK = "_headwater_patched"


def enabled(environ: dict[str, str] | None = None) -> bool:
    env = os.environ if environ is None else environ
    return any(env.get(k, "").strip().lower() in ("1", "true", "yes") for k in (ENV_CAPTURE, ENV_AUTO))


def conf_defaults(environ: dict[str, str] | None = None) -> dict[str, str]:
    """``HEADWATER_CONF`` (a JSON object) → SparkConf defaults; a bad value is reported, not fatal."""
    env = os.environ if environ is None else environ
    raw = env.get(ENV_CONF)
    if not raw:
        return {}
    try:
        value = json.loads(raw)
    except ValueError as exc:
        log.warning("headwater: ignoring %s: not JSON (%s)", ENV_CONF, exc)
        return {}
    if not isinstance(value, dict):
        log.warning("headwater: ignoring %s: expected a JSON object of spark.* keys", ENV_CONF)
        return {}
    return {str(k): str(v) for k, v in value.items()}


def activate() -> None:
    """Track every SparkSession this process creates (idempotent, never raises)."""
    try:
        module = sys.modules.get(SESSION_MODULE)
        if module is not None:
            patch_session_module(module)
        elif not any(isinstance(f, _SessionImportHook) for f in sys.meta_path):
            sys.meta_path.insert(0, _SessionImportHook())
    except Exception as exc:  # noqa: BLE001
        log.warning("headwater: could not turn on lineage capture: %s", exc)


def patch_session_module(module: ModuleType) -> None:
    builder = module.SparkSession.Builder
    original = builder.getOrCreate
    if getattr(original, _MARK, False):
        return

    @functools.wraps(original)
    def getOrCreate(self: Any) -> Any:  # noqa: N802 - PySpark's name
        _prefetch_during_jvm_start()
        session = original(self)
        _auto_track(session)
        return session

    setattr(getOrCreate, _MARK, True)
    builder.getOrCreate = getOrCreate


def _prefetch_during_jvm_start() -> None:
    """When this ``getOrCreate`` is about to start the JVM, have the agent imported meanwhile
    (:mod:`headwater.capture.prefetch`; PySpark 4 imports ``SparkContext`` only inside ``getOrCreate``, so
    this happens here, not when the session module is patched). Never raises."""
    try:
        context_class = getattr(sys.modules.get("pyspark"), "SparkContext", None)
        if context_class is None or getattr(context_class, "_active_spark_context", None) is not None:
            return
        from headwater.capture.prefetch import wrap_gateway_launch

        wrap_gateway_launch(context_class)
    except Exception:  # noqa: BLE001 - no prefetch: the agent is imported when the session is tracked
        pass


def _auto_track(session: PySparkObject) -> None:
    try:
        from headwater.capture.tracker import track

        tracker = track(session, defaults=conf_defaults())
        if tracker is not None and enabled({ENV_CAPTURE: os.environ.get(ENV_CAPTURE, "")}):
            from headwater.capture.transports import describe

            sys.stderr.write(
                f"headwater: capturing lineage of Spark application {tracker.app_name!r} "
                f"-> {describe(tracker.transport)}\n"
            )
    except Exception as exc:  # noqa: BLE001 - never fail the job
        log.warning("headwater: lineage capture could not start: %s", exc)


class _SessionImportHook(importlib.abc.MetaPathFinder):
    """Patches ``pyspark.sql.session`` right after its first import, then removes itself."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != SESSION_MODULE:
            return None
        try:
            sys.meta_path.remove(self)
        except ValueError:
            pass
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        loader = spec.loader
        # a loader can be shared by many modules (zipimport of pyspark.zip under spark-submit), so the
        # wrapper checks the module's name and puts the loader back as it was after the first call
        had_own = "exec_module" in vars(loader)
        original_exec = loader.exec_module

        def exec_module(module: ModuleType) -> None:
            if module.__name__ == SESSION_MODULE:
                if had_own:
                    loader.exec_module = original_exec  # type: ignore[method-assign]
                else:
                    try:
                        del loader.exec_module
                    except AttributeError:
                        pass
            original_exec(module)
            if module.__name__ != SESSION_MODULE:
                return
            try:
                patch_session_module(module)
            except Exception as exc:  # noqa: BLE001
                log.warning("headwater: could not hook SparkSession creation: %s", exc)

        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def boot_dir() -> str:
    """The directory ``headwater run`` puts first on PYTHONPATH (holds our ``sitecustomize.py``)."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "boot")


def chain_sitecustomize(own_dir: str) -> None:
    """Import the ``sitecustomize`` our boot directory shadows, if there is one."""
    own = os.path.normcase(os.path.abspath(own_dir))
    ours = sys.modules.pop("sitecustomize", None)
    saved = list(sys.path)
    try:
        sys.path[:] = [p for p in sys.path if os.path.normcase(os.path.abspath(p or ".")) != own]
        spec = importlib.util.find_spec("sitecustomize")
        if spec is not None:
            importlib.import_module("sitecustomize")
    except Exception as exc:  # noqa: BLE001
        log.warning("headwater: the shadowed sitecustomize failed: %s", exc)
    finally:
        sys.path[:] = saved
        if ours is not None and "sitecustomize" not in sys.modules:
            sys.modules["sitecustomize"] = ours
