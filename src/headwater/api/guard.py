"""The app's outer door (ASGI middleware): which hosts and which sites may talk to it, HEAD, headers.

- **Host** (DNS rebinding): a page on ``evil.example`` whose name resolves to 127.0.0.1 reaches a
  server bound to localhost, but its requests carry ``Host: evil.example``. A server bound to a
  loopback address answers only to ``localhost``, ``127.0.0.1`` and ``[::1]`` (any port) and to the
  names of the ``allowed_hosts`` setting; bound elsewhere it answers to any host unless
  ``allowed_hosts`` lists names. An app built without a bind address (``create_app`` in tests and
  embedding) checks only ``allowed_hosts``. Another host answers ``403 forbidden``.
- **Cross-site writes** (CSRF): a write request (``POST``, ``PUT``, ``PATCH``, ``DELETE``) whose
  ``Sec-Fetch-Site`` is ``cross-site`` or ``same-site``, or whose ``Origin`` is not this server
  (the request's own ``Host``, or a name of ``allowed_hosts``), answers ``403 forbidden``.
  Server-to-server clients (the OpenLineage transports, curl) send neither header and pass; the
  ingest endpoints also require ``Content-Type: application/json`` (``ingest/body.py``), which a
  page cannot send cross-site without a CORS preflight this server never grants.
- **NUL** (``%00``) in the path or a query parameter of an ``/api/...`` request answers ``400 invalid_parameter``
  naming the parameter (``path`` for the path): no name, id or text Headwater keeps holds one (ingest refuses them),
  so such a request names nothing, and PostgreSQL refuses the text outright (a database error, else).
- **HEAD** on any GET route answers as GET would, headers only.
- **Headers** on every answer: ``X-Content-Type-Options: nosniff``, ``Referrer-Policy: no-referrer``.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import parse_qsl, urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from headwater.api.errors import error_body
from headwater.model.jsontext import dumps

LOOPBACK_BINDS = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "[::1]"})
_WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_COMMON_HEADERS = [(b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer")]


def allowed_hosts(bind_host: str | None, configured: Iterable[str]) -> frozenset[str] | None:
    """The host names the server answers to, or ``None`` for any (see the module docstring)."""
    names = frozenset(_host_name(h) for h in configured if h)
    if bind_host is not None and bind_host.strip().lower() in LOOPBACK_BINDS:
        return names | LOOPBACK_NAMES
    return names or None


def _host_name(host: str) -> str:
    """``Host`` header value → lower-case name without port or trailing dot (``[::1]`` kept in brackets)."""
    host = host.strip().lower()
    if host.startswith("["):
        end = host.find("]")
        return host[: end + 1] if end > 0 else host
    return host.rsplit(":", 1)[0].rstrip(".") if host.count(":") == 1 else host.rstrip(".")


def _origin_host(origin: str) -> str | None:
    """``Origin: scheme://host[:port]`` → ``host[:port]`` (lower-case); ``None`` for ``null`` or garbage."""
    try:
        parts = urlsplit(origin.strip())
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return None
    return parts.netloc.lower()


def _nul_parameter(scope: Scope) -> str | None:
    """The query parameter (or ``path``) of an ``/api/...`` request that holds a NUL, if any."""
    path = str(scope.get("path", ""))
    if not path.startswith("/api/"):
        return None
    if "\x00" in path:
        return "path"
    query = bytes(scope.get("query_string", b""))
    if b"%00" not in query:
        return None
    for key, value in parse_qsl(query.decode("latin-1"), keep_blank_values=True):
        if "\x00" in key or "\x00" in value:
            return key.replace("\x00", "")
    return None


class Guard:
    """ASGI middleware: the Host check, the cross-site write check, HEAD, common security headers."""

    def __init__(self, app: ASGIApp, hosts: frozenset[str] | None) -> None:
        self.app = app
        self.hosts = hosts

    async def _refuse(
        self, send: Send, message: str, detail_path: str, status: int = 403, code: str = "forbidden"
    ) -> None:
        body = dumps(error_body(code, message, [{"path": detail_path, "message": message}])).encode()
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    *_COMMON_HEADERS,
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

    def _problem(self, scope: Scope) -> tuple[str, str] | None:
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        host = headers.get("host", "")
        if self.hosts is not None and _host_name(host) not in self.hosts:
            return (
                f"Host {host!r} is not a name this server answers to; add it to the allowed_hosts setting "
                "(HEADWATER_ALLOWED_HOSTS) if it is yours",
                "Host",
            )
        if scope.get("method") in _WRITES:
            site = headers.get("sec-fetch-site", "").strip().lower()
            if site in ("cross-site", "same-site"):
                return (f"a {site} request from a web page may not write (Sec-Fetch-Site: {site})", "Sec-Fetch-Site")
            if "origin" in headers:
                origin = _origin_host(headers["origin"])
                same = origin is not None and (
                    origin == host.strip().lower()
                    or (self.hosts is not None and _host_name(origin) in self.hosts - LOOPBACK_NAMES)
                )
                if not same:
                    return (
                        f"a request from the web page at {headers['origin']!r} may not write to this server "
                        "(its Origin is not this server)",
                        "Origin",
                    )
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        problem = self._problem(scope)
        if problem is not None:
            await self._refuse(send, *problem)
            return
        nul = _nul_parameter(scope)
        if nul is not None:
            message = f"{nul} holds a NUL character (%00), which no name or id can hold"
            await self._refuse(send, message, nul, 400, "invalid_parameter")
            return
        head = scope.get("method") == "HEAD"
        if head:
            scope = {**scope, "method": "GET"}

        async def send_guarded(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *_COMMON_HEADERS]}
            elif head and message["type"] == "http.response.body":
                message = {**message, "body": b""}
            await send(message)

        await self.app(scope, receive, send_guarded)
