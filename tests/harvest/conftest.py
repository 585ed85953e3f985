"""Fixtures of the harvester tests: a real Headwater over HTTP, a private PostgreSQL instance with
pg_stat_statements and csvlog (its own initdb: the shared cluster is never restarted), the shared MariaDB with its
general log switched on for the test and restored afterwards, and a private MariaDB with performance_schema on
(a server option: it needs its own server, not a switch on the shared one)."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from headwater.api import create_app
from headwater.settings import load_settings
from headwater.store import Store
from live_server import ThreadServer


def _fail_or_skip(message: str) -> None:
    if os.environ.get("HEADWATER_REQUIRE_SERVICES"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    """A Headwater server over real HTTP on a fresh SQLite store."""
    store = Store.open(f"sqlite:///{tmp_path / 'hw.db'}")
    app = create_app(load_settings({}, environ={}), store)
    with ThreadServer(app) as server:
        yield server.url
    store.close()


def graph(url: str, path: str, **params: Any) -> Any:
    answer = httpx.get(f"{url}/api/v1/graph/{path}", params=params, timeout=30)
    assert answer.status_code == 200, answer.text
    return answer.json()


# --- a private PostgreSQL instance ------------------------------------------------------------------------------


@dataclass
class PrivatePostgres:
    bin: Path
    data: Path
    port: int

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    @property
    def log_dir(self) -> Path:
        return self.data / "log"

    def csvlogs(self) -> list[str]:
        return sorted(glob.glob(str(self.log_dir / "*.csv")))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def private_pg() -> Iterator[PrivatePostgres]:
    """One PostgreSQL server for the session: pg_stat_statements preloaded, every statement in a csvlog."""
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    if not versions:
        _fail_or_skip("no PostgreSQL server binaries under /usr/lib/postgresql")
    bindir = Path(versions[-1]).parent
    if os.geteuid() != 0 or shutil.which("runuser") is None:
        _fail_or_skip("a private PostgreSQL instance needs root (runuser -u postgres)")
    root = Path(tempfile.mkdtemp(prefix="hw-harvest-pg-"))
    os.chmod(root, 0o755)
    data = root / "data"
    port = _free_port()
    run = ["runuser", "-u", "postgres", "--"]
    subprocess.run(["chown", "postgres:postgres", str(root)], check=True)
    try:
        subprocess.run(
            [
                *run,
                str(bindir / "initdb"),
                "-D",
                str(data),
                "-U",
                "postgres",
                "--auth=trust",
                "--no-sync",
                "-E",
                "UTF8",
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )
        options = (
            f"-c shared_preload_libraries=pg_stat_statements -c listen_addresses=127.0.0.1 -c port={port} "
            f"-k {root} -c logging_collector=on -c log_destination=csvlog -c log_directory=log "
            "-c log_min_duration_statement=0 -c fsync=off -c pg_stat_statements.track=all"
        )
        subprocess.run(
            [
                *run,
                str(bindir / "pg_ctl"),
                "-D",
                str(data),
                "-o",
                options,
                "-w",
                "-t",
                "60",
                "-l",
                str(root / "server.log"),
                "start",
            ],
            check=True,
            capture_output=True,
            timeout=90,
        )
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
        out = getattr(exc, "stderr", b"") or b""
        log = (root / "server.log").read_text() if (root / "server.log").exists() else ""
        shutil.rmtree(root, ignore_errors=True)
        _fail_or_skip(f"the private PostgreSQL did not start: {exc}: {out.decode(errors='replace')} {log}")
    server = PrivatePostgres(bindir, data, port)
    try:
        yield server
    finally:
        subprocess.run(
            [*run, str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"],
            capture_output=True,
            timeout=60,
        )
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def pg_db(private_pg: PrivatePostgres) -> Iterator[str]:
    """A fresh database on the private server (pg_stat_statements created in it); its URL."""
    import psycopg

    name = f"shop_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(private_pg.url(), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    with psycopg.connect(private_pg.url(name), autocommit=True) as conn:
        conn.execute("CREATE EXTENSION pg_stat_statements")
    yield private_pg.url(name)
    with psycopg.connect(private_pg.url(), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


# --- the shared MariaDB with its general log on ------------------------------------------------------------------


@pytest.fixture
def general_log(mariadb_server_url: str) -> Iterator[str]:
    """A fresh database on the shared MariaDB, the general log written to mysql.general_log while the test runs
    (the server's previous log_output/general_log are restored); the database's URL."""
    from urllib.parse import urlsplit

    import pymysql

    parts = urlsplit(mariadb_server_url)
    try:
        conn = pymysql.connect(
            host=parts.hostname,
            port=parts.port or 3306,
            user=parts.username,
            password=parts.password or "",
            autocommit=True,
        )
    except pymysql.MySQLError as exc:
        _fail_or_skip(f"MariaDB at {parts.hostname}:{parts.port}: {exc}")
    name = f"hw_harvest_{uuid.uuid4().hex[:8]}"
    with conn.cursor() as cur:
        cur.execute("SELECT @@global.log_output, @@global.general_log")
        output, was_on = cur.fetchone()
        try:
            cur.execute("SET GLOBAL log_output = 'TABLE'")
            cur.execute("SET GLOBAL general_log = ON")
        except pymysql.MySQLError as exc:
            conn.close()
            _fail_or_skip(f"cannot switch the general log on (needs SUPER): {exc}")
        cur.execute(f"CREATE DATABASE `{name}`")
    try:
        yield f"mysql://{parts.username}:{parts.password}@{parts.hostname}:{parts.port or 3306}/{name}"
    finally:
        with conn.cursor() as cur:
            cur.execute(f"DROP DATABASE IF EXISTS `{name}`")
            cur.execute(f"SET GLOBAL general_log = {'ON' if str(was_on) in ('1', 'ON') else 'OFF'}")
            cur.execute("SET GLOBAL log_output = %s", (output,))
        conn.close()


# --- a private MariaDB with performance_schema on ----------------------------------------------------------------


@pytest.fixture(scope="session")
def private_mariadb() -> Iterator[str]:
    """One MariaDB server for the session, its own data directory, started with ``performance_schema = ON`` and the
    ``events_statements_current`` and ``events_statements_history_long`` consumers (as docs/sql.md tells a DBA); root
    without a password on 127.0.0.1. Its URL (no database)."""
    install, server = shutil.which("mariadb-install-db"), shutil.which("mariadbd", path="/usr/sbin:/usr/bin")
    if install is None or server is None:
        _fail_or_skip("no MariaDB server binaries (mariadb-install-db, mariadbd): scripts/setup-system installs them")
    if os.geteuid() != 0:
        _fail_or_skip("a private MariaDB instance is started as root (--user=root)")
    root = Path(tempfile.mkdtemp(prefix="hw-harvest-mariadb-"))
    data, port = root / "data", _free_port()
    proc: subprocess.Popen[bytes] | None = None
    try:
        subprocess.run(
            [
                install,
                "--no-defaults",
                f"--datadir={data}",
                "--user=root",
                "--auth-root-authentication-method=normal",
                "--skip-test-db",
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )
        proc = subprocess.Popen(
            [
                server,
                "--no-defaults",
                f"--datadir={data}",
                f"--socket={root / 'sock'}",
                f"--port={port}",
                "--bind-address=127.0.0.1",
                "--user=root",
                "--performance-schema=ON",
                "--performance-schema-consumer-events-statements-current=ON",
                "--performance-schema-consumer-events-statements-history-long=ON",
                "--skip-log-bin",
                "--innodb-buffer-pool-size=32M",
                f"--log-error={root / 'error.log'}",
                f"--pid-file={root / 'pid'}",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        import pymysql

        deadline = time.monotonic() + 60
        while True:
            try:
                pymysql.connect(host="127.0.0.1", port=port, user="root", password="").close()
                break
            except pymysql.MySQLError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    log = (root / "error.log").read_text(errors="replace") if (root / "error.log").exists() else ""
                    raise RuntimeError(f"mariadbd did not start: {log[-2000:]}") from None
                time.sleep(0.3)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, RuntimeError) as exc:
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()
        shutil.rmtree(root, ignore_errors=True)
        _fail_or_skip(f"the private MariaDB did not start: {exc} {getattr(exc, 'stderr', b'') or b''!r}")
    try:
        yield f"mysql://root:@127.0.0.1:{port}"
    finally:
        assert proc is not None
        proc.terminate()
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        shutil.rmtree(root, ignore_errors=True)


def wait_until(check: Any, timeout: float = 20.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.2)
