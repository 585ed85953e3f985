"""Keep a graph database current with Headwater's graph: incremental, idempotent, resumable.

Contract: :func:`sync` reads the derived graph through ``source.read_connection()`` (never writing the
store) and writes a :class:`GraphTarget` with openCypher only: ``UNWIND $rows … MERGE … {id} SET += props``
per label, so re-sending an element changes nothing. Where the target stands is kept in the target itself,
on one vertex ``(:HeadwaterSync {id: <name>})`` whose ``seq`` is the event-log position synced:

1. read that position (none: a first, full sync), then the log position the derived graph reflects now;
2. the elements to send: everything on a first sync, otherwise the datasets, jobs and runs that events after
   the position said anything of (:func:`headwater.graph.export.touched_since`) with their edges;
3. upsert them in batches (``progress`` is told after each), then remove the edges of each touched job and
   dataset that the store no longer has (an out-of-order event re-derived a version), and only then
   move the position forward.

A sync killed at any step left the position where it was: the next run sends the same elements again,
which MERGE makes harmless. Targets: :class:`BoltTarget` (the official ``neo4j`` driver: Neo4j, Memgraph,
FalkorDB's Bolt port, Neptune's Bolt endpoint) and :class:`NeptuneTarget` (Neptune's openCypher HTTPS
endpoint, optionally with IAM SigV4 signing through botocore).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urlencode, urlsplit

import sqlalchemy as sa

if TYPE_CHECKING:
    import neo4j

from headwater.graph.export import (
    EVERYTHING,
    FLOWS_TO,
    HAS_COLUMN,
    READ_BY,
    VERTEX_LABELS,
    WRITES,
    Edge,
    Element,
    Vertex,
    elements,
    head,
    touched_since,
)
from headwater.graphdb.formats import label_of, properties
from headwater.model.jsontypes import JSONMapping, JSONObject
from headwater.model.times import iso, now_micros

STATE_LABEL = "HeadwaterSync"
BATCH = 500


class ReadSource(Protocol):
    def read_connection(self) -> sa.Connection: ...


class GraphTarget(Protocol):
    """A graph database that runs openCypher with parameters and answers rows as dicts."""

    def run(self, query: str, params: JSONMapping) -> list[JSONObject]: ...

    def prepare(self) -> None:
        """Make what the upserts need (indexes on ``id``) where the database supports it; idempotent."""

    def close(self) -> None: ...


class SyncError(RuntimeError):
    """The target refused or could not be reached; the message says which and why."""


@dataclass(frozen=True)
class SyncResult:
    name: str
    from_seq: int  # 0: a first, full sync
    to_seq: int
    vertices: int
    edges: int
    removed: int


Progress = Callable[[int, int], None]


def read_position(target: GraphTarget, name: str) -> int:
    rows = target.run(f"MATCH (s:{STATE_LABEL} {{id: $name}}) RETURN s.seq AS seq", {"name": name})
    return int(rows[0]["seq"]) if rows and rows[0].get("seq") is not None else 0


def write_position(target: GraphTarget, name: str, seq: int) -> None:
    target.run(
        f"MERGE (s:{STATE_LABEL} {{id: $name}}) SET s.seq = $seq, s.syncedAt = $at",
        {"name": name, "seq": seq, "at": iso(now_micros())},
    )


def _batches(rows: Sequence[JSONObject], size: int) -> Iterable[list[JSONObject]]:
    for start in range(0, len(rows), size):
        yield list(rows[start : start + size])


def upsert_statements(found: Iterable[Element]) -> list[tuple[str, list[JSONObject]]]:
    """One parameterised statement per vertex label and per (edge label, end labels), with its rows."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for e in found:
        if isinstance(e, Vertex):
            query = f"UNWIND $rows AS row MERGE (n:{e.label} {{id: row.id}}) SET n += row.props"
            groups[query].append({"id": e.id, "props": properties(e)})
        else:
            query = (
                f"UNWIND $rows AS row MATCH (a:{label_of(e.source)} {{id: row.source}}) "
                f"MATCH (b:{label_of(e.target)} {{id: row.target}}) "
                f"MERGE (a)-[r:{e.label} {{id: row.id}}]->(b) SET r += row.props"
            )
            groups[query].append({"id": e.id, "source": e.source, "target": e.target, "props": properties(e)})
    vertex_first = sorted(groups, key=lambda q: ("MATCH" in q, q))
    return [(q, groups[q]) for q in vertex_first]


def removal_statements(found: Sequence[Element], datasets: Iterable[str], jobs: Iterable[str]) -> list[tuple[str, list[JSONObject]]]:  # fmt: skip
    """Statements that delete the edges of touched jobs and datasets the store no longer has."""
    job_edges: dict[str, list[str]] = {j: [] for j in jobs}
    job_flows: dict[str, list[str]] = {j: [] for j in job_edges}
    ds_columns: dict[str, list[str]] = {d: [] for d in datasets}
    for e in found:
        if not isinstance(e, Edge):
            continue
        if e.label == READ_BY and e.target in job_edges:
            job_edges[e.target].append(e.id)
        elif e.label == WRITES and e.source in job_edges:
            job_edges[e.source].append(e.id)
        elif e.label == FLOWS_TO and e.props.get("job") in job_flows:
            job_flows[str(e.props["job"])].append(e.id)
        elif e.label == HAS_COLUMN and e.source in ds_columns:
            ds_columns[e.source].append(e.id)
    return [
        _prune(f"(:Dataset)-[r:{READ_BY}]->(j:Job {{id: row.node}})", job_edges),
        _prune(f"(j:Job {{id: row.node}})-[r:{WRITES}]->(:Dataset)", job_edges),
        _prune(f"()-[r:{FLOWS_TO}]->()", job_flows, also="r.job = row.node AND "),
        _prune(f"(d:Dataset {{id: row.node}})-[r:{HAS_COLUMN}]->(:Column)", ds_columns),
    ]


def _prune(match: str, keep: dict[str, list[str]], also: str = "") -> tuple[str, list[JSONObject]]:
    """The statement that deletes the edges ``r`` that ``match`` finds of each node (``row.node``; ``also``: a
    further condition) but those whose ids ``keep`` names for it."""
    query = f"UNWIND $rows AS row MATCH {match} WHERE {also}NOT r.id IN row.keep DELETE r RETURN count(r) AS removed"
    return query, [{"node": node, "keep": ids} for node, ids in sorted(keep.items())]


def sync(
    source: ReadSource,
    target: GraphTarget,
    *,
    name: str = "headwater",
    batch: int = BATCH,
    progress: Progress | None = None,
) -> SyncResult:
    """Bring ``target`` up to the store's graph (see the module docstring)."""
    target.prepare()
    position = read_position(target, name)
    with source.read_connection() as conn:
        now = head(conn)  # first: changes projected while reading are sent again next time, never lost
        if position > now:
            raise SyncError(
                f"the target's sync position {name!r} is at log position {position}, beyond this store's {now}: "
                "it was synced from another store (use another --name, or an empty graph)"
            )
        if position == now:
            return SyncResult(name, position, position, 0, 0, 0)
        scope = EVERYTHING if position == 0 else touched_since(conn, position, now)
        found = list(elements(conn, scope))
    statements = upsert_statements(found)
    removals = [] if position == 0 else removal_statements(found, scope.datasets or (), scope.jobs or ())
    total = sum((len(rows) + batch - 1) // batch for _, rows in statements) + sum(1 for _, rows in removals if rows)
    done = 0
    for query, rows in statements:
        for chunk in _batches(rows, batch):
            target.run(query, {"rows": chunk})
            done += 1
            if progress is not None:
                progress(done, total)
    removed = 0
    for query, rows in removals:
        if not rows:
            continue
        answer = target.run(query, {"rows": rows})
        removed += sum(int(r.get("removed") or 0) for r in answer)
        done += 1
        if progress is not None:
            progress(done, total)
    write_position(target, name, now)
    vertices = sum(isinstance(e, Vertex) for e in found)
    return SyncResult(name, position, now, vertices, len(found) - vertices, removed)


class BoltTarget:
    """A Bolt server through the official ``neo4j`` driver; each statement is one managed write
    transaction (the driver retries transient failures, a dropped connection included)."""

    def __init__(self, url: str, *, user: str | None = None, password: str | None = None, database: str | None = None, retry_seconds: float = 30.0) -> None:  # fmt: skip
        try:
            import neo4j
        except ImportError as exc:  # the optional extra
            raise SyncError("syncing over Bolt needs the neo4j driver: pip install 'headwater[graph]'") from exc
        self._neo4j = neo4j
        auth = None if user is None else neo4j.basic_auth(user, password or "")
        self._driver = neo4j.GraphDatabase.driver(url, auth=auth, max_transaction_retry_time=retry_seconds)
        self._database = database

    def run(self, query: str, params: JSONMapping) -> list[JSONObject]:
        def work(tx: neo4j.ManagedTransaction) -> list[JSONObject]:
            return [dict(r) for r in tx.run(query, dict(params)).data()]

        try:
            with self._driver.session(database=self._database) as session:
                return list(session.execute_write(work))
        except self._neo4j.exceptions.Neo4jError as exc:
            raise SyncError(f"the graph database refused a statement: {exc.message or exc}") from exc
        except self._neo4j.exceptions.DriverError as exc:
            raise SyncError(f"cannot reach the graph database: {exc}") from exc

    def prepare(self) -> None:
        for label in (*VERTEX_LABELS, STATE_LABEL):
            try:  # openCypher has no portable index DDL: Neo4j 5, Memgraph and FalkorDB accept this form
                self.run(f"CREATE INDEX FOR (n:{label}) ON (n.id)", {})
            except SyncError:
                pass  # the index exists, or the database indexes on its own

    def close(self) -> None:
        self._driver.close()


class NeptuneTarget:
    """Amazon Neptune's openCypher HTTPS endpoint (``POST /openCypher``, form fields ``query`` and
    ``parameters``). ``iam``: sign each request with SigV4 (service ``neptune-db``) with botocore's
    credential chain, for clusters with IAM database authentication."""

    def __init__(self, url: str, *, iam: bool = False, region: str | None = None, timeout: float = 60.0) -> None:
        import httpx

        parts = urlsplit(url)
        if parts.scheme != "https" or not parts.hostname:
            raise SyncError(f"a Neptune endpoint is https://<cluster endpoint>:8182, got {url!r}")
        self._url = f"https://{parts.netloc}/openCypher"
        self._iam = iam
        self._region = region
        self._client = httpx.Client(timeout=timeout)

    def _headers(self, body: bytes) -> dict[str, str]:
        headers = {"Content-Type": "application/x-www-form-urlencoded"}
        if not self._iam:
            return headers
        import botocore.session
        from botocore.auth import SigV4Auth
        from botocore.awsrequest import AWSRequest

        session = botocore.session.get_session()
        credentials = session.get_credentials()
        region = self._region or session.get_config_variable("region")
        if credentials is None or not region:
            raise SyncError("IAM signing needs AWS credentials and a region (--region or AWS_REGION)")
        request = AWSRequest(method="POST", url=self._url, data=body, headers=headers)
        SigV4Auth(credentials, "neptune-db", region).add_auth(request)
        return dict(request.headers.items())

    def run(self, query: str, params: JSONMapping) -> list[JSONObject]:
        import httpx

        body = urlencode({"query": query, "parameters": json.dumps(dict(params))}).encode()
        try:
            answer = self._client.post(self._url, content=body, headers=self._headers(body))
        except httpx.HTTPError as exc:
            raise SyncError(f"cannot reach Neptune at {self._url}: {exc}") from exc
        if answer.status_code != 200:
            raise SyncError(f"Neptune answered {answer.status_code}: {answer.text[:500]}")
        results = answer.json().get("results", [])
        return [dict(r) for r in results]

    def prepare(self) -> None:
        """Neptune indexes every property itself."""

    def close(self) -> None:
        self._client.close()


def open_target(url: str, *, user: str | None = None, password: str | None = None, database: str | None = None, iam: bool = False, region: str | None = None) -> GraphTarget:  # fmt: skip
    """The target of a URL: ``bolt://``, ``bolt+s://``, ``neo4j://``, ``neo4j+s://`` (Bolt) or ``https://`` (Neptune)."""
    scheme = urlsplit(url).scheme
    if scheme in ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc"):
        return BoltTarget(url, user=user, password=password, database=database)
    if scheme == "https":
        return NeptuneTarget(url, iam=iam, region=region)
    raise SyncError(
        f"--to must be bolt://host:port (or neo4j://, bolt+s://) or https://<neptune endpoint>:8182, got {url!r}"
    )
