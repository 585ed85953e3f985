"""The one door events enter by: :func:`accept` with the :class:`Policy` built once from the settings.

Every way an event reaches the log calls it: ``POST /api/v1/lineage`` and ``/batch`` (``api/ingest.py``), the
parse workers (``api/parse_pool.py``), the Spline and DataZone translators, the catalog's own events and the
embedded client of crawlers and harvesters (``client.py``). So the same event gets the same verdict, the same
stored text and the same warnings through every door:

- a refusal is an :class:`~headwater.ingest.IngestError` (status, code, message, a JSON path per problem);
- an acceptance is a list of :class:`~headwater.ingest.ParsedEvent`: the payload, the text the log keeps (one
  event: the body as sent; a batch: each event's own text in the body) and the
  warnings of lenient validation, which the log keeps beside the event (``IncomingEvent.accepted``).

Two ways to the same verdict: the fast path (``ingest.decode``: the usual valid RunEvents, each distinct facet
checked once) answers first when it can; everything else — and every refusal — is the full path's
(``ingest.parse``).

Events a producer built as Python values (:meth:`Door.accept_events`) are written as the HTTP client writes
them (``model.openlineage.batch_body``), so the embedded door sees the text the HTTP door would have seen.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from headwater.ingest.decode import cache_for, fast_accept
from headwater.ingest.limits import Limits
from headwater.ingest.parse import ParsedEvent, accept_item, parse_batch, parse_event
from headwater.model.jsontypes import JSONMapping
from headwater.model.openlineage import batch_body
from headwater.spec import EventValidator

if TYPE_CHECKING:
    from headwater.settings import Settings


@dataclass(frozen=True)
class Policy:
    """What an event must satisfy: the limits, lenient or strict validation, the most events in one body.

    Plain values (a parse worker gets it with each body). The defaults are the settings' defaults."""

    limits: Limits = field(default_factory=Limits)
    lenient: bool = True  # setting ``validation``: lenient (problems outside the core are warnings) or strict
    max_events: int = 10_000  # setting ``max_batch_events``

    @classmethod
    def from_settings(cls, settings: Settings) -> Policy:
        return cls(
            limits=Limits.from_settings(settings),
            lenient=settings.validation == "lenient",
            max_events=int(settings.max_batch_events),
        )


def accept(text: str, policy: Policy, validator: EventValidator, *, batch: bool) -> list[ParsedEvent]:
    """The events of one body (``batch``: an array of events or ``{"events": [...]}``; else one event), all
    accepted or an :class:`~headwater.ingest.IngestError` naming every problem."""
    fast = accept_usual(text, policy, validator, batch=batch)
    if fast is not None:
        return fast
    if batch:
        return parse_batch(text, validator, policy.max_events, policy.limits, lenient=policy.lenient)
    return [parse_event(text, validator, policy.limits, lenient=policy.lenient)]


def accept_usual(
    text: str, policy: Policy, validator: EventValidator, *, batch: bool, mixed: bool = True
) -> list[ParsedEvent] | None:
    """:func:`accept`'s answer when the fast path gives it, else None (then :func:`accept` decides). The usual
    valid RunEvents are taken by the fast path (``ingest.decode``); the other events of a batch are checked one by
    one the full way (``mixed``; else None when there is any); when any of them is refused, None (the full path
    then names every problem of the batch)."""
    fast = fast_accept(text, validator, policy.limits, policy.max_events, cache_for(validator), batch=batch)
    if fast is None:
        return None
    root = "$.events" if batch and text.lstrip().startswith("{") else "$"
    out: list[ParsedEvent] = []
    for i, e in enumerate(fast):
        where = f"{root}[{i}]" if batch else "$"
        if isinstance(e, str):
            if not mixed:
                return None
            checked = accept_item(e, validator, policy.limits, where, lenient=policy.lenient)
            if checked is None:
                return None
            out.append(checked)
        else:
            out.append(ParsedEvent(e.payload, e.raw, "RUN", (), where, e.decoded))
    return out


@dataclass(frozen=True)
class Door:
    """The policy with the validator that applies it: what a process that accepts events holds once."""

    policy: Policy
    validator: EventValidator

    @classmethod
    def from_settings(cls, settings: Settings, validator: EventValidator | None = None) -> Door:
        return cls(Policy.from_settings(settings), validator or EventValidator())

    def accept(self, text: str, *, batch: bool) -> list[ParsedEvent]:
        return accept(text, self.policy, self.validator, batch=batch)

    def accept_events(self, events: Sequence[JSONMapping]) -> list[ParsedEvent]:
        """Events built as Python values, as one batch (written as the HTTP client writes them)."""
        return self.accept(batch_body(events), batch=True)
