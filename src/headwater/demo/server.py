"""The Headwater server the demo sends lineage to: one it starts (``headwater serve`` as a child
process on the embedded SQLite store in the data dir) or one that already runs (``--url``)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from headwater.demo import projects
from headwater.demo.checks import DemoError, check_port_free

READY_PATH = "/openapi.json"
START_TIMEOUT_S = 90.0
STOP_TIMEOUT_S = 15.0


@dataclass
class Server:
    """A reachable Headwater server; ``process`` is set when the demo started it."""

    url: str
    process: subprocess.Popen[bytes] | None = None
    log_path: Path | None = None

    def stop(self) -> None:
        """Stop the server the demo started (SIGINT: uvicorn's graceful shutdown), killing it if it hangs."""
        proc = self.process
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    def wait(self) -> int:
        """Block until the server the demo started exits; returns its exit code (0 for an external server)."""
        if self.process is None:
            return 0
        return self.process.wait()


def _log_tail(path: Path | None, lines: int = 15) -> str:
    if path is None or not path.exists():
        return ""
    text = path.read_text(encoding="utf-8", errors="replace").rstrip().splitlines()[-lines:]
    return "\n".join("    " + line for line in text)


def _answers(url: str) -> bool:
    try:
        return httpx.get(url + READY_PATH, timeout=2.0).status_code == 200
    except httpx.HTTPError:
        return False


def connect(url: str) -> Server:
    """Use a server that already runs at ``url``; a clear error when nothing answers there."""
    url = url.rstrip("/")
    if not url.startswith(("http://", "https://")):
        raise DemoError(f"--url must be an http(s) URL such as http://127.0.0.1:5000, got {url!r}")
    if not _answers(url):
        raise DemoError(
            f"no Headwater server answers at {url} (GET {READY_PATH} failed).\n"
            "Start one with `headwater serve`, or leave out --url and the demo starts its own."
        )
    return Server(url)


def start(data_dir: Path, host: str, port: int, *, timeout_s: float = START_TIMEOUT_S) -> Server:
    """Start ``headwater serve`` on the embedded store in ``data_dir`` and wait until it answers."""
    check_port_free(host, port)
    log_dir = data_dir / "logs"
    log_dir.mkdir(parents=True, exist_ok=True)
    log_path = log_dir / "server.log"
    env = dict(os.environ)
    # the server's settings (src/headwater/settings.py), passed the documented way: environment variables
    env.update(HEADWATER_DATA_DIR=str(data_dir), HEADWATER_HOST=host, HEADWATER_PORT=str(port))
    # the demo's catalog projects are public on its own server: a reader who is not signed in sees the
    # whole pipeline (employee_compensation is a payroll asset), a signed-in user acts per role
    env["HEADWATER_PUBLIC_PROJECTS"] = f"{projects.PRODUCER},{projects.CONSUMER}"
    env.pop("HEADWATER_DB", None)  # the demo's store is the SQLite file in its data dir
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "headwater", "serve"],
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=env,
            cwd=data_dir,
            start_new_session=True,  # the demo decides when it stops (Ctrl-C reaches the demo, which stops it)
        )
    url_host = f"[{host}]" if ":" in host else host
    server = Server(f"http://{url_host}:{port}", proc, log_path)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise DemoError(
                f"the Headwater server stopped at start-up (exit code {proc.returncode}); "
                f"its log ({log_path}) ends with:\n{_log_tail(log_path)}"
            )
        if _answers(server.url):
            return server
        time.sleep(0.25)
    server.stop()
    raise DemoError(
        f"the Headwater server did not answer at {server.url} within {timeout_s:.0f} s; "
        f"its log ({log_path}) ends with:\n{_log_tail(log_path)}"
    )
