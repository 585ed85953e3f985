"""Up-front checks of ``headwater demo``, each failing with a message that says what to do."""

from __future__ import annotations

import errno
import os
import shutil
import socket
from collections.abc import Mapping
from pathlib import Path


class DemoError(RuntimeError):
    """The demo cannot go on; the message says what is wrong and what to do about it."""


JAVA_MISSING = (
    "Java was not found: PySpark needs a Java runtime (Java 17) and neither JAVA_HOME is set nor is "
    "`java` on the PATH.\n"
    "Install it and run the demo again:\n"
    "    sudo apt-get install openjdk-17-jre-headless        # Debian / Ubuntu\n"
    "or point JAVA_HOME at an installed Java 17."
)


def find_java(environ: Mapping[str, str] | None = None) -> Path:
    """The ``java`` executable PySpark will use: ``$JAVA_HOME/bin/java`` when JAVA_HOME is set, else ``java`` on PATH.

    Raises :class:`DemoError` with install instructions when there is none.
    """
    env = os.environ if environ is None else environ
    java_home = env.get("JAVA_HOME", "")
    if java_home:
        java = Path(java_home) / "bin" / "java"
        if os.access(java, os.X_OK):
            return java
        raise DemoError(
            f"JAVA_HOME is set to {java_home!r} but {java} is not an executable Java: "
            "fix JAVA_HOME (or unset it to use `java` from the PATH).\n" + JAVA_MISSING.split("\n", 1)[1]
        )
    found = shutil.which("java", path=env.get("PATH", ""))
    if found is None:
        raise DemoError(JAVA_MISSING)
    return Path(found)


def port_in_use_message(host: str, port: int) -> str:
    return (
        f"port {port} on {host} is already in use, so the demo cannot start its Headwater server there.\n"
        f"Pass another port:    headwater demo --port {port + 1}\n"
        f"or, if a Headwater server is already running there, use it:    "
        f"headwater demo --url http://{host}:{port}"
    )


def check_port_free(host: str, port: int) -> None:
    """Raise :class:`DemoError` (what to do: ``--port`` / ``--url``) when ``host:port`` cannot be bound."""
    if not 0 < port < 65536:
        raise DemoError(f"--port must be between 1 and 65535, got {port}")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        # the same option uvicorn sets, so a port left in TIME_WAIT by an earlier run counts as free
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as exc:
            if exc.errno in (errno.EADDRINUSE, errno.EACCES):
                raise DemoError(port_in_use_message(host, port)) from None
            raise DemoError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
