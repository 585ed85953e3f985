"""`headwater demo` refuses clearly, before doing any work, when Java is missing or the port is busy."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path


def _demo(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "headwater", "demo", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_missing_java_is_explained(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "JAVA_HOME"}
    env["PATH"] = str(tmp_path / "empty-bin")  # no java anywhere
    result = _demo(["--data-dir", str(tmp_path / "demo"), "--no-serve"], env, tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    out = " ".join(result.stdout.split())
    assert "Java was not found" in out
    assert "sudo apt-get install openjdk-17-jre-headless" in out
    assert "Traceback" not in result.stdout + result.stderr
    assert not (tmp_path / "demo" / "landing").exists()  # nothing was generated


def test_busy_port_is_explained(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = _demo(
            ["--data-dir", str(tmp_path / "demo"), "--port", str(port), "--no-serve"], dict(os.environ), tmp_path
        )
    assert result.returncode == 1, result.stdout + result.stderr
    out = " ".join(result.stdout.split())
    assert f"port {port} on 127.0.0.1 is already in use" in out
    assert f"headwater demo --port {port + 1}" in out
    assert "Traceback" not in result.stdout + result.stderr
    assert not (tmp_path / "demo" / "landing").exists()


def test_bad_jdbc_url_is_explained(tmp_path: Path) -> None:
    result = _demo(
        ["--data-dir", str(tmp_path / "demo"), "--jdbc", "mysql://u:p@h:3306/db", "--no-serve"],
        dict(os.environ),
        tmp_path,
    )
    assert result.returncode == 1
    out = " ".join(result.stdout.split())
    assert "--jdbc must be a PostgreSQL URL like postgresql://user:password@host:5432/database" in out
    assert "'mysql'" in out


def test_bad_warehouse_url_is_explained(tmp_path: Path) -> None:
    result = _demo(
        ["--data-dir", str(tmp_path / "demo"), "--warehouse", "postgresql://u:p@h:5432", "--no-serve"],
        dict(os.environ),
        tmp_path,
    )
    assert result.returncode == 1
    out = " ".join(result.stdout.split())
    assert "--warehouse must name a host and a database, like postgresql://user:password@host:5432/database" in out
    assert "Traceback" not in result.stdout + result.stderr
    assert not (tmp_path / "demo" / "landing").exists()


def test_unreachable_url_is_explained(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = _demo(
        ["--data-dir", str(tmp_path / "demo"), "--url", f"http://127.0.0.1:{port}", "--no-serve"],
        dict(os.environ),
        tmp_path,
    )
    assert result.returncode == 1
    out = " ".join(result.stdout.split())
    assert f"no Headwater server answers at http://127.0.0.1:{port}" in out
    assert "headwater serve" in out
