"""``GET /api/v1/status``: the server's health for operators and monitoring.

Answers at once (no read barrier): the projection lag (log and graph positions), whether the
projector runs, and the acknowledged events it could not derive — counted and listed with their
errors, never dropped silently (docs/store.md, "Projection failures").
"""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from headwater import __version__
from headwater.api.answers import json_answer
from headwater.api.auth import require_read
from headwater.api.models import StatusAnswer, error_responses
from headwater.api.state import app_state

router = APIRouter(tags=["Status"], dependencies=[Depends(require_read)], responses=error_responses(401, 503))


@router.get("/api/v1/status", summary="Server health: projection lag and failed events", response_model=StatusAnswer)
def status(request: Request) -> Response:
    store = app_state(request).store
    health = store.projection_status()
    return json_answer(
        {
            "status": "ok" if health.failed == 0 and health.running else "degraded",
            "version": __version__,
            "store": store.dialect,
            "projection": {
                "logPosition": health.position.log,
                "graphPosition": health.position.graph,
                "behind": health.position.behind,
                "running": health.running,
                "failed": health.failed,
                "failedEvents": health.failed_events,
            },
            "validation": {
                "mode": app_state(request).settings.validation,
                "eventsWithWarnings": store.warning_count(),
            },
        }
    )
