"""One POST per worker item to Headwater's batch endpoint, the JSON written by orjson — only to Headwater.

The events of one worker item (an execution's START and COMPLETE, the last events at ``stop()``) are sent as one
JSON array to ``POST /api/v1/lineage/batch`` instead of one ``POST /api/v1/lineage`` each, serialised by
``orjson`` instead of openlineage-python's ``Serde`` (which ``HttpTransport.emit`` calls on every event). On the
wide benchmark job (START 44 kB + COMPLETE 258 kB) that is one POST instead of two and ~0.9 ms of serialisation
instead of ~4.3 ms. What is sent is the same events: the events are still built as openlineage-python objects and
turned into the plain form ``Serde.to_dict`` would make (:mod:`headwater.capture.plain`); only the writing of
that value changes, and ``orjson.dumps(..., OPT_SORT_KEYS)`` of it equals ``Serde.to_json`` of the event as JSON
(the same keys and values; whitespace and the escaping of non-ASCII characters differ: Headwater stores each
event as its text stands in the batch, orjson's compact form). Values whose JSON orjson would write differently are never
batched: a non-finite float (``Serde`` writes ``NaN``, orjson ``null``) keeps its event out of the plain form, an
integer beyond 64 bits makes orjson refuse; such events go through the transport one by one, as before.

Who gets batches: only an openlineage-python ``HttpTransport`` (the exact class) with the standard endpoint
``api/v1/lineage`` whose server has shown it is Headwater — its answer to a single event is Headwater's ingest
answer (``{"id", "duplicate", "warnings"}``: :meth:`BatchSender.learn`); another OpenLineage server never sees a
batch. Everything the transport was configured with applies: the same ``requests`` session (its resolved
environment, the retry adapter), URL, auth and custom headers and gzip compression (the transport's own
``_prepare_request``), timeout, TLS verification and client certificate. The batch is all-or-nothing on the server;
how the emitter falls back (one by one for per-event verdicts, or the spool) is :mod:`headwater.capture.delivery`'s.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any
from urllib.parse import urljoin

import orjson

log = logging.getLogger("headwater.capture")

STANDARD_ENDPOINTS = frozenset({"api/v1/lineage", "/api/v1/lineage"})
BATCH_PATH = "/api/v1/lineage/batch"
# Headwater's answer to one event (api/models.py IngestAnswer): its keys, exactly
_INGEST_ANSWER_KEYS = frozenset({"id", "duplicate", "warnings"})


class NotBatched(Exception):
    """The batch was not stored and the events must go one by one (the server has no batch endpoint, or its
    answer does not account for every event); the sender is off for the rest of the process when ``off``."""


class BatchSender:
    """Sends lists of plain events (dicts) to Headwater's batch endpoint through an ``HttpTransport``'s settings."""

    def __init__(self, transport: Any) -> None:
        self._transport = transport
        self.url = urljoin(str(transport.url), BATCH_PATH)
        self.active = False  # the server answered like Headwater: batches go out
        self.off = False  # the server has no batch endpoint: never again in this process

    @classmethod
    def for_transport(cls, transport: object) -> BatchSender | None:
        """A sender for ``transport`` when it is openlineage-python's ``HttpTransport`` itself (a subclass may
        change what it sends) posting to the standard endpoint, else None."""
        try:
            from openlineage.client.transport.http import HttpTransport

            if type(transport) is not HttpTransport:
                return None
            if str(getattr(transport, "endpoint", "")) not in STANDARD_ENDPOINTS:
                return None
            if not callable(getattr(transport, "_prepare_request", None)):
                return None
            return cls(transport)
        except Exception as exc:  # noqa: BLE001 - no batching then; nothing else changes
            log.debug("headwater: no batch sender: %s", exc)
            return None

    def learn(self, answer: object) -> None:
        """Look at the transport's answer to one event: Headwater's ingest answer switches batches on."""
        if self.active or self.off:
            return
        try:
            status = getattr(answer, "status_code", None)
            if status not in (200, 201):
                return
            body = answer.json()  # type: ignore[attr-defined]  # a requests.Response (the transport returns it)
            if isinstance(body, dict) and set(body) == _INGEST_ANSWER_KEYS:
                self.active = True
        except Exception:  # noqa: BLE001 - not JSON, closed, not a response: not Headwater's answer
            return

    def send(self, events: Sequence[dict[str, object]]) -> None:
        """POST ``events`` as one JSON array. Raises :class:`NotBatched` when the events must be sent one by one,
        ``orjson.JSONEncodeError`` when orjson cannot write them exactly, and what ``requests`` raises otherwise
        (``HTTPError`` carries the response: the emitter tells refusals from failures by its status)."""
        body = orjson.dumps(list(events), option=orjson.OPT_SORT_KEYS)
        transport = self._transport
        try:
            data, headers = transport._prepare_request(body.decode("utf-8"))  # auth, custom headers, gzip
            if isinstance(data, str):  # not compressed: send orjson's UTF-8 bytes as they are
                data = body
            post: dict[str, Any] = {
                "url": self.url,
                "data": data,
                "headers": headers,
                "timeout": transport.timeout,
                "verify": transport.verify,
            }
            cert = getattr(transport, "cert", None)
            if cert is not None:  # as the transport does: never follow a redirect with a client certificate
                post["cert"] = cert
                post["allow_redirects"] = False
            session = transport.session
        except Exception as exc:  # an openlineage-python whose transport is not as expected: no batches
            self.off = True
            self.active = False
            raise NotBatched(f"the HTTP transport cannot be used for a batch: {exc}") from exc
        response = session.post(**post)
        try:
            if response.status_code in (404, 405):
                self.off = True
                self.active = False
                raise NotBatched(f"HTTP {response.status_code} from {self.url}: no batch endpoint")
            response.raise_for_status()
            if response.is_redirect:
                raise NotBatched(f"a redirect from {self.url}")
            answer = response.json()
            if not isinstance(answer, dict) or answer.get("received") != len(events):
                self.off = True
                self.active = False
                raise NotBatched(f"the answer of {self.url} does not account for the {len(events)} events sent")
        finally:
            response.close()
