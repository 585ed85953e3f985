"""The demo's up-front checks: missing Java and a busy port give messages that say what to do."""

from __future__ import annotations

import socket
import stat
from pathlib import Path

import pytest

from headwater.demo.checks import DemoError, check_port_free, find_java


def _fake_java(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    java = folder / "java"
    java.write_text("#!/bin/sh\nexit 0\n")
    java.chmod(java.stat().st_mode | stat.S_IXUSR)
    return java


def test_missing_java_says_how_to_install_it(tmp_path: Path) -> None:
    with pytest.raises(DemoError) as err:
        find_java({"PATH": str(tmp_path)})
    message = str(err.value)
    assert "Java was not found" in message
    assert "apt-get install openjdk-17-jre-headless" in message
    assert "JAVA_HOME" in message


def test_java_on_path_is_found(tmp_path: Path) -> None:
    java = _fake_java(tmp_path / "bin")
    assert find_java({"PATH": f"{tmp_path / 'nothing'}:{java.parent}"}) == java


def test_java_home_wins_over_path(tmp_path: Path) -> None:
    home_java = _fake_java(tmp_path / "jdk" / "bin")
    path_java = _fake_java(tmp_path / "bin")
    assert find_java({"JAVA_HOME": str(tmp_path / "jdk"), "PATH": str(path_java.parent)}) == home_java


def test_broken_java_home_is_named(tmp_path: Path) -> None:
    _fake_java(tmp_path / "bin")
    with pytest.raises(DemoError) as err:
        find_java({"JAVA_HOME": str(tmp_path / "no-jdk"), "PATH": str(tmp_path / "bin")})
    assert f"JAVA_HOME is set to {str(tmp_path / 'no-jdk')!r}" in str(err.value)
    assert "openjdk-17-jre-headless" in str(err.value)


def test_busy_port_says_to_pass_another_port() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with pytest.raises(DemoError) as err:
            check_port_free("127.0.0.1", port)
    message = str(err.value)
    assert f"port {port} on 127.0.0.1 is already in use" in message
    assert f"--port {port + 1}" in message
    assert f"--url http://127.0.0.1:{port}" in message


def test_free_port_passes() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    check_port_free("127.0.0.1", port)


def test_out_of_range_port_is_refused() -> None:
    with pytest.raises(DemoError, match="between 1 and 65535"):
        check_port_free("127.0.0.1", 70000)
