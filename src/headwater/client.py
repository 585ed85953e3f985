"""The one door for producers that run outside the server: send OpenLineage events to Headwater.

The SQL engine and its harvesters, crawlers and log harvesters build OpenLineage RunEvents (plain
JSON-able dicts) and hand them to a :class:`LineageClient`; they never write graph tables. Every
event ends in the same ingest path as ``POST /api/v1/lineage/batch``: validated against the
official schema, appended to the durable log, derived into the graph by the projector.

Contract of a sink (the ``kind`` names one):

- ``send(events)`` takes a sequence of events and answers a :class:`SendResult` once every event
  is acknowledged (durable in the log of the server or store), or raises :class:`SendError`
  saying what was refused and why (the server's message, with the JSON path of each problem).
  A batch is all or nothing; an event sent twice is stored once (its id is its content).
- ``close()`` releases what the sink holds (connections, an embedded store it opened).

Kinds:

- ``http`` — ``POST {url}/api/v1/lineage/batch`` (gzip, bearer token), in batches of ``batch_size``;
  retries connection failures and 5xx answers a few times with backoff, waiting as long as a 503's
  ``Retry-After`` says (at most 30 s) when it has one. A resent batch is stored once (ids are content).
- ``store`` — embedded: the store at a database URL, opened in this process; events go through the
  server's ingest door (``headwater.ingest.accept``) with the policy of the settings (the environment's
  ``HEADWATER_*`` variables, as ``headwater serve`` reads them: limits, lenient or strict, batch size), so
  they are accepted or refused, and stored with their warnings, exactly as ``POST /api/v1/lineage/batch``
  would; they are appended in batches of ``max_batch_events``.
- ``print`` — one JSON document per line to a text stream (stdout by default): nothing is stored.

:func:`open_client` picks the kind from what the command line gives: ``--url`` (http),
``--database`` (store), neither (print). Imports of the server side happen only for ``store``.

One read helper, for producers that resolve SQL against what Headwater already knows:
:func:`dataset_fields` answers a dataset's schema fields from ``GET /api/v1/graph/node`` (over HTTP, as any
client reads the graph; never from the store directly).
"""

from __future__ import annotations

import gzip
import json
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any, Protocol

import httpx

from headwater.model.nodeid import format_node_id
from headwater.model.openlineage import batch_body

if TYPE_CHECKING:
    from headwater.settings import Settings
    from headwater.store import Store

Event = Mapping[str, Any]


@dataclass(frozen=True)
class SendResult:
    sent: int  # events acknowledged
    duplicates: int = 0  # of those, already stored before


class SendError(RuntimeError):
    """Events were refused (or could not be delivered); the message says which and why."""


class LineageClient(Protocol):
    kind: str

    def send(self, events: Sequence[Event]) -> SendResult: ...

    def close(self) -> None: ...

    def __enter__(self) -> LineageClient: ...

    def __exit__(self, *_exc: object) -> None: ...


class _Closing:
    """``with`` support: every client closes on leaving the block."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


class HttpClient(_Closing):
    """Posts batches to a Headwater (or any OpenLineage-compatible batch) endpoint."""

    kind = "http"

    def __init__(
        self,
        url: str,
        *,
        token: str | None = None,
        project: str | None = None,
        batch_size: int = 500,
        timeout: float = 60.0,
        retries: int = 3,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.url = url.rstrip("/")
        headers = {"Content-Type": "application/json", "Content-Encoding": "gzip"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        if project:  # the catalog project the events are sent for (docs/catalog.md): its inventory from the start
            headers["Headwater-Project"] = project
        self.batch_size = batch_size
        self.retries = retries
        self._http = httpx.Client(headers=headers, timeout=timeout, transport=transport)

    def send(self, events: Sequence[Event]) -> SendResult:
        sent = duplicates = 0
        for start in range(0, len(events), self.batch_size):
            chunk = list(events[start : start + self.batch_size])
            answer = self._post(gzip.compress(batch_body(chunk).encode("utf-8"), compresslevel=5))
            sent += len(chunk)
            duplicates += int(answer.get("duplicates", 0)) if isinstance(answer, dict) else 0
        return SendResult(sent, duplicates)

    def _post(self, body: bytes) -> Any:
        endpoint = f"{self.url}/api/v1/lineage/batch"
        for attempt in range(self.retries + 1):
            try:
                answer = self._http.post(endpoint, content=body)
            except httpx.HTTPError as exc:
                if attempt == self.retries:
                    raise SendError(f"cannot reach {endpoint}: {exc}") from None
            else:
                if answer.status_code < 300:
                    return answer.json() if answer.content else {}
                if answer.status_code < 500:
                    raise SendError(f"{endpoint} refused the events: {answer.status_code} {_message(answer)}")
                if attempt == self.retries:
                    raise SendError(f"{endpoint} failed: {answer.status_code} {_message(answer)}")
                # a 503 says when to come back (the store restarts, its disk is full): wait that long, at most 30 s
                after = answer.headers.get("retry-after", "")
                if after.isdigit():
                    time.sleep(min(float(after), 30.0))
                    continue
            time.sleep(min(0.5 * 2**attempt, 5.0))
        raise AssertionError("unreachable")

    def close(self) -> None:
        self._http.close()


def _message(answer: httpx.Response) -> str:
    try:
        error = answer.json().get("error", {})
        return str(error.get("message") or answer.text[:500])
    except ValueError:
        return answer.text[:500]


class StoreClient(_Closing):
    """Embedded mode: the server's ingest door and policy, appending to a store in this process.

    ``settings``: the settings the policy is built from (default: the environment's, as the server reads them)."""

    kind = "store"

    def __init__(self, store: Store, *, owned: bool = False, settings: Settings | None = None) -> None:
        from headwater.ingest import Door
        from headwater.settings import load_settings

        self.store = store
        self._owned = owned
        self._door = Door.from_settings(settings if settings is not None else load_settings())

    @classmethod
    def open(cls, database_url: str, *, settings: Settings | None = None) -> StoreClient:
        from headwater.store import Store

        return cls(Store.open(database_url), owned=True, settings=settings)

    def send(self, events: Sequence[Event]) -> SendResult:
        from headwater.ingest import IngestError
        from headwater.store import IncomingEvent

        sent = duplicates = 0
        size = self._door.policy.max_events
        for start in range(0, len(events), size):
            chunk = list(events[start : start + size])
            try:
                parsed = self._door.accept_events(chunk)
            except IngestError as exc:
                raise SendError(f"the events were refused: {exc.message}") from None
            results = self.store.append([IncomingEvent.accepted(p) for p in parsed])
            sent += len(results)
            duplicates += sum(1 for r in results if r.duplicate)
        return SendResult(sent, duplicates)

    def close(self) -> None:
        if self._owned:
            self.store.close()


class PrintClient(_Closing):
    """Writes each event as one JSON line; stores nothing (``headwater sql lineage`` without ``--url``)."""

    kind = "print"

    def __init__(self, stream: IO[str] | None = None) -> None:
        self.stream = stream if stream is not None else sys.stdout

    def send(self, events: Sequence[Event]) -> SendResult:
        for event in events:
            self.stream.write(json.dumps(event, ensure_ascii=False) + "\n")
        self.stream.flush()
        return SendResult(len(events))

    def close(self) -> None:
        self.stream.flush()


def open_client(
    *,
    url: str | None = None,
    database: str | None = None,
    token: str | None = None,
    stream: IO[str] | None = None,
    project: str | None = None,
) -> LineageClient:
    """``url`` → :class:`HttpClient`; ``database`` → :class:`StoreClient`; neither → :class:`PrintClient`.

    ``project``: the catalog project the events are sent for (over HTTP only: the server binds them)."""
    if url and database:
        raise ValueError("give a Headwater URL (--url) or a store database (--database), not both")
    if project and not url:
        raise ValueError("a catalog project (--project) needs a Headwater URL (--url): the server binds the events")
    if url:
        return HttpClient(url, token=token, project=project)
    if database:
        return StoreClient.open(database)
    return PrintClient(stream)


def dataset_fields(
    url: str,
    namespace: str,
    name: str,
    *,
    token: str | None = None,
    timeout: float = 30.0,
    http: httpx.Client | None = None,
) -> list[tuple[str, str | None]] | None:
    """The schema fields ``(name, type)`` Headwater knows for a dataset, or None (unknown dataset, no schema)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    client = http or httpx.Client(timeout=timeout, headers=headers)
    try:
        answer = client.get(
            f"{url.rstrip('/')}/api/v1/graph/node", params={"nodeId": format_node_id("dataset", namespace, name)}
        )
    except httpx.HTTPError as exc:
        raise SendError(f"cannot reach {url}: {exc}") from None
    finally:
        if http is None:
            client.close()
    if answer.status_code == 404:
        return None
    if answer.status_code >= 300:
        raise SendError(f"{url} answered {answer.status_code} reading {namespace} {name}: {_message(answer)}")
    body = answer.json()
    facets = body.get("facets") or {}
    schema = facets.get("schema") if isinstance(facets, dict) else None
    fields = (schema or {}).get("fields") or body.get("fields") or []
    out = [(str(f["name"]), f.get("type")) for f in fields if isinstance(f, dict) and f.get("name")]
    return out or None
