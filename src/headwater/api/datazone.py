"""Amazon DataZone's lineage API at ``/v2/domains/{domainIdentifier}/lineage/...``: routes and shape mapping.

The paths, parameters and answers are those of the DataZone service model in botocore, so boto3's
``datazone`` client (and OpenLineage's ``amazon_datazone_api`` transport, which is that client) works
against ``headwater serve`` with only ``endpoint_url`` changed:

- ``PostLineageEvent`` (``POST …/lineage/events``): the body is an OpenLineage RunEvent; it is decoded,
  validated and appended exactly as ``POST /api/v1/lineage`` does (the ingest door ``headwater.ingest.accept``,
  ``Store.append``: durable before the answer, a resent event stored once by its event id). The domain,
  the ``Client-Token``, the signer and the time are recorded beside it (:mod:`headwater.store.datazone`); a token
  sent again with the same event answers as the first time, with another event ``ConflictException``.
- ``GetLineageEvent`` / ``ListLineageEvents``: the events posted to the domain, read from the log.
- ``GetLineageNode`` / ``ListLineageNodeHistory``: graph reads (:class:`headwater.graph.GraphReader`)
  of a dataset, job or run, with its one-hop upstream and downstream nodes and its versions (a page of
  versions is filtered and paged in the database: :mod:`headwater.graph.version_pages`).
- ``DeleteLineageEvent`` answers ``ValidationException``: the log is append-only.

Node and event ids, timestamps and tokens are translated by :mod:`headwater.api.datazone_shapes`.
Requests are authenticated with SigV4 against the ``datazone_access_keys`` setting
(:mod:`headwater.api.sigv4`); without keys they are not, unless bearer tokens are configured, which
then apply. Every error answers in DataZone's shape (``x-amzn-ErrorType`` and ``{"message"}``).
No lineage rule lives here, no table is read or written here (each has its owner in ``store/``), and no
graph table is written. Why one module of ~640 lines: it is the six operations' routes with their OpenAPI
documentation and the authentication they share; the pure shapes are in ``datazone_shapes``.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Coroutine, Mapping, Sequence
from datetime import datetime
from typing import Any, TypeVar, cast
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
from headwater.graph.version_pages import Side
from headwater.ingest import IngestError, decode_body
from headwater.model.jsontext import loads
from headwater.model.jsontypes import JSONObject
from headwater.model.nodeid import DATASET, JOB, RUN, InvalidNodeId, NodeRef, parse_node_id
from headwater.model.times import to_micros
from headwater.store.canonical import event_id as log_event_id
from headwater.store.datazone import DataZoneRecords, ProcessingStatus, StatusFilter, TokenConflict

SERVICE = "datazone"
PREFIX = "/v2/domains/{domainIdentifier}/lineage"
_CLIENT_TOKEN_CHARS = frozenset(chr(c) for c in range(0x21, 0x7F))


class _DataZoneRoute(APIRoute):
    """Every failure of a DataZone route answers in DataZone's error shape."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[object, object, Response]]:
        handler = super().get_route_handler()

        async def answer(request: Request) -> Response:
            try:
                return await handler(request)
            except dz.DataZoneError as exc:
                return _error(exc)
            except RequestValidationError as exc:
                problems = [f"{'.'.join(str(p) for p in e.get('loc', ()))}: {e.get('msg')}" for e in exc.errors()]
                return _error(dz.Invalid("; ".join(problems) or "invalid request"))
            except IngestError as exc:
                where = f" ({exc.details[0].path}: {exc.details[0].message})" if exc.details else ""
                return _error(dz.Invalid(f"event: {exc.message}{where}"))
            except (NodeNotFound, InvalidNodeId) as exc:
                return _error(dz.NotFound(str(exc) or "no such lineage node"))
            except ApiError as exc:
                return _error(
                    dz.AccessDenied(exc.message) if exc.status in (401, 403) else dz.DataZoneError(exc.message)
                )
            except sa.exc.OperationalError:
                return _error(dz.DataZoneError("the store cannot be reached; nothing was stored, retry later"))

        return answer


def _error(exc: dz.DataZoneError) -> JSONResponse:
    return JSONResponse(
        dz.error_body(exc.message),
        status_code=exc.status,
        headers={"x-amzn-ErrorType": exc.error_type, "x-amzn-RequestId": str(uuid.uuid4())},
    )


def _ok(answer: JSONObject) -> JSONResponse:
    return JSONResponse(dz.drop_none(answer), headers={"x-amzn-RequestId": str(uuid.uuid4())})


_Route = TypeVar("_Route", bound=Callable[..., Coroutine[object, object, Response]])
# the query parameters the listings share
_MAX_RESULTS = Query(None, description="1 to 50 (default 50)")
_NEXT_TOKEN = Query(None, description="The nextToken of the previous page")
_SORT_ORDER = Query(None, description="By event time: ASCENDING or DESCENDING (default)")
router = APIRouter(prefix=PREFIX, tags=["Amazon DataZone lineage API"], route_class=_DataZoneRoute)


class DataZoneErrorBody(BaseModel):
    """DataZone's error body; the error's type is in the ``x-amzn-ErrorType`` header."""

    model_config = ConfigDict(extra="forbid")
    message: str


_ERRORS: dict[int | str, JSONObject] = {
    **{
        status: {"model": DataZoneErrorBody, "description": f"`x-amzn-ErrorType: {name}` (DataZone's error shape)"}
        for status, name in ((e.status, e.error_type) for e in dz.ERRORS)
    },
    # also keeps FastAPI from documenting its own 422: a bad parameter is a 400 ValidationException
    "default": {"model": DataZoneErrorBody, "description": "Any other error, in DataZone's shape"},
}


def _get(path: str, summary: str, answer: str) -> Callable[[_Route], _Route]:
    """A GET route answering ``answer`` (its description) or an error in DataZone's shape."""
    return router.get(path, summary=summary, responses={200: {"description": answer}, **_ERRORS})


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
            raise dz.AccessDenied(str(exc)) from None
        setattr(request.state, PRINCIPAL, ADMIN)  # the operator's configured keys read the whole graph
        return key_id
    tokens = Tokens(write=settings.write_token_set, read=settings.read_token_set)
    authorization = request.headers.get("authorization", "")
    scheme, _, token = authorization.partition(" ")
    bearer = token.strip() if scheme.lower() == "bearer" and token.strip() else None
    if bearer is None and (tokens.write if write else tokens.read):
        raise dz.AccessDenied(
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
    DataZoneRecords(state.store).remember_nodes({v: k for k, v in mapping.items()})
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
        found = DataZoneRecords(state.store).node_of(identifier)
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
    raise dz.NotFound(
        f"no lineage node {identifier!r}: give a node id from an earlier answer, a sourceIdentifier "
        "(<namespace>/<name> for a dataset, <namespace>.<name> for a job, <namespace>.<job>/<runId> for a run) "
        "or a Headwater node id"
    )


def _identifier(request: Request) -> str:
    """The node identifier exactly as sent: a sourceIdentifier may hold '/' (sent as %2F)."""
    parts = _raw_path(request).split("/")  # '', 'v2', 'domains', <domain>, 'lineage', 'nodes', <identifier>, ...
    if len(parts) < 7 or not parts[6]:
        raise dz.Invalid("identifier: missing")
    return unquote(parts[6])


# --- PostLineageEvent ---------------------------------------------------------------------------------------


def _client_token(value: str | None) -> str | None:
    if value is None:
        return None
    if not 1 <= len(value) <= 128 or not set(value) <= _CLIENT_TOKEN_CHARS:
        raise dz.Invalid("Client-Token: 1 to 128 printable ASCII characters without spaces")
    return value


def _token_conflict(domain: str, token: str) -> dz.DataZoneError:
    return dz.Conflict(
        f"Client-Token {token!r} was used in domain {domain} for another lineage event; "
        "a token names one request (send a new token for a new event)"
    )


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
            raise dz.Invalid(f"event: only OpenLineage RunEvents are accepted (DataZone's rule), got a {event.kind}")
        check_writes(request, state, [event.payload])  # owners write their own (catalog/writes.py)
        records = DataZoneRecords(state.store)
        if token is not None:
            earlier = records.token_event(domain, token)
            if earlier is not None and earlier != log_event_id(event.payload):
                raise _token_conflict(domain, token)  # nothing of this request is stored
        project = ingest_project(request)  # a catalog user's events are the project's from the first moment
        (result,) = (
            append_for_project(request, state, project, [event]) if project else append_parsed(state, [event])
        )  # the one append: durable before the answer, once per event id
        log_id = str(result.id)
        try:
            records.record_event(domain, log_id, token, created_by)  # after the event is durably in the log
        except TokenConflict as exc:
            raise _token_conflict(exc.domain, exc.token) from None
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
        raise dz.Invalid(f"identifier {identifier!r} is not a lineage event id (14 characters of [a-z0-9])")

    def work() -> Response:
        row = DataZoneRecords(state.store).find_event(domain, identifier)
        if row is None or not state.graph.visible_events([row.raw])[0]:
            raise dz.NotFound(f"no lineage event {identifier} in domain {domain}")
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


@_get(
    "/events",
    "ListLineageEvents: the events posted to the domain, paged",
    "`{items: [LineageEventSummary], nextToken}`",
)
async def list_lineage_events(
    request: Request,
    domainIdentifier: str,  # noqa: N803 - DataZone's name for the path parameter
    maxResults: str | None = _MAX_RESULTS,  # noqa: N803
    timestampAfter: str | None = Query(None, description="Events with an event time after this"),  # noqa: N803
    timestampBefore: str | None = Query(None, description="Events with an event time before this"),  # noqa: N803
    processingStatus: str | None = Query(None, description="REQUESTED, PROCESSING, SUCCESS or FAILED"),  # noqa: N803
    sortOrder: str | None = _SORT_ORDER,  # noqa: N803
    nextToken: str | None = _NEXT_TOKEN,  # noqa: N803
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

    def work() -> JSONObject:
        graph, failed = _status_rule(request, state)
        status = None if wanted is None else StatusFilter(cast(ProcessingStatus, wanted), graph, frozenset(failed))
        after_key = dz.page_end(token)
        rows = DataZoneRecords(state.store).list_events(
            domain,
            after_time=None if after is None else to_micros(after),
            before_time=None if before is None else to_micros(before),
            status=status,
            descending=order == "DESCENDING",
            after=after_key,
            limit=limit + 1,
        )
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
    raise dz.Invalid(
        f"lineage event {identifier} is not deleted: Headwater's event log is append-only (the graph is derived "
        "from every event); a later event with the corrected facts supersedes it"
    )


# --- GetLineageNode / ListLineageNodeHistory ----------------------------------------------------------------


def _run_job(run: Mapping[str, Any]) -> NodeRef | None:
    try:
        return parse_node_id(str(run["job"]))
    except (InvalidNodeId, KeyError):
        return None


def _base(domain: str, ref: NodeRef, dz_id: str, run_job: NodeRef | None = None) -> JSONObject:
    return {
        "domainId": domain,
        "id": dz_id,
        "typeName": dz.type_name(ref.type),
        "typeRevision": dz.TYPE_REVISION,
        "sourceIdentifier": dz.source_identifier(ref, run_job),
    }


def _run_node(state: AppState, domain: str, ref: NodeRef) -> JSONObject:
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


def _graph_node(state: AppState, domain: str, ref: NodeRef, at: datetime | None) -> JSONObject:
    node: Mapping[str, Any] = state.graph.node(ref, at=at)
    around = state.graph.lineage(ref, depth=1, at=at, max_nodes=2 * dz.MAX_NEIGHBOURS + 1)
    upstream = [n for n in around["nodes"] if n.get("level") == -1][: dz.MAX_NEIGHBOURS]
    downstream = [n for n in around["nodes"] if n.get("level") == 1][: dz.MAX_NEIGHBOURS]
    ids = _remember(state, {ref.id, *(n["id"] for n in upstream + downstream)})
    at_stamp = None if at is None else to_micros(at) / 1_000_000

    def refs(nodes: Sequence[Mapping[str, Any]]) -> list[JSONObject]:
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


@_get(
    "/nodes/{identifier:path}/history",
    "ListLineageNodeHistory: the versions of a dataset or job (a run has one)",
    "`{nodes: [LineageNodeSummary], nextToken}`",
)
async def list_lineage_node_history(
    request: Request,
    domainIdentifier: str,  # noqa: N803 - DataZone's name for the path parameter
    identifier: str,
    maxResults: str | None = _MAX_RESULTS,  # noqa: N803
    nextToken: str | None = _NEXT_TOKEN,  # noqa: N803
    direction: str | None = Query(None, description="UPSTREAM or DOWNSTREAM: only versions with neighbours there"),
    timestampGTE: str | None = Query(None, description="Versions from this event time on"),  # noqa: N803
    timestampLTE: str | None = Query(None, description="Versions up to this event time"),  # noqa: N803
    sortOrder: str | None = _SORT_ORDER,  # noqa: N803
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

    def work() -> JSONObject:
        read_barrier(request)
        ref = _resolve(state, ident)
        dz_id = _remember(state, {ref.id})[ref.id]
        scope = f"history|{dz_id}|{side}|{timestampGTE}|{timestampLTE}|{order}"
        token = dz.decode_token(nextToken, scope)
        if ref.type == "run":
            node = _run_node(state, domain, ref)
            stamp = node["eventTimestamp"]
            summary = {k: v for k, v in node.items() if k not in ("formsOutput", "upstreamNodes", "downstreamNodes")}
            neighbours = {"UPSTREAM": node["upstreamNodes"], "DOWNSTREAM": node["downstreamNodes"]}
            shown = (
                (gte is None or stamp is not None and stamp >= to_micros(gte) / 1_000_000)
                and (lte is None or stamp is not None and stamp <= to_micros(lte) / 1_000_000)
                and (side is None or bool(neighbours[side]))
            )
            start = int(token.after[0]) if token is not None and token.after else 0  # one entry: at most one page
            nodes = [dz.drop_none(summary)] if shown and start == 0 else []
            return {"nodes": nodes, "nextToken": None}
        after_key = dz.page_end(token)
        page = state.graph.version_page(
            ref,
            since=None if gte is None else to_micros(gte),
            until=None if lte is None else to_micros(lte),
            side=cast("Side | None", side),
            descending=order == "DESCENDING",
            after=after_key,
            limit=limit,
        )
        created = None if page.created_at is None else page.created_at / 1_000_000
        nodes = [
            dz.drop_none(
                {
                    **_base(domain, ref, dz_id),
                    "name": ref.name,
                    "description": dz.description(v.facets),
                    "createdAt": created,
                    "updatedAt": v.valid_from / 1_000_000,
                    "eventTimestamp": v.valid_from / 1_000_000,
                }
            )
            for v in page.versions
        ]
        last = page.versions[-1] if page.more and page.versions else None
        next_token = None if last is None else dz.encode_token(dz.Token(scope, [last.valid_from, last.version]))
        return {"nodes": nodes, "nextToken": next_token}

    return _ok(await run_in_threadpool(work))


@_get(
    "/nodes/{identifier:path}",
    "GetLineageNode: a dataset, job or run with its upstream and downstream nodes",
    "GetLineageNodeOutput",
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

    def work() -> JSONObject:
        read_barrier(request)
        ref = _resolve(state, ident)
        if ref.type == "run":
            return _run_node(state, domain, ref)
        return _graph_node(state, domain, ref, at)

    return _ok(await run_in_threadpool(work))
