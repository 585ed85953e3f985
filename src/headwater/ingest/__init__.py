"""Parsing, decompression and validation of incoming OpenLineage events (no storage here).

- :func:`accept` with a :class:`Policy` (or a :class:`Door`: the policy and its validator) — the one door
  every event enters by (headwater.ingest.accept);
- :func:`accept_usual` — the fast path alone: the usual valid RunEvents decoded in one pass, each distinct
  facet checked once (headwater.ingest.decode), or None;
- :func:`decode_body` — media type, Content-Encoding (gzip/deflate), size limit, UTF-8;
- :func:`parse_event` / :func:`parse_batch` — JSON, then validation against the official schemas;
- :class:`IngestError` — what is wrong (status, code, message, problems with JSON paths).
"""

from __future__ import annotations

from headwater.ingest.accept import Door, Policy, accept, accept_usual
from headwater.ingest.body import decode_body
from headwater.ingest.errors import IngestError
from headwater.ingest.parse import ParsedEvent, parse_batch, parse_event, parse_json

__all__ = [
    "Door",
    "IngestError",
    "Policy",
    "accept",
    "accept_usual",
    "ParsedEvent",
    "decode_body",
    "parse_batch",
    "parse_event",
    "parse_json",
]
