"""The one error type of ingest: an HTTP status, a machine code, a message and the problems found."""

from __future__ import annotations

from dataclasses import dataclass, field

from headwater.spec import Problem


@dataclass
class IngestError(Exception):
    """Something wrong with a submitted body; nothing of it is stored.

    ``code`` is one of docs/api.md's error codes (``invalid_json``, ``invalid_event``,
    ``payload_too_large``, ``unsupported_media_type``, ``bad_encoding``).
    """

    status: int
    code: str
    message: str
    details: list[Problem] = field(default_factory=list)

    def __str__(self) -> str:
        return self.message

    def __reduce__(self) -> tuple[type[IngestError], tuple[int, str, str, list[Problem]]]:
        # pickled whole (raised in a parse worker process, answered by the server: headwater.api.parse_pool)
        return (IngestError, (self.status, self.code, self.message, self.details))
