"""Start and stop a real `headwater serve` for a benchmark (a subprocess on a free port)."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass

import httpx


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass(frozen=True)
class Server:
    url: str
    pid: int


@contextlib.contextmanager
def started_server(db_url: str, *, extra_env: dict[str, str] | None = None) -> Iterator[Server]:
    """`headwater serve --db db_url` on a free port; yields its URL and pid once it answers."""
    port = free_port()
    env = {**os.environ, **(extra_env or {})}
    proc = subprocess.Popen(
        [sys.executable, "-m", "headwater", "serve", "--db", db_url, "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"headwater serve exited: {proc.stderr.read().decode() if proc.stderr else ''}")
            try:
                if httpx.get(f"{url}/api/v1/graph/namespaces", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("headwater serve did not answer within 60 s")
            time.sleep(0.2)
        yield Server(url, proc.pid)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


@contextlib.contextmanager
def running_server(db_url: str, *, extra_env: dict[str, str] | None = None) -> Iterator[str]:
    """Like :func:`started_server`, yielding only the URL."""
    with started_server(db_url, extra_env=extra_env) as server:
        yield server.url
