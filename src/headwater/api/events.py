"""Raw events: ``GET /api/v1/events`` (newest first, cursor paging) and ``GET /api/v1/events/{id}``.

The list is encoded in the handler (:func:`~headwater.api.answers.json_answer`); its model
(:class:`~headwater.api.models.EventPage`) is for ``/openapi.json`` only.
"""

from __future__ import annotations

import json
from datetime import datetime

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import Response

from headwater.api.answers import json_answer
from headwater.api.auth import require_read
from headwater.api.errors import invalid_parameter, not_found
from headwater.api.freshness import read_barrier
from headwater.api.models import EventPage, error_responses
from headwater.api.params import node_ref, parse_time
from headwater.api.state import app_state
from headwater.model.jsontypes import JSONObject
from headwater.model.times import iso_micros, iso_millis
from headwater.store import InvalidCursor
from headwater.store.types import StoredEvent

router = APIRouter(
    tags=["Raw events"],
    dependencies=[Depends(require_read), Depends(read_barrier)],
    responses=error_responses(400, 401, 404, 503),
)


def _time_text(value: datetime | str | None) -> str | None:
    if isinstance(value, datetime):
        return iso_millis(value)
    return None if value is None else str(value)


def _event_time_text(value: datetime | str | None) -> str | None:
    """An ``eventTime``: milliseconds, or microseconds when it has them: never cut, so given back as ``at=`` it is
    the moment the event made its versions at (``receivedAt`` keeps milliseconds: no question is asked by it)."""
    if isinstance(value, datetime) and value.microsecond % 1000:
        return iso_micros(value)
    return _time_text(value)


def event_summary(stored: StoredEvent) -> JSONObject:
    """EventSummary (docs/api.md) of one stored event."""
    job = stored.job
    return {
        "id": str(stored.id),
        "eventTime": _event_time_text(stored.event_time),
        "receivedAt": _time_text(stored.received_at),
        "kind": stored.kind,
        "eventType": stored.event_type,
        "job": None if job is None else str(job),
        "runId": None if stored.run_id is None else str(stored.run_id),
        "event": json.loads(stored.raw),
        "warnings": list(stored.warnings),
    }


@router.get("/api/v1/events", summary="List raw events, newest first", response_model=EventPage)
def list_events(
    request: Request,
    since: str | None = Query(None, description="Only events with eventTime >= since (ISO 8601 or epoch ms)"),
    until: str | None = Query(None, description="Only events with eventTime <= until (ISO 8601 or epoch ms)"),
    node_id: str | None = Query(None, alias="nodeId", description="Only events touching this dataset, job or run"),
    type_: str | None = Query(None, alias="type"),
    namespace: str | None = Query(None),
    name: str | None = Query(None),
    limit: int = Query(100, ge=1, le=1000),
    cursor: str | None = Query(None, description="nextCursor of the previous page"),
) -> Response:
    state = app_state(request)
    node = node_ref(node_id, type_, namespace, name, required=False, datasets_known=state.datasets_known)
    if node is not None and node.type == "datasetField":
        node = node.dataset
    try:
        events, next_cursor = state.graph.events(
            since=parse_time(since, "since"), until=parse_time(until, "until"), node=node, limit=limit, cursor=cursor
        )
    except InvalidCursor as exc:
        raise invalid_parameter("cursor", str(exc)) from None
    return json_answer({"events": [event_summary(e) for e in events], "nextCursor": next_cursor})


@router.get(
    "/api/v1/events/{event_id}",
    summary="One raw event exactly as stored",
    response_class=Response,
    responses={
        200: {
            "content": {
                "application/json": {
                    "schema": {
                        "type": "object",
                        "description": "See https://openlineage.io/spec/2-0-2/OpenLineage.json",
                    }
                }
            },
            "description": "The OpenLineage event as received, byte for byte",
        }
    },
)
def get_event(request: Request, event_id: str) -> Response:
    state = app_state(request)
    stored = state.graph.event(event_id)  # None also for an event naming a node hidden from the reader
    if stored is None:
        raise not_found(f"no event with id {event_id!r}")
    headers = {
        "X-Headwater-Received-At": _time_text(stored.received_at) or "",
        # what a leniently accepted event did not satisfy: their number here, the list in GET /api/v1/events
        "X-Headwater-Validation-Warnings": str(len(stored.warnings)),
    }
    return Response(stored.raw, media_type="application/json", headers=headers)
