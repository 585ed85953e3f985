"""The DataZone translator's pure parts: SigV4 checking (requests signed by botocore itself), node and event
ids, sourceIdentifier candidates, pagination tokens."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

from headwater.api import datazone_shapes as dz
from headwater.api.sigv4 import SignatureError, SignedRequest, verify
from headwater.model.nodeid import parse_node_id

KEYS = {"AKIDEXAMPLE": "secret/with+chars", "AKIDOTHER": "other"}
NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


def _signed(
    url: str = "http://127.0.0.1:5000/v2/domains/dzd_x/lineage/nodes/s3%3A%2F%2Fb%2Fk?timestamp=2026-01-01T00%3A00%3A00Z",
    *,
    method: str = "GET",
    data: bytes = b"",
    key: str = "AKIDEXAMPLE",
    secret: str = "secret/with+chars",
    service: str = "datazone",
    when: datetime = NOW,
    extra: dict[str, str] | None = None,
) -> SignedRequest:
    """A request signed by botocore's SigV4Auth at ``when``, as the server receives it."""
    request = AWSRequest(method=method, url=url, data=data, headers=extra or {})
    signer = SigV4Auth(Credentials(key, secret), service, "eu-west-1")
    stamp = when.strftime("%Y%m%dT%H%M%SZ")
    request.context["timestamp"] = stamp
    request.headers["X-Amz-Date"] = stamp
    request.headers["Host"] = "127.0.0.1:5000"
    canonical = signer.canonical_request(request)
    signature = signer.signature(signer.string_to_sign(request, canonical), request)
    request.headers["Authorization"] = (
        f"AWS4-HMAC-SHA256 Credential={signer.scope(request)}, "
        f"SignedHeaders={signer.signed_headers(signer.headers_to_sign(request))}, Signature={signature}"
    )
    path, _, query = url.split("127.0.0.1:5000", 1)[1].partition("?")
    return SignedRequest(method, path, query, [(k.lower(), v) for k, v in request.headers.items()], data)


def _with_header(request: SignedRequest, name: str, value: str | None) -> SignedRequest:
    headers = [(k, v) for k, v in request.headers if k != name]
    if value is not None:
        headers.append((name, value))
    return SignedRequest(request.method, request.path, request.query, headers, request.body)


def test_a_botocore_signature_verifies() -> None:
    signer = verify(_signed(), KEYS, service="datazone", now=NOW)
    assert (signer.access_key_id, signer.region) == ("AKIDEXAMPLE", "eu-west-1")
    posted = _signed("http://127.0.0.1:5000/v2/domains/dzd_x/lineage/events", method="POST", data=b'{"a": 1}')
    assert verify(posted, KEYS, service="datazone", now=NOW + timedelta(minutes=14)).access_key_id == "AKIDEXAMPLE"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: _with_header(r, "authorization", None), "not signed"),
        (lambda r: _with_header(r, "authorization", "Bearer abc"), "only AWS4-HMAC-SHA256"),
        (lambda r: _with_header(r, "authorization", "AWS4-HMAC-SHA256 Credential=x"), "malformed Authorization"),
        (lambda r: _with_header(r, "x-amz-date", None), "X-Amz-Date"),
        (lambda r: _with_header(r, "host", "evil.example"), "does not match"),
        (lambda r: SignedRequest(r.method, r.path, "timestamp=2027-01-01", r.headers, r.body), "does not match"),
        (
            lambda r: SignedRequest(r.method, r.path.replace("dzd_x", "dzd_y"), r.query, r.headers, r.body),
            "does not match",
        ),
        (lambda r: SignedRequest("DELETE", r.path, r.query, r.headers, r.body), "does not match"),
        (lambda r: SignedRequest(r.method, r.path, r.query, r.headers, b"added"), "does not match"),
    ],
)
def test_a_changed_request_is_refused(change: object, message: str) -> None:
    request = change(_signed())  # type: ignore[operator]
    with pytest.raises(SignatureError, match=message):
        verify(request, KEYS, service="datazone", now=NOW)


def test_keys_service_and_time_are_checked() -> None:
    with pytest.raises(SignatureError, match="AKIDUNKNOWN"):
        verify(_signed(key="AKIDUNKNOWN"), KEYS, service="datazone", now=NOW)
    with pytest.raises(SignatureError, match="does not match"):
        verify(_signed(secret="guess"), KEYS, service="datazone", now=NOW)
    with pytest.raises(SignatureError, match="service 's3'"):
        verify(_signed(service="s3"), KEYS, service="datazone", now=NOW)
    with pytest.raises(SignatureError, match="expired"):
        verify(_signed(when=NOW - timedelta(minutes=16)), KEYS, service="datazone", now=NOW)
    with pytest.raises(SignatureError, match="expired or is not valid yet"):
        verify(_signed(when=NOW + timedelta(minutes=16)), KEYS, service="datazone", now=NOW)
    assert (
        verify(_signed(key="AKIDOTHER", secret="other"), KEYS, service="datazone", now=NOW).access_key_id == "AKIDOTHER"
    )


def test_a_signed_body_hash_must_be_the_body_s() -> None:
    url = "http://127.0.0.1:5000/v2/domains/dzd_x/lineage/events"
    declared = "0" * 64
    request = _signed(url, method="POST", data=b"{}", extra={"X-Amz-Content-SHA256": declared})
    with pytest.raises(SignatureError, match="SHA-256"):
        verify(request, KEYS, service="datazone", now=NOW)


def test_node_ids_are_stable_short_and_kinded() -> None:
    ids = {
        "dataset:postgres://db:5432:shop.public.orders": "d",
        "job:airflow:etl.daily_sales": "j",
        "run:0190f1c2-7a34-7b55-8c66-9d77e8f90a1b": "r",
    }
    for headwater_id, letter in ids.items():
        made = dz.node_id(headwater_id)
        assert made == dz.node_id(headwater_id)
        assert made[0] == letter
        assert re.fullmatch(r"[a-zA-Z0-9_-]{1,36}", made)  # DataZone's LineageNodeId
        assert dz.NODE_ID_PATTERN.match(made)
    assert dz.node_id("dataset:a:b") != dz.node_id("dataset:a:c")
    assert dz.node_id("dataset:ns:" + "x" * 500) != dz.node_id("dataset:ns:" + "x" * 499)
    assert dz.event_id("ab" * 32) == "ab" * 7 and dz.EVENT_ID_PATTERN.match(dz.event_id("0f" * 32))


def test_source_identifiers_and_their_candidates() -> None:
    dataset = parse_node_id("dataset:s3://lake:raw/orders")
    job = parse_node_id("job:airflow.prod:dag.task")
    run = parse_node_id("run:0190f1c2-7a34-7b55-8c66-9d77e8f90a1b")
    assert dz.source_identifier(dataset) == "s3://lake/raw/orders"
    assert dz.source_identifier(job) == "airflow.prod.dag.task"
    assert dz.source_identifier(run, job) == "airflow.prod.dag.task/0190f1c2-7a34-7b55-8c66-9d77e8f90a1b"
    for ref, other in ((dataset, None), (job, None), (run, job)):
        assert ref.id in dz.source_candidates(dz.source_identifier(ref, other))


def test_tokens_round_trip_and_belong_to_their_listing() -> None:
    token = dz.encode_token(dz.Token("events|dzd_x", [123, "abc"]))
    assert dz.decode_token(token, "events|dzd_x") == dz.Token("events|dzd_x", [123, "abc"])
    with pytest.raises(dz.DataZoneError, match="another listing"):
        dz.decode_token(token, "events|dzd_y")
    with pytest.raises(dz.DataZoneError, match="not a token"):
        dz.decode_token("%%%", "events|dzd_x")
    assert dz.decode_token(None, "x") is None
