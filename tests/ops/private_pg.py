"""A PostgreSQL server of the test's own (initdb into a temporary folder, its own port), for faults that
must not touch the shared server: restarting it (``pg_ctl restart -m fast`` / ``-m immediate``).

Run as the ``postgres`` user when the test runs as root (PostgreSQL refuses to run as root); skipped with
the reason when no PostgreSQL server binaries are installed (scripts/setup-system installs them)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from live_server import free_port


def _bin() -> Path:
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"), key=lambda p: int(p.parent.parent.name))
    if not found:
        pytest.skip("no PostgreSQL server binaries under /usr/lib/postgresql (scripts/setup-system installs them)")
    return found[-1].parent


class PrivatePostgres:
    """``start()``, ``restart(mode)``, ``stop()``; ``url`` is its ``postgres`` database (trust auth, loopback)."""

    def __init__(self) -> None:
        self.bin = _bin()
        self.root = Path(tempfile.mkdtemp(prefix="headwater-pg-"))
        self.root.chmod(0o755)
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        self.port = free_port()
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"
        self._as_postgres = os.geteuid() == 0
        if self._as_postgres:
            shutil.chown(self.root, "postgres", "postgres")
        self._run("initdb", "-D", str(self.data), "--auth=trust", "-U", "postgres", "--no-sync", "-E", "UTF8")

    def _run(self, tool: str, *args: str) -> None:
        command = [str(self.bin / tool), *args]
        if self._as_postgres:
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=120)
        assert done.returncode == 0, f"{tool} failed: {done.stdout}\n{done.stderr}\n{self.server_log()}"

    def server_log(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def start(self) -> None:
        options = f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.root} -c max_connections=60"
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-o", options, "-w", "start")

    def restart(self, mode: str) -> None:
        """``pg_ctl restart -m fast`` (sessions ended cleanly) or ``-m immediate`` (a crash: recovery at start)."""
        # -l: the new server logs to the file, not to pg_ctl's output (a pipe here, never closed by the server)
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-m", mode, "-w", "restart")

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")

    def close(self) -> None:
        try:
            if (self.data / "postmaster.pid").exists():
                self.stop()
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
