"""OpenLineage ingest: ``POST /api/v1/lineage`` (one event) and ``POST /api/v1/lineage/batch``.

The body is read with a size cap, then decoding, validation and ``Store.append`` run in the
threadpool (they are CPU- or IO-bound and must not block the event loop). ``Store.append``
commits and syncs before it returns, so an answer of 200/201 means the event is durable.
"""

from __future__ import annotations

from collections.abc import Sequence

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse, Response
from starlette.concurrency import run_in_threadpool

from headwater.api.answers import json_answer
from headwater.api.auth import PROJECT_HEADER, principal, require_write
from headwater.api.errors import ApiError
from headwater.api.metrics import app_metrics
from headwater.api.models import BatchAnswer, IngestAnswer, error_responses
from headwater.api.parse_pool import Job
from headwater.api.state import AppState, app_state
from headwater.catalog import Catalog
from headwater.catalog.writes import might_name_catalog, refused_writes, value_might_name_catalog
from headwater.ingest import ParsedEvent, decode_body
from headwater.ingest.body import too_large
from headwater.model.jsontext import loads_text
from headwater.model.jsontypes import JSONMapping
from headwater.spec import Problem
from headwater.store import AppendResult, IncomingEvent

router = APIRouter(
    tags=["OpenLineage ingest"],
    dependencies=[Depends(require_write)],
    responses=error_responses(
        400,
        401,
        403,
        413,
        415,
        422,
        503,
        s400="Body is not JSON (invalid_json, with line and column), or bad gzip/UTF-8 (bad_encoding)",
    ),
)

_EVENT_BODY = {
    "description": "One OpenLineage RunEvent, DatasetEvent or JobEvent (JSON; `Content-Encoding: gzip` accepted).",
    "required": True,
    "content": {
        "application/json": {
            "schema": {
                "type": "object",
                "description": "See the OpenLineage 2-0-2 schema: https://openlineage.io/spec/2-0-2/OpenLineage.json",
            }
        }
    },
}
_BATCH_BODY = {
    "description": 'A JSON array of OpenLineage events, or `{"events": [...]}`. All-or-nothing.',
    "required": True,
    "content": {"application/json": {"schema": {"type": "array", "items": {"type": "object"}}}},
}


async def read_body(request: Request, max_bytes: int) -> bytes:
    """The request body, refused with 413 as soon as it is longer than ``max_bytes`` (declared or streamed)."""
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > max_bytes:
        raise too_large(f"{declared} bytes", max_bytes)
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > max_bytes:
            raise too_large(f"more than {max_bytes} bytes", max_bytes)
        chunks.append(chunk)
    return b"".join(chunks)


def _text(request: Request, raw: bytes, state: AppState) -> str:
    return decode_body(
        raw,
        content_encoding=request.headers.get("content-encoding"),
        content_type=request.headers.get("content-type"),
        max_bytes=state.settings.max_body_bytes,
        max_members=state.settings.max_gzip_members,
    )


def ingest_project(request: Request) -> str | None:
    """The project the request's events are bound to at ingest (docs/catalog.md, "Events and projects"): the
    request's project context (``Headwater-Project``, ``?project=``, a project-bound token's project), else the
    one project a catalog user may send for; a user who may send for several must choose (403). None: the
    server's write token (or an open server) sends lineage no project owns."""
    who = principal(request)
    chosen = request.headers.get(PROJECT_HEADER) or request.query_params.get("project") or who.context
    if chosen or who.admin or not who.memberships:
        return chosen or None
    writable = sorted(p for p, role in who.memberships.items() if role in ("owner", "contributor"))
    if len(writable) == 1:
        return writable[0]
    raise ApiError(
        403,
        "forbidden",
        f"{who.user!r} sends for several projects ({', '.join(writable)}): choose one with the "
        f"{PROJECT_HEADER} header or ?project= (events are bound to their project when they arrive)",
    )


def _ingest(request: Request, state: AppState, text: str, batch: bool) -> tuple[list[Problem], list[AppendResult]]:
    """Parse, validate and append one body (``batch``: an array of events); (warnings, results).

    Without a project context the work goes through the app's parse pool (a large body is parsed in a worker
    process: headwater.api.parse_pool); with one, here, because the catalog's claims read the payloads."""
    project = ingest_project(request)
    if not project:
        job = Job(text, batch, state.door.policy)
        ready = state.parse_pool.prepare(job)
        users = bool(principal(request).memberships)  # a catalog user: every event is read for the datasets it writes
        looked: list[tuple[int, JSONMapping]] = []
        for i, r in enumerate(ready):
            payload = r.prepared.payload  # parsed here (the fast path): its names are looked at, not its text
            if payload is not None:
                if users or value_might_name_catalog(payload):
                    looked.append((i, payload))
            elif users or might_name_catalog(raw := str(r.prepared.row["raw"])):
                looked.append((i, loads_text(raw)))
        roots = [f"$[{i}]" if batch else "$" for i, _ in looked]
        check_writes(request, state, [payload for _, payload in looked], roots)
        results = state.store.append_prepared([r.prepared for r in ready])
        return [w for r in ready for w in r.warnings], results
    events = state.door.accept(text, batch=batch)
    check_writes(request, state, [e.payload for e in events], [f"$[{i}]" if batch else "$" for i in range(len(events))])
    return [w for e in events for w in e.warnings], append_for_project(request, state, project, events)


def check_writes(
    request: Request, state: AppState, payloads: Sequence[JSONMapping], roots: list[str] | None = None
) -> None:
    """403 when the request's principal may not send these events: they write a node the catalog draws, or a
    dataset another project catalogued (catalog/writes.py, docs/catalog.md); nothing is stored then. ``roots``:
    each payload's JSON path in the request (``$[i]`` in a batch)."""
    if not payloads:
        return
    who = principal(request)
    if who.memberships:  # a catalog user: which project catalogued each dataset is read
        with state.store.engine.connect() as conn:
            refused = refused_writes(conn, who, payloads, roots)
    else:
        refused = refused_writes(None, who, payloads, roots)
    if refused:
        raise ApiError(
            403,
            "forbidden",
            "; ".join(f"{path}: {why}" for path, why in refused[:10]),
            [{"path": path, "message": why} for path, why in refused],
        )


def append_for_project(
    request: Request, state: AppState, project: str, events: list[ParsedEvent]
) -> list[AppendResult]:
    """:func:`append_parsed` in a project context (``Headwater-Project`` or ``?project=``, the sender an owner or
    contributor of it): the datasets the events write become the project's inventory assets *before* the
    append, so no one else ever sees them, and the run's data-source report is kept (docs/catalog.md)."""
    if not events:
        return []
    base = request.app.state.headwater
    catalog = Catalog(base.store, base.graph, base.door)
    who = principal(request)
    payloads = [e.payload for e in events]
    claimed = catalog.source_runs.claim_outputs(who, project, payloads)  # a refusal: api/errors.py answers it
    results = append_parsed(state, events)
    catalog.source_runs.record_ingest(who, project, payloads, [str(r.id) for r in results], claimed)
    return results


def append_parsed(state: AppState, events: list[ParsedEvent]) -> list[AppendResult]:
    """Append accepted events with their warnings: the append of the server's doors (here, Spline, DataZone)."""
    if not events:
        return []
    return list(state.store.append([IncomingEvent.accepted(e) for e in events]))


def _count(request: Request, warnings: list[Problem], results: list[AppendResult]) -> None:
    """The acknowledged events and their warnings into the app's metrics (GET /metrics)."""
    metrics = app_metrics(request)
    duplicates = sum(1 for r in results if r.duplicate)
    if duplicates:
        metrics.acknowledged.labels("duplicate").inc(duplicates)
    if len(results) > duplicates:
        metrics.acknowledged.labels("stored").inc(len(results) - duplicates)
    if warnings:
        metrics.warnings.inc(len(warnings))


@router.post(
    "/api/v1/lineage",
    status_code=201,
    summary="Receive one OpenLineage event",
    openapi_extra={"requestBody": _EVENT_BODY},
    response_model=IngestAnswer,
    responses={
        200: {"model": IngestAnswer, "description": "Already stored (same event sent again); nothing changed"},
        201: {"description": "Stored durably"},
    },
)
async def post_lineage(request: Request) -> JSONResponse:
    state = app_state(request)
    raw = await read_body(request, state.settings.max_body_bytes)
    warnings, (result,) = await run_in_threadpool(lambda: _ingest(request, state, _text(request, raw, state), False))
    _count(request, warnings, [result])
    return JSONResponse(
        {
            "id": str(result.id),
            "duplicate": bool(result.duplicate),
            "warnings": [w.as_dict() for w in warnings],
        },
        status_code=200 if result.duplicate else 201,
    )


@router.post(
    "/api/v1/lineage/batch",
    summary="Receive many OpenLineage events, all or nothing",
    openapi_extra={"requestBody": _BATCH_BODY},
    response_model=BatchAnswer,
    responses={
        200: {"description": "All stored durably"},
        **error_responses(422, s422="At least one event is invalid (invalid_event, paths $[i]...); nothing stored"),
    },
)
async def post_lineage_batch(request: Request) -> Response:
    state = app_state(request)
    raw = await read_body(request, state.settings.max_body_bytes)
    warnings, results = await run_in_threadpool(lambda: _ingest(request, state, _text(request, raw, state), True))
    _count(request, warnings, results)
    return batch_answer(results, warnings)


def batch_answer(results: list[AppendResult], warnings: list[Problem], status_code: int = 200) -> Response:
    """The answer to a batch (:class:`~headwater.api.models.BatchAnswer`), here and at Spline's door."""
    stored = sum(1 for r in results if not r.duplicate)
    return json_answer(
        {
            "received": len(results),
            "stored": stored,
            "duplicates": len(results) - stored,
            "ids": [str(r.id) for r in results],
            "warnings": [w.as_dict() for w in warnings],
        },
        status_code=status_code,
    )
