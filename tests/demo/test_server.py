"""The demo's server: a real `headwater serve` child on the data dir's SQLite store, reached, then stopped."""

from __future__ import annotations

import socket
from pathlib import Path

import httpx
import pytest

from headwater.demo import server as servers
from headwater.demo.checks import DemoError


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def test_start_connect_and_stop(tmp_path: Path) -> None:
    port = _free_port()
    started = servers.start(tmp_path, "127.0.0.1", port)
    try:
        assert started.url == f"http://127.0.0.1:{port}"
        assert (tmp_path / "headwater.db").is_file()  # the embedded store lives in the data dir
        assert httpx.get(started.url + "/api/v1/graph/namespaces", timeout=10).json() == {"namespaces": []}
        reached = servers.connect(started.url + "/")
        assert reached.url == started.url and reached.process is None
        reached.stop()  # stopping a server the demo did not start does nothing
        assert httpx.get(started.url + "/openapi.json", timeout=10).status_code == 200
        with pytest.raises(DemoError, match=f"port {port} on 127.0.0.1 is already in use"):
            servers.start(tmp_path / "second", "127.0.0.1", port)
    finally:
        started.stop()
    assert started.process is not None and started.process.returncode is not None
    with pytest.raises(httpx.ConnectError):
        httpx.get(started.url + "/openapi.json", timeout=5)


def test_connect_refuses_a_non_http_url() -> None:
    with pytest.raises(DemoError, match="--url must be an http"):
        servers.connect("127.0.0.1:5000")
