"""What an operator wires up: ``GET /metrics`` (Prometheus, :mod:`headwater.api.metrics`), liveness, readiness.

- ``GET /metrics``: the Prometheus text format; a reader's token when read tokens are set (Prometheus
  sends it with ``authorization`` in its scrape config).
- ``GET /livez``: the process answers (no database): restart the process when it does not.
- ``GET /readyz``: 200 when the store answers, the projector runs and the graph is at most
  ``ready_max_lag`` seconds behind the log; else 503 saying what is wrong: send no traffic to it.
  Neither probe needs a token (probes carry none) and neither says more than that.
"""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse, Response
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from headwater.api.auth import require_read
from headwater.api.metrics import app_metrics
from headwater.api.state import AppState

router = APIRouter(tags=["Status"])


@router.get(
    "/metrics",
    summary="Prometheus metrics (text format)",
    dependencies=[Depends(require_read)],
    response_class=Response,
    responses={200: {"content": {CONTENT_TYPE_LATEST: {}}, "description": "Prometheus text format"}},
)
def metrics(request: Request) -> Response:
    return Response(app_metrics(request).exposition(), media_type=CONTENT_TYPE_LATEST)


@router.get("/livez", summary="Liveness: the process answers", response_class=JSONResponse)
def livez() -> JSONResponse:
    return JSONResponse({"status": "ok"})


@router.get(
    "/readyz",
    summary="Readiness: the store answers and the graph is within ready_max_lag of the log",
    response_class=JSONResponse,
    responses={503: {"description": "Not ready: the answer says why"}},
)
def readyz(request: Request) -> JSONResponse:
    state = request.app.state.headwater
    assert isinstance(state, AppState)
    limit = float(state.settings.ready_max_lag)
    try:
        lag = state.store.projection_lag()
    except Exception as exc:  # noqa: BLE001 - any failure to read the store means not ready
        return JSONResponse(
            {"status": "unavailable", "reason": f"the store does not answer: {type(exc).__name__}"},
            status_code=503,
            headers={"Retry-After": "5"},
        )
    body = {"lagEvents": lag.events, "lagSeconds": round(lag.seconds, 3), "maxLagSeconds": limit}
    if not state.store.projection_status(limit=1).running:
        return JSONResponse({"status": "unavailable", "reason": "the projector is not running", **body}, 503)
    if lag.seconds > limit:
        return JSONResponse(
            {"status": "unavailable", "reason": "the graph is behind the log by more than ready_max_lag", **body},
            status_code=503,
            headers={"Retry-After": "5"},
        )
    return JSONResponse({"status": "ready", **body})
