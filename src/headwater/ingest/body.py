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
_JSON_TYPES = ("application/json", "text/json", "text/plain")


def check_media_type(content_type: str | None) -> None:
    """Accept a JSON media type (or none); refuse forms, multipart and other types with 415."""
    if not content_type:
        return
    media = content_type.split(";", 1)[0].strip().lower()
    if not media or media in _JSON_TYPES or media.endswith("+json") or media == "*/*":
        return
    raise IngestError(
        415, "unsupported_media_type",
        f"Content-Type {media!r} is not accepted: send OpenLineage events as application/json",
    )


def too_large(size_text: str, max_bytes: int) -> IngestError:
    return IngestError(
        413, "payload_too_large",
        f"request body is {size_text}; the limit is {max_bytes} bytes (setting max_body_bytes)",
    )


def _inflate(data: bytes, wbits: int, name: str, max_bytes: int) -> bytes:
    inflater = zlib.decompressobj(wbits)
    out = bytearray()
    pending = data
    try:
        while pending:
            out += inflater.decompress(pending, max_bytes + 1 - len(out))
            if len(out) > max_bytes:
                raise too_large(f"more than {max_bytes} bytes after {name} decompression", max_bytes)
            pending = inflater.unconsumed_tail
        out += inflater.flush()
    except zlib.error as exc:
        raise IngestError(400, "bad_encoding", f"body is not valid {name} data ({exc})") from None
    if len(out) > max_bytes:
        raise too_large(f"more than {max_bytes} bytes after {name} decompression", max_bytes)
    if not inflater.eof:
        raise IngestError(400, "bad_encoding", f"{name} body is truncated (the stream does not end)")
    if name == "gzip" and inflater.unused_data:
        # concatenated gzip members are legal: inflate the rest too
        return out + _inflate(inflater.unused_data, wbits, name, max_bytes - len(out))
    return bytes(out)


def decode_body(
    raw: bytes,
    *,
    content_encoding: str | None,
    content_type: str | None,
    max_bytes: int,
) -> str:
    """The body as text, decompressed and UTF-8 decoded; :class:`IngestError` says what is wrong."""
    check_media_type(content_type)
    encodings = [e.strip().lower() for e in (content_encoding or "").split(",") if e.strip()]
    data = raw
    for encoding in reversed(encodings):  # applied in order listed, so undone in reverse
        if encoding in ("gzip", "x-gzip"):
            data = _inflate(data, _GZIP, "gzip", max_bytes)
        elif encoding == "deflate":
            data = _inflate(data, _DEFLATE, "deflate", max_bytes)
        elif encoding != "identity":
            raise IngestError(
                415, "unsupported_media_type",
                f"Content-Encoding {encoding!r} is not supported: send gzip, deflate or an uncompressed body",
            )
    if len(data) > max_bytes:
        raise too_large(f"{len(data)} bytes", max_bytes)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise IngestError(
            400, "bad_encoding", f"body is not UTF-8 text: invalid byte at offset {exc.start}"
        ) from None
