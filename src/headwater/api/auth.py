"""Optional bearer-token auth (settings ``write_tokens`` and ``read_tokens``).

- no write tokens configured: anyone may POST events;
- write tokens configured: POST needs ``Authorization: Bearer <write token>`` — exactly what the
  OpenLineage HTTP transport sends with ``auth: {type: api_key, apiKey: <token>}``;
- read tokens configured: GET under ``/api`` needs a read *or* write token.

``401 unauthorized`` when the token is missing or unknown, ``403 forbidden`` when a read token
tries to write. Tokens are compared in constant time.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from headwater.api.errors import ApiError
from headwater.api.state import app_state

_bearer = HTTPBearer(auto_error=False, description="A token from the server's write_tokens or read_tokens setting.")
_CHALLENGE = {"WWW-Authenticate": 'Bearer realm="headwater"'}


@dataclass(frozen=True)
class Tokens:
    write: frozenset[str]
    read: frozenset[str]


def _known(token: str, tokens: frozenset[str]) -> bool:
    found = False
    for candidate in tokens:  # no early exit: time does not depend on which token matched
        found |= hmac.compare_digest(token.encode(), candidate.encode())
    return found


def _token(credentials: HTTPAuthorizationCredentials | None) -> str | None:
    if credentials is None or credentials.scheme.lower() != "bearer" or not credentials.credentials:
        return None
    return credentials.credentials.strip()


def check_write(tokens: Tokens, token: str | None) -> None:
    if not tokens.write:
        return
    if token is None:
        raise ApiError(
            401,
            "unauthorized",
            "this server needs a write token: send 'Authorization: Bearer <token>'",
            headers=_CHALLENGE,
        )
    if _known(token, tokens.write):
        return
    if _known(token, tokens.read):
        raise ApiError(403, "forbidden", "this token may only read; sending events needs a write token")
    raise ApiError(401, "unauthorized", "unknown token", headers=_CHALLENGE)


def check_read(tokens: Tokens, token: str | None) -> None:
    if not tokens.read:
        return
    if token is None:
        raise ApiError(
            401,
            "unauthorized",
            "this server needs a read token: send 'Authorization: Bearer <token>'",
            headers=_CHALLENGE,
        )
    if not (_known(token, tokens.read) or _known(token, tokens.write)):
        raise ApiError(401, "unauthorized", "unknown token", headers=_CHALLENGE)


def _tokens(request: Request) -> Tokens:
    settings = app_state(request).settings
    return Tokens(write=settings.write_token_set, read=settings.read_token_set)


def require_write(request: Request, credentials: HTTPAuthorizationCredentials | None = Depends(_bearer)) -> None:
    """Dependency for endpoints that store events."""
    check_write(_tokens(request), _token(credentials))


def require_read(request: Request, credentials: HTTPAuthorizationCredentials | None = Depends(_bearer)) -> None:
    """Dependency for read endpoints."""
    check_read(_tokens(request), _token(credentials))
