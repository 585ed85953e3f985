"""Prometheus metrics (``GET /metrics``, served by :mod:`headwater.api.health`).

- ``GET /metrics`` answers the Prometheus text format (the maintained ``prometheus-client``):
  events acknowledged (stored, duplicate), ingest requests refused by reason (the error code of the
  answer), validation warnings, request durations per route family, and — read from the database
  at scrape time, so every server on one store answers the same — projection lag (events and
  seconds), failed derivations, events with warnings, producers' clock skew; and this process's
  parse workers and connection pool. Names and meanings: docs/deploy.md, "Monitoring".
Every app has its own registry (no global state: tests build many apps in one process). With
``headwater serve --workers N`` the N processes share one port, so a scrape reaches any one of them:
``serve`` then gives them a shared folder in ``PROMETHEUS_MULTIPROC_DIR`` (prometheus-client's
multiprocess mode) and each scrape sums the counters and histograms of all N; the figures read from the
database are the same whichever process answers; the parse-worker and pool gauges are those of the
process that answered (label ``pid``).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

from fastapi import Request
from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector
from starlette.types import ASGIApp, Message, Receive, Scope, Send

if TYPE_CHECKING:
    from headwater.api.parse_pool import ParsePool
    from headwater.store import Store

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"

# path prefix → route family, first match wins (the Marquez paths are the rest of /api/v1/)
_FAMILIES = (
    ("/api/v1/lineage", "ingest"),
    ("/api/v1/graph", "graph"),
    ("/api/v1/events/lineage", "marquez"),
    ("/api/v1/events", "events"),
    ("/api/v1/catalog", "catalog"),
    ("/api/v1/status", "ops"),
    ("/metrics", "ops"),
    ("/livez", "ops"),
    ("/readyz", "ops"),
    ("/api/v1/", "marquez"),
    ("/spline/", "spline"),
    ("/v2/", "datazone"),
    ("/docs", "docs"),
    ("/openapi.json", "docs"),
    ("/redoc", "docs"),
)
_LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


def route_family(path: str) -> str:
    """The family a request path belongs to (``ui`` for the web UI and anything else)."""
    for prefix, family in _FAMILIES:
        if path.startswith(prefix):
            return family
    return "ui"


class _StoreCollector(Collector):
    """Gauges read when scraped: the store's figures from the database, this process's workers and pool."""

    def __init__(self, store: Store, parse_pool: ParsePool) -> None:
        self._store = store
        self._parse_pool = parse_pool

    def collect(self) -> Iterator[Metric]:
        pid = str(os.getpid())
        up = GaugeMetricFamily("headwater_store_up", "1 when the store answered this scrape's queries, else 0")
        try:
            lag = self._store.projection_lag()
            status = self._store.projection_status(limit=1)
            skew = self._store.clock_skew()
            warned = self._store.warning_count()
        except Exception:  # noqa: BLE001 - the store is away: say so, and still report this process
            up.add_metric([], 0)
            yield up
        else:
            up.add_metric([], 1)
            yield up
            yield GaugeMetricFamily("headwater_log_position", "Newest event seq in the log", value=lag.log)
            yield GaugeMetricFamily("headwater_graph_position", "Newest event seq the graph reflects", value=lag.graph)
            yield GaugeMetricFamily(
                "headwater_projection_lag_events", "Events in the log the graph does not reflect yet", value=lag.events
            )
            yield GaugeMetricFamily(
                "headwater_projection_lag_seconds",
                "How long the oldest event not yet derived has waited since it arrived (0: caught up)",
                value=lag.seconds,
            )
            yield GaugeMetricFamily(
                "headwater_projection_failed_events",
                "Acknowledged events the projector could not derive (GET /api/v1/status lists them)",
                value=status.failed,
            )
            yield GaugeMetricFamily(
                "headwater_projector_running", "1 when this process's projector thread runs", value=int(status.running)
            )
            yield GaugeMetricFamily(
                "headwater_events_with_warnings", "Events in the log accepted with validation warnings", value=warned
            )
            yield _labelled(
                "headwater_clock_skew_seconds",
                "Newest events' eventTime against their arrival: the most ahead and the most behind",
                ["direction"],
                [(["ahead"], skew.ahead_seconds), (["behind"], skew.behind_seconds)],
            )
            yield _labelled(
                "headwater_clock_skewed_events",
                "Of the newest events, those whose eventTime is more than 5 minutes off their arrival",
                ["direction"],
                [(["ahead"], skew.skewed_ahead), (["behind"], skew.skewed_behind)],
            )
        workers = self._parse_pool.state()
        yield _labelled(
            "headwater_parse_workers",
            "This process's parse worker processes",
            ["pid", "state"],
            [
                ([pid, "configured"], workers.configured),
                ([pid, "started"], workers.started),
                ([pid, "busy"], workers.busy),
            ],
        )
        pool = self._store.pool_state()
        yield _labelled(
            "headwater_db_connections",
            "This process's database connection pool",
            ["pid", "state"],
            [
                ([pid, "size"], pool.size),
                ([pid, "checked_out"], pool.checked_out),
                ([pid, "idle"], pool.idle),
                ([pid, "overflow"], pool.overflow),
            ],
        )


def _labelled(name: str, documentation: str, labels: list[str], samples: list[tuple[list[str], float]]) -> Metric:
    """One gauge family with a sample per label-value list (the skew, parse-worker and pool gauges)."""
    family = GaugeMetricFamily(name, documentation, labels=labels)
    for values, value in samples:
        family.add_metric(values, value)
    return family


class Metrics:
    """One app's metrics: the counters ingest and the request middleware update, and the exposition."""

    def __init__(self, store: Store, parse_pool: ParsePool) -> None:
        self.registry = CollectorRegistry()
        self.acknowledged = Counter(
            "headwater_events_acknowledged",
            "Events acknowledged by ingest (durable in the log): stored, or duplicate of one stored before",
            ["outcome"],
            registry=self.registry,
        )
        self.refused = Counter(
            "headwater_ingest_refused",
            "Ingest requests refused, by the error code of the answer (invalid_event, disk_full, ...)",
            ["reason"],
            registry=self.registry,
        )
        self.warnings = Counter(
            "headwater_validation_warnings", "Validation warnings of leniently accepted events", registry=self.registry
        )
        self.latency = Histogram(
            "headwater_request_duration_seconds",
            "Time from a request's arrival to the end of its answer, by route family",
            ["family"],
            buckets=_LATENCY_BUCKETS,
            registry=self.registry,
        )
        self._store_collector = _StoreCollector(store, parse_pool)
        self.registry.register(self._store_collector)

    def exposition(self) -> bytes:
        """The metrics in Prometheus's text format (summed over the server's processes in multiprocess mode)."""
        if not os.environ.get(MULTIPROC_ENV):
            return generate_latest(self.registry)
        registry = CollectorRegistry()
        MultiProcessCollector(registry)  # type: ignore[no-untyped-call]  # (untyped in prometheus-client) every process's counters and histograms, from the shared folder
        registry.register(self._store_collector)
        return generate_latest(registry)


class RequestMetrics:
    """ASGI middleware: each HTTP request's duration into ``headwater_request_duration_seconds``."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()

        async def timed_send(message: Message) -> None:
            await send(message)
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                self.metrics.latency.labels(route_family(scope["path"])).observe(time.perf_counter() - start)

        await self.app(scope, receive, timed_send)


def app_metrics(request: Request) -> Metrics:
    metrics = request.app.state.metrics
    assert isinstance(metrics, Metrics)
    return metrics


def count_refused(request: Request, code: str) -> None:
    """An ingest request was refused with ``code`` (called by the error handlers for ingest's paths)."""
    metrics = getattr(request.app.state, "metrics", None)
    if isinstance(metrics, Metrics) and route_family(request.url.path) == "ingest":
        metrics.refused.labels(code).inc()
