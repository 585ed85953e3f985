"""Spline's producer REST API at ``/spline/producer``: a thin translator into the one ingest path.

An agent configured with ``spline.producer.url=http://HOST:PORT/spline/producer`` asks ``HEAD /status``
for the API versions (``ABSA-Spline-API-Version``: 1.2 and 1.1) and whether gzip bodies are welcome,
then posts each execution plan to ``/execution-plans`` and its execution events to
``/execution-events`` (media types ``application/vnd.absa.spline.producer.v1.1+json`` /
``v1.2+json``). Here a body is decoded (gzip, size limit: :mod:`headwater.ingest`), its Spline
shape checked (:mod:`headwater.spline.shapes`: 422 with a JSON path per problem), a plan kept in the
``spline_plans`` table (:mod:`headwater.store.spline_plans`: durable before the 201, once per id), and each event converted with its plan
(:mod:`headwater.spline.convert`) into OpenLineage RunEvents that are validated against the official
schema and appended with ``Store.append`` exactly as ``POST /api/v1/lineage/batch`` does. No lineage
rule lives here; no graph table is written.
"""

from __future__ import annotations

import uuid

import sqlalchemy as sa
from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse, Response
from starlette.concurrency import run_in_threadpool

from headwater.api.auth import require_read, require_write
from headwater.api.errors import ApiError
from headwater.api.ingest import (
    append_for_project,
    append_parsed,
    batch_answer,
    check_writes,
    ingest_project,
    read_body,
)
from headwater.api.models import BatchAnswer, error_responses
from headwater.api.state import AppState, app_state
from headwater.ingest import IngestError, decode_body, parse_json
from headwater.model.jsontext import dumps
from headwater.model.jsontypes import JSONObject, JSONValue
from headwater.model.nodeid import format_node_id
from headwater.model.times import iso
from headwater.spec import Problem
from headwater.spline import SUPPORTED_VERSIONS, event_problems, plan_id_of, plan_problems, run_events
from headwater.spline.convert import job_of
from headwater.spline.shapes import Problem as SplineProblem
from headwater.spline.sources import source_dataset, table_symlink
from headwater.store import AppendResult
from headwater.store.spline_plans import PlanConflict, SplinePlans

PREFIX = "/spline/producer"
_MEDIA_PREFIX = "application/vnd.absa.spline.producer.v"
router = APIRouter(prefix=PREFIX, tags=["Spline producer API"])


def _errors(*statuses: int, **descriptions: str) -> dict[int | str, JSONObject]:
    texts = {
        "s400": "Body is not JSON (invalid_json) or bad gzip/UTF-8 (bad_encoding)",
        "s404": "No plan with this id was received (not_found)",
        "s409": "A plan with this id was stored before with different content (conflict)",
        "s415": "Not a Spline producer API v1.1/v1.2 media type, or an unsupported Content-Encoding",
        "s422": "Not a valid Spline payload (invalid_event); details lists each problem with its JSON path",
        **descriptions,
    }
    return error_responses(*statuses, **{k: v for k, v in texts.items() if int(k[1:]) in statuses})


def _uuid(text: str) -> str:
    """A UUID in its one written form (lower case, hyphens); text that is none stays as it is."""
    try:
        return str(uuid.UUID(text))
    except ValueError:
        return text


def _api_version(content_type: str | None) -> str:
    """``1.2`` or ``1.1`` from the media type; no Content-Type is read as the newest version."""
    media = (content_type or "").split(";", 1)[0].strip().lower()
    if not media:
        return SUPPORTED_VERSIONS[0]
    if media.startswith(_MEDIA_PREFIX) and media.endswith("+json"):
        version = media[len(_MEDIA_PREFIX) : -len("+json")]
        if version in SUPPORTED_VERSIONS:
            return version
    hint = (
        "producer API v1.0 (application/json) is not supported"
        if media in ("application/json", "text/json")
        else f"Content-Type {media!r} is not a Spline producer media type"
    )
    raise IngestError(
        415,
        "unsupported_media_type",
        f"{hint}: send application/vnd.absa.spline.producer.v1.2+json or v1.1+json "
        "(the Spark agent picks it from HEAD /status; spline.lineageDispatcher.http.apiVersion)",
    )


async def _body_text(request: Request, state: AppState) -> tuple[str, str]:
    version = _api_version(request.headers.get("content-type"))
    max_bytes = state.settings.max_body_bytes
    raw = await read_body(request, max_bytes)
    text = decode_body(
        raw,
        content_encoding=request.headers.get("content-encoding"),
        content_type="application/json",
        max_bytes=max_bytes,
    )
    return text, version


def _invalid(problems: list[SplineProblem], what: str) -> IngestError:
    first = problems[0]
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return IngestError(
        422,
        "invalid_event",
        f"{what}: {first.path}: {first.message}{more}",
        [Problem(p.path, p.message) for p in problems],
    )


def _status_headers() -> list[tuple[bytes, bytes]]:
    """One header line per version, as Spline's server sends them (the Spark agent reads each line as one version)."""
    lines = [(b"absa-spline-api-version", v.encode()) for v in SUPPORTED_VERSIONS]
    lines += [(b"absa-spline-api-lts-version", v.encode()) for v in SUPPORTED_VERSIONS]
    lines.append((b"absa-spline-accept-request-encoding", b"gzip"))
    return lines


def _status(request: Request) -> Response:
    store = app_state(request).store
    try:
        with store.engine.connect() as conn:
            conn.execute(sa.text("SELECT 1"))
    except sa.exc.OperationalError:
        raise ApiError(503, "store_unavailable", "the store cannot be reached", headers={"Retry-After": "5"}) from None
    answer = Response(status_code=200)
    answer.raw_headers.extend(_status_headers())
    return answer


_STATUS_DOC = {
    "summary": "Producer API status: the versions served and gzip acceptance (Spline's headers)",
    "description": "Answers `ABSA-Spline-API-Version` and `ABSA-Spline-API-LTS-Version` (one header line per "
    "version: 1.2, 1.1) and `ABSA-Spline-Accept-Request-Encoding: gzip`; 503 when the store is down.",
    "dependencies": [Depends(require_write)],
    "response_class": Response,
    "responses": {200: {"description": "Ready", "content": None}, **_errors(401, 403, 503)},
}


@router.head("/status", **_STATUS_DOC)  # type: ignore[arg-type]
def status_head(request: Request) -> Response:
    return _status(request)


@router.get("/status", **_STATUS_DOC)  # type: ignore[arg-type]
def status_get(request: Request) -> Response:
    return _status(request)


def _same_plan(stored: str, raw: str) -> bool:
    return bool(parse_json(stored) == parse_json(raw))


def _store_plan(state: AppState, plan_id: str, raw: str, version: str) -> None:
    """Keep the plan (committed before the answer); the same plan again changes nothing, another one under
    the same id is a 409."""
    try:
        SplinePlans(state.store).keep(plan_id, raw, version, _same_plan)
    except PlanConflict:
        raise ApiError(
            409,
            "conflict",
            f"execution plan {plan_id} was received before with different content; "
            "a plan id names one plan (send a new id, or a discriminator-specific id)",
        ) from None


def _load_plans(state: AppState, plan_ids: set[str]) -> dict[str, tuple[JSONObject, str]]:
    found = SplinePlans(state.store).get_many(plan_ids)
    return {plan_id: (parse_json(p.raw), p.api_version) for plan_id, p in found.items()}


def _spline_body(description: str, schema: dict[str, object]) -> dict[str, object]:
    """The OpenAPI request body of a producer API post: ``schema`` under each Spline media type."""
    content = {f"{_MEDIA_PREFIX}{v}+json": {"schema": schema} for v in SUPPORTED_VERSIONS}
    return {"requestBody": {"required": True, "description": description, "content": content}}


@router.post(
    "/execution-plans",
    status_code=201,
    summary="Receive a Spline execution plan (kept until its execution events arrive)",
    dependencies=[Depends(require_write)],
    openapi_extra=_spline_body("A Spline ExecutionPlan (producer API v1.1/v1.2)", {"type": "object"}),
    responses={
        201: {
            "description": "Stored durably; the answer is the plan's id (a JSON string), as Spline's",
            "content": {"application/json": {"schema": {"type": "string", "format": "uuid"}}},
        },
        **_errors(400, 401, 403, 409, 413, 415, 422, 503),
    },
)
async def post_plan(request: Request) -> JSONResponse:
    state = app_state(request)
    text, version = await _body_text(request, state)

    def work() -> str:
        plan = parse_json(text)
        problems = plan_problems(plan)
        if problems:
            raise _invalid(problems, "not a Spline execution plan")
        plan_id = plan_id_of(plan)
        _store_plan(state, plan_id, dumps(plan), version)
        return plan_id

    return JSONResponse(await run_in_threadpool(work), status_code=201)


@router.post(
    "/execution-events",
    status_code=201,
    summary="Receive Spline execution events: each becomes an OpenLineage run of its plan's job",
    dependencies=[Depends(require_write)],
    openapi_extra=_spline_body("An array of Spline ExecutionEvents", {"type": "array", "items": {"type": "object"}}),
    response_model=BatchAnswer,
    responses={
        201: {
            "description": "Converted and stored durably (ids of the OpenLineage events; "
            "an event sent again is counted in duplicates)"
        },
        **_errors(400, 401, 403, 413, 415, 422, 503),
    },
)
async def post_events(request: Request) -> Response:
    state = app_state(request)
    text, version = await _body_text(request, state)

    def work() -> tuple[list[Problem], list[AppendResult]]:
        events = parse_json(text)
        problems = event_problems(events)
        if problems:
            raise _invalid(problems, "not a list of Spline execution events")
        plans = _load_plans(state, {_uuid(e["planId"]) for e in events})
        missing = [
            SplineProblem(
                f"$[{i}].planId",
                f"no execution plan {e['planId']} was received: post it to {PREFIX}/execution-plans first",
            )
            for i, e in enumerate(events)
            if _uuid(e["planId"]) not in plans
        ]
        if missing:
            raise _invalid(missing, "execution events of unknown plans")
        converted: list[JSONObject] = []
        for event in events:
            plan, plan_version = plans[_uuid(event["planId"])]
            converted.extend(run_events(plan, event, api_version=plan_version))
        accepted = state.door.accept_events(converted)
        check_writes(request, state, [e.payload for e in accepted])  # owners write their own (catalog/writes.py)
        warnings = [w for e in accepted for w in e.warnings]
        project = ingest_project(request)  # a catalog user's events are the project's from the first moment
        if project:
            return warnings, append_for_project(request, state, project, accepted)
        return warnings, append_parsed(state, accepted)

    warnings, results = await run_in_threadpool(work)
    return batch_answer(results, warnings, status_code=201)


def _plan_nodes(plan: JSONValue) -> set[str]:
    """The dataset and job ids a plan's events are made of: every source URI (and its catalog table) and the job."""
    found: set[str] = set()

    def add(uri: JSONValue, params: JSONValue) -> None:
        location = source_dataset(uri, params) if isinstance(uri, str) else None
        if location is not None:
            found.add(format_node_id("dataset", *location))
            table = table_symlink(location, params if isinstance(params, dict) else None)
            if table is not None:
                found.add(format_node_id("dataset", *table))

    def walk(value: JSONValue) -> None:
        if isinstance(value, dict):
            params = value.get("params")
            for key in ("uri", "outputSource"):
                add(value.get(key), params)
            for uri in value.get("inputSources") or []:
                add(uri, params)
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(plan)
    if isinstance(plan, dict):
        try:
            found.add(format_node_id("job", *job_of(plan)))
        except (KeyError, TypeError, ValueError):
            pass
    return found


def _hidden_plan(state: AppState, raw: str) -> bool:
    """Whether the plan names a node the reader may not see (the catalog's visibility policy): then, as its
    events, it is not found."""
    hidden = state.graph.hidden()
    return bool(hidden) and any(hidden.hides(node) for node in _plan_nodes(parse_json(raw)))


@router.get(
    "/execution-plans/{plan_id}",
    summary="A Spline execution plan as it was received (Headwater's addition to the producer API)",
    dependencies=[Depends(require_read)],
    responses={
        200: {
            "description": "The plan's JSON, with `X-Headwater-Received-At` and `X-Spline-API-Version`",
            "content": {"application/json": {"schema": {"type": "object"}}},
        },
        **_errors(401, 404, 503),
    },
)
def get_plan(plan_id: str, request: Request) -> Response:
    state = app_state(request)
    row = SplinePlans(state.store).get(_uuid(plan_id))
    if row is None or _hidden_plan(state, row.raw):
        raise ApiError(404, "not_found", f"no execution plan {plan_id} was received")
    return Response(
        row.raw,
        media_type="application/json",
        headers={"X-Headwater-Received-At": iso(row.received_at) or "", "X-Spline-API-Version": row.api_version},
    )
