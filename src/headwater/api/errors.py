"""One error shape for every 4xx/5xx answer (docs/api.md, "Errors").

``{"error": {"code": "<machine code>", "message": "<what is wrong>", "details": [...]}}``
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping, Sequence

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.exc import DBAPIError, OperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException

from headwater.api.metrics import count_refused
from headwater.catalog.errors import CatalogError, Conflict, EventRefused, Forbidden, InvalidRequest, NotFound
from headwater.graph import NodeNotFound
from headwater.ingest import IngestError
from headwater.model.jsontypes import JSONObject, JSONValue
from headwater.model.nodeid import InvalidNodeId
from headwater.store.engine import unavailable

log = logging.getLogger("headwater.api")

_STATUS_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    413: "payload_too_large",
    415: "unsupported_media_type",
}


class ApiError(Exception):
    """Raise from a handler to answer with the standard error body."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        details: Sequence[Mapping[str, str]] = (),
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.details = list(details)
        self.headers = headers


def invalid_parameter(name: str, message: str) -> ApiError:
    return ApiError(400, "invalid_parameter", f"{name}: {message}", [{"path": name, "message": message}])


def not_found(message: str) -> ApiError:
    return ApiError(404, "not_found", message)


_CATALOG_ANSWERS: dict[type[CatalogError], tuple[int, str]] = {
    InvalidRequest: (400, "invalid_request"),
    Forbidden: (403, "forbidden"),
    NotFound: (404, "not_found"),
    Conflict: (409, "conflict"),
}


def catalog_error(exc: CatalogError) -> ApiError:
    """The answer to a catalog refusal: its kind's status and code; an event the ingest door refused answers as
    that door would."""
    if isinstance(exc, EventRefused):
        return ApiError(exc.refusal.status, exc.refusal.code, exc.message)
    status, code = next(answer for kind, answer in _CATALOG_ANSWERS.items() if isinstance(exc, kind))
    return ApiError(status, code, exc.message)


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _text(value: JSONValue) -> JSONValue:
    """An answer's text as Unicode: a lone UTF-16 surrogate echoed from a request (it has no UTF-8 form, so the
    answer could not be written) becomes its JSON escape, ``\\ud800``."""
    if isinstance(value, str):
        return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", value)
    if isinstance(value, dict):
        return {_text(k): _text(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_text(v) for v in value]
    return value


def error_body(code: str, message: str, details: Sequence[Mapping[str, str]] = ()) -> JSONObject:
    return {"error": {"code": code, "message": _text(message), "details": _text(list(details))}}


def error_response(
    status: int,
    code: str,
    message: str,
    details: Sequence[Mapping[str, str]] = (),
    headers: dict[str, str] | None = None,
) -> JSONResponse:
    return JSONResponse(error_body(code, message, details), status_code=status, headers=headers)


def _param_path(loc: Sequence[str | int]) -> str:
    parts = [str(p) for p in loc]
    if parts and parts[0] in ("query", "path", "header"):
        parts = parts[1:]
    return ".".join(parts) or "request"


async def _api_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ApiError)
    count_refused(request, exc.code)
    return error_response(exc.status, exc.code, exc.message, exc.details, exc.headers)


async def _ingest_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, IngestError)
    client = request.client.host if request.client else "?"
    log.warning("refused %s from %s: %s %s", request.url.path, client, exc.status, exc.message)
    count_refused(request, exc.code)
    return error_response(exc.status, exc.code, exc.message, [p.as_dict() for p in exc.details])


async def _catalog_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, CatalogError)
    return await _api_error(request, catalog_error(exc))


async def _invalid_node_id(_: Request, exc: Exception) -> JSONResponse:
    return error_response(400, "invalid_parameter", f"nodeId: {exc}", [{"path": "nodeId", "message": str(exc)}])


async def _node_not_found(_: Request, exc: Exception) -> JSONResponse:
    return error_response(404, "not_found", str(exc) or "no such node")


async def _request_validation(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    count_refused(request, "invalid_parameter")
    details = [{"path": _param_path(e.get("loc", ())), "message": str(e.get("msg", "invalid"))} for e in exc.errors()]
    message = "; ".join(f"{d['path']}: {d['message']}" for d in details) or "invalid request"
    return error_response(400, "invalid_parameter", message, details)


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    code = _STATUS_CODES.get(exc.status_code, "error")
    count_refused(request, code)
    message = exc.detail if isinstance(exc.detail, str) else "request failed"
    if exc.status_code == 404 and message == "Not Found":
        message = "no such endpoint; see /docs for the API"
    return error_response(exc.status_code, code, message, headers=getattr(exc, "headers", None))


def disk_full(exc: BaseException) -> bool:
    """Whether a database error says the disk is full: SQLite's SQLITE_FULL, PostgreSQL's disk_full (53100)."""
    orig = getattr(exc, "orig", None)
    if getattr(orig, "sqlite_errorname", None) == "SQLITE_FULL":
        return True
    return str(getattr(orig, "sqlstate", "") or "") == "53100"  # PostgreSQL: disk_full


async def _store_unavailable(request: Request, exc: Exception) -> JSONResponse:
    if not isinstance(exc, OperationalError) and not unavailable(exc):  # a failing statement, not the store away
        return await _unexpected(request, exc)
    log.error("store error while answering a request: %s", exc)
    if disk_full(exc):
        count_refused(request, "disk_full")
        return error_response(
            503,
            "disk_full",
            "the store's disk is full; nothing of this request was stored: free space (the server recovers by "
            "itself) and retry",
            headers={"Retry-After": "10"},
        )
    count_refused(request, "store_unavailable")
    return error_response(
        503,
        "store_unavailable",
        "the store cannot be reached or refused the operation; nothing was stored, retry later",
        headers={"Retry-After": "5"},
    )


async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
    log.exception("unexpected error while answering a request", exc_info=exc)
    count_refused(request, "internal_error")
    # The server closes the connection after an unhandled error; saying so lets a keep-alive client
    # read this answer instead of seeing a dropped connection.
    return error_response(
        500,
        "internal_error",
        f"internal error: {type(exc).__name__}; see the server log",
        headers={"Connection": "close"},
    )


def install_error_handlers(app: FastAPI) -> None:
    """Make every error answer use the standard body."""
    app.add_exception_handler(ApiError, _api_error)
    app.add_exception_handler(IngestError, _ingest_error)
    app.add_exception_handler(CatalogError, _catalog_error)
    app.add_exception_handler(InvalidNodeId, _invalid_node_id)
    app.add_exception_handler(NodeNotFound, _node_not_found)
    app.add_exception_handler(RequestValidationError, _request_validation)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(DBAPIError, _store_unavailable)  # OperationalError, or a dropped connection
    app.add_exception_handler(Exception, _unexpected)
