"""Every 2xx answer to an ingest request comes after the event log's writes were synced to disk.

The kill -9 tests (test_durability.py) cannot see a missing fsync: the killed process's writes are in
the kernel's page cache, which outlives it. Only a power loss or a kernel crash loses them. This test
watches the system calls instead: a real ``headwater serve`` on SQLite runs under
``strace -f``, and for each POST answered 2xx the trace must show, between the request's arrival and
the first byte of the answer, a write to the store's files and, after the last such write, an
``fsync``/``fdatasync`` of each file written. (SQLite in WAL mode with ``synchronous=FULL`` writes
the WAL and ``fdatasync``s it at every commit.)

The check is shown to fail when durability is lowered: the same server with ``PRAGMA
synchronous=NORMAL`` set on every pooled connection (a class-wide SQLAlchemy ``checkout`` listener
in the child, so the store code is unchanged) answers 201 after writing the WAL without syncing it,
and the same check reports it.

Covered: SQLite, the single-event and batch ingest endpoints of a real server process, sequential
requests (each request's window holds only the append: before each POST a graph read waits until the
background projector has caught up, so no projector commit can sync on the append's behalf).
Not covered: PostgreSQL, where the database server process, not Headwater's, does the WAL flush at
commit (its durability is PostgreSQL's ``fsync``/``synchronous_commit`` settings, which Headwater
leaves at their defaults); concurrent group commits (covered functionally by the store's tests).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from headwater.store.engine import events_file

pytestmark = [pytest.mark.slow]

TRACED = "openat,close,pwrite64,pwritev,pwritev2,write,writev,fsync,fdatasync,sendto,sendmsg,recvfrom,recvmsg,read"
LOWERED = """
import sys
import sqlalchemy as sa
from sqlalchemy import event

def lowered(dbapi_connection, record, proxy):
    dbapi_connection.execute("PRAGMA synchronous=NORMAL")  # WAL mode: no sync at commit, only at checkpoints
    dbapi_connection.execute("PRAGMA log.synchronous=NORMAL")  # the event log's file too

event.listen(sa.pool.Pool, "checkout", lowered)
from headwater.cli import main
sys.argv[0] = "headwater"
main()
"""


def strace_path() -> str:
    path = shutil.which("strace")
    if path:
        return path
    if os.environ.get("HEADWATER_REQUIRE_SERVICES"):
        pytest.fail("strace is not installed: scripts/setup-system installs it")
    pytest.skip("strace is not installed (scripts/setup-system installs it)")


def event(i: int) -> dict[str, Any]:
    return {
        "eventType": "COMPLETE",
        "eventTime": f"2026-04-01T10:00:{i:02d}Z",
        "producer": "https://example.com/p",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": str(uuid.uuid4())},
        "job": {"namespace": "ns", "name": f"job{i}"},
        "outputs": [{"namespace": "file", "name": f"/out/{i}"}],
    }


@dataclass
class Call:
    pid: str
    name: str
    args: str  # as strace printed them when the call started (fds annotated with -yy)
    start: int  # line number where the call started
    end: int  # line number where it returned
    result: str


LINE = re.compile(r"^(\d+) +(?:(\w+)\((.*?)(?: <unfinished \.\.\.>|\) += (.*))|<\.\.\. (\w+) resumed>(.*?)\) += (.*))$")


def parse(trace: str) -> list[Call]:
    """The system calls of an ``strace -f -yy`` log, each with the lines where it started and returned."""
    calls: list[Call] = []
    pending: dict[str, Call] = {}
    for n, line in enumerate(trace.splitlines()):
        m = LINE.match(line)
        if not m:
            continue  # signals, exits
        pid = m.group(1)
        if m.group(2):  # a call that started here
            call = Call(pid, m.group(2), m.group(3), n, n, m.group(4) or "")
            if m.group(4) is None:
                pending[pid] = call
            else:
                calls.append(call)
        elif pid in pending:  # <... name resumed>: the data a read returned is printed here
            call = pending.pop(pid)
            call.end, call.result = n, m.group(7)
            call.args = f"{call.args}{m.group(6)}"
            calls.append(call)
    return sorted(calls, key=lambda c: c.start)


def fd_target(args: str) -> str:
    """The path or socket strace shows for the call's first argument: ``13</tmp/x/hw.db-wal>`` → the path."""
    m = re.match(r"\d+<(.*?)>(?=,|$)", args)  # up to the ">" that ends the fd (TCP:[a->b] holds one too)
    return m.group(1) if m else ""


class Targets:
    """What each file descriptor is. ``-yy`` annotates fds with their path or connection, but where strace
    cannot look a socket up (no sock_diag, no /proc readlink: seen on CI machines) it prints the bare
    number. Then a file's path comes from the ``openat`` that returned the fd, and a socket is named by
    its number (requests are sequential and each connection is closed, so a number is not reused while
    a request waits for its answer)."""

    def __init__(self) -> None:
        self.opened: dict[str, str] = {}

    def see(self, call: Call) -> None:
        if call.name == "openat":
            fd = re.match(r"(\d+)", call.result)
            path = re.search(r'"([^"]*)"', call.args)
            if fd and path:
                self.opened[fd.group(1)] = path.group(1)
        elif call.name == "close":
            self.opened.pop(call.args.split("<", 1)[0].strip(" ,"), None)

    def of(self, call: Call) -> str:
        annotated = fd_target(call.args)
        if annotated:
            return annotated
        fd = re.match(r"(\d+)", call.args)
        if not fd:
            return ""
        return self.opened.get(fd.group(1), f"fd:{fd.group(1)}")


REQUEST = re.compile(r'^\d+(?:<.*?>)?, "(POST|GET|PUT) ([^ "]+)')
ANSWER = re.compile(r'^\d+(?:<.*?>)?, (?:\[\{iov_base=)?"HTTP/1\.1 (\d{3})')


def unsynced_answers(trace: str, db_file: Path) -> tuple[int, list[str]]:
    """How many 2xx answers to a POST the trace holds, and for each one a description of what was not
    synced before it ([] when all were). Fails on an answer whose request wrote nothing to the store."""
    calls = parse(trace)
    targets = Targets()
    target_of: dict[int, str] = {}  # id(call) → what its fd is, as known when the call started
    for call in calls:
        target_of[id(call)] = targets.of(call)
        targets.see(call)
    store_files = {f"{f}{end}" for f in (db_file, events_file(db_file)) for end in ("", "-wal", "-journal")}
    request_at: dict[str, tuple[int, str]] = {}  # connection → (line of its request's first bytes, request line)
    problems: list[str] = []
    answers = 0
    for call in calls:
        target = target_of[id(call)]
        if call.name in ("recvfrom", "recvmsg", "read"):
            read = REQUEST.match(call.args)
            if read:
                request_at[target] = (call.start, f"{read.group(1)} {read.group(2)}")
            continue
        status = ANSWER.match(call.args)
        if call.name not in ("sendto", "sendmsg", "write", "writev") or not status or target not in request_at:
            continue
        begin, request = request_at.pop(target)
        if not request.startswith("POST") or not status.group(1).startswith("2"):
            continue
        answers += 1
        window = [c for c in calls if begin < c.start and c.end < call.start]
        written: dict[str, int] = {}
        for c in window:
            path = target_of[id(c)]
            if path in store_files and c.name.startswith(("pwrite", "write")):
                written[path] = max(written.get(path, -1), c.end)
        assert written, f"{request} answered {status.group(1)} without writing the store's files: the trace misses them"
        for path, last_write in sorted(written.items()):
            if not any(
                c.name in ("fsync", "fdatasync")
                and target_of[id(c)] == path
                and c.start > last_write
                and c.result.strip() == "0"
                for c in window
            ):
                problems.append(
                    f"{request} answered {status.group(1)} (trace line {call.start + 1}) with {path} "
                    f"written (line {last_write + 1}) and not synced after"
                )
    return answers, problems


def http_lines(trace: str, limit: int = 12) -> str:
    """The trace's lines that carry HTTP, for a failure message: what the parser could not pair."""
    lines = [line for line in trace.splitlines() if "HTTP/1.1" in line]
    return "\n".join(lines[:limit]) or "(no line of the trace holds HTTP/1.1)"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def traced_server(tmp_path: Path) -> Iterator[Any]:
    """A maker: ``start(lowered)`` runs ``headwater serve`` on a fresh SQLite file under strace, ingests
    three events (two single, one batch of two), stops it and returns (trace text, db file)."""
    strace = strace_path()
    procs: list[subprocess.Popen[bytes]] = []

    def start(lowered: bool) -> tuple[str, Path]:
        folder = tmp_path / ("lowered" if lowered else "full")
        folder.mkdir()
        db, trace, port = folder / "hw.db", folder / "strace.txt", _free_port()
        python = [sys.executable, "-c", LOWERED] if lowered else [sys.executable, "-m", "headwater"]
        env = {
            k: v
            for k, v in os.environ.items()
            if k not in ("HEADWATER_DB", "HEADWATER_READ_TOKENS", "HEADWATER_WRITE_TOKENS")
        }
        log = (folder / "serve.log").open("wb")
        proc = subprocess.Popen(
            [
                strace,
                "-f",
                "-qq",
                "-yy",
                "-s",
                "48",
                "-e",
                f"trace={TRACED}",
                "-o",
                str(trace),
                *python,
                "serve",
                "--port",
                str(port),
                "--db",
                f"sqlite:///{db}",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            env={**env, "HEADWATER_DATA_DIR": str(folder)},
        )
        procs.append(proc)
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 90
        while True:
            assert proc.poll() is None, (folder / "serve.log").read_text()
            try:
                if httpx.get(f"{base}/api/v1/graph/namespaces", timeout=5).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "headwater serve did not answer within 90 s under strace"
            time.sleep(0.2)
        with httpx.Client(base_url=base, timeout=60) as client:
            for body, path in (
                (event(1), "/api/v1/lineage"),
                (event(2), "/api/v1/lineage"),
                ([event(3), event(4)], "/api/v1/lineage/batch"),
            ):
                # a graph read waits until the projector has caught up: the POST's window holds only the append
                assert client.get("/api/v1/graph/namespaces").status_code == 200
                answer = client.post(path, json=body, headers={"Connection": "close"})
                assert answer.status_code in (200, 201), answer.text
            assert client.get("/api/v1/graph/namespaces").status_code == 200
        # stop the server (strace's child), then strace ends with it and has written the whole trace
        children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
        assert len(children) == 1, children
        os.kill(int(children[0]), signal.SIGTERM)
        proc.wait(timeout=60)
        log.close()
        return trace.read_text(errors="replace"), db

    yield start
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_the_log_is_synced_before_every_2xx(traced_server: Any) -> None:
    trace, db = traced_server(lowered=False)
    assert unsynced_answers(trace, db) == (3, []), http_lines(trace)


def test_a_commit_without_sync_is_detected(traced_server: Any) -> None:
    """The check above can fail: with synchronous=NORMAL (WAL written, not synced at commit) it reports
    every ingest answer."""
    trace, db = traced_server(lowered=True)
    answers, problems = unsynced_answers(trace, db)
    assert answers == 3 and len(problems) == 3, (problems, http_lines(trace))
    assert all("not synced after" in p and "-wal" in p for p in problems), problems


def test_the_check_reads_calls_strace_split_across_threads() -> None:
    """When another thread prints between a call's start and its return, strace splits it into
    ``<unfinished ...>`` and ``<... resumed>`` lines and the data a read returned is on the second:
    the request must still be found there (on a busy machine every request can be split this way)."""
    trace = "\n".join(
        [
            "7 recvfrom(9<TCP:[127.0.0.1:5->127.0.0.1:6]>,  <unfinished ...>",
            "8 fdatasync(4</d/hw.db-wal>) = 0",
            '7 <... recvfrom resumed>"POST /api/v1/lineage HTTP/1.1\\r\\nHost: x\\r\\n"..., 65536, 0, NULL, NULL) = 300',
            '7 pwrite64(4</d/hw.db-wal>, "abc", 3, 0) = 3',
            "7 fdatasync(4</d/hw.db-wal>) = 0",
            '7 sendto(9<TCP:[127.0.0.1:5->127.0.0.1:6]>, "HTTP/1.1 201 Created\\r\\n", 20, 0, NULL, 0) = 20',
        ]
    )
    assert unsynced_answers(trace, Path("/d/hw.db")) == (1, [])
    unsynced = trace.replace("7 fdatasync(4</d/hw.db-wal>) = 0", "7 getpid() = 7")
    assert unsynced_answers(unsynced, Path("/d/hw.db"))[1]  # the write after the other thread's sync is reported


def test_the_check_reads_fds_strace_could_not_name() -> None:
    """Where strace cannot name a socket or file (``-yy`` prints the bare fd), sockets are paired by fd
    number and files are named by the ``openat`` that returned their fd. strace pads a short pid
    (``7    recvfrom``): the pids of a fresh machine are short (CI found no call in its traces)."""
    trace = "\n".join(
        [
            '8 openat(AT_FDCWD, "/d/hw.db-wal", O_RDWR|O_CREAT|O_CLOEXEC, 0644) = 4',
            '7    recvfrom(9, "POST /api/v1/lineage HTTP/1.1\\r\\nHost: x\\r\\n"..., 65536, 0, NULL, NULL) = 300',
            '7    pwrite64(4, "abc", 3, 0) = 3',
            "7    fdatasync(4) = 0",
            '7    sendto(9, "HTTP/1.1 201 Created\\r\\n", 20, 0, NULL, 0) = 20',
            "7    close(9) = 0",
            '7    recvfrom(9, "POST /api/v1/lineage HTTP/1.1\\r\\nHost: x\\r\\n"..., 65536, 0, NULL, NULL) = 300',
            '7    pwrite64(4, "abc", 3, 0) = 3',
            '7    writev(9, [{iov_base="HTTP/1.1 201 Created\\r\\n", iov_len=20}], 1) = 20',
        ]
    )
    answers, problems = unsynced_answers(trace, Path("/d/hw.db"))
    assert answers == 2
    assert len(problems) == 1 and "line 9" in problems[0] and "/d/hw.db-wal" in problems[0], problems
