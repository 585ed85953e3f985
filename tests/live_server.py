"""Real HTTP servers for tests: uvicorn serving an ASGI app on a free loopback port, in a thread
(:class:`ThreadServer`), and a real ``headwater serve`` process (:class:`ServeProcess`)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx
import uvicorn


class ThreadServer:
    """uvicorn serving an app on a free port in a background thread."""

    def __init__(self, app: Any) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = int(s.getsockname()[1])
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> ThreadServer:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            assert self.thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.05)
        return self

    def __exit__(self, *_: object) -> None:
        self.server.should_exit = True
        self.thread.join(30)


def free_port() -> int:
    """A free TCP port on the loopback interface."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve_env(data_dir: Path, **settings: str) -> dict[str, str]:
    """The test process's environment without its ``HEADWATER_*`` variables, with a data folder of the
    test's own and the given settings (``HEADWATER_...`` names): a served process sees only those."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEADWATER_")}
    env["HEADWATER_DATA_DIR"] = str(data_dir)
    env.update(settings)
    return env


class ServeProcess:
    """A real ``headwater serve`` process on a free port, its output in ``log``.

    ``start()`` returns once it answers ``ready_path`` (an assertion with the log when it exits or does not
    answer within 60 s); ``stop()`` asks it to end as Ctrl-C does (SIGINT), then kills it after ``grace``
    seconds. Usable as a context manager."""

    def __init__(
        self,
        db_url: str,
        log: Path,
        env: dict[str, str],
        *,
        args: Sequence[str] = (),
        port: int | None = None,
        ready_path: str = "/openapi.json",
    ) -> None:
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log
        self.ready_path = ready_path
        with log.open("wb") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "headwater", "serve", "--db", db_url, "--port", str(self.port), *args],
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=env,
            )

    @property
    def pid(self) -> int:
        return self.proc.pid

    def wait_ready(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while True:
            assert self.proc.poll() is None, f"server exited: {self.log.read_text()}"
            try:
                if httpx.get(f"{self.url}{self.ready_path}", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, f"server did not answer: {self.log.read_text()}"
            time.sleep(0.1)

    def stop(self, grace: float = 30) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(grace)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def __enter__(self) -> ServeProcess:
        try:
            self.wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()
