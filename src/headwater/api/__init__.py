"""The ASGI app: OpenLineage ingest, Headwater reads, Marquez compatibility, the web UI.

``create_app(settings, store=None)`` builds a new app: one router per family
(:mod:`~headwater.api.ingest`, :mod:`~headwater.api.events`, :mod:`~headwater.api.graph`,
:mod:`~headwater.api.marquez`), the standard error body (:mod:`~headwater.api.errors`),
optional bearer-token auth (:mod:`~headwater.api.auth`) and the UI catch-all last
(:mod:`~headwater.api.ui`). Everything the handlers need is on ``app.state.headwater``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from fastapi import FastAPI
from fastapi_offline import FastAPIOffline

from headwater import __version__
from headwater.api import catalog, classify, events, graph, health, impact, ingest, marquez, metrics, quality, status
from headwater.api import datazone as datazone_lineage
from headwater.api import spline as spline_producer
from headwater.api.errors import install_error_handlers
from headwater.api.freshness import GraphPositionHeaders
from headwater.api.guard import Guard, allowed_hosts
from headwater.api.state import AppState
from headwater.api.ui import mount_ui, ui_dir
from headwater.settings import Settings
from headwater.spec import EventValidator

if TYPE_CHECKING:
    from headwater.store import Store

__all__ = ["create_app"]

_DESCRIPTION = """Headwater's HTTP API. OpenLineage producers send events to `POST /api/v1/lineage`.
The native read API is under `/api/v1/graph` and `/api/v1/events`; Marquez's read paths answer in
Marquez's shapes. Every error answers `{"error": {"code", "message", "details"}}`."""


def create_app(
    settings: Settings, store: Store | None = None, ui_folder: Path | None = None, bind_host: str | None = None
) -> FastAPI:
    """A new app serving ``store`` (opened from ``settings.db_url`` when not given).

    ``bind_host`` is the address the server listens on (``headwater serve`` passes its ``host``):
    bound to a loopback address the app answers only to loopback host names and ``allowed_hosts``
    (:mod:`~headwater.api.guard`); without it only ``allowed_hosts`` is checked.

    A store passed in stays the caller's to close; a store opened here is closed on shutdown.
    ``ui_folder`` overrides where the built UI is looked for (default: ``headwater.ui.static_dir()``).
    """
    owned = store is None
    if store is None:
        from headwater.store import Store

        store = Store.open(settings.db_url, projector_wait=float(settings.projector_wait))

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        adjacency = app.state.headwater.adjacency
        if adjacency is not None:
            adjacency.start()  # in the background: lineage reads the store until it is built
        try:
            yield
        finally:
            if adjacency is not None:
                adjacency.close()
            app.state.headwater.parse_pool.close()
            if owned:
                close = getattr(store, "close", None)
                if callable(close):
                    close()

    app = FastAPIOffline(  # /docs and /redoc with their assets served locally, not from a CDN
        title="Headwater",
        version=__version__,
        description=_DESCRIPTION,
        lifespan=lifespan,
    )
    app.state.headwater = AppState(settings=settings, store=store, validator=EventValidator())
    app.state.metrics = metrics.Metrics(store, app.state.headwater.parse_pool)  # GET /metrics
    install_error_handlers(app)
    app.add_middleware(GraphPositionHeaders)  # what a read reflects: Headwater-Graph-Position/-Behind
    # outermost: Host (DNS rebinding), cross-site writes (CSRF), HEAD, security headers
    app.add_middleware(Guard, hosts=allowed_hosts(bind_host, settings.allowed_host_set))
    app.add_middleware(metrics.RequestMetrics, metrics=app.state.metrics)  # every answer's duration, by family
    app.include_router(ingest.router)
    app.include_router(marquez.router)  # before events: /api/v1/events/lineage must win over /events/{id}
    app.include_router(events.router)
    app.include_router(graph.router)
    app.include_router(spline_producer.router)  # Spline producer API at /spline/producer
    app.include_router(datazone_lineage.router)  # DataZone lineage API at /v2/domains/{id}/lineage
    app.include_router(status.router)
    app.include_router(health.router)  # /metrics, /livez, /readyz
    app.include_router(catalog.router)  # the catalog (docs/catalog.md) at /api/v1/catalog
    app.include_router(impact.router)  # the impact check (docs/impact.md) at /api/v1/impact
    app.include_router(classify.router)  # classifications along lineage (docs/classify.md) at /api/v1/classify
    app.include_router(quality.router)  # data quality along the graph (docs/classify.md) at /api/v1/quality
    folder = ui_folder if ui_folder is not None else ui_dir()
    mount_ui(app, folder if folder is not None and (folder / "index.html").is_file() else None)
    return app
