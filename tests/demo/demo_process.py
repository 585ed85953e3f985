"""Run ``headwater demo`` as a child process and wait until it serves (shared by the end-to-end tests)."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

READY_TIMEOUT_S = 420.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@dataclass
class DemoProcess:
    proc: subprocess.Popen[str]
    port: int
    data_dir: Path
    lines: list[str] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def output(self) -> str:
        return "".join(self.lines)

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line)

    def wait_until_serving(self, timeout_s: float = READY_TIMEOUT_S) -> None:
        deadline = time.monotonic() + timeout_s
        while "press Ctrl-C to stop" not in self.output:
            if self.proc.poll() is not None:
                time.sleep(0.2)  # let the reader drain the pipe
                raise AssertionError(f"headwater demo exited with {self.proc.returncode}:\n{self.output}")
            if time.monotonic() > deadline:
                raise AssertionError(f"headwater demo did not finish within {timeout_s:.0f} s:\n{self.output}")
            time.sleep(0.5)

    def page_url(self) -> str:
        marker = "The lineage of employee_compensation:"
        lines = self.output.splitlines()
        return lines[lines.index(marker) + 1].strip()

    def interrupt(self, timeout_s: float = 60.0, signum: int = signal.SIGINT) -> int:
        """Ctrl-C: SIGINT to the demo, as a terminal sends it (or ``signum``); returns the exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(signum)
            try:
                self.proc.wait(timeout_s)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                raise AssertionError(f"headwater demo ignored Ctrl-C for {timeout_s:.0f} s:\n{self.output}") from None
        time.sleep(0.2)
        return self.proc.returncode


def start_demo(data_dir: Path, *args: str) -> DemoProcess:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "headwater", "demo", "--data-dir", str(data_dir), "--port", str(port), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        text=True,
        cwd=data_dir.parent,
    )
    demo = DemoProcess(proc, port, data_dir)
    threading.Thread(target=demo._read, daemon=True).start()
    return demo
