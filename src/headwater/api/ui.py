"""Serve the built web UI at ``/`` with single-page-app fallback.

Mounted after every API route. A GET for a file in the UI folder answers that file; any other
GET outside ``/api/`` answers ``index.html`` (the UI's router takes over in the browser).
Unknown ``/api/...`` paths keep answering the JSON ``404 not_found`` (every method; ``HEAD`` too).
The catch-all takes every method, so a path that exists with other methods answers ``405
method_not_allowed`` with ``Allow`` listing them (``POST /api/v1/graph/lineage``, ``GET
/api/v1/lineage/batch``), and an unknown path a ``404`` whatever the method.
Without a built UI, ``/`` answers a short JSON note pointing at ``/docs``.

The UI's files carry a Content Security Policy with no inline or foreign script (the build has
none: one module script, a stylesheet and a same-origin worker), ``frame-ancestors 'none'`` (and
``X-Frame-Options: DENY`` for older browsers) against clickjacking; every answer of the app also
carries ``X-Content-Type-Options: nosniff`` and ``Referrer-Policy: no-referrer``
(:mod:`headwater.api.guard`). ``/docs`` (Swagger UI, which needs an inline script) is not the UI
and keeps FastAPI's page as it is.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, JSONResponse, Response
from starlette.routing import Match

from headwater.api.errors import error_response

CSP = (
    "default-src 'self'; script-src 'self'; worker-src 'self' blob:; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; object-src 'none'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {"Content-Security-Policy": CSP, "X-Frame-Options": "DENY"}
_NO_CACHE = {"Cache-Control": "no-cache", **SECURITY_HEADERS}


def ui_dir() -> Path | None:
    """The UI helper's built assets, when they exist (``headwater.ui.static_dir()``)."""
    try:
        from headwater.ui import static_dir
    except ImportError:
        return None
    folder = Path(static_dir())
    return folder if (folder / "index.html").is_file() else None


def _inside(folder: Path, relative: str) -> Path | None:
    candidate = (folder / relative).resolve()
    if candidate.is_file() and candidate.is_relative_to(folder):
        return candidate
    return None


_EVERY_METHOD = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]


def _allowed(app: FastAPI, request: Request, catch_all: object) -> list[str]:
    """The methods the routes matching this request's path take (the catch-all left out), HEAD with GET."""
    methods: set[str] = set()
    routes = [r for r in app.router.routes if r is not catch_all]
    for method in _EVERY_METHOD:
        scope = {**request.scope, "method": method}
        if any(route.matches(scope)[0] is Match.FULL for route in routes):
            methods.add(method)
    if "GET" in methods:
        methods.add("HEAD")
    return sorted(methods)


def _not_allowed(method: str, path: str, allowed: list[str]) -> Response:
    listed = ", ".join(allowed)
    return error_response(
        405, "method_not_allowed", f"{method} is not allowed on {path}; allowed: {listed}", headers={"Allow": listed}
    )


def mount_ui(app: FastAPI, folder: Path | None) -> None:
    """Add the catch-all route (every method); call after every API route is registered."""
    root = folder.resolve() if folder is not None else None

    @app.api_route("/{path:path}", methods=_EVERY_METHOD, include_in_schema=False)
    def ui(path: str, request: Request) -> Response:
        api = path.lstrip("/").lower()  # /API/x and //api/x are API paths too, never the UI's page
        method = request.method
        if method not in ("GET", "HEAD"):
            allowed = _allowed(app, request, catch_all) if api == "api" or api.startswith("api/") else ["GET", "HEAD"]
            if allowed:
                return _not_allowed(method, f"/{path}", allowed)
            return error_response(404, "not_found", f"no such endpoint /{path}; see /docs for the API")
        if api == "api" or api.startswith("api/"):
            allowed = _allowed(app, request, catch_all)
            if allowed:  # the path exists, with other methods (GET /api/v1/lineage/batch)
                return _not_allowed(method, f"/{path}", allowed)
            return error_response(404, "not_found", f"no such endpoint /{path}; see /docs for the API")
        if root is None:
            if path == "":
                return JSONResponse(
                    {
                        "name": "headwater",
                        "api": "/api/v1",
                        "docs": "/docs",
                        "ui": "not built (run the UI build to serve it here)",
                    }
                )
            return error_response(404, "not_found", f"nothing at /{path}; the web UI is not built")
        found = _inside(root, path) if path else None
        if found is not None:
            headers = _NO_CACHE if found.name == "index.html" else SECURITY_HEADERS
            return FileResponse(found, headers=headers)
        return FileResponse(root / "index.html", headers=_NO_CACHE)

    catch_all = app.router.routes[-1]
