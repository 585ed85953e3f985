"""``GET /api/v1/status``: the server's health for operators and monitoring.

Answers at once (no read barrier): the projection lag (log and graph positions), whether the
projector runs, whether the graph was derived by this server's rules of derivation (else it needs
``headwater db rebuild``: store/rules.py), producers' clock skew (the newest events' times against their arrival), and the acknowledged events it could not derive — counted and listed with their
errors, never dropped silently (docs/store.md, "Projection failures"); a reader other than an admin
sees the failed events it may see (the catalog's visibility policy) and the whole count.
"""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from headwater import __version__
from headwater.api.answers import json_answer
from headwater.api.auth import require_read
from headwater.api.models import StatusAnswer, error_responses
from headwater.api.state import app_state, request_viewer

router = APIRouter(tags=["Status"], dependencies=[Depends(require_read)], responses=error_responses(401, 503))


@router.get("/api/v1/status", summary="Server health: projection lag and failed events", response_model=StatusAnswer)
def status(request: Request) -> Response:
    state = app_state(request)
    store = state.store
    health = store.projection_status()
    skew = store.clock_skew()
    rules = store.graph_rules()
    failed_events = health.failed_events
    if not request_viewer(request).admin:
        # an error message may name any table of its event: listed only when the reader may see that event
        # (the catalog's policy, as GET /api/v1/events/{id} applies it); the count stays whole
        failed_events = [e for e in failed_events if state.graph.event(str(e["id"])) is not None]
    return json_answer(
        {
            "status": "ok" if health.failed == 0 and health.running and not rules.rebuild_needed else "degraded",
            "version": __version__,
            "store": store.dialect,
            "projection": {
                "logPosition": health.position.log,
                "graphPosition": health.position.graph,
                "behind": health.position.behind,
                "running": health.running,
                "failed": health.failed,
                "failedEvents": failed_events,
            },
            "rules": {"graph": rules.graph, "current": rules.current, "rebuildNeeded": rules.rebuild_needed},
            "validation": {
                "mode": state.settings.validation,
                "eventsWithWarnings": store.warning_count(),
            },
            "clock": {
                "sample": skew.sample,
                "aheadSeconds": skew.ahead_seconds,
                "behindSeconds": skew.behind_seconds,
                "skewedAhead": skew.skewed_ahead,
                "skewedBehind": skew.skewed_behind,
            },
        }
    )
