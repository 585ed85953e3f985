"""Headwater's lineage for AI assistants: a Model Context Protocol server (the official ``mcp`` SDK's FastMCP).

Contract: :func:`build_server` makes the server whose tools answer through a :class:`~headwater.graph.GraphReader`
for the caller's viewer — the principal is decided by :func:`headwater.api.auth.principal_of`, the API's one
rule (write token: admin; catalog user's token: that user's projects, ``Headwater-Project`` chooses one; no
token: anonymous, or 401 when read tokens are set), so a hidden node is "not found" here exactly as in the API.
Over stdio (``headwater mcp``) the principal is fixed at start from ``--token``; over streamable HTTP
(:func:`mount`, on ``headwater serve`` at ``/mcp``) it is read from each request's ``Authorization`` header.

Tools are designed for few calls (docs/mcp.md): a summary first, then one page of items (``limit``/``offset``,
``page.nextOffset``), every node with its web UI link (``url``). The tools never write: SQL lineage runs the SQL
engine on the text given and stores nothing; the impact check reads proposed changes (the API's JSON, or SQL
through :func:`headwater.sql.changes.script_changes`) and answers the graph layer's report
(:mod:`headwater.graph.impactcheck`); the classification and data-quality tools answer
:mod:`headwater.graph.classify` and :mod:`headwater.graph.quality` with the server's classification settings.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, TypeAlias

import anyio
from mcp.server.fastmcp import Context, FastMCP
from mcp.server.fastmcp.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import Receive, Scope, Send

from headwater.api.auth import PROJECT_HEADER, principal_of
from headwater.api.errors import ApiError
from headwater.catalog import Principal
from headwater.graph import GraphReader, NodeNotFound
from headwater.mcpserver.tools import (
    MAX_CHANGES,
    Caller,
    ToolAnswer,
    do_classification,
    do_column_path,
    do_diff,
    do_history,
    do_impact,
    do_impact_check,
    do_lineage,
    do_quality,
    do_search,
    do_sql_lineage,
    proposed_changes,
    ui_link,
)
from headwater.model.jsontypes import JSONObject
from headwater.settings import Settings

if TYPE_CHECKING:
    from fastapi import FastAPI
    from starlette.applications import Starlette

    from headwater.store import Store

PATH = "/mcp"
INSTRUCTIONS = (
    "Headwater answers data-lineage questions over OpenLineage events. Node ids: dataset:<namespace>:<name>, "
    "job:<namespace>:<name>, datasetField:<namespace>:<name>:<column>. Start with `search` to find ids. "
    "`impact` answers 'what breaks if I change or drop this dataset or these columns' in ONE call, each affected "
    "column with its path and transformations. `impact_check` grades proposed changes (drop/rename/retype columns, "
    "drop a dataset, DDL or a changed SQL script) by severity with owners to tell; `classification_report` answers "
    "where a tag such as PII flows; `data_quality` what is failing upstream. Times (`at`, `from_time`, `to_time`) "
    "are ISO 8601."
)


ToolContext: TypeAlias = Context[Any, Any, Any]
"""The MCP SDK's per-call context (its session, lifespan and request types are the SDK's to choose)."""

__all__ = ["MAX_CHANGES", "PATH", "Caller", "build_server", "mount", "stdio_caller", "ui_link"]


# --- the server ----------------------------------------------------------------------------------------


def build_server(caller: Callable[[ToolContext], Caller]) -> FastMCP:
    """The MCP server; ``caller(ctx)`` says who calls each tool (stdio: fixed; HTTP: from the request)."""
    server = FastMCP(
        "headwater",
        instructions=INSTRUCTIONS,
        stateless_http=True,
        json_response=True,
        streamable_http_path=PATH,
        # the app's own guard (api/guard.py) checks Host and cross-site requests for every path
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )

    async def run(ctx: ToolContext, work: Callable[[Caller], ToolAnswer]) -> ToolAnswer:
        who = caller(ctx)
        try:
            return await anyio.to_thread.run_sync(lambda: work(who))
        except NodeNotFound as exc:
            raise ToolError(str(exc)) from None
        except ValueError as exc:
            raise ToolError(str(exc)) from None

    @server.tool()
    async def search(ctx: ToolContext, query: str, types: list[str] | None = None, limit: int = 20) -> ToolAnswer:  # fmt: skip
        """Find datasets, jobs and columns by name (substring). types: any of dataset, job, field."""
        return await run(ctx, lambda c: do_search(c, query, types, limit))

    @server.tool()
    async def lineage(ctx: ToolContext, node: str, direction: str = "both", depth: int = 3, at: str | None = None, limit: int = 50, offset: int = 0) -> ToolAnswer:  # fmt: skip
        """Datasets and jobs upstream and/or downstream of a dataset or job, optionally as of a past moment (at)."""
        return await run(ctx, lambda c: do_lineage(c, node, direction, depth, at, limit, offset))

    @server.tool()
    async def column_path(ctx: ToolContext, column: str, direction: str = "upstream", depth: int = 10, at: str | None = None, limit: int = 50, offset: int = 0) -> ToolAnswer:  # fmt: skip
        """Where one column comes from (upstream) or goes (downstream), each edge with its transformations."""
        return await run(ctx, lambda c: do_column_path(c, column, direction, depth, at, limit, offset))

    @server.tool()
    async def impact(ctx: ToolContext, node: str, columns: list[str] | None = None, depth: int = 20, at: str | None = None, limit: int = 100, offset: int = 0) -> ToolAnswer:  # fmt: skip
        """Everything downstream of a whole dataset, or of some of its columns (names in columns), in one call:
        affected datasets and jobs, and each affected column with its path and the transformations on it."""
        return await run(ctx, lambda c: do_impact(c, node, columns, depth, at, limit, offset))

    @server.tool()
    async def history(ctx: ToolContext, node: str, limit: int = 20, offset: int = 0) -> ToolAnswer:
        """The versions of a dataset or job (schema, inputs/outputs), newest first, with what changed."""
        return await run(ctx, lambda c: do_history(c, node, limit, offset))

    @server.tool()
    async def diff(ctx: ToolContext, node: str, from_time: str, to_time: str, direction: str = "both", depth: int = 2) -> ToolAnswer:  # fmt: skip
        """What changed around a node between two moments: nodes, edges, columns and column edges added or removed."""
        return await run(ctx, lambda c: do_diff(c, node, from_time, to_time, direction, depth))

    @server.tool()
    async def impact_check(ctx: ToolContext, changes: list[JSONObject] | None = None, sql: str | None = None, dialect: str = "ansi", namespace: str | None = None, default_database: str | None = None, default_schema: str | None = None, job: str | None = None, depth: int = 20, at: str | None = None, limit: int = 100, offset: int = 0) -> ToolAnswer:  # fmt: skip
        """What proposed changes would break downstream, in ONE call: severity (none/info/warning/breaking),
        per change what it changes, and each affected column, dataset and job (worst first) with its path, effect,
        owning project, owners and subscribers. changes: objects {kind: drop_column|rename_column|retype_column|
        drop_dataset|new_schema|new_lineage, namespace, name, column, newName, newType, fields, columns}
        (docs/impact.md); and/or sql: DDL (ALTER TABLE ... DROP/RENAME/ALTER COLUMN, DROP TABLE) or a changed
        script (CREATE OR REPLACE VIEW, INSERT ...), read by the SQL engine with dialect, namespace (required
        with sql), default_database, default_schema, and job (the graph's job the script is)."""
        return await run(ctx, lambda c: do_impact_check(c, proposed_changes(changes, sql, dialect, namespace, default_database, default_schema, job), depth, at, limit, offset))  # fmt: skip

    @server.tool()
    async def classification_report(ctx: ToolContext, tag: str | None = None, dataset: str | None = None, at: str | None = None, limit: int = 100, offset: int = 0) -> ToolAnswer:  # fmt: skip
        """Where a tag (e.g. PII) is: every dataset, column and job carrying it, declared or inherited along
        column lineage (with the path from the column it comes from), and where it stopped flowing (masked,
        aggregated). tag: one tag (default every tag); dataset: only that dataset's columns."""
        return await run(ctx, lambda c: do_classification(c, tag, dataset, at, limit, offset))

    @server.tool()
    async def data_quality(ctx: ToolContext, dataset: str, at: str | None = None, depth: int = 20, limit: int = 50) -> ToolAnswer:  # fmt: skip
        """A dataset's data-quality status and latest assertion/test results, and the failing datasets upstream
        of it, nearest first, each with why and its path to the dataset."""
        return await run(ctx, lambda c: do_quality(c, dataset, at, depth, limit))

    @server.tool()
    async def sql_lineage(sql: str, dialect: str = "ansi", namespace: str | None = None, default_schema: str | None = None) -> ToolAnswer:  # fmt: skip
        """Table and column lineage of SQL statements (Headwater's SQL engine); nothing is stored."""
        return await anyio.to_thread.run_sync(lambda: do_sql_lineage(sql, dialect, namespace, default_schema))

    return server


def stdio_caller(store: Store, settings: Settings, token: str | None, project: str | None, ui: str) -> Callable[[ToolContext], Caller]:  # fmt: skip
    """The one caller of a stdio server: the token's principal, decided once (ApiError when refused)."""
    principal = principal_of(settings, store, token, project, write=False)
    fixed = Caller(GraphReader(store).viewing(principal.viewer), ui, settings)
    return lambda _ctx: fixed


def _request_principal(store: Store, settings: Settings, headers: Mapping[str, str]) -> Principal:
    auth = headers.get("authorization") or ""
    scheme, _, token = auth.partition(" ")
    bearer = token.strip() if scheme.lower() == "bearer" and token.strip() else None
    return principal_of(settings, store, bearer, headers.get(PROJECT_HEADER.lower()) or None, write=False)


def mount(app: FastAPI, store: Store, settings: Settings) -> None:
    """Serve the MCP endpoint at ``/mcp`` on ``app`` (streamable HTTP, stateless, JSON answers): a request is
    refused with the API's 401/403 before MCP sees it; each tool reads as the request's principal."""
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    def caller(ctx: ToolContext) -> Caller:
        request = ctx.request_context.request
        assert isinstance(request, Request)
        principal = _request_principal(store, settings, request.headers)
        return Caller(GraphReader(store).viewing(principal.viewer), str(request.base_url), settings)

    server = build_server(caller)
    inner = server.streamable_http_app()
    handler = next(r for r in inner.routes if isinstance(r, Route) and r.path == PATH).app

    class Endpoint:  # an ASGI app (Starlette's Route calls a plain function with a Request instead)
        async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
            request = Request(scope, receive)
            try:
                await anyio.to_thread.run_sync(lambda: _request_principal(store, settings, request.headers))
            except ApiError as exc:
                body = {"error": {"code": exc.code, "message": exc.message, "details": []}}
                await JSONResponse(body, status_code=exc.status, headers=exc.headers)(scope, receive, send)
                return
            await handler(scope, receive, send)

    app.router.routes.insert(0, Route(PATH, endpoint=Endpoint(), methods=["GET", "POST", "DELETE"]))
    outer = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(a: Starlette) -> AsyncIterator[Any]:  # Starlette's lifespan state is any mapping or None
        async with server.session_manager.run(), outer(a) as state:
            yield state

    app.router.lifespan_context = lifespan
