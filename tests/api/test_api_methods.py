"""Methods and malformed requests: a method a path does not take answers 405 with
``Allow``, an unknown ``/api`` path 404 whatever the method; a NUL byte in a request header gets a plain
400 from the HTTP server itself (uvicorn's parser refuses it before the app), tested over a raw socket."""

from __future__ import annotations

import socket
from pathlib import Path

import httpx
import pytest
from api_helpers import assert_error, client_for, make_settings

from headwater.api import create_app
from headwater.store import Store
from live_server import ThreadServer

pytestmark = pytest.mark.anyio

NOT_ALLOWED = [
    ("POST", "/api/v1/graph/lineage", "GET, HEAD"),
    ("DELETE", "/api/v1/graph/node", "GET, HEAD"),
    ("PUT", "/api/v1/status", "GET, HEAD"),
    ("PATCH", "/api/v1/events/abc", "GET, HEAD"),
    ("POST", "/api/v1/namespaces", "GET, HEAD"),
    ("GET", "/api/v1/lineage/batch", "POST"),
    ("DELETE", "/api/v1/lineage/batch", "POST"),
    ("PUT", "/api/v1/lineage", "GET, HEAD, POST"),
    ("POST", "/", "GET, HEAD"),
]


@pytest.fixture(params=["ui", "no-ui"])
async def any_client(request: pytest.FixtureRequest, store: Store, tmp_path: Path) -> httpx.AsyncClient:
    folder = None
    if request.param == "ui":
        folder = tmp_path / "ui"
        folder.mkdir()
        (folder / "index.html").write_text("<!doctype html><title>ui</title>")
    return client_for(create_app(make_settings(), store, ui_folder=folder), **{"Content-Type": "application/json"})


@pytest.mark.parametrize(("method", "path", "allow"), NOT_ALLOWED)
async def test_a_method_the_path_does_not_take_is_405_with_allow(
    any_client: httpx.AsyncClient, method: str, path: str, allow: str
) -> None:
    async with any_client as client:
        answer = await client.request(method, path, content=b"{}" if method != "GET" else None)
    error = assert_error(answer, 405, "method_not_allowed")
    assert answer.headers["allow"] == allow
    assert method in error["message"] and allow in error["message"]


@pytest.mark.parametrize("method", ["GET", "POST", "PUT", "DELETE", "PATCH"])
async def test_an_unknown_api_path_is_404_whatever_the_method(any_client: httpx.AsyncClient, method: str) -> None:
    async with any_client as client:
        answer = await client.request(method, "/api/v1/no/such/thing", content=b"{}" if method != "GET" else None)
    assert_error(answer, 404, "not_found")
    assert "allow" not in answer.headers


def _raw(port: int, request: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    return data


@pytest.mark.parametrize(
    "header",
    [b"X-Test: a\x00b", b"X-Te\x00st: ab", b"Authorization: Bearer \x00", b"Content-Type: application/json\x00"],
    ids=["value", "name", "auth", "content-type"],
)
def test_a_nul_byte_in_a_header_is_a_plain_400_over_real_http(store: Store, header: bytes) -> None:
    app = create_app(make_settings(), store)
    with ThreadServer(app) as server:
        answer = _raw(
            server.port,
            b"GET /api/v1/status HTTP/1.1\r\nHost: 127.0.0.1\r\n" + header + b"\r\nConnection: close\r\n\r\n",
        )
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 400 "), answer[:200]
        assert b"text/plain" in head.lower() and body == b"Invalid HTTP request received."
        # the server is unharmed: the next request on a new connection is answered
        fine = _raw(server.port, b"GET /api/v1/status HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        assert fine.startswith(b"HTTP/1.1 200 "), fine[:200]
