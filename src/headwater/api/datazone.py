"""Amazon DataZone's lineage API at ``/v2/domains/{domainIdentifier}/lineage/...``: a translator with records of its own.

The paths, parameters and answers are those of the DataZone service model in botocore, so boto3's
``datazone`` client (and OpenLineage's ``amazon_datazone_api`` transport, which is that client) works
against ``headwater serve`` with only ``endpoint_url`` changed:

- ``PostLineageEvent`` (``POST …/lineage/events``): the body is an OpenLineage RunEvent; it is decoded,
  validated and appended exactly as ``POST /api/v1/lineage`` does (the ingest door ``headwater.ingest.accept``,
  ``Store.append``: durable before the answer, a resent event stored once by its event id). The domain,
  the ``Client-Token``, the signer and the time are recorded beside it (``datazone_events``); a token
  sent again with the same event answers as the first time, with another event ``ConflictException``.
- ``GetLineageEvent`` / ``ListLineageEvents``: the events posted to the domain, read from the log.
- ``GetLineageNode`` / ``ListLineageNodeHistory``: graph reads (:class:`headwater.graph.GraphReader`)
  of a dataset, job or run, with its one-hop upstream and downstream nodes and its versions.
- ``DeleteLineageEvent`` answers ``ValidationException``: the log is append-only.

Node and event ids, timestamps and tokens are translated by :mod:`headwater.api.datazone_shapes`.
Requests are authenticated with SigV4 against the ``datazone_access_keys`` setting
(:mod:`headwater.api.sigv4`); without keys they are not, unless bearer tokens are configured, which
then apply. Every error answers in DataZone's shape (``x-amzn-ErrorType`` and ``{"message"}``).
No lineage rule lives here, and no graph table is written.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Coroutine, Mapping, Sequence
from datetime import timedelta
from typing import Any
from urllib.parse import quote, unquote

import sqlalchemy as sa
from fastapi import APIRouter, Header, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.routing import APIRoute
from pydantic import BaseModel, ConfigDict
from starlette.concurrency import run_in_threadpool

from headwater.api import datazone_shapes as dz
from headwater.api.auth import Tokens, principal_for
from headwater.api.errors import ApiError
from headwater.api.freshness import read_barrier
from headwater.api.ingest import append_for_project, append_parsed, check_writes, ingest_project, read_body
from headwater.api.sigv4 import SignatureError, SignedRequest, verify
from headwater.api.state import PRINCIPAL, AppState, app_state
from headwater.catalog.access import ADMIN
from headwater.graph import NodeNotFound
from headwater.ingest import IngestError, decode_body
from headwater.model.jsontext import loads
from headwater.model.nodeid import DATASET, JOB, RUN, InvalidNodeId, NodeRef, parse_node_id
from headwater.model.times import now_micros, parse_time, to_micros
from headwater.store.canonical import event_id as log_event_id
from headwater.store.schema import datazone_events, datazone_nodes, events

SERVICE = "datazone"
PREFIX = "/v2/domains/{domainIdentifier}/lineage"
_CLIENT_TOKEN_CHARS = frozenset(chr(c) for c in range(0x21, 0x7F))


class _DataZoneRoute(APIRoute):
    """Every failure of a DataZone route answers in DataZone's error shape."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def answer(request: Request) -> Response:
            try:
                return await handler(request)
            except dz.DataZoneError as exc:
                return _error(exc)
            except RequestValidationError as exc:
                problems = [f"{'.'.join(str(p) for p in e.get('loc', ()))}: {e.get('msg')}" for e in exc.errors()]
                return _error(dz.validation("; ".join(problems) or "invalid request"))
            except IngestError as exc:
                where = f" ({exc.details[0].path}: {exc.details[0].message})" if exc.details else ""
                return _error(dz.validation(f"event: {exc.message}{where}"))
            except (NodeNotFound, InvalidNodeId) as exc:
                return _error(dz.not_found(str(exc) or "no such lineage node"))
            except ApiError as exc:
                return _error(dz.access_denied(exc.message) if exc.status in (401, 403) else _internal(exc.message))
            except sa.exc.OperationalError:
                return _error(_internal("the store cannot be reached; nothing was stored, retry later"))

        return answer


def _internal(message: str) -> dz.DataZoneError:
    return dz.DataZoneError(500, "InternalServerException", message)


def _error(exc: dz.DataZoneError) -> JSONResponse:
    return JSONResponse(
        dz.error_body(exc.message),
        status_code=exc.status,
        headers={"x-amzn-ErrorType": exc.error_type, "x-amzn-RequestId": str(uuid.uuid4())},
    )


def _ok(answer: dict[str, Any]) -> JSONResponse:
    return JSONResponse(dz.drop_none(answer), headers={"x-amzn-RequestId": str(uuid.uuid4())})


router = APIRouter(prefix=PREFIX, tags=["Amazon DataZone lineage API"], route_class=_DataZoneRoute)


class DataZoneErrorBody(BaseModel):
    """DataZone's error body; the error's type is in the ``x-amzn-ErrorType`` header."""

    model_config = ConfigDict(extra="forbid")
    message: str


_ERROR_TYPES = {
    400: "ValidationException",
    403: "AccessDeniedException",
    404: "ResourceNotFoundException",
    409: "ConflictException",
    500: "InternalServerException",
}
_ERRORS: dict[int | str, dict[str, Any]] = {
    **{
        status: {"model": DataZoneErrorBody, "description": f"`x-amzn-ErrorType: {name}` (DataZone's error shape)"}
        for status, name in _ERROR_TYPES.items()
    },
    # also keeps FastAPI from documenting its own 422: a bad parameter is a 400 ValidationException
    "default": {"model": DataZoneErrorBody, "description": "Any other error, in DataZone's shape"},
}


# --- authentication ---------------------------------------------------------------------------------------


def _raw_path(request: Request) -> str:
    raw = request.scope.get("raw_path")
    if isinstance(raw, bytes) and raw:
        return raw.decode("latin-1").split("?", 1)[0]
    return quote(request.scope["path"])


def _authorize(request: Request, body: bytes, *, write: bool) -> str | None:
    """Who sent the request (the SigV4 access key id), or None when requests are not authenticated."""
    settings = app_state(request).settings
    keys: dict[str, str] = settings.datazone_keys
    if keys:
        signed = SignedRequest(
            method=request.method,
            path=_raw_path(request),
            query=request.scope.get("query_string", b"").decode("latin-1"),
            headers=[(k.decode("latin-1").lower(), v.decode("latin-1")) for k, v in request.scope["headers"]],
            body=body,
        )
        try:
            key_id = verify(signed, keys, service=SERVICE).access_key_id
        except SignatureError as exc:
            raise dz.access_denied(str(exc)) from None
        setattr(request.state, PRINCIPAL, ADMIN)  # the operator's configured keys read the whole graph
        return key_id
    tokens = Tokens(write=settings.write_token_set, read=settings.read_token_set)
    authorization = request.headers.get("authorization", "")
    scheme, _, token = authorization.partition(" ")
    bearer = token.strip() if scheme.lower() == "bearer" and token.strip() else None
    if bearer is None and (tokens.write if write else tokens.read):
        raise dz.access_denied(
            "this server requires authentication: DataZone clients sign with SigV4, so configure "
            "access keys in the datazone_access_keys setting (HEADWATER_DATAZONE_ACCESS_KEYS), "
            "or send 'Authorization: Bearer <token>'"
        )
    # the bearer token's principal: what the catalog's visibility policy shows it (docs/catalog.md)
    setattr(request.state, PRINCIPAL, principal_for(request, bearer, write=write))
    return None


# --- node ids ----------------------------------------------------------------------------------------------


def _remember(state: AppState, headwater_ids: set[str]) -> dict[str, str]:
    """The DataZone ids of these nodes, each recorded so that it resolves back (``datazone_nodes``)."""
    mapping = {hw: dz.node_id(hw) for hw in headwater_ids}
    if not mapping:
        return mapping
    wanted = {v: k for k, v in mapping.items()}
    for _ in range(3):  # a concurrent request may record the same ids: look again and insert the rest
        with state.store.write_connection() as conn, conn.begin():
            known = set(conn.scalars(sa.select(datazone_nodes.c.id).where(datazone_nodes.c.id.in_(sorted(wanted)))))
            missing = [{"id": i, "node": n} for i, n in sorted(wanted.items()) if i not in known]
            if not missing:
                return mapping
            try:
                with conn.begin_nested():
                    conn.execute(datazone_nodes.insert(), missing)
                return mapping
            except sa.exc.IntegrityError:
                continue
    return mapping


def _exists(state: AppState, ref: NodeRef) -> bool:
    try:
        if ref.type == "run":
            state.graph.run(ref.name)
        else:
            state.graph.node(ref)
    except (NodeNotFound, InvalidNodeId):
        return False
    return True


def _resolve(state: AppState, identifier: str) -> NodeRef:
    """The node a GetLineageNode identifier names: a DataZone node id, a sourceIdentifier or a Headwater node id."""
    if dz.NODE_ID_PATTERN.match(identifier):
        with state.store.engine.connect() as conn:
            found = conn.scalar(sa.select(datazone_nodes.c.node).where(datazone_nodes.c.id == identifier))
        if found is not None and _exists(state, parse_node_id(found)):  # hidden from the reader: as unknown
            return parse_node_id(found)
    if identifier.startswith((DATASET, JOB, RUN)):
        try:
            ref = parse_node_id(identifier)
        except InvalidNodeId:
            ref = None
        if ref is not None and ref.type != "datasetField" and _exists(state, ref):
            return ref
    for candidate in dz.source_candidates(identifier)[:32]:
        ref = parse_node_id(candidate)
        if _exists(state, ref):
            return ref
    raise dz.not_found(
        f"no lineage node {identifier!r}: give a node id from an earlier answer, a sourceIdentifier "
        "(<namespace>/<name> for a dataset, <namespace>.<name> for a job, <namespace>.<job>/<runId> for a run) "
        "or a Headwater node id"
    )


def _identifier(request: Request) -> str:
    """The node identifier exactly as sent: a sourceIdentifier may hold '/' (sent as %2F)."""
    parts = _raw_path(request).split("/")  # '', 'v2', 'domains', <domain>, 'lineage', 'nodes', <identifier>, ...
    if len(parts) < 7 or not parts[6]:
        raise dz.validation("identifier: missing")
    return unquote(parts[6])


# --- PostLineageEvent ---------------------------------------------------------------------------------------


def _client_token(value: str | None) -> str | None:
    if value is None:
        return None
    if not 1 <= len(value) <= 128 or not set(value) <= _CLIENT_TOKEN_CHARS:
        raise dz.validation("Client-Token: 1 to 128 printable ASCII characters without spaces")
    return value


def _token_event(conn: sa.Connection, domain: str, token: str) -> str | None:
    return conn.scalar(
        sa.select(datazone_events.c.event_id).where(
            datazone_events.c.domain_id == domain, datazone_events.c.client_token == token
        )
    )


def _token_conflict(domain: str, token: str) -> dz.DataZoneError:
    return dz.conflict(
        f"Client-Token {token!r} was used in domain {domain} for another lineage event; "
        "a token names one request (send a new token for a new event)"
    )


def _record(state: AppState, domain: str, log_id: str, token: str | None, created_by: str | None) -> None:
    """The domain's record of the event (after the event is durably in the log)."""
    with state.store.write_connection() as conn, conn.begin():
        event_time = conn.scalar(sa.select(events.c.event_time).where(events.c.id == log_id))
        known = conn.execute(
            sa.select(datazone_events.c.client_token).where(
                datazone_events.c.domain_id == domain, datazone_events.c.event_id == log_id
            )
        ).first()
        if known is not None:
            return  # this event was posted to this domain before: the first record stays
        try:
            with conn.begin_nested():
                conn.execute(
                    datazone_events.insert().values(
                        domain_id=domain,
                        event_id=log_id,
                        event_time=int(event_time or 0),
                        client_token=token,
                        created_by=created_by,
                        created_at=now_micros(),
                    )
                )
        except sa.exc.IntegrityError:
            if token is not None and _token_event(conn, domain, token) not in (None, log_id):
                raise _token_conflict(domain, token) from None


@router.post(
    "/events",
    summary="PostLineageEvent: append an OpenLineage RunEvent through the one ingest path",
    openapi_extra={
        "requestBody": {
            "required": True,
            "description": "One OpenLineage RunEvent (JSON), as DataZone's `event` blob",
            "content": {"application/json": {"schema": {"type": "object"}}},
        }
    },
    responses={
        200: {
            "description": "Stored durably: `{id, domainId}` (the id is the first 14 hex digits of the log's event id)"
        },
        **_ERRORS,
    },
)
async def post_lineage_event(
    request: Request,
    domainIdentifier: str,  # noqa: N803 - DataZone's name for the path parameter
    client_token: str | None = Header(None, alias="Client-Token"),
) -> Response:
    state = app_state(request)
    domain = dz.check_domain(domainIdentifier)
    body = await read_body(request, state.settings.max_body_bytes)
    created_by = _authorize(request, body, write=True)
    token = _client_token(client_token)

    def work() -> str:
        text = decode_body(
            body,
            content_encoding=request.headers.get("content-encoding"),
            content_type="application/json",  # DataZone's event is a blob: no media type is sent
            max_bytes=state.settings.max_body_bytes,
            max_members=state.settings.max_gzip_members,
        )
        (event,) = state.door.accept(text, batch=False)
        if event.kind != "RUN":
            raise dz.validation(f"event: only OpenLineage RunEvents are accepted (DataZone's rule), got a {event.kind}")
        check_writes(request, state, [event.payload])  # owners write their own (catalog/writes.py)
        if token is not None:
            with state.store.engine.connect() as conn:
                earlier = _token_event(conn, domain, token)
            if earlier is not None and earlier != log_event_id(event.payload):
                raise _token_conflict(domain, token)  # nothing of this request is stored
        project = ingest_project(request)  # a catalog user's events are the project's from the first moment
        (result,) = (
            append_for_project(request, state, project, [event]) if project else append_parsed(state, [event])
        )  # the one append: durable before the answer, once per event id
        log_id = str(result.id)
        _record(state, domain, log_id, token, created_by)
        return log_id

    log_id = await run_in_threadpool(work)
    return _ok({"id": dz.event_id(log_id), "domainId": domain})


# --- GetLineageEvent / ListLineageEvents ------------------------------------------------------------------


def _status_rule(request: Request, state: AppState) -> tuple[int, set[str]]:
    """Where the graph stands after the read barrier, and the events the projector could not derive."""
    read_barrier(request)
    graph = int(request.state.graph_position.graph)
    return graph, {str(f["id"]) for f in state.store.projection_status(limit=10_000).failed_events}


def _processing_status(seq: int, log_id: str, graph: int, failed: set[str]) -> str:
    if log_id in failed:
        return "FAILED"
    return "SUCCESS" if seq <= graph else "PROCESSING"


_EVENT_COLUMNS = (
    datazone_events.c.event_id,
    datazone_events.c.event_time,
    datazone_events.c.created_by,
    datazone_events.c.created_at,
    events.c.seq,
    events.c.raw,
)
_JOINED = datazone_events.join(events, events.c.id == datazone_events.c.event_id)


@router.get(
    "/events/{identifier}",
    summary="GetLineageEvent: an event posted to the domain, as it was sent",
    responses={
        200: {
            "description": "The event's JSON as sent; Domain-Id, Id, Created-By, Created-At, Event-Time and "
            "Processing-Status headers",
            "content": {"application/json": {"schema": {"type": "object"}}},
        },
        **_ERRORS,
    },
)
async def get_lineage_event(
    request: Request,
    domainIdentifier: str,  # noqa: N803 - DataZone's name for the path parameter
    identifier: str,
) -> Response:
    state = app_state(request)
    domain = dz.check_domain(domainIdentifier)
    _authorize(request, b"", write=False)
    if not dz.EVENT_ID_PATTERN.match(identifier):
        raise dz.validation(f"identifier {identifier!r} is not a lineage event id (14 characters of [a-z0-9])")

    def work() -> Response:
        low, high = identifier, identifier + "f" * (64 - dz.EVENT_ID_LENGTH)
        with state.store.engine.connect() as conn:
            row = conn.execute(
                sa.select(*_EVENT_COLUMNS)
                .select_from(_JOINED)
                .where(
                    datazone_events.c.domain_id == domain,
                    datazone_events.c.event_id >= low,
                    datazone_events.c.event_id <= high,
                )
                .order_by(datazone_events.c.created_at, datazone_events.c.event_id)
                .limit(1)
            ).first()
        if row is None or not row.event_id.startswith(identifier) or not state.graph.visible_events([row.raw])[0]:
            raise dz.not_found(f"no lineage event {identifier} in domain {domain}")
        graph, failed = _status_rule(request, state)
        headers = {
            "Domain-Id": domain,
            "Id": identifier,
            "Processing-Status": _processing_status(row.seq, row.event_id, graph, failed),
            "Event-Time": dz.header_time(row.event_time),
            "Created-At": dz.header_time(row.created_at),
            "x-amzn-RequestId": str(uuid.uuid4()),
        }
        if row.created_by:
            headers["Created-By"] = row.created_by
        return Response(row.raw.encode("utf-8"), media_type="application/json", headers=headers)

    return await run_in_threadpool(work)


@router.get(
    "/events",
    summary="ListLineageEvents: the events posted to the domain, paged",
    responses={200: {"description": "`{items: [LineageEventSummary], nextToken}`"}, **_ERRORS},
)
async def list_lineage_events(
    request: Request,
    domainIdentifier: str,  # noqa: N803 - DataZone's name for the path parameter
    maxResults: str | None = Query(None, description="1 to 50 (default 50)"),  # noqa: N803
    timestampAfter: str | None = Query(None, description="Events with an event time after this"),  # noqa: N803
    timestampBefore: str | None = Query(None, description="Events with an event time before this"),  # noqa: N803
    processingStatus: str | None = Query(None, description="REQUESTED, PROCESSING, SUCCESS or FAILED"),  # noqa: N803
    sortOrder: str | None = Query(None, description="By event time: ASCENDING or DESCENDING (default)"),  # noqa: N803
    nextToken: str | None = Query(None, description="The nextToken of the previous page"),  # noqa: N803
) -> Response:
    state = app_state(request)
    domain = dz.check_domain(domainIdentifier)
    _authorize(request, b"", write=False)
    limit = dz.max_results(maxResults)
    after = dz.query_time("timestampAfter", timestampAfter)
    before = dz.query_time("timestampBefore", timestampBefore)
    wanted = dz.one_of("processingStatus", processingStatus, dz.PROCESSING_STATUSES, None)
    order = dz.one_of("sortOrder", sortOrder, dz.SORT_ORDERS, "DESCENDING")
    scope = f"events|{domain}|{timestampAfter}|{timestampBefore}|{wanted}|{order}"
    token = dz.decode_token(nextToken, scope)

    def work() -> dict[str, Any]:
        graph, failed = _status_rule(request, state)
        query = sa.select(*_EVENT_COLUMNS).select_from(_JOINED).where(datazone_events.c.domain_id == domain)
        if after is not None:
            query = query.where(datazone_events.c.event_time > to_micros(after))
        if before is not None:
            query = query.where(datazone_events.c.event_time < to_micros(before))
        if wanted == "REQUESTED":
            query = query.where(sa.false())  # validated and stored before the answer: never only requested
        elif wanted == "FAILED":
            query = query.where(datazone_events.c.event_id.in_(sorted(failed)))
        elif wanted == "PROCESSING":
            query = query.where(events.c.seq > graph, datazone_events.c.event_id.not_in(sorted(failed)))
        elif wanted == "SUCCESS":
            query = query.where(events.c.seq <= graph, datazone_events.c.event_id.not_in(sorted(failed)))
        key = (datazone_events.c.event_time, datazone_events.c.event_id)
        descending = order == "DESCENDING"
        if token is not None:
            try:
                t, e = int(token.after[0]), str(token.after[1])
            except (IndexError, ValueError, TypeError):
                raise dz.validation("nextToken: not a token this server gave") from None
            query = query.where(sa.tuple_(*key) < (t, e) if descending else sa.tuple_(*key) > (t, e))
        query = query.order_by(*(k.desc() if descending else k.asc() for k in key)).limit(limit + 1)
        with state.store.engine.connect() as conn:
            rows = list(conn.execute(query))
        page = rows[:limit]
        visible = state.graph.visible_events([r.raw for r in page])  # the catalog's visibility policy
        items = [
            dz.drop_none(
                {
                    "id": dz.event_id(r.event_id),
                    "domainId": domain,
                    "processingStatus": _processing_status(r.seq, r.event_id, graph, failed),
                    "eventTime": r.event_time / 1_000_000,
                    "eventSummary": {"openLineageRunEventSummary": dz.run_event_summary(loads(r.raw))},
                    "createdBy": r.created_by,
                    "createdAt": r.created_at / 1_000_000,
                }
            )
            for r, shown in zip(page, visible)
            if shown
        ]
        more = len(rows) > limit and page
        next_token = dz.encode_token(dz.Token(scope, [page[-1].event_time, page[-1].event_id])) if more else None
        return {"items": items, "nextToken": next_token}

    return _ok(await run_in_threadpool(work))


@router.delete(
    "/events/{identifier}",
    summary="DeleteLineageEvent: refused (Headwater's event log is append-only)",
    responses=_ERRORS,
)
async def delete_lineage_event(
    request: Request,
    domainIdentifier: str,  # noqa: N803 - DataZone's name for the path parameter
    identifier: str,
) -> Response:
    dz.check_domain(domainIdentifier)
    _authorize(request, b"", write=True)
    raise dz.validation(
        f"lineage event {identifier} is not deleted: Headwater's event log is append-only (the graph is derived "
        "from every event); a later event with the corrected facts supersedes it"
    )


# --- GetLineageNode / ListLineageNodeHistory ----------------------------------------------------------------


def _run_job(run: Mapping[str, Any]) -> NodeRef | None:
    try:
        return parse_node_id(str(run["job"]))
    except (InvalidNodeId, KeyError):
        return None


def _base(domain: str, ref: NodeRef, dz_id: str, run_job: NodeRef | None = None) -> dict[str, Any]:
    return {
        "domainId": domain,
        "id": dz_id,
        "typeName": dz.type_name(ref.type),
        "typeRevision": dz.TYPE_REVISION,
        "sourceIdentifier": dz.source_identifier(ref, run_job),
    }


def _run_node(state: AppState, domain: str, ref: NodeRef) -> dict[str, Any]:
    run = state.graph.run(ref.name)
    job = _run_job(run)
    time = run.get("endedAt") or run.get("startedAt")
    ids = _remember(state, {ref.id, *run["inputs"], *run["outputs"]})
    stamp = dz.epoch(time)
    return {
        **_base(domain, ref, ids[ref.id], job),
        "name": f"{job.name}/{ref.name}" if job is not None else ref.name,
        "createdAt": dz.epoch(run.get("startedAt")),
        "updatedAt": stamp,
        "eventTimestamp": stamp,
        "formsOutput": [
            dz.form("HeadwaterNode", "headwater.NodeForm", {"nodeId": ref.id, "type": "run", "job": run.get("job")}),
            dz.form(
                "RunForm",
                "headwater.RunForm",
                {k: run.get(k) for k in ("state", "startedAt", "endedAt", "durationMs", "errorMessage", "parentRunId")},
            ),
        ],
        "upstreamNodes": [{"id": ids[n], "eventTimestamp": stamp} for n in run["inputs"][: dz.MAX_NEIGHBOURS]],
        "downstreamNodes": [{"id": ids[n], "eventTimestamp": stamp} for n in run["outputs"][: dz.MAX_NEIGHBOURS]],
    }


def _graph_node(state: AppState, domain: str, ref: NodeRef, at: Any) -> dict[str, Any]:
    node: Mapping[str, Any] = state.graph.node(ref, at=at)
    around = state.graph.lineage(ref, depth=1, at=at, max_nodes=2 * dz.MAX_NEIGHBOURS + 1)
    upstream = [n for n in around["nodes"] if n.get("level") == -1][: dz.MAX_NEIGHBOURS]
    downstream = [n for n in around["nodes"] if n.get("level") == 1][: dz.MAX_NEIGHBOURS]
    ids = _remember(state, {ref.id, *(n["id"] for n in upstream + downstream)})
    at_stamp = None if at is None else to_micros(at) / 1_000_000

    def refs(nodes: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        return [
            dz.drop_none({"id": ids[n["id"]], "eventTimestamp": at_stamp or dz.epoch(n.get("updatedAt"))})
            for n in nodes
        ]

    version = node.get("currentVersion") or {}
    forms = [
        dz.form(
            "HeadwaterNode",
            "headwater.NodeForm",
            {"nodeId": ref.id, "type": ref.type, "namespace": ref.namespace, "name": ref.name},
        )
    ]
    if ref.type == "dataset":
        forms.append(dz.form("SchemaForm", "headwater.SchemaForm", {"fields": node.get("fields") or []}))
    else:
        forms.append(
            dz.form(
                "JobForm",
                "headwater.JobForm",
                {"jobType": node.get("jobType"), "latestRun": node.get("latestRun"), "parent": node.get("parent")},
            )
        )
    forms.append(dz.form("FacetsForm", "headwater.FacetsForm", node.get("facets") or {}))
    return {
        **_base(domain, ref, ids[ref.id]),
        "name": ref.name,
        "description": dz.description(node.get("facets")),
        "createdAt": dz.epoch(node.get("createdAt")),
        "updatedAt": dz.epoch(node.get("updatedAt")),
        "eventTimestamp": dz.epoch(version.get("validFrom")),
        "formsOutput": forms,
        "upstreamNodes": refs(upstream),
        "downstreamNodes": refs(downstream),
    }


@router.get(
    "/nodes/{identifier:path}/history",
    summary="ListLineageNodeHistory: the versions of a dataset or job (a run has one)",
    responses={200: {"description": "`{nodes: [LineageNodeSummary], nextToken}`"}, **_ERRORS},
)
async def list_lineage_node_history(
    request: Request,
    domainIdentifier: str,  # noqa: N803 - DataZone's name for the path parameter
    identifier: str,
    maxResults: str | None = Query(None, description="1 to 50 (default 50)"),  # noqa: N803
    nextToken: str | None = Query(None, description="The nextToken of the previous page"),  # noqa: N803
    direction: str | None = Query(None, description="UPSTREAM or DOWNSTREAM: only versions with neighbours there"),
    timestampGTE: str | None = Query(None, description="Versions from this event time on"),  # noqa: N803
    timestampLTE: str | None = Query(None, description="Versions up to this event time"),  # noqa: N803
    sortOrder: str | None = Query(None, description="By event time: ASCENDING or DESCENDING (default)"),  # noqa: N803
) -> Response:
    state = app_state(request)
    domain = dz.check_domain(domainIdentifier)
    _authorize(request, b"", write=False)
    if not _raw_path(request).endswith("/history"):  # a sourceIdentifier ending in '/history' (sent as %2Fhistory)
        return await get_lineage_node(request, domainIdentifier, identifier, request.query_params.get("timestamp"))
    ident = _identifier(request)
    limit = dz.max_results(maxResults)
    side = dz.one_of("direction", direction, dz.DIRECTIONS, None)
    gte = dz.query_time("timestampGTE", timestampGTE)
    lte = dz.query_time("timestampLTE", timestampLTE)
    order = dz.one_of("sortOrder", sortOrder, dz.SORT_ORDERS, "DESCENDING")

    def work() -> dict[str, Any]:
        read_barrier(request)
        ref = _resolve(state, ident)
        dz_id = _remember(state, {ref.id})[ref.id]
        scope = f"history|{dz_id}|{side}|{timestampGTE}|{timestampLTE}|{order}"
        token = dz.decode_token(nextToken, scope)
        if ref.type == "run":
            node = _run_node(state, domain, ref)
            entries = [
                (
                    node["eventTimestamp"],
                    {k: v for k, v in node.items() if k not in ("formsOutput", "upstreamNodes", "downstreamNodes")},
                )
            ]
            if side == "UPSTREAM" and not node["upstreamNodes"] or side == "DOWNSTREAM" and not node["downstreamNodes"]:
                entries = []
        else:
            entries = []
            detail: Mapping[str, Any] = state.graph.node(ref)
            for version in state.graph.history(ref)["versions"]:
                stamp = dz.epoch(version["validFrom"])
                entries.append(
                    (
                        stamp,
                        {
                            **_base(domain, ref, dz_id),
                            "name": ref.name,
                            "description": dz.description(version.get("facets")),
                            "createdAt": dz.epoch(detail.get("createdAt")),
                            "updatedAt": stamp,
                            "eventTimestamp": stamp,
                            "_version": version,
                        },
                    )
                )
        if gte is not None:
            entries = [e for e in entries if e[0] is not None and e[0] >= to_micros(gte) / 1_000_000]
        if lte is not None:
            entries = [e for e in entries if e[0] is not None and e[0] <= to_micros(lte) / 1_000_000]
        entries.sort(key=lambda e: e[0] or 0.0, reverse=order == "DESCENDING")
        if side is not None and ref.type != "run":
            entries = [e for e in entries if _has_neighbours(state, ref, e[1]["_version"], side)]
        start = int(token.after[0]) if token is not None and token.after else 0
        page = entries[start : start + limit]
        nodes = [dz.drop_none({k: v for k, v in e[1].items() if k != "_version"}) for e in page]
        more = start + limit < len(entries)
        return {"nodes": nodes, "nextToken": dz.encode_token(dz.Token(scope, [start + limit])) if more else None}

    return _ok(await run_in_threadpool(work))


def _has_neighbours(state: AppState, ref: NodeRef, version: dict[str, Any], side: str) -> bool:
    """Whether the node had a neighbour on ``side`` while this version was current (at its start or its end)."""
    start = parse_time(version["validFrom"])
    end = None if version.get("validTo") is None else parse_time(version["validTo"]) - timedelta(microseconds=1)
    for at in (start, end):
        node = state.graph.node(ref, at=at)
        if ref.type == "dataset":
            found = node.get("producers") if side == "UPSTREAM" else node.get("consumers")
        else:
            found = node.get("inputs") if side == "UPSTREAM" else node.get("outputs")
        if found:
            return True
    return False


@router.get(
    "/nodes/{identifier:path}",
    summary="GetLineageNode: a dataset, job or run with its upstream and downstream nodes",
    responses={200: {"description": "GetLineageNodeOutput"}, **_ERRORS},
)
async def get_lineage_node(
    request: Request,
    domainIdentifier: str,  # noqa: N803 - DataZone's name for the path parameter
    identifier: str,
    timestamp: str | None = Query(None, description="The node as of this event time"),
) -> Response:
    state = app_state(request)
    domain = dz.check_domain(domainIdentifier)
    _authorize(request, b"", write=False)
    ident = _identifier(request)
    at = dz.query_time("timestamp", timestamp)

    def work() -> dict[str, Any]:
        read_barrier(request)
        ref = _resolve(state, ident)
        if ref.type == "run":
            return _run_node(state, domain, ref)
        return _graph_node(state, domain, ref, at)

    return _ok(await run_in_threadpool(work))
