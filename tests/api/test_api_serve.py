"""`headwater serve` as a real process: prints its URL, acknowledged events survive kill -9,
a busy port or an unusable store ends with one clear line (no traceback)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from api_events import Story

from live_server import ServeProcess, free_port, serve_env

pytestmark = pytest.mark.slow


def _env(tmp_path: Path) -> dict[str, str]:
    return serve_env(tmp_path / "data")


@contextmanager
def serving(
    db_url: str, port: int, tmp_path: Path, log_name: str, **settings: str
) -> Iterator[tuple[subprocess.Popen[bytes], Path]]:
    with ServeProcess(db_url, tmp_path / log_name, _env(tmp_path) | settings, port=port) as server:
        yield server.proc, server.log


def _children_named(pid: int, name: str) -> list[int]:
    """The live child processes of ``pid`` with this process name (Linux /proc)."""
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            comm = Path(f"/proc/{child}/comm")
            if comm.exists() and comm.read_text().strip() == name:
                found.append(int(child))
    return found


def test_acknowledged_event_survives_kill_9(tmp_path: Path) -> None:
    db_url = f"sqlite:///{tmp_path / 'durable.db'}"
    port = free_port()
    event = Story().events[2]
    body = json.dumps(event)
    # the first server derives in a projector process of its own (setting projector): it ends with the server
    with serving(db_url, port, tmp_path, "first.log", HEADWATER_PROJECTOR="process") as (proc, log):
        first = httpx.post(f"http://127.0.0.1:{port}/api/v1/lineage", json=Story().events[1], timeout=10)
        assert first.status_code == 201, first.text
        read = httpx.get(  # answered once the projector process derived the first event
            f"http://127.0.0.1:{port}/api/v1/graph/namespaces", headers={"Prefer": "read-your-writes"}, timeout=30
        )
        assert read.status_code == 200 and read.headers["Preference-Applied"] == "read-your-writes"
        projectors = _children_named(proc.pid, "hw-projector")
        assert len(projectors) == 1, f"one projector process: {projectors}"
        answer = httpx.post(
            f"http://127.0.0.1:{port}/api/v1/lineage",
            content=body,
            headers={"Content-Type": "application/json"},
            timeout=10,
        )
        proc.kill()  # SIGKILL right after the acknowledgement: no shutdown, no flush
        proc.wait()
        assert answer.status_code == 201, answer.text
        deadline = time.monotonic() + 60  # the projector process sees its pipe close and ends
        while Path(f"/proc/{projectors[0]}/comm").exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not Path(f"/proc/{projectors[0]}/comm").exists(), "the projector process outlived its server"
        event_id = answer.json()["id"]
        assert f"http://127.0.0.1:{port}" in log.read_text()
    with serving(db_url, port, tmp_path, "second.log"):
        stored = httpx.get(f"http://127.0.0.1:{port}/api/v1/events/{event_id}", timeout=10)
        assert stored.status_code == 200
        assert stored.text == body
        again = httpx.post(
            f"http://127.0.0.1:{port}/api/v1/lineage",
            content=body,
            headers={"Content-Type": "application/json"},
            timeout=10,
        )
        assert again.status_code == 200 and again.json() == {"id": event_id, "duplicate": True, "warnings": []}


def test_busy_port_is_a_clear_message(tmp_path: Path) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "headwater", "serve", "--port", str(port), "--db", f"sqlite:///{tmp_path / 'x.db'}"],
            capture_output=True,
            text=True,
            env=_env(tmp_path),
            timeout=60,
        )
    assert done.returncode == 1
    assert f"port {port} is in use; pass --port" in done.stderr
    assert "Traceback" not in done.stderr + done.stdout


def test_unusable_store_url_is_a_clear_message(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "headwater", "serve", "--port", str(free_port()), "--db", "oracle://u:secret@h/db"],
        capture_output=True,
        text=True,
        env=_env(tmp_path),
        timeout=60,
    )
    assert done.returncode == 1
    assert "cannot open the store oracle://u:***@h/db" in done.stderr
    assert "secret" not in done.stderr
    assert "Traceback" not in done.stderr + done.stdout


def test_bad_setting_in_environment_is_a_clear_message(tmp_path: Path) -> None:
    env = {**_env(tmp_path), "HEADWATER_PORT": "fivethousand"}
    done = subprocess.run(
        [sys.executable, "-m", "headwater", "serve"], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 1
    assert "HEADWATER_PORT" in done.stderr and "whole number" in done.stderr
