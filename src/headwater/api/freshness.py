"""The read barrier of the HTTP API, made visible.

Every read route waits (at most ``projector_wait`` seconds) until the graph reflects every event
the log held when the request arrived, once, in the :func:`read_barrier` dependency; the graph
reads that follow open their connections without waiting again. The answer then says what it
reflects, in three headers (added by :class:`GraphPositionHeaders`):

- ``Headwater-Log-Position``: the newest event ``seq`` in the log when the read began;
- ``Headwater-Graph-Position``: the newest event ``seq`` the graph reflected when it answered;
- ``Headwater-Graph-Behind``: how many events it did not reflect yet (0 when caught up).

A client that must read its own writes sends ``Prefer: read-your-writes``: when the graph could
not catch up in time it gets ``503 graph_behind`` with ``Retry-After`` instead of an older answer,
and ``Preference-Applied: read-your-writes`` when it did.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fastapi import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from headwater.api.errors import ApiError
from headwater.api.state import app_state

if TYPE_CHECKING:
    from headwater.store import GraphPosition

READ_YOUR_WRITES = "read-your-writes"
_STATE_KEY = "graph_position"


def _prefers_read_your_writes(request: Request) -> bool:
    prefer = ",".join(request.headers.getlist("prefer")).lower()
    return any(token.split(";")[0].strip() == READ_YOUR_WRITES for token in prefer.split(","))


def _required_missing(request: Request) -> bool:
    """Whether the request lacks a query parameter its route requires: it is answered 400 without a graph read,
    so it must not wait for the projector (a busy projector would hold a plain mistake for ``projector_wait``).
    Reads FastAPI's route model (``APIRoute.dependant``: each parameter's alias and whether it is required)."""
    route = request.scope.get("route")
    stack = [getattr(route, "dependant", None)]
    while stack:
        dependant = stack.pop()
        if dependant is None:
            continue
        for param in dependant.query_params:
            if param.field_info.is_required() and param.alias not in request.query_params:
                return True
        stack.extend(dependant.dependencies)
    return False


def read_barrier(request: Request) -> None:
    """Wait for the projector once per read request and record where the graph stands (not for a request
    that misses a required parameter: it reads nothing)."""
    if _required_missing(request):
        return
    state = app_state(request)
    position = state.store.catch_up()
    request.state.graph_position = position
    if _prefers_read_your_writes(request):
        if not position.caught_up:
            raise ApiError(
                503,
                "graph_behind",
                f"the graph is {position.behind} event(s) behind the log after waiting "
                f"{state.store.projector_wait:g} s (projector_wait); retry later",
                [{"path": "Prefer", "message": f"log position {position.log}, graph position {position.graph}"}],
                headers={"Retry-After": "1"},
            )
        request.state.preference_applied = READ_YOUR_WRITES


class GraphPositionHeaders:
    """ASGI middleware: adds the graph-position headers to answers whose request passed the barrier."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_position(message: Message) -> None:
            if message["type"] == "http.response.start":
                request_state = scope.get("state") or {}
                position: GraphPosition | None = request_state.get(_STATE_KEY)
                if position is not None:
                    headers = [
                        *message.get("headers", []),
                        (b"headwater-log-position", str(position.log).encode()),
                        (b"headwater-graph-position", str(position.graph).encode()),
                        (b"headwater-graph-behind", str(position.behind).encode()),
                    ]
                    if request_state.get("preference_applied"):
                        headers.append((b"preference-applied", READ_YOUR_WRITES.encode()))
                    message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_position)
