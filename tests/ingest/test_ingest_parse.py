"""Body decoding (media type, gzip/deflate, size limit, UTF-8) and event/batch parsing."""

from __future__ import annotations

import gzip
import json
import zlib

import pytest
from ingest_events import run_event

from headwater.ingest import IngestError, decode_body, parse_batch, parse_event
from headwater.spec import EventValidator

LIMIT = 10_000


def decode(raw: bytes, encoding: str | None = None, ctype: str | None = "application/json", limit: int = LIMIT) -> str:
    return decode_body(raw, content_encoding=encoding, content_type=ctype, max_bytes=limit)


def error_of(call: object, *args: object, **kwargs: object) -> IngestError:
    with pytest.raises(IngestError) as info:
        call(*args, **kwargs)  # type: ignore[operator]
    return info.value


def test_plain_gzip_and_deflate_bodies_decode_to_the_same_text() -> None:
    text = json.dumps(run_event())
    data = text.encode()
    assert decode(data) == text
    assert decode(gzip.compress(data), "gzip") == text
    assert decode(gzip.compress(data), "x-gzip") == text
    assert decode(zlib.compress(data), "deflate") == text
    assert decode(gzip.compress(data[:50]) + gzip.compress(data[50:]), "gzip") == text  # multi-member
    assert decode(b"\xef\xbb\xbf" + data) == text  # UTF-8 byte order mark dropped
    assert decode(data, "identity", "application/json; charset=utf-8") == text


def test_bad_gzip_is_a_clear_400() -> None:
    err = error_of(decode, b"this is not gzip", "gzip")
    assert (err.status, err.code) == (400, "bad_encoding")
    assert "not valid gzip data" in err.message
    err = error_of(decode, gzip.compress(b'{"a": 1}' * 100)[:-12], "gzip")
    assert (err.status, err.code) == (400, "bad_encoding")
    assert "truncated" in err.message


def test_size_limit_holds_before_and_after_decompression() -> None:
    err = error_of(decode, b"x" * (LIMIT + 1))
    assert (err.status, err.code) == (413, "payload_too_large")
    assert f"the limit is {LIMIT} bytes" in err.message
    bomb = gzip.compress(b" " * (LIMIT * 100))
    assert len(bomb) < LIMIT
    err = error_of(decode, bomb, "gzip")
    assert (err.status, err.code) == (413, "payload_too_large")
    assert "after gzip decompression" in err.message
    assert decode(gzip.compress(b" " * LIMIT), "gzip") == " " * LIMIT


def test_unsupported_media_type_and_encoding_are_415() -> None:
    err = error_of(decode, b"a=1", None, "application/x-www-form-urlencoded")
    assert (err.status, err.code) == (415, "unsupported_media_type")
    assert "application/x-www-form-urlencoded" in err.message
    for ctype in (None, "", "text/plain", "text/plain; charset=utf-8", "*/*", "multipart/form-data"):
        err = error_of(decode, b"{}", None, ctype)  # a cross-site page can send these without a preflight
        assert (err.status, err.code) == (415, "unsupported_media_type"), ctype
        assert "application/json" in err.message
    assert decode(b"{}", None, "application/vnd.example+json") == "{}"
    assert decode(b"{}", None, "text/json") == "{}"
    err = error_of(decode, b"{}", "br")
    assert (err.status, err.code) == (415, "unsupported_media_type")
    assert "'br'" in err.message


def test_non_utf8_body_is_bad_encoding() -> None:
    err = error_of(decode, b'{"a": "\xff"}')
    assert (err.status, err.code) == (400, "bad_encoding")
    assert "offset 7" in err.message


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "body is empty"),
        ("{", "line 1 column 2"),
        ('{"a": 1,\n "b": }', "line 2 column 7"),
        ('{"a": NaN}', "NaN is not valid JSON"),
    ],
)
def test_not_json_is_invalid_json(validator: EventValidator, text: str, words: str) -> None:
    err = error_of(parse_event, text, validator)
    assert (err.status, err.code) == (400, "invalid_json")
    assert words in err.message


def test_single_event_keeps_its_text_and_kind(validator: EventValidator) -> None:
    text = json.dumps(run_event(), indent=2)
    parsed = parse_event(text, validator)
    assert parsed.raw == text
    assert parsed.kind == "RUN"
    assert parsed.payload == json.loads(text)


def test_single_event_problems_are_422_with_paths(validator: EventValidator) -> None:
    event = run_event()
    event["run"]["runId"] = "123"
    del event["producer"]
    err = error_of(parse_event, json.dumps(event), validator)
    assert (err.status, err.code) == (422, "invalid_event")
    assert [p.path for p in err.details] == ["$.producer", "$.run.runId"]
    assert err.message.startswith("the event is not a valid OpenLineage event: $.producer: required field is missing")
    assert "(and 1 more problem)" in err.message


def test_array_sent_to_single_endpoint_points_to_batch(validator: EventValidator) -> None:
    err = error_of(parse_event, json.dumps([run_event()]), validator)
    assert err.status == 422
    assert "/api/v1/lineage/batch" in err.message
    err = error_of(parse_event, '"just a string"', validator)
    assert err.details[0].path == "$"
    assert "got string" in err.details[0].message


def test_batch_of_valid_events(validator: EventValidator) -> None:
    events = [run_event(), run_event(eventType="START")]
    for body in (events, {"events": events}):
        parsed = parse_batch(json.dumps(body), validator, 10)
        assert [p.payload for p in parsed] == events
        assert [json.loads(p.raw) for p in parsed] == events
    assert parse_batch("[]", validator, 10) == []


def test_batch_lists_every_bad_event_by_index(validator: EventValidator) -> None:
    good, bad1, bad2 = run_event(), run_event(), run_event()
    bad1["eventTime"] = "later"
    del bad2["run"]["runId"]
    err = error_of(parse_batch, json.dumps([good, bad1, good, bad2]), validator, 10)
    assert (err.status, err.code) == (422, "invalid_event")
    assert [(p.path, p.message) for p in err.details] == [
        ("$[1].eventTime", '"later" is not a valid date-time'),
        ("$[3].run.runId", "required field is missing"),
    ]
    assert "2 of 4 events" in err.message
    assert "none was stored" in err.message
    err = error_of(parse_batch, json.dumps({"events": [bad1]}), validator, 10)
    assert err.details[0].path == "$.events[0].eventTime"


def test_batch_shape_and_count_limits(validator: EventValidator) -> None:
    err = error_of(parse_batch, json.dumps({"event": []}), validator, 10)
    assert (err.status, err.code) == (422, "invalid_event")
    assert '{"events": [...]}' in err.message
    err = error_of(parse_batch, json.dumps([run_event()] * 3), validator, 2)
    assert (err.status, err.code) == (413, "payload_too_large")
    assert "3 events; the limit is 2" in err.message
