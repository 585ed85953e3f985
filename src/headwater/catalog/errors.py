"""The catalog's one error: an HTTP-like status, a code and a message naming what and where."""

from __future__ import annotations


class CatalogError(Exception):
    """A refused catalog request: ``status`` (400, 403, 404, 409), ``code`` and a message that says what."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


def bad_request(message: str) -> CatalogError:
    return CatalogError(400, "invalid_request", message)


def forbidden(message: str) -> CatalogError:
    return CatalogError(403, "forbidden", message)


def not_found(message: str) -> CatalogError:
    return CatalogError(404, "not_found", message)


def conflict(message: str) -> CatalogError:
    return CatalogError(409, "conflict", message)
