"""The catalog's refusals: one exception class per kind, each with a message naming what and where.

The catalog knows no HTTP: the API maps each kind to its answer (``api/errors.py``: invalid request 400,
forbidden 403, not found 404, conflict 409; an event the ingest door refused answers as that door would).
"""

from __future__ import annotations

from headwater.ingest import IngestError


class CatalogError(Exception):
    """A refused catalog request; ``message`` says what (the subclass says which kind)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidRequest(CatalogError):
    """A parameter or body the catalog cannot take (a bad id, an unknown role or glossary term)."""


class Forbidden(CatalogError):
    """The principal's role does not allow it; the message says which role is needed."""


class NotFound(CatalogError):
    """No such thing, or none the principal may see."""


class Conflict(CatalogError):
    """The change conflicts with the current state (exists already, not published, ...)."""


class EventRefused(CatalogError):
    """The ingest door refused an event the catalog sent (a name longer than ``max_name_bytes``, say)."""

    def __init__(self, refusal: IngestError) -> None:
        super().__init__(f"the catalog's event was refused: {refusal.message}")
        self.refusal = refusal
