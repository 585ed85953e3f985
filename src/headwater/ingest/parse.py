"""Parse and validate one event or a batch of events from JSON text.

Pure functions: text in, :class:`ParsedEvent` list out, or an :class:`IngestError` that lists
every problem (path + message). Nothing is stored here.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NoReturn

import msgspec

from headwater.ingest.errors import IngestError
from headwater.ingest.limits import (
    Limits,
    key_path,
    name_problems,
    nul_escaped,
    structure_problems,
    text_needs_checking,
)
from headwater.model.jsontext import dumps, loads_text
from headwater.model.jsontypes import JSONValue
from headwater.spec import EventKind, EventValidator, Problem, classify

if TYPE_CHECKING:
    from headwater.ingest.decode import Decoded


@dataclass(frozen=True)
class ParsedEvent:
    """A valid event: its parsed JSON, its text as stored, its kind, and what it did not satisfy when
    accepted leniently (``warnings``: problems outside the core, see :meth:`EventValidator.check`, with paths
    in the request's body: ``$[2]...`` for the third event of a batch; ``root``: the event's own path there).
    ``payload`` is the value of ``raw`` (what parsing the stored text gives), never mutated: the store hands it
    to the projector. ``decoded``: the event's parts when the fast path accepted it (``ingest.decode``)."""

    payload: dict[str, Any]
    raw: str
    kind: EventKind
    warnings: tuple[Problem, ...] = ()
    root: str = "$"
    decoded: Decoded | None = None

    def stored_warnings(self) -> list[dict[str, str]]:
        """The warnings as the log keeps them beside the event: paths from the event's own root (``$.run...``),
        whichever door and place in a batch it came by."""
        cut = len(self.root)
        return [{"path": "$" + w.path[cut:], "message": w.message} for w in self.warnings]


def _reject_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not valid JSON")


def _too_deep(limits: Limits) -> IngestError:
    message = f"JSON is nested deeper than the limit of {limits.max_json_depth} levels (setting max_json_depth)"
    return IngestError(422, "invalid_event", f"$: {message}", [Problem("$", message)])


def parse_json(text: str, limits: Limits | None = None) -> JSONValue:
    """Parse JSON text; 400 ``invalid_json`` with line and column when it is not JSON.

    Nesting too deep for the parsers (orjson stops at 1024 levels, the standard library at the
    interpreter's recursion limit) answers 422 naming ``max_json_depth``, never a RecursionError.
    """
    limits = limits or Limits()
    if not text.strip():
        raise IngestError(400, "invalid_json", "request body is empty: expected an OpenLineage event as JSON")
    try:
        return loads_text(text, parse_constant=_reject_constant)
    except RecursionError:
        raise _too_deep(limits) from None
    except json.JSONDecodeError as exc:
        raise IngestError(
            400,
            "invalid_json",
            f"request body is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno} (char {exc.pos})",
        ) from None
    except ValueError as exc:
        raise IngestError(400, "invalid_json", f"request body is not valid JSON: {exc}") from None


def _invalid(problems: list[Problem], what: str) -> IngestError:
    count = len(problems)
    first = problems[0]
    more = f" (and {count - 1} more problem{'s' if count > 2 else ''})" if count > 1 else ""
    return IngestError(422, "invalid_event", f"{what}: {first.path}: {first.message}{more}", problems)


# An escaped UTF-16 surrogate in JSON text (``\ud800``): JSON's parser pairs valid ones into one
# character; a lone one stays a surrogate, which is not Unicode text (no UTF-8 form, no canonical
# JSON form for the event id). Only texts holding such an escape are walked.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _is_surrogate(text: str) -> bool:
    return any("\ud800" <= c <= "\udfff" for c in text)


def lone_surrogates(value: JSONValue, path: str) -> list[Problem]:
    """Where ``value`` holds text with a lone UTF-16 surrogate (keys and strings), as problems."""
    found: list[Problem] = []
    message = (
        "text holds a lone UTF-16 surrogate (an unpaired \\ud800-\\udfff escape), which is not Unicode: "
        "send the character as UTF-8 or as a surrogate pair"
    )
    stack: list[tuple[Any, str]] = [(value, path)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            if _is_surrogate(item):
                found.append(Problem(where, message))
        elif isinstance(item, dict):
            for key, child in item.items():
                here = key_path(where, key)
                if _is_surrogate(key):
                    found.append(Problem(f"{here} (a key)", message))
                stack.append((child, here))
        elif isinstance(item, list):
            stack.extend((child, f"{where}[{i}]") for i, child in enumerate(item))
    return sorted(found, key=lambda p: p.path)


def _checked(
    payload: JSONValue,
    raw: str,
    validator: EventValidator,
    root: str,
    scan_text: bool = False,
    limits: Limits | None = None,
    check_text: bool = True,
    lenient: bool = False,
    nul: bool = True,
) -> ParsedEvent | list[Problem]:
    limits = limits or Limits()
    # lone surrogates first, in keys and values alike (an iterative walk: any depth is safe), so no other
    # problem's path or message ever holds one; then the structure: the schema validator and the canonical
    # form recurse, so nothing deeper than the limit reaches them
    if scan_text:
        lone = lone_surrogates(payload, root)
        if lone:
            return lone
    problems = structure_problems(payload, root, limits, check_text, nul=nul)
    if problems:
        return problems
    problems, warnings = validator.check(payload, root, lenient=lenient)
    problems = problems or name_problems(payload, root, limits)
    if problems:
        return problems
    kind = classify(payload)
    assert kind is not None  # check() reports events without a kind
    return ParsedEvent(payload=payload, raw=raw, kind=kind, warnings=tuple(warnings))


def parse_event(
    text: str, validator: EventValidator, limits: Limits | None = None, *, lenient: bool = False
) -> ParsedEvent:
    """One event (``POST /api/v1/lineage``); its stored text is the body exactly as sent.

    ``lenient``: problems outside the event's core are the answer's ``warnings``, not a refusal."""
    payload = parse_json(text, limits)
    if isinstance(payload, list):
        raise IngestError(
            422,
            "invalid_event",
            f"$: expected one OpenLineage event (a JSON object), got an array of {len(payload)}; "
            "send arrays to /api/v1/lineage/batch",
            [Problem("$", "expected a JSON object (an OpenLineage event), got array")],
        )
    limits = limits or Limits()
    result = _checked(
        payload,
        text,
        validator,
        "$",
        _SURROGATE_ESCAPE.search(text) is not None,
        limits,
        text_needs_checking(text, limits),
        lenient,
    )
    if isinstance(result, list):
        raise _invalid(result, "the event is not a valid OpenLineage event")
    return result


class _Events(msgspec.Struct):
    events: list[msgspec.Raw]


_ITEMS = msgspec.json.Decoder(list[msgspec.Raw] | _Events)


def batch_items(body: str | bytes) -> list[msgspec.Raw] | None:
    """Each event of a batch body (an array, or ``{"events": [...]}``) as msgspec's slice of it, from its first to
    its last character; None when msgspec does not split the body (not JSON, another shape, nested too deep)."""
    try:
        items = _ITEMS.decode(body)
    except (msgspec.DecodeError, RecursionError):
        return None
    return items.events if isinstance(items, _Events) else items


def item_texts(text: str) -> list[str] | None:
    """Each event of a batch body as its text stands there, so that a batch's events are stored as sent, as a
    single event's body is: a decimal longer than a double, an exponent's form, an escape and the producer's
    spacing kept. None when msgspec does not split the body (then each event is written compactly from its parsed
    value)."""
    raws = batch_items(text)
    return None if raws is None else [bytes(raw).decode("utf-8") for raw in raws]


def accept_item(
    text: str, validator: EventValidator, limits: Limits, root: str, *, lenient: bool
) -> ParsedEvent | None:
    """One event of a batch, from its own text, as :func:`parse_batch` accepts it (``text`` stored as it is,
    warnings at ``root``); None when it is refused or not an object (:func:`parse_batch` then says why, with the
    others)."""
    try:
        payload = parse_json(text, limits)
    except IngestError:
        return None
    if not isinstance(payload, dict):
        return None
    scan = _SURROGATE_ESCAPE.search(text) is not None
    result = _checked(
        payload, "", validator, root, scan, limits, text_needs_checking(text, limits), lenient, nul_escaped(text)
    )
    if isinstance(result, list):
        return None
    return ParsedEvent(result.payload, text, result.kind, result.warnings, root)


def _batch_items(payload: JSONValue) -> tuple[list[JSONValue], str]:
    if isinstance(payload, list):
        return payload, "$"
    if isinstance(payload, dict) and isinstance(payload.get("events"), list):
        return payload["events"], "$.events"
    raise IngestError(
        422,
        "invalid_event",
        '$: a batch is a JSON array of events or an object {"events": [...]}',
        [Problem("$", 'expected a JSON array of events or {"events": [...]}')],
    )


def parse_batch(
    text: str, validator: EventValidator, max_events: int, limits: Limits | None = None, *, lenient: bool = False
) -> list[ParsedEvent]:
    """Many events (``POST /api/v1/lineage/batch``); all valid or an error listing every bad one."""
    items, root = _batch_items(parse_json(text, limits))
    if len(items) > max_events:
        raise IngestError(
            413,
            "payload_too_large",
            f"batch holds {len(items)} events; the limit is {max_events} (setting max_batch_events)",
        )
    parsed: list[ParsedEvent] = []
    problems: list[Problem] = []
    bad = 0
    scan = _SURROGATE_ESCAPE.search(text) is not None
    limits = limits or Limits()
    check_text = text_needs_checking(text, limits)  # a batch's text is longer than one string may be: True
    nul = nul_escaped(text)
    texts = item_texts(text)
    if texts is not None and len(texts) != len(items):
        texts = None  # msgspec read another body than the parser did: write each event from its value
    for i, item in enumerate(items):
        result = _checked(item, "", validator, f"{root}[{i}]", scan, limits, check_text, lenient, nul)
        if isinstance(result, ParsedEvent):
            stored = texts[i] if texts is not None else dumps(item)
            result = ParsedEvent(result.payload, stored, result.kind, result.warnings, f"{root}[{i}]")
        if isinstance(result, list):
            bad += 1
            problems.extend(result)
        else:
            parsed.append(result)
    if problems:
        raise _invalid(problems, f"{bad} of {len(items)} events are not valid OpenLineage events; none was stored")
    return parsed
