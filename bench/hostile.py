"""Hostile input over real HTTP: every request of tests/api/hostile_payloads.py against `headwater serve`,
while the server's memory is sampled.

    python bench/hostile.py [--pg postgresql://user:pass@host:5432/postgres] [--timeout 30]

Starts a real ``headwater serve`` (SQLite, and PostgreSQL with ``--pg``: a fresh database on that
server, dropped after), posts the 2,000+ hostile requests one after the other on one keep-alive
connection (as a producer does; reconnecting only when the server closes it), plus a few hostile
reads (a 100,000-character search, an events cursor past 2^63, a time before year 1, HEAD, paging offsets
beyond 64 bits, a lineage read without its parameter), and
samples the server's resident memory (``VmRSS`` of /proc/<pid>/status, with its parse workers', every 20 ms)
throughout.

Reports, per database: answers by status, 5xx (must be 0), wrong answers (an error that does not
name its problem, or an acceptance of what must be refused), hangs (no answer within
``--timeout`` seconds: must be 0), connections the server dropped without an answer (must be 0),
a 5xx without ``Connection: close``, peak and final RSS (must stay below 1 GB), the slowest request,
and the projection's failed-event count afterwards (must be 0). Writes bench/results/hostile.json;
exit code 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests" / "api"))

from hostile_payloads import Hostile, answer_problem, hostile_requests

from _server import Server, free_port

RSS_LIMIT = 1 << 30


@contextlib.contextmanager
def started_server(db_url: str, log_path: Path) -> Iterator[Server]:
    """`headwater serve` on a free port, its log written to ``log_path`` (every refusal logs a line:
    a pipe nobody reads would fill and stall the server)."""
    port = free_port()
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "headwater", "serve", "--db", db_url, "--port", str(port)],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while True:
                if proc.poll() is not None:
                    raise RuntimeError(f"headwater serve exited: {log_path.read_text()[-2000:]}")
                try:
                    with socket.create_connection(("127.0.0.1", port), timeout=1):
                        break
                except OSError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError("headwater serve did not answer within 60 s")
                time.sleep(0.2)
            yield Server(url, proc.pid)
        finally:
            proc.terminate()
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def children(pid: int) -> list[int]:
    """The processes ``pid`` started (the server's parse workers: headwater.api.parse_pool)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry.name))
            except (OSError, ValueError, IndexError):
                continue
    return found


class Sampler(threading.Thread):
    """Samples the RSS of a process and its children (summed) every ``every`` seconds; ``peak`` and ``samples``
    afterwards. The children are looked up every half second."""

    def __init__(self, pid: int, every: float = 0.02) -> None:
        super().__init__(daemon=True)
        self.pid, self.every = pid, every
        self.peak = 0
        self.samples = 0
        self.stop = threading.Event()

    def run(self) -> None:
        kids: list[int] = []
        looked = 0.0
        while not self.stop.is_set():
            if time.monotonic() - looked > 0.5:
                kids, looked = children(self.pid), time.monotonic()
            try:
                total = rss_bytes(self.pid)
            except (OSError, ValueError):
                return
            for kid in kids:
                try:
                    total += rss_bytes(kid)
                except (OSError, ValueError):
                    continue
            self.peak = max(self.peak, total)
            self.samples += 1
            time.sleep(self.every)


class Client:
    """One keep-alive HTTP/1.1 connection; reconnects only after the server closed it."""

    def __init__(self, url: str, timeout: float) -> None:
        parts = urlsplit(url)
        self.host, self.port, self.timeout = parts.hostname or "127.0.0.1", parts.port or 80, timeout
        self.conn: http.client.HTTPConnection | None = None

    def request(
        self, method: str, path: str, body: bytes | None, headers: dict[str, str]
    ) -> tuple[int, str, dict[str, str]]:
        if self.conn is None:
            self.conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        self.conn.request(method, path, body=body, headers=headers)
        answer = self.conn.getresponse()
        text = answer.read().decode("utf-8", "replace")
        got = {k.lower(): v for k, v in answer.getheaders()}
        if answer.will_close:
            self.conn.close()
            self.conn = None
        return answer.status, text, got

    def reset(self) -> None:
        if self.conn is not None:
            self.conn.close()
        self.conn = None


def extra_reads() -> list[tuple[str, str, int]]:
    """(method, path, the status it must answer)."""
    import base64

    cursor = base64.urlsafe_b64encode(f"{2**64}:{2**64}".encode()).decode().rstrip("=")
    return [
        ("GET", "/api/v1/graph/search?q=" + "x" * 100_000, 400),
        ("GET", f"/api/v1/events?cursor={cursor}", 400),
        ("GET", "/api/v1/events?since=0001-01-01T00:00:00%2B01:00", 400),
        ("GET", "/api/v1/nope", 404),
        ("GET", "/API/v1/nope", 404),
        ("HEAD", "/api/v1/graph/recent", 200),
        ("GET", "/api/v1/status", 200),
        ("GET", "/api/v1/lineage", 400),  # a missing parameter: answered without waiting for the projector
        *(
            ("GET", f"/api/v1/graph/{path}offset={offset}", 400)
            for path in ("datasets?", "jobs?", "runs?nodeId=job:a:b&")
            for offset in ("1e30", str(10**30))
        ),
    ]


def run(db_url: str, label: str, timeout: float, log_path: Path) -> dict[str, Any]:
    statuses: dict[int, int] = {}
    wrong: list[str] = []
    hangs: list[str] = []
    dropped: list[str] = []
    no_close: list[str] = []
    slowest = (0.0, "")
    count = 0
    with started_server(db_url, log_path) as server:
        sampler = Sampler(server.pid)
        sampler.start()
        client = Client(server.url, timeout)
        started = time.monotonic()
        requests: list[Hostile | tuple[str, str, int]] = [*hostile_requests(), *extra_reads()]
        for item in requests:
            count += 1
            if isinstance(item, Hostile):
                method, path, body, headers, name = "POST", item.path, item.body, item.headers, item.name
            else:
                method, path, body, headers, name = item[0], item[1], None, {}, f"{item[0]} {item[1][:60]}"
            t0 = time.monotonic()
            try:
                status, text, got = client.request(method, path, body, headers)
            except TimeoutError:
                hangs.append(name)
                client.reset()
                continue
            except (ConnectionError, http.client.HTTPException) as exc:
                # the server may answer early (413 before the whole body) and close: that answer is read
                # by http.client; a connection dropped without an answer is the finding
                dropped.append(f"{name}: {type(exc).__name__}")
                client.reset()
                continue
            took = time.monotonic() - t0
            if took > slowest[0]:
                slowest = (took, name)
            statuses[status] = statuses.get(status, 0) + 1
            if status >= 500 and got.get("connection", "").lower() != "close":
                no_close.append(name)
            if isinstance(item, Hostile):
                problem = answer_problem(item, status, text)
            else:
                problem = None if status == item[2] else f"{status}: {text[:200]}"
            if problem:
                wrong.append(f"{name}: {problem}")
        elapsed = time.monotonic() - started
        status_answer = json.loads(client.request("GET", "/api/v1/status", None, {})[1])
        time.sleep(0.2)
        final_rss = rss_bytes(server.pid) + sum(rss_bytes(k) for k in children(server.pid))
        sampler.stop.set()
        sampler.join()
    return {
        "database": label,
        "requests": count,
        "seconds": round(elapsed, 1),
        "statuses": dict(sorted(statuses.items())),
        "5xx": sum(n for s, n in statuses.items() if s >= 500),
        "wrong": wrong,
        "hangs": hangs,
        "dropped": dropped,
        "5xx_without_connection_close": no_close,
        "peak_rss_mb": round(sampler.peak / 2**20, 1),
        "final_rss_mb": round(final_rss / 2**20, 1),
        "rss_samples": sampler.samples,
        "slowest": {"seconds": round(slowest[0], 2), "request": slowest[1]},
        "failed_projections": status_answer["projection"]["failed"],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pg", help="PostgreSQL server URL (a fresh database is created on it)")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds without an answer that count as a hang")
    args = parser.parse_args()
    import tempfile

    results = []
    with tempfile.TemporaryDirectory(prefix="headwater-hostile-") as folder:
        results.append(
            run(f"sqlite:///{Path(folder) / 'hostile.db'}", "sqlite", args.timeout, Path(folder) / "serve.log")
        )
    if args.pg:
        import psycopg

        name = f"hw_hostile_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(args.pg, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        try:
            with tempfile.TemporaryDirectory(prefix="headwater-hostile-") as folder:
                results.append(
                    run(
                        urlunsplit(urlsplit(args.pg)._replace(path=f"/{name}")),
                        "postgresql",
                        args.timeout,
                        Path(folder) / "serve.log",
                    )
                )
        finally:
            with psycopg.connect(args.pg, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    ok = True
    for r in results:
        print(
            f"{r['database']}: {r['requests']} requests in {r['seconds']} s; statuses {r['statuses']}; "
            f"5xx {r['5xx']}; wrong {len(r['wrong'])}; hangs {len(r['hangs'])}; dropped {len(r['dropped'])}; "
            f"peak RSS {r['peak_rss_mb']} MB (final {r['final_rss_mb']} MB, {r['rss_samples']} samples); "
            f"slowest {r['slowest']['seconds']} s ({r['slowest']['request']}); failed projections "
            f"{r['failed_projections']}"
        )
        for line in (r["wrong"] + r["hangs"] + r["dropped"])[:20]:
            print("  ", line[:300])
        ok &= (
            r["5xx"] == 0
            and not r["wrong"]
            and not r["hangs"]
            and not r["dropped"]
            and r["peak_rss_mb"] * 2**20 < RSS_LIMIT
            and r["failed_projections"] == 0
        )
    out = HERE / "results" / "hostile.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
