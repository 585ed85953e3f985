"""HTTP hygiene: unknown /api paths are a JSON 404 (never the UI's page), HEAD
on GET routes, out-of-range cursors and times, over-long searches, one error shape everywhere, and a
500 that says Connection: close."""

from __future__ import annotations

import base64
import copy
from pathlib import Path

import httpx
import pytest
from api_helpers import BASE, assert_error, client_for, make_settings
from hostile_payloads import template

from headwater.api import create_app
from headwater.graph import GraphReader
from headwater.store import Store

pytestmark = pytest.mark.anyio


@pytest.fixture
async def ui_client(store: Store, tmp_path: Path) -> httpx.AsyncClient:
    (tmp_path / "index.html").write_text("<!doctype html><title>ui</title>")
    app = create_app(make_settings(), store, ui_folder=tmp_path)
    async with client_for(app) as c:
        yield c


async def test_unknown_api_paths_are_a_json_404_with_the_ui_mounted(ui_client: httpx.AsyncClient) -> None:
    assert (await ui_client.get("/some/ui/route")).text.startswith("<!doctype html>")
    for path in (
        "/api",
        "/api/",
        "/api/v1/nope",
        "/api/v2/graph/lineage",
        "/API/v1/nope",
        "/Api/v1/graph",
        "/api/v1/graph/lineage/extra",
        "/api/v1/lineage/batch/x",
    ):
        answer = await ui_client.get(path)
        error = assert_error(answer, 404, "not_found")
        assert "no such endpoint" in error["message"]
        head = await ui_client.head(path)
        assert head.status_code == 404 and head.content == b""


async def test_head_on_get_routes_answers_like_get_without_a_body(ui_client: httpx.AsyncClient) -> None:
    event = template()
    assert (await ui_client.post("/api/v1/lineage", json=event)).status_code == 201
    for path in (
        "/",
        "/some/ui/route",
        "/api/v1/graph/recent",
        "/api/v1/events",
        "/api/v1/namespaces",
        "/api/v1/status",
        "/openapi.json",
        "/api/v1/graph/node?nodeId=job:spark:payroll.report",
    ):
        got, head = await ui_client.get(path), await ui_client.head(path)
        assert got.status_code == 200, (path, got.text)
        assert head.status_code == 200, path
        assert head.content == b""
        assert head.headers["content-type"] == got.headers["content-type"]
    assert_error(await ui_client.get("/api/v1/graph/node?nodeId=job:x:nope"), 404, "not_found")
    assert (await ui_client.head("/api/v1/graph/node?nodeId=job:x:nope")).status_code == 404


def _cursor(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


async def test_out_of_range_parameters_are_400(client: httpx.AsyncClient) -> None:
    for cursor in (
        _cursor(f"{2**63}:1"),
        _cursor(f"1:{2**63}"),
        _cursor(f"{-(2**63) - 1}:1"),
        _cursor(f"{2**200}:{2**200}"),
        _cursor("1:-1"),
    ):
        error = assert_error(await client.get("/api/v1/events", params={"cursor": cursor}), 400, "invalid_parameter")
        assert error["details"][0]["path"] == "cursor"
    ok = await client.get("/api/v1/events", params={"cursor": _cursor(f"{2**63 - 1}:{2**63 - 1}")})
    assert ok.status_code == 200, ok.text
    for value in ("0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00", "99999999999999999"):
        error = assert_error(await client.get("/api/v1/events", params={"since": value}), 400, "invalid_parameter")
        assert error["details"][0]["path"] == "since"


async def test_an_over_long_search_is_a_400_naming_the_limit(client: httpx.AsyncClient) -> None:
    for path, params in (("/api/v1/graph/search", {}), ("/api/v1/search", {})):
        error = assert_error(await client.get(path, params={"q": "x" * 60_000, **params}), 400, "invalid_parameter")
        assert "max_search_length" in error["message"] and error["details"][0]["path"] == "q"
        assert (await client.get(path, params={"q": "x" * 1000})).status_code == 200


async def test_a_100000_character_search_over_asgi_is_a_400(app) -> None:  # type: ignore[no-untyped-def]
    """httpx refuses URLs this long; a real server's client does not: call the ASGI app directly."""
    sent: list[dict] = []  # type: ignore[type-arg]

    async def receive() -> dict:  # type: ignore[type-arg]
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict) -> None:  # type: ignore[type-arg]
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": "/api/v1/graph/search",
        "raw_path": b"/api/v1/graph/search",
        "root_path": "",
        "query_string": b"q=" + b"y" * 100_000,
        "headers": [(b"host", b"headwater.test")],
        "client": ("127.0.0.1", 1),
        "server": ("headwater.test", 80),
    }
    await app(scope, receive, send)
    assert sent[0]["status"] == 400
    assert b"max_search_length" in b"".join(m.get("body", b"") for m in sent[1:])


async def test_empty_names_are_refused_and_a_space_in_event_time_is_accepted(client: httpx.AsyncClient) -> None:
    for path in (
        ("outputs", 0, "name"),
        ("outputs", 0, "namespace"),
        ("inputs", 0, "name"),
        ("job", "name"),
        ("run", "facets", "parent", "job", "namespace"),
    ):
        event = copy.deepcopy(template())
        target = event
        for step in path[:-1]:
            target = target[step]
        target[path[-1]] = ""
        error = assert_error(await client.post("/api/v1/lineage", json=event), 422, "invalid_event")
        wanted = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)
        assert wanted in [d["path"] for d in error["details"]], error
        assert "empty" in error["message"]
    # RFC 3339 (section 5.6, NOTE) allows a space for the T: accepted, read as the same moment
    event = template()
    event["eventTime"] = "2026-11-11 10:01:00.000Z"
    answer = await client.post("/api/v1/lineage", json=event)
    assert answer.status_code == 201, answer.text
    summary = (await client.get("/api/v1/events")).json()["events"][0]
    assert summary["eventTime"] == "2026-11-11T10:01:00.000Z"


async def test_every_error_has_the_one_shape_and_a_500_closes_the_connection(store: Store) -> None:
    app = create_app(make_settings(write_tokens="w", read_tokens="r"), store, bind_host="127.0.0.1")
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    auth = {"Authorization": "Bearer w", "Host": "localhost:5000"}
    async with httpx.AsyncClient(transport=transport, base_url=BASE, headers=auth) as client:
        cases = [
            (client.get("/api/v1/nope"), 404, "not_found"),
            (client.delete("/api/v1/lineage"), 405, "method_not_allowed"),
            (client.get("/api/v1/graph/lineage"), 400, "invalid_parameter"),
            (
                client.get("/api/v1/graph/lineage", params={"nodeId": "dataset:x:y", "depth": "many"}),
                400,
                "invalid_parameter",
            ),
            (
                client.post("/api/v1/lineage", content=b"{", headers={"Content-Type": "application/json"}),
                400,
                "invalid_json",
            ),
            (
                client.post("/api/v1/lineage", content=b"{}", headers={"Content-Type": "text/plain"}),
                415,
                "unsupported_media_type",
            ),
            (client.post("/api/v1/lineage", json={}), 422, "invalid_event"),
            (client.get("/api/v1/graph/recent", headers={"Authorization": ""}), 401, "unauthorized"),
            (client.post("/api/v1/lineage", json={}, headers={"Authorization": "Bearer r"}), 403, "forbidden"),
            (client.get("/api/v1/graph/recent", headers={"Host": "evil.example"}), 403, "forbidden"),
            (client.post("/api/v1/lineage", json={}, headers={"Origin": "http://evil.example"}), 403, "forbidden"),
            (client.get("/api/v1/namespaces/nope"), 404, "not_found"),
        ]
        for call, status, code in cases:
            assert_error(await call, status, code)

        def boom(*_: object) -> None:
            raise RuntimeError("a bug")

        # GET /api/v1/events/{id} reads through the graph reader (the catalog's visibility policy)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(GraphReader, "event", boom)
            answer = await client.get("/api/v1/events/some-id")
        error = assert_error(answer, 500, "internal_error")
        assert "RuntimeError" in error["message"]
        assert answer.headers["connection"] == "close"


def test_a_500_over_real_http_is_read_then_the_connection_closes(store: Store) -> None:
    """Over uvicorn, on a keep-alive connection: the 500's body arrives, with Connection: close, and the
    next request on a new connection is answered (no dropped connection without an answer)."""
    import http.client

    from live_server import ThreadServer

    def boom(*_: object) -> None:
        raise RuntimeError("a bug")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(GraphReader, "event", boom)  # what GET /api/v1/events/{id} reads through
        with ThreadServer(create_app(make_settings(), store, bind_host="127.0.0.1")) as server:
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
            conn.request("GET", "/api/v1/events/some-id")
            answer = conn.getresponse()
            body = answer.read()
            assert answer.status == 500
            assert answer.getheader("connection") == "close"
            assert b'"internal_error"' in body
            assert answer.will_close
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
            conn.request("GET", "/api/v1/graph/recent")
            assert conn.getresponse().status == 200
            conn.close()
