"""DataZone's lineage shapes (botocore's ``datazone`` service model) ↔ Headwater's: pure functions, no I/O.

- **Node ids.** A DataZone node id is at most 36 characters of ``[a-zA-Z0-9_-]``; a Headwater node id
  (``dataset:<namespace>:<name>``, ``job:…``, ``run:<runId>``) is often longer. :func:`node_id` maps one
  to the other: a letter for the kind (``d`` dataset, ``j`` job, ``r`` run) and the first 26 characters
  of the lower-case base32 SHA-256 of the Headwater id (130 bits) — stable across servers and
  rebuilds. It is reversed by lookup: every id the API hands out is recorded with its node
  (``datazone_nodes``). A node is also found by DataZone's ``sourceIdentifier`` (datasets
  ``<namespace>/<name>``, jobs ``<namespace>.<name>``, runs ``<job namespace>.<job name>/<runId>``: the
  forms DataZone derives from an OpenLineage event) and by its Headwater node id.
- **Event ids.** A DataZone event id is 14 characters of ``[a-z0-9]``: the first 14 hex digits of the
  log's event id (the SHA-256 of the event's canonical JSON), found back by prefix within a domain.
- **Timestamps** are answered as epoch seconds in JSON bodies and as ISO 8601 in headers (both read
  by botocore); query-string timestamps are read as ISO 8601 (what botocore sends) or epoch seconds.
- **Pagination tokens** are opaque: base64url JSON of where the page ended and what it paged over.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime

from headwater.model.jsontypes import JSONObject, JSONValue
from headwater.model.nodeid import NodeRef, format_node_id, node_kind, run_node_id
from headwater.model.times import InvalidTime, parse_time, to_micros

DOMAIN_PATTERN = re.compile(r"^dzd[-_][a-zA-Z0-9_-]{1,36}$")
EVENT_ID_LENGTH = 14
EVENT_ID_PATTERN = re.compile(r"^[a-z0-9]{14}$")
NODE_ID_PATTERN = re.compile(r"^[djr][a-z2-7]{26}$")
MAX_RESULTS = 50
MAX_NEIGHBOURS = 100  # LineageNodeReferenceList's max
TYPE_DATASET = "amazon.datazone.DatasetLineageNodeType"
TYPE_JOB = "amazon.datazone.JobLineageNodeType"
TYPE_JOB_RUN = "amazon.datazone.JobRunLineageNodeType"
TYPE_REVISION = "1"
PROCESSING_STATUSES = ("REQUESTED", "PROCESSING", "SUCCESS", "FAILED")
SORT_ORDERS = ("ASCENDING", "DESCENDING")
DIRECTIONS = ("UPSTREAM", "DOWNSTREAM")
_KIND_LETTER = {"dataset": "d", "job": "j", "run": "r"}


class DataZoneError(Exception):
    """An error answered in DataZone's shape: ``x-amzn-ErrorType: <type>`` and ``{"message": ...}``; this class is
    DataZone's ``InternalServerException``, each subclass one of its client errors."""

    status = 500
    error_type = "InternalServerException"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class Invalid(DataZoneError):
    status, error_type = 400, "ValidationException"


class AccessDenied(DataZoneError):
    status, error_type = 403, "AccessDeniedException"


class NotFound(DataZoneError):
    status, error_type = 404, "ResourceNotFoundException"


class Conflict(DataZoneError):
    status, error_type = 409, "ConflictException"


ERRORS: tuple[type[DataZoneError], ...] = (Invalid, AccessDenied, NotFound, Conflict, DataZoneError)


def error_body(message: str) -> dict[str, str]:
    return {"message": message}


# --- identifiers ------------------------------------------------------------------------------------


def check_domain(domain: str) -> str:
    if not DOMAIN_PATTERN.match(domain):
        raise Invalid(
            f"domainIdentifier {domain!r} does not match the DataZone domain id pattern dzd[-_][a-zA-Z0-9_-]{{1,36}} "
            "(any such id is accepted: the domain is recorded with each event posted to it)"
        )
    return domain


def node_id(headwater_id: str) -> str:
    """The DataZone node id of a Headwater node id (see the module docstring)."""
    kind = node_kind(headwater_id)
    letter = _KIND_LETTER.get(kind, "d")
    digest = base64.b32encode(hashlib.sha256(headwater_id.encode("utf-8")).digest()).decode("ascii").lower()
    return letter + digest[:26]


def event_id(log_event_id: str) -> str:
    """The DataZone event id of a log event id."""
    return log_event_id[:EVENT_ID_LENGTH]


def source_identifier(ref: NodeRef, run_job: NodeRef | None = None) -> str:
    """DataZone's ``sourceIdentifier`` of a node (a run's needs its job)."""
    if ref.type == "job":
        return f"{ref.namespace}.{ref.name}"
    if ref.type == "run":
        return f"{run_job.namespace}.{run_job.name}/{ref.name}" if run_job is not None else ref.name
    return f"{ref.namespace}/{ref.name}"


def source_candidates(text: str) -> list[str]:
    """The Headwater node ids a ``sourceIdentifier`` may name, most likely first (namespaces and names may
    themselves hold ``/`` and ``.``, so each split is a candidate)."""
    out: list[str] = []
    for i, ch in enumerate(text):
        if ch == "/" and 0 < i < len(text) - 1:
            out.append(format_node_id("dataset", text[:i], text[i + 1 :]))
        elif ch == "." and 0 < i < len(text) - 1:
            out.append(format_node_id("job", text[:i], text[i + 1 :]))
    slash = text.rfind("/")
    if 0 < slash < len(text) - 1:
        out.append(run_node_id(text[slash + 1 :]))
    return out


def type_name(kind: str) -> str:
    return {"dataset": TYPE_DATASET, "job": TYPE_JOB, "run": TYPE_JOB_RUN}.get(kind, TYPE_DATASET)


# --- times --------------------------------------------------------------------------------------------


def epoch(iso_text: str | None) -> float | None:
    """An ISO 8601 time as epoch seconds (DataZone's JSON timestamps)."""
    if iso_text is None:
        return None
    return to_micros(parse_time(iso_text)) / 1_000_000


def header_time(micros: int) -> str:
    """Microseconds since the epoch as ISO 8601 (header timestamps)."""
    value = datetime.fromtimestamp(micros / 1_000_000, UTC)
    return value.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def query_time(name: str, text: str | None) -> datetime | None:
    """A query-string timestamp: ISO 8601 (botocore's form) or epoch seconds."""
    if text is None or text == "":
        return None
    try:
        return datetime.fromtimestamp(float(text), UTC)
    except (ValueError, OverflowError, OSError):
        pass
    try:
        return parse_time(text)
    except InvalidTime:
        raise Invalid(f"{name}: {text!r} is not a timestamp (ISO 8601 or epoch seconds)") from None


def max_results(text: str | None) -> int:
    if text is None or text == "":
        return MAX_RESULTS
    try:
        value = int(text)
    except ValueError:
        raise Invalid(f"maxResults: {text!r} is not a whole number") from None
    if not 1 <= value <= MAX_RESULTS:
        raise Invalid(f"maxResults: {value} is not between 1 and {MAX_RESULTS}")
    return value


def one_of(name: str, text: str | None, allowed: tuple[str, ...], default: str | None) -> str | None:
    if text is None or text == "":
        return default
    if text not in allowed:
        raise Invalid(f"{name}: {text!r} is not one of {', '.join(allowed)}")
    return text


# --- pagination tokens ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Token:
    """Where a page ended (``after``) for one listing (``scope``: what was listed, and how)."""

    scope: str
    after: list[JSONValue]


def encode_token(token: Token) -> str:
    text = json.dumps({"s": token.scope, "a": token.after}, separators=(",", ":"))
    return base64.urlsafe_b64encode(text.encode("utf-8")).decode("ascii").rstrip("=")


def decode_token(text: str | None, scope: str) -> Token | None:
    if text is None or text == "":
        return None
    try:
        data = json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
        token = Token(scope=str(data["s"]), after=list(data["a"]))
    except (ValueError, KeyError, TypeError):
        raise Invalid("nextToken: not a token this server gave (pass the nextToken of the previous answer)") from None
    if token.scope != scope:
        raise Invalid("nextToken: the token belongs to another listing (same parameters as the first call)")
    return token


def page_end(token: Token | None) -> tuple[int, str] | None:
    """Where the page before ended, as a ``(time in microseconds, id)`` key (None: the first page)."""
    if token is None:
        return None
    try:
        return int(token.after[0]), str(token.after[1])
    except (IndexError, ValueError, TypeError):
        raise Invalid("nextToken: not a token this server gave") from None


# --- answers ----------------------------------------------------------------------------------------------


def name_identifier(item: JSONValue) -> dict[str, str]:
    if not isinstance(item, dict):
        return {}
    out = {}
    for key in ("namespace", "name"):
        if isinstance(item.get(key), str):
            out[key] = item[key]
    return out


def run_event_summary(event: JSONObject) -> JSONObject:
    """``OpenLineageRunEventSummary`` of a RunEvent."""
    summary: JSONObject = {}
    if isinstance(event.get("eventType"), str):
        summary["eventType"] = event["eventType"]
    run = event.get("run")
    if isinstance(run, dict) and isinstance(run.get("runId"), str):
        summary["runId"] = run["runId"]
    if isinstance(event.get("job"), dict):
        summary["job"] = name_identifier(event["job"])
    for key in ("inputs", "outputs"):
        items = event.get(key)
        summary[key] = [name_identifier(i) for i in items] if isinstance(items, list) else []
    return summary


def form(name: str, type_: str, content: JSONValue) -> JSONObject:
    """A ``FormOutput``: the content as JSON text."""
    return {
        "formName": name,
        "typeName": type_,
        "typeRevision": TYPE_REVISION,
        "content": json.dumps(content, separators=(",", ":"), sort_keys=True),
    }


def description(facets: JSONValue) -> str | None:
    """A node's description: its ``documentation`` facet."""
    if isinstance(facets, dict):
        doc = facets.get("documentation")
        if isinstance(doc, dict) and isinstance(doc.get("description"), str):
            return str(doc["description"])
    return None


def drop_none(answer: JSONObject) -> JSONObject:
    return {k: v for k, v in answer.items() if v is not None}
