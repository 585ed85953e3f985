"""AWS Signature Version 4 checked with botocore's own signer (the DataZone lineage API's authentication).

A request signed by an AWS SDK carries ``Authorization: AWS4-HMAC-SHA256 Credential=<key id>/<date>/
<region>/<service>/aws4_request, SignedHeaders=<names>, Signature=<hex>`` and ``X-Amz-Date``. Here the
access key id is looked up among the configured keys, the request is rebuilt as the client signed it
(method, the path and query exactly as sent, the signed headers only, the body) and
:class:`botocore.auth.SigV4Auth` computes the canonical request, the string to sign and the signature
with the configured secret; the two signatures are compared in constant time. No cryptography is
written here: the signing key derivation and every hash are botocore's.

Refused (:class:`SignatureError`, answered as DataZone's ``AccessDeniedException``): no or a malformed
``Authorization``, an unknown access key id, another service than the one served, a signing time more
than 15 minutes away from the server's clock (AWS's own window), a body whose hash is not the signed
one, a signature that does not match. Query-string (presigned) signatures are not accepted.
"""

from __future__ import annotations

import hmac
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from botocore.auth import SIGV4_TIMESTAMP, SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

ALGORITHM = "AWS4-HMAC-SHA256"
MAX_SKEW = timedelta(minutes=15)
_AUTH = re.compile(
    r"^AWS4-HMAC-SHA256\s+Credential=(?P<credential>[^,\s]+)\s*,\s*"
    r"SignedHeaders=(?P<signed>[^,\s]+)\s*,\s*Signature=(?P<signature>[0-9a-fA-F]+)\s*$"
)


class SignatureError(Exception):
    """The request is not signed by a configured key; the message says what is wrong (never a secret)."""


@dataclass(frozen=True)
class SignedRequest:
    """A request as it arrived: ``path`` and ``query`` exactly as sent (still percent-encoded)."""

    method: str
    path: str
    query: str
    headers: Sequence[tuple[str, str]]
    body: bytes


@dataclass(frozen=True)
class Signer:
    """Who signed: the access key id and the credential scope's region."""

    access_key_id: str
    region: str


def _header(headers: Sequence[tuple[str, str]], name: str) -> str | None:
    values = [v for k, v in headers if k.lower() == name]
    return ",".join(values) if values else None


def verify(
    request: SignedRequest,
    keys: Mapping[str, str],
    *,
    service: str,
    now: datetime | None = None,
) -> Signer:
    """The signer of ``request`` when its SigV4 signature is valid for one of ``keys`` (key id → secret)."""
    authorization = _header(request.headers, "authorization")
    if not authorization:
        raise SignatureError(
            "the request is not signed: this server checks AWS Signature Version 4 with the access keys of its "
            "datazone_access_keys setting (configure the client with one of them)"
        )
    if not authorization.startswith(ALGORITHM):
        raise SignatureError(f"unsupported Authorization scheme: only {ALGORITHM} (SigV4) signatures are accepted")
    match = _AUTH.match(authorization.strip())
    if match is None:
        raise SignatureError("malformed Authorization header: expected Credential=, SignedHeaders= and Signature=")
    scope = match["credential"].split("/")
    if len(scope) != 5 or scope[4] != "aws4_request":
        raise SignatureError(
            "malformed credential scope: expected <access key id>/<yyyymmdd>/<region>/<service>/aws4_request"
        )
    key_id, date, region, signed_service = scope[:4]
    secret = keys.get(key_id)
    if secret is None:
        raise SignatureError(f"the access key id {key_id!r} is not one of this server's datazone_access_keys")
    if signed_service != service:
        raise SignatureError(f"the request is signed for service {signed_service!r}; this endpoint is {service!r}")
    stamp = _header(request.headers, "x-amz-date")
    if stamp is None:
        raise SignatureError("the request has no X-Amz-Date header (the signing time)")
    try:
        signed_at = datetime.strptime(stamp, SIGV4_TIMESTAMP).replace(tzinfo=UTC)
    except ValueError:
        raise SignatureError(f"X-Amz-Date {stamp!r} is not a SigV4 time (yyyymmddThhmmssZ)") from None
    if stamp[:8] != date:
        raise SignatureError(f"the credential scope's date {date} is not the date of X-Amz-Date {stamp}")
    clock = now or datetime.now(UTC)
    if abs(clock - signed_at) > MAX_SKEW:
        raise SignatureError(
            f"the signature has expired or is not valid yet: signed at {stamp}, the server's time is "
            f"{clock.strftime(SIGV4_TIMESTAMP)} (at most {int(MAX_SKEW.total_seconds() // 60)} minutes apart)"
        )
    names = match["signed"].lower().split(";")
    if "host" not in names:
        raise SignatureError("the Host header must be signed (SignedHeaders has no 'host')")
    signed_headers: list[tuple[str, str]] = []
    for name in names:
        value = _header(request.headers, name)
        if value is None:
            raise SignatureError(f"the signed header {name!r} is not in the request")
        signed_headers.append((name, value))
    host = _header(request.headers, "host") or ""
    url = f"http://{host}{request.path}" + (f"?{request.query}" if request.query else "")
    rebuilt = AWSRequest(method=request.method.upper(), url=url, headers=dict(signed_headers), data=request.body)
    rebuilt.context["timestamp"] = stamp
    signer = SigV4Auth(Credentials(key_id, secret), service, region)
    if signer.signed_headers(signer.headers_to_sign(rebuilt)) != ";".join(sorted(names)):
        raise SignatureError(f"SignedHeaders {match['signed']!r} names headers that cannot be signed (SigV4)")
    declared = _header(request.headers, "x-amz-content-sha256")
    if declared is not None and "x-amz-content-sha256" in names:
        computed = signer.payload(AWSRequest(method=request.method.upper(), url=url, data=request.body))
        if not hmac.compare_digest(declared.lower(), computed):
            raise SignatureError("the body's SHA-256 is not the signed X-Amz-Content-SHA256")
    canonical = signer.canonical_request(rebuilt)
    expected = signer.signature(signer.string_to_sign(rebuilt, canonical), rebuilt)
    if not hmac.compare_digest(expected, match["signature"].lower()):
        raise SignatureError(
            "the request signature we calculated does not match the signature you provided: check the secret "
            "access key and the signing method"
        )
    return Signer(access_key_id=key_id, region=region)
