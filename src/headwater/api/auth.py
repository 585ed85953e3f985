"""Optional bearer-token auth (settings ``write_tokens`` and ``read_tokens``).

- no write tokens configured: anyone may POST events;
- write tokens configured: POST needs ``Authorization: Bearer <write token>`` — exactly what the
  OpenLineage HTTP transport sends with ``auth: {type: api_key, apiKey: <token>}``;
- read tokens configured: GET under ``/api`` needs a read *or* write token.

Managed tokens (``headwater token create|list|revoke``, :mod:`headwater.catalog.tokens`) count as configured
tokens of their kind from the moment they exist, and stop working when revoked or expired, without a restart;
the settings' tokens keep working beside them. A managed write token bound to a project acts as that project's
contributor (what it sends is bound to the project at ingest).

``401 unauthorized`` when the token is missing (where one is needed) or unknown, ``403 forbidden`` when a
read token tries to write. An unknown token is refused on every request, reads that need no token included,
as soon as the server holds tokens of any kind (settings, managed, catalog users'): a replaced, revoked or
mistyped token says so instead of reading as an anonymous reader, who may see less. Only a server with no
token at all ignores one. Tokens are compared in constant time.

The catalog's users (docs/catalog.md) hold tokens of their own: such a token reads (any role) and, for
an owner or contributor, writes. Each request's :class:`~headwater.catalog.Principal` (who, which
project context: header ``Headwater-Project`` or query ``project``) is kept on ``request.state``, and
:func:`headwater.api.state.app_state` hands the route a graph reader that sees what that principal may
see. A route without these dependencies reads as an anonymous reader.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from typing import TYPE_CHECKING

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from headwater.api.errors import ApiError, catalog_error
from headwater.api.state import PRINCIPAL, app_state
from headwater.catalog import CatalogError, Principal
from headwater.catalog.access import ADMIN, ANONYMOUS, has_users, holder_of, managed_kinds
from headwater.model.catalog_roles import WRITERS, MemberRole
from headwater.settings import Settings

if TYPE_CHECKING:
    from headwater.store import Store

_bearer = HTTPBearer(
    auto_error=False,
    description="A token from the server's write_tokens or read_tokens setting, or a catalog user's token.",
)
PROJECT_HEADER = "Headwater-Project"
_CHALLENGE = {"WWW-Authenticate": 'Bearer realm="headwater"'}
UNKNOWN_TOKEN = "unknown token: not one of this server's tokens nor a catalog user's (replaced, revoked or expired?)"


@dataclass(frozen=True)
class Tokens:
    write: frozenset[str]
    read: frozenset[str]
    # a valid managed token of the kind exists (``headwater token``): that kind of request needs a token
    managed_write: bool = False
    managed_read: bool = False


def _known(token: str, tokens: frozenset[str]) -> bool:
    found = False
    for candidate in tokens:  # no early exit: time does not depend on which token matched
        found |= hmac.compare_digest(token.encode(), candidate.encode())
    return found


def _token(credentials: HTTPAuthorizationCredentials | None) -> str | None:
    if credentials is None or credentials.scheme.lower() != "bearer" or not credentials.credentials:
        return None
    return credentials.credentials.strip()


def _unauthorized(message: str) -> ApiError:
    return ApiError(401, "unauthorized", message, headers=_CHALLENGE)


def _read_only() -> ApiError:
    return ApiError(403, "forbidden", "this token may only read; sending events needs a write token")


def check_write(tokens: Tokens, token: str | None) -> None:
    if not tokens.write and not tokens.managed_write:
        return
    if token is None:
        raise _unauthorized("this server needs a write token: send 'Authorization: Bearer <token>'")
    if _known(token, tokens.write):
        return
    if _known(token, tokens.read):
        raise _read_only()
    raise _unauthorized(UNKNOWN_TOKEN)


def check_read(tokens: Tokens, token: str | None) -> None:
    if not tokens.read and not tokens.managed_read:
        return
    if token is None:
        raise _unauthorized("this server needs a read token: send 'Authorization: Bearer <token>'")
    if not (_known(token, tokens.read) or _known(token, tokens.write)):
        raise _unauthorized(UNKNOWN_TOKEN)


def _tokens_of(settings: Settings, store: Store, *, managed: bool = False) -> Tokens:
    """The settings' tokens; ``managed``: also whether managed tokens of each kind exist (one indexed query)."""
    kinds = managed_kinds(store.engine) if managed else frozenset()
    return Tokens(
        write=settings.write_token_set,
        read=settings.read_token_set,
        managed_write="write" in kinds,
        managed_read="read" in kinds,
    )


def _tokens(request: Request, *, managed: bool = False) -> Tokens:
    state = app_state(request)
    return _tokens_of(state.settings, state.store, managed=managed)


def _in_context(principal: Principal, project: str | None) -> Principal:
    try:
        return principal.with_context(project)
    except CatalogError as exc:
        raise catalog_error(exc) from None


def _reading_public(settings: Settings, principal: Principal, reading: bool) -> Principal:
    """A reader (not an admin) with the ``public_projects`` setting's projects as a viewer member of each
    (a role it already has is kept); a write is decided by the principal's own memberships alone."""
    public = settings.public_project_set
    if not reading or principal.admin or not public:
        return principal
    viewer: MemberRole = "viewer"
    memberships = {**dict.fromkeys(sorted(public), viewer), **principal.memberships}
    return Principal(principal.user, False, memberships, principal.context)


def principal_of(
    settings: Settings,
    store: Store,
    token: str | None,
    project: str | None,
    *,
    write: bool,
    reading: bool | None = None,
) -> Principal:
    """Who holds ``token`` (None: no token) in ``project``'s context, by the rules of the module docstring;
    :class:`ApiError` 401/403 as :func:`check_read`/:func:`check_write`. Every door that reads the graph for a
    caller (the HTTP API, the MCP server) decides with this one function. A read (``reading``, by default
    ``not write``; the catalog's routes take a write's principal as a reader's) also sees the projects of
    the ``public_projects`` setting as their viewer would."""
    reading = not write if reading is None else reading
    tokens = _tokens_of(settings, store)
    if token is not None and _known(token, tokens.write):
        return _in_context(ADMIN, project)
    settings_read = token is not None and _known(token, tokens.read)
    holder = None if token is None or settings_read else holder_of(store.engine, token)
    if holder is not None:
        if write and holder.kind == "read":
            raise _read_only()
        if write and holder.kind == "user" and not any(r in WRITERS for r in holder.principal.memberships.values()):
            raise ApiError(403, "forbidden", "this token may only read: its user is a viewer in every project")
        return _in_context(_reading_public(settings, holder.principal, reading), project)
    tokens = _tokens_of(settings, store, managed=True)
    if token is not None and not settings_read and _holds_tokens(tokens, store):
        raise _unauthorized(UNKNOWN_TOKEN)
    if write:
        check_write(tokens, token)
    else:
        check_read(tokens, token)
    return _in_context(_reading_public(settings, ANONYMOUS, reading), project)


def _holds_tokens(tokens: Tokens, store: Store) -> bool:
    """Whether the server holds tokens of any kind (then a token it does not know is an error, not ignored)."""
    return bool(tokens.write or tokens.read or tokens.managed_write or tokens.managed_read) or has_users(store.engine)


def _project(request: Request) -> str | None:
    return request.headers.get(PROJECT_HEADER) or request.query_params.get("project") or None


def _context(request: Request, principal: Principal) -> Principal:
    return _in_context(principal, _project(request))


def principal_for(request: Request, token: str | None, *, write: bool, reading: bool | None = None) -> Principal:
    """Who sends this request (see the module docstring); 401/403 as :func:`check_read`/:func:`check_write`."""
    state = app_state(request)
    return principal_of(state.settings, state.store, token, _project(request), write=write, reading=reading)


def _remember(request: Request, principal: Principal) -> None:
    setattr(request.state, PRINCIPAL, principal)


def require_write(request: Request, credentials: HTTPAuthorizationCredentials | None = Depends(_bearer)) -> None:
    """Dependency for endpoints that store events."""
    _remember(request, principal_for(request, _token(credentials), write=True))


def require_read(request: Request, credentials: HTTPAuthorizationCredentials | None = Depends(_bearer)) -> None:
    """Dependency for read endpoints: the principal's graph reader sees what the principal may see."""
    _remember(request, principal_for(request, _token(credentials), write=False))


def require_catalog(request: Request, credentials: HTTPAuthorizationCredentials | None = Depends(_bearer)) -> None:
    """Dependency for the catalog's routes: a reader as :func:`require_read`; on a server without write tokens
    (where anyone may send events) a request without a token manages the catalog as an admin would."""
    token = _token(credentials)
    if (
        token is None
        and not _tokens(request, managed=True).managed_write
        and not _tokens(request).write
        and request.method not in ("GET", "HEAD")
    ):
        _remember(request, _context(request, ADMIN))
        return
    # a catalog change is checked against the principal's own memberships (public projects only read)
    _remember(request, principal_for(request, token, write=False, reading=request.method in ("GET", "HEAD")))


def principal(request: Request) -> Principal:
    """The request's principal (anonymous when no auth dependency ran)."""
    found = getattr(request.state, PRINCIPAL, None)
    return found if isinstance(found, Principal) else ANONYMOUS
