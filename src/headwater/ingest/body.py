"""Turn a request body into JSON text: check media type, undo Content-Encoding, enforce the size limit.

Pure functions over bytes and header values; the API reads the body and calls :func:`decode_body`.
Decompression is bounded: a small gzip body that would inflate past ``max_bytes`` is refused
without ever holding more than ``max_bytes + 1`` bytes.
"""

from __future__ import annotations

import zlib

from headwater.ingest.errors import IngestError

_GZIP = zlib.MAX_WBITS | 16
_DEFLATE = zlib.MAX_WBITS  # zlib-wrapped, as HTTP's "deflate" means
_CHUNK = 64 * 1024
_JSON_TYPES = ("application/json", "text/json")


def check_media_type(content_type: str | None) -> None:
    """Accept a JSON media type only (``application/json``, ``text/json``, ``*/*+json``); 415 otherwise.

    A missing type and ``text/plain`` are refused too: with them a cross-site web page can send a
    "simple" request the browser does not preflight (CSRF), while every OpenLineage client sends
    ``application/json``.
    """
    media = (content_type or "").split(";", 1)[0].strip().lower()
    if media in _JSON_TYPES or (media.endswith("+json") and "/" in media):
        return
    shown = f"Content-Type {media!r} is" if media else "a body without Content-Type is"
    raise IngestError(
        415,
        "unsupported_media_type",
        f"{shown} not accepted: send OpenLineage events as Content-Type: application/json",
    )


def too_large(size_text: str, max_bytes: int) -> IngestError:
    return IngestError(
        413,
        "payload_too_large",
        f"request body is {size_text}; the limit is {max_bytes} bytes (setting max_body_bytes)",
    )


def _inflate(data: bytes, wbits: int, name: str, max_bytes: int, max_members: int) -> bytes:
    """Inflate ``data`` in one streaming loop: at most ``max_bytes`` out, at most ``max_members`` gzip members.

    Concatenated gzip members are legal (RFC 1952); each starts a new decompressor over the rest
    of the input — a loop, not recursion, and one output buffer, so neither the stack nor memory
    grows with the number of members.
    """
    out = bytearray()
    view = memoryview(data)
    taken = 0  # bytes of ``data`` handed to a decompressor so far, a chunk at a time
    carry: bytes | memoryview = b""  # input taken but not consumed yet (at most one chunk)
    inflater = zlib.decompressobj(wbits)
    members = 1

    def check_size() -> None:
        if len(out) > max_bytes:
            raise too_large(f"more than {max_bytes} bytes after {name} decompression", max_bytes)

    try:
        while True:
            if not carry:
                if taken >= len(view):
                    break
                carry = view[taken : taken + _CHUNK]
                taken += len(carry)
            out += inflater.decompress(carry, max_bytes + 1 - len(out))
            check_size()
            if not inflater.eof:
                carry = inflater.unconsumed_tail
                continue
            carry = inflater.unused_data  # the next member's start (short: it came from one chunk)
            if name != "gzip" or (not carry and taken >= len(view)):
                break
            members += 1
            if members > max_members:
                raise IngestError(
                    413,
                    "payload_too_large",
                    f"{name} body holds more than {max_members} concatenated members (setting max_gzip_members)",
                )
            inflater = zlib.decompressobj(wbits)
        out += inflater.flush()
        check_size()
    except zlib.error as exc:
        raise IngestError(400, "bad_encoding", f"body is not valid {name} data ({exc})") from None
    if not inflater.eof:
        raise IngestError(400, "bad_encoding", f"{name} body is truncated (the stream does not end)")
    return bytes(out)


def decode_body(
    raw: bytes,
    *,
    content_encoding: str | None,
    content_type: str | None,
    max_bytes: int,
    max_members: int = 1_000,
) -> str:
    """The body as text, decompressed and UTF-8 decoded; :class:`IngestError` says what is wrong."""
    check_media_type(content_type)
    encodings = [e.strip().lower() for e in (content_encoding or "").split(",") if e.strip()]
    if len(encodings) > 4:
        raise IngestError(
            415, "unsupported_media_type", f"Content-Encoding lists {len(encodings)} encodings; at most 4 are undone"
        )
    data = raw
    for encoding in reversed(encodings):  # applied in order listed, so undone in reverse
        if encoding in ("gzip", "x-gzip"):
            data = _inflate(data, _GZIP, "gzip", max_bytes, max_members)
        elif encoding == "deflate":
            data = _inflate(data, _DEFLATE, "deflate", max_bytes, max_members)
        elif encoding != "identity":
            raise IngestError(
                415,
                "unsupported_media_type",
                f"Content-Encoding {encoding!r} is not supported: send gzip, deflate or an uncompressed body",
            )
    if len(data) > max_bytes:
        raise too_large(f"{len(data)} bytes", max_bytes)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise IngestError(400, "bad_encoding", f"body is not UTF-8 text: invalid byte at offset {exc.start}") from None
