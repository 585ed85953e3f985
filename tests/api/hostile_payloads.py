"""A deterministic list of 2,000+ hostile requests for the ingest endpoints.

Used by ``tests/api/test_api_hostile.py`` (in-process, SQLite and PostgreSQL) and by
``bench/hostile.py`` (over real HTTP against ``headwater serve``, sampling the server's memory).
Each :class:`Hostile` is a request (path, body bytes, headers) and what its answer must say:
``expect`` is text the error message or its details must hold (the name of the limit, the JSON
path, the problem), or ``None`` when any answer below 500 is right (a mutation may well be a
valid event). Every answer must be below 500; a 4xx must be the standard error body.

Families: deep nesting (every depth around the limit, past the parsers' own limits, in every
place), long strings, long arrays, many keys, numbers (``1e999``, ``-0``, huge integers, beyond the
4,300-digit conversion limit), hostile text (NUL, control characters, lone surrogates, empty,
over-long names, HTML, URL syntax) in every string of an event and in keys (lone surrogates as a key of every
object, holding valid and invalid values), wrong types in every
position, times at the edges of the calendar, gzip bombs, many-member gzip, stacked and unknown
encodings, wrong media types, truncated bodies, and batches of all of these.

The bodies are built lazily (:func:`hostile_requests` is a generator): a few are megabytes.
"""

from __future__ import annotations

import copy
import gzip
import json
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

LINEAGE = "/api/v1/lineage"
BATCH = "/api/v1/lineage/batch"
JSON = {"Content-Type": "application/json"}
FACET = {"_producer": "https://example.com/producer", "_schemaURL": "https://example.com/schema.json#/$defs/X"}
OL = "https://github.com/OpenLineage/OpenLineage/tree/1.54.0/client/python"

# The limits the test apps run with (the defaults; the expectations below name them).
MAX_DEPTH = 64
MAX_STRING = 1_048_576
MAX_ARRAY = 100_000
MAX_KEYS = 10_000
MAX_NAME = 512
MAX_MEMBERS = 1_000
MAX_BODY = 16 * 1024 * 1024


def template() -> dict[str, Any]:
    """A valid RunEvent touching every place a name sits: job, parent, inputs, outputs, schema, column lineage."""
    return {
        "eventTime": "2026-11-11T10:01:00.000Z",
        "eventType": "FAIL",
        "producer": "https://github.com/headwater-lineage/headwater/tests/api",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {
            "runId": "38af66ad-be14-41ee-ae43-851c6346e40a",
            "facets": {
                "errorMessage": {
                    "_producer": OL,
                    "_schemaURL": "https://openlineage.io/spec/facets/1-0-1/ErrorMessageRunFacet.json#/$defs/ErrorMessageRunFacet",
                    "message": "relation hr.public.report is locked",
                    "programmingLanguage": "python",
                },
                "parent": {
                    "_producer": OL,
                    "_schemaURL": "https://openlineage.io/spec/facets/1-2-0/ParentRunFacet.json#/$defs/ParentRunFacet",
                    "job": {"name": "payroll_dag.report", "namespace": "airflow"},
                    "run": {"runId": "9767d216-cffd-51f5-a317-2a5a5ace61f9"},
                },
            },
        },
        "job": {
            "namespace": "spark",
            "name": "payroll.report",
            "facets": {
                "sql": {
                    "_producer": OL,
                    "_schemaURL": "https://openlineage.io/spec/facets/1-1-0/SQLJobFacet.json#/$defs/SQLJobFacet",
                    "query": "SELECT EmployeeID, Total FROM payroll",
                }
            },
        },
        "inputs": [{"namespace": "file", "name": "/data/payroll", "facets": {}, "inputFacets": {}}],
        "outputs": [
            {
                "namespace": "postgres://db:5432",
                "name": "hr.public.report",
                "outputFacets": {},
                "facets": {
                    "schema": {
                        "_producer": OL,
                        "_schemaURL": "https://openlineage.io/spec/facets/1-2-0/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet",
                        "fields": [
                            {"name": "EmployeeID", "type": "integer", "fields": []},
                            {"name": "Total", "type": "decimal(10,2)", "fields": []},
                        ],
                    },
                    "columnLineage": {
                        "_producer": OL,
                        "_schemaURL": "https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json#/$defs/ColumnLineageDatasetFacet",
                        "dataset": [
                            {
                                "namespace": "file",
                                "name": "/data/payroll",
                                "field": "Active",
                                "transformations": [{"type": "INDIRECT", "subtype": "FILTER"}],
                            }
                        ],
                        "fields": {
                            "Total": {
                                "inputFields": [
                                    {
                                        "namespace": "file",
                                        "name": "/data/payroll",
                                        "field": "Total",
                                        "transformations": [{"type": "DIRECT", "subtype": "IDENTITY"}],
                                    }
                                ]
                            }
                        },
                    },
                },
            }
        ],
    }


@dataclass(frozen=True)
class Hostile:
    name: str
    path: str
    body: bytes
    headers: dict[str, str] = field(default_factory=lambda: dict(JSON))
    expect: str | None = None  # text the error must hold; None: any answer below 500
    # headers no HTTP/1.1 parser takes (a NUL in a header value): over real HTTP uvicorn's parser answers
    # its own plain "400 Invalid HTTP request received." before the app sees the request
    invalid_http: bool = False


def _json(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=True, allow_nan=True).encode()


Path = tuple[Any, ...]


def _paths(value: Any, prefix: Path = ()) -> Iterator[tuple[Path, Any]]:
    yield prefix, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, (*prefix, i))


def _set(event: dict[str, Any], path: Path, value: Any) -> dict[str, Any]:
    out = copy.deepcopy(event)
    target: Any = out
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return out


def json_path(path: Path) -> str:
    text = "$"
    for step in path:
        text += (
            f"[{step}]"
            if isinstance(step, int)
            else (f".{step}" if str(step).isidentifier() else f"[{json.dumps(step)}]")
        )
    return text


NAME_KEYS = {"namespace", "name", "field"}


def _is_name(path: Path) -> bool:
    """Paths whose text becomes a graph key (node ids, field names)."""
    return bool(path) and (path[-1] in NAME_KEYS and "_schemaURL" not in path) and "transformations" not in path


def _nested(depth: int, kind: str) -> str:
    if kind == "object":
        return '{"a":' * depth + "1" + "}" * depth
    return "[" * depth + "]" * depth


def deep_nesting() -> Iterator[Hostile]:
    places = {
        "top": "{}",
        "run facet": '{"run":{"facets":{"x":{"_producer":"https://p","_schemaURL":"https://s","v":VALUE}}}}',
        "job facet": '{"job":{"facets":{"x":{"_producer":"https://p","_schemaURL":"https://s","v":VALUE}}}}',
        "dataset facet": '{"outputs":[{"facets":{"x":{"_producer":"https://p","_schemaURL":"https://s","v":VALUE}}}]}',
        "schema field": '{"outputs":[{"facets":{"schema":{"fields":[VALUE]}}}]}',
    }
    base = template()
    for depth in (8, 40, 58, 59, 60, 61, 62, 63, 64, 65, 100, 500, 999, 1000, 1024, 1025, 5000, 100_000):
        for kind in ("object", "array"):
            # the bare value as the whole body, and as the value of a key at each place of a valid event
            yield Hostile(
                f"nesting {kind} depth {depth} as the body",
                LINEAGE,
                _nested(depth, kind).encode(),
                expect="array"
                if kind == "array" and depth <= 1024
                else "max_json_depth"
                if depth > MAX_DEPTH
                else None,
            )
            for place, shape in places.items():
                if place == "top":
                    text = json.dumps(base)[:-1] + f', "deep": {_nested(depth, kind)}}}'
                else:
                    inner = json.loads(shape.replace("VALUE", "0"))
                    merged = copy.deepcopy(base)
                    _merge(merged, inner)
                    text = json.dumps(merged).replace('"v": 0', f'"v": {_nested(depth, kind)}', 1)
                    if place == "schema field":
                        merged["outputs"][0]["facets"]["schema"]["fields"].append(
                            {"name": "deep", "type": "x", "fields": []}
                        )
                        text = json.dumps(merged).replace(
                            '"fields": []}]', '"fields": [' + _nested(depth, kind) + "]}]", 1
                        )
                total = depth + _depth_of(place)
                yield Hostile(
                    f"nesting {kind} depth {depth} in {place}",
                    LINEAGE,
                    text.encode(),
                    expect="max_json_depth" if total > MAX_DEPTH + 2 else None,
                )
            yield Hostile(
                f"nesting {kind} depth {depth} in a batch",
                BATCH,
                f"[{json.dumps(base)}, {_nested(depth, kind)}]".encode(),
                expect="max_json_depth" if depth > MAX_DEPTH + 1 else None,
            )


def _depth_of(place: str) -> int:
    return {"top": 1, "run facet": 4, "job facet": 4, "dataset facet": 5, "schema field": 6}[place]


def _merge(into: dict[str, Any], extra: dict[str, Any]) -> None:
    for k, v in extra.items():
        if isinstance(v, dict) and isinstance(into.get(k), dict):
            _merge(into[k], v)
        elif isinstance(v, list) and isinstance(into.get(k), list) and v and isinstance(v[0], dict):
            _merge(into[k][0], v[0])
        else:
            into[k] = v


HOSTILE_TEXT: list[tuple[str, str, str | None]] = [
    # (label, text, what the error says when the text sits in a name; None: acceptable anywhere)
    ("NUL", "\x00", "NUL"),
    ("NUL inside", "a\x00b", "NUL"),
    ("lone high surrogate", "\ud800", "surrogate"),
    ("lone low surrogate", "x\udc00", "surrogate"),
    ("control characters", "\x01\x07\x1b\x1f", None),
    ("line separators", "a\u2028b\u2029c\r\n", None),
    ("empty", "", "empty"),
    ("spaces", "   ", None),
    ("URL syntax", "a:b/c#d?e=%2F%zz", None),
    ("HTML", "<script>alert(1)</script>&amp;\"'", None),
    ("right-to-left", "\u202eevil\u202c", None),
    ("emoji and combining", "\U0001f4a9e\u0301\ufeff", None),
    ("path traversal", "../../etc/passwd", None),
    ("over-long name", "é" * 300, "max_name_bytes"),
    ("noncharacters", "\ufffe\uffff\U0010ffff", None),
    ("tabs and newlines", "\t\n\r\x0b\x0c", None),
    ("backslashes and quotes", '\\"\\u0000', None),
    ("200 emoji (800 bytes)", "\U0001f600" * 200, "max_name_bytes"),
]


def hostile_text() -> Iterator[Hostile]:
    base = template()
    strings = [(p, v) for p, v in _paths(base) if isinstance(v, str)]
    for path, _value in strings:
        for label, text, in_name in HOSTILE_TEXT:
            event = _set(base, path, text)
            if label.startswith(("NUL", "lone")):
                expect: str | None = in_name  # refused wherever it sits
            elif _is_name(path) and in_name is not None and not (label == "empty" and path[-1] == "field"):
                expect = in_name
            else:
                expect = None
            yield Hostile(f"{label} at {json_path(path)}", LINEAGE, _json(event), expect=expect)
    # keys
    for label, text, _ in HOSTILE_TEXT[:4]:
        for where in (("run", "facets"), ("job", "facets"), ("outputs", 0, "facets", "columnLineage", "fields")):
            event = copy.deepcopy(base)
            target: Any = event
            for step in where:
                target = target[step]
            target[text] = {**FACET, "inputFields": []} if where[-1] == "fields" else dict(FACET)
            yield Hostile(
                f"{label} in a key at {json_path(where)}",
                LINEAGE,
                _json(event),
                expect="NUL" if label.startswith("NUL") else "surrogate",
            )
    # a lone surrogate in a key of every object of the event (an extra field's name, a facet's name, a column
    # name in columnLineage.fields ...), its value valid or a problem of its own: the answer names the surrogate
    # (the key's path), in a single event and in a batch
    values: list[tuple[str, Any]] = [("1", 1), ("a NUL", "\x00"), ("a nested NUL", {"a": ["\x00"]}), ("a facet", FACET)]
    for path, value in _paths(base):
        if not isinstance(value, dict):
            continue
        for label, text, _ in HOSTILE_TEXT[2:4]:
            for what, extra in values:
                event = copy.deepcopy(base)
                target = event
                for step in path:
                    target = target[step]
                target[text] = copy.deepcopy(extra)
                name = f"{label} as a key at {json_path(path)} holding {what}"
                yield Hostile(name, LINEAGE, _json(event), expect="surrogate")
                if what == "a NUL":
                    yield Hostile(f"batch item with {name}", BATCH, _json([base, event]), expect="surrogate")


NUMBERS: list[tuple[str, str, str | None]] = [
    ("1e999", "1e999", "out of range"),
    ("-1e999", "-1e999", "out of range"),
    ("1E+400", "1E+400", "out of range"),
    ("1e-999", "1e-999", None),
    ("-0", "-0", None),
    ("-0.0", "-0.0", None),
    ("2**64", str(2**64), None),
    ("-2**63-1", str(-(2**63) - 1), None),
    ("10**30", "1" + "0" * 30, None),
    ("4301 digits", "9" * 4301, "not valid JSON"),
    ("50000 digits", "7" * 50_000, "not valid JSON"),
    ("NaN", "NaN", "not valid JSON"),
    ("Infinity", "Infinity", "not valid JSON"),
    ("-Infinity", "-Infinity", "not valid JSON"),
    ("1.7976931348623157e308", "1.7976931348623157e308", None),
    ("5e-324", "5e-324", None),
    ("0.1 with 5000 digits", "0." + "1" * 5000, None),
]


def numbers() -> Iterator[Hostile]:
    base = template()
    marker = "__NUMBER__"
    places: list[Path] = [
        ("run", "facets", "x"),
        ("job", "facets", "x"),
        ("outputs", 0, "facets", "x"),
        ("eventTime",),
        ("run", "runId"),
        ("job", "name"),
        ("outputs", 0, "name"),
        ("outputs", 0, "facets", "schema", "fields", 0, "name"),
        ("inputs", 0, "namespace"),
        ("outputs", 0, "facets", "columnLineage", "fields", "Total", "inputFields", 0, "field"),
    ]
    for path in places:
        for label, literal, expect in NUMBERS:
            if path[-1] == "x":
                event = _set(base, path, {**FACET, "n": marker, "list": [1, marker]})
            else:
                event = _set(base, path, marker)
            text = json.dumps(event).replace(f'"{marker}"', literal)
            wrong_type = path[-1] != "x"
            yield Hostile(
                f"number {label} at {json_path(path)}",
                LINEAGE,
                text.encode(),
                expect=expect if expect is not None or not wrong_type else json_path(path),
            )


WRONG_TYPES: list[tuple[str, Any]] = [
    ("null", None),
    ("true", True),
    ("zero", 0),
    ("float", 1.5),
    ("string", "s"),
    ("empty array", []),
    ("empty object", {}),
    ("array of null", [None]),
]


def wrong_types() -> Iterator[Hostile]:
    base = template()
    for path, value in _paths(base):
        if not path:
            continue
        for label, wrong in WRONG_TYPES:
            if type(wrong) is type(value) and wrong == value:
                continue
            yield Hostile(f"{label} at {json_path(path)}", LINEAGE, _json(_set(base, path, wrong)))
    for label, wrong in WRONG_TYPES:
        yield Hostile(
            f"{label} as the whole body", LINEAGE, _json(wrong), expect=None if label == "empty object" else "$"
        )
        yield Hostile(f"{label} as a batch", BATCH, _json(wrong), expect=None if label == "empty array" else "$")
        yield Hostile(f"{label} as a batch item", BATCH, _json([template(), wrong]), expect="$[1]")


def sizes() -> Iterator[Hostile]:
    base = template()
    for n in (MAX_STRING, MAX_STRING + 1, 5 * MAX_STRING):
        yield Hostile(
            f"string of {n} in the SQL facet",
            LINEAGE,
            _json(_set(base, ("job", "facets", "sql", "query"), "x" * n)),
            expect="max_string_length" if n > MAX_STRING else None,
        )
        yield Hostile(
            f"string of {n} as a custom facet key",
            LINEAGE,
            _json(_set(base, ("run", "facets", "k" * n), dict(FACET))),
            expect="max_string_length" if n > MAX_STRING else None,
        )
    for n in (MAX_NAME - 10, MAX_NAME, MAX_NAME + 1, 100_000, 1_000_000):
        for path in (
            ("job", "name"),
            ("inputs", 0, "name"),
            ("outputs", 0, "namespace"),
            ("outputs", 0, "facets", "schema", "fields", 0, "name"),
            ("outputs", 0, "facets", "columnLineage", "fields", "Total", "inputFields", 0, "field"),
            ("run", "facets", "parent", "job", "name"),
        ):
            yield Hostile(
                f"name of {n} bytes at {json_path(path)}",
                LINEAGE,
                _json(_set(base, path, "n" * n)),
                expect="max_name_bytes" if n > MAX_NAME else None,
            )
    for n in (MAX_ARRAY, MAX_ARRAY + 1):
        yield Hostile(
            f"array of {n} numbers in a facet",
            LINEAGE,
            _json(_set(base, ("run", "facets", "x"), {**FACET, "v": [0] * n})),
            expect="max_array_length" if n > MAX_ARRAY else None,
        )
    yield Hostile(
        "100001 schema fields",
        LINEAGE,
        _json(_set(base, ("outputs", 0, "facets", "schema", "fields"), [{"name": "f", "type": "t"}] * (MAX_ARRAY + 1))),
        expect="max_array_length",
    )
    yield Hostile(
        "100001 inputs",
        LINEAGE,
        _json(_set(base, ("inputs",), [{"namespace": "n", "name": "d"}] * (MAX_ARRAY + 1))),
        expect="max_array_length",
    )
    for n in (MAX_KEYS, MAX_KEYS + 1, 50_000):
        yield Hostile(
            f"{n} run facets",
            LINEAGE,
            _json(_set(base, ("run", "facets"), {f"f{i}": dict(FACET) for i in range(n)})),
            expect="max_object_keys" if n > MAX_KEYS else None,
        )
        yield Hostile(
            f"{n} column-lineage fields",
            LINEAGE,
            _json(
                _set(
                    base,
                    ("outputs", 0, "facets", "columnLineage", "fields"),
                    {f"c{i}": {"inputFields": []} for i in range(n)},
                )
            ),
            expect="max_object_keys" if n > MAX_KEYS else None,
        )
    yield Hostile("body over max_body_bytes", LINEAGE, b" " * (MAX_BODY + 1) + b"{}", expect="max_body_bytes")
    yield Hostile("batch over max_batch_events", BATCH, _json([{}] * 10_001), expect="max_batch_events")


TIMES = [
    "0001-01-01T00:00:00+14:00",
    "0001-01-01T00:00:00Z",
    "9999-12-31T23:59:59-14:00",
    "9999-12-31T23:59:59.999999999Z",
    "2026-02-30T10:00:00Z",
    "2026-11-10T24:00:00Z",
    "2026-12-31T23:59:60Z",
    "2026-11-10T10:00:00",
    "2026-11-10 10:00:00Z",
    "2026-11-10t10:00:00z",
    "2026-11-10T10:00:00." + "1" * 1000 + "Z",
    "+12026-11-10T10:00:00Z",
    "2026-11-10T10:00:00+99:99",
    "",
    "now",
    "1731230400000",
    "２０２６-11-10T10:00:00Z",
]


def times() -> Iterator[Hostile]:
    base = template()
    for text in TIMES:
        yield Hostile(f"eventTime {text[:40]!r}", LINEAGE, _json(_set(base, ("eventTime",), text)))
        yield Hostile(f"eventTime {text[:40]!r} in a batch", BATCH, _json([_set(base, ("eventTime",), text)]))


def encodings() -> Iterator[Hostile]:
    event = _json(template())
    gz = {**JSON, "Content-Encoding": "gzip"}
    yield Hostile("gzip bomb (1 GiB of spaces)", LINEAGE, _gzip_zeros(1 << 30), gz, expect="max_body_bytes")
    yield Hostile("gzip bomb in a batch", BATCH, _gzip_zeros(64 << 20), gz, expect="max_body_bytes")
    yield Hostile(
        "deflate bomb",
        LINEAGE,
        zlib.compress(b" " * (64 << 20), 9),
        {**JSON, "Content-Encoding": "deflate"},
        expect="max_body_bytes",
    )
    member = gzip.compress(b" ", 9)
    for n in (2, MAX_MEMBERS, MAX_MEMBERS + 1, 500_000):
        body = member * (n - 1) + gzip.compress(event)
        yield Hostile(f"{n} gzip members", LINEAGE, body, gz, expect="max_gzip_members" if n > MAX_MEMBERS else None)
    yield Hostile("gzip members of 9.6 MB", BATCH, member * (9_600_000 // len(member)), gz, expect="max_gzip_members")
    whole = gzip.compress(event)
    for cut in (1, 10, len(whole) // 2, len(whole) - 4, len(whole) - 1):
        yield Hostile(f"gzip cut at {cut}", LINEAGE, whole[:cut], gz, expect="gzip")
    yield Hostile("gzip then junk", LINEAGE, whole + b"junk", gz, expect="gzip")
    yield Hostile("gzip header only", LINEAGE, b"\x1f\x8b\x08\x00", gz, expect="gzip")
    yield Hostile("not gzip", LINEAGE, event, gz, expect="gzip")
    yield Hostile("gzip of gzip declared once", LINEAGE, gzip.compress(whole), gz, expect="UTF-8")
    layered = event
    for _ in range(10):
        layered = gzip.compress(layered)
    yield Hostile(
        "gzip ten times",
        LINEAGE,
        layered,
        {**JSON, "Content-Encoding": ", ".join(["gzip"] * 10)},
        expect="Content-Encoding",
    )
    yield Hostile("gzip twice", LINEAGE, gzip.compress(whole), {**JSON, "Content-Encoding": "gzip, gzip"})
    for enc in ("br", "zstd", "compress", "gzip;q=1", "", "identity, br", "\x00"):
        yield Hostile(
            f"Content-Encoding {enc!r}",
            LINEAGE,
            event,
            {**JSON, "Content-Encoding": enc},
            expect=None if enc in ("", "identity") else "Content-Encoding",
            invalid_http=enc == "\x00",
        )
    for ctype in (
        "text/plain",
        "text/plain; charset=utf-8",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/xml",
        "*/*",
        "",
        "application/json; charset=latin-1",
        "application/JSON",
        "application/ld+json",
        "text/html",
        "image/png",
    ):
        ok = ctype.split(";")[0].strip().lower() in ("application/json", "application/ld+json")
        yield Hostile(
            f"Content-Type {ctype!r}",
            LINEAGE,
            event,
            {"Content-Type": ctype} if ctype else {},
            expect=None if ok else "application/json",
        )
        yield Hostile(
            f"Content-Type {ctype!r} on the batch",
            BATCH,
            b"[" + event + b"]",
            {"Content-Type": ctype} if ctype else {},
            expect=None if ok else "application/json",
        )
    yield Hostile("no Content-Type at all", LINEAGE, event, {}, expect="application/json")
    for bad in (b"\xff\xfe{}", b'{"a": "\xc3\x28"}', b"\xef\xbb\xbf" + event, "{}".encode("utf-16"), b"\x00" * 100):
        yield Hostile(f"bytes {bad[:8]!r}", LINEAGE, bad)


def _gzip_zeros(size: int) -> bytes:
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    chunk = b" " * (1 << 20)
    parts = [compressor.compress(chunk) for _ in range(size >> 20)]
    return b"".join(parts) + compressor.flush()


def truncated() -> Iterator[Hostile]:
    text = json.dumps(template()).encode()
    for i in range(1, 41):
        cut = len(text) * i // 41
        yield Hostile(f"body cut at {cut} of {len(text)}", LINEAGE, text[:cut], expect="not valid JSON")
        yield Hostile(f"batch cut at {cut}", BATCH, b"[" + text[:cut], expect="not valid JSON")
    for junk in (
        b"",
        b" ",
        b"{",
        b"}",
        b"[",
        b"null",
        b'"\\u',
        b'{"a":}',
        b"{'a': 1}",
        b'{"a" 1}',
        b"[1,]",
        b"\x00",
        b"{}{}",
        b"{} x",
        b'"\\ud800"',
        b"1e999",
        b"[" * 100_000,
        b'{"a":' * 100_000,
    ):
        yield Hostile(f"junk {junk[:12]!r}", LINEAGE, junk)
        yield Hostile(f"junk {junk[:12]!r} as a batch", BATCH, junk)


def batches() -> Iterator[Hostile]:
    base = template()
    yield Hostile("events object with nested events", BATCH, _json({"events": {"events": [base]}}), expect="$")
    yield Hostile("events object of 10001", BATCH, _json({"events": [{}] * 10_001}), expect="max_batch_events")
    yield Hostile(
        "batch with a deep item",
        BATCH,
        f'{{"events": [{json.dumps(base)}, {_nested(200, "array")}]}}'.encode(),
        expect="max_json_depth",
    )
    for label, text, expect in HOSTILE_TEXT:
        event = _set(base, ("job", "name"), text)
        yield Hostile(f"batch item with {label} job name", BATCH, _json([base, event]), expect=expect)
    yield Hostile("empty batch", BATCH, b"[]")
    yield Hostile("batch of 1000 invalid", BATCH, _json([{"eventTime": 1}] * 1000), expect="$[999]")


def answer_problem(h: Hostile, status: int, text: str) -> str | None:
    """What is wrong with the answer (``status``, body ``text``) to ``h``; ``None`` when it is right."""
    if status >= 500:
        return f"{status}: {text[:300]}"
    if h.invalid_http and status == 400 and text.startswith("Invalid HTTP request"):
        return None  # the HTTP server's own refusal of a malformed header
    if status < 400:
        return f"accepted ({status}) although its error should name {h.expect!r}" if h.expect else None
    try:
        body = json.loads(text)
        error = body["error"]
        assert set(body) == {"error"} and set(error) == {"code", "message", "details"} and error["message"]
    except Exception:  # noqa: BLE001 - any failure to read the standard body is the finding
        return f"{status} without the standard error body: {text[:300]}"
    if h.expect is not None:
        said = error["message"] + " " + " ".join(f"{d.get('path')} {d.get('message')}" for d in error["details"])
        if h.expect not in said:
            return f"{status} does not name {h.expect!r}: {said[:300]}"
    return None


def hostile_requests() -> Iterator[Hostile]:
    """Every hostile request, in a fixed order (the same list on every run)."""
    yield from deep_nesting()
    yield from hostile_text()
    yield from numbers()
    yield from wrong_types()
    yield from sizes()
    yield from times()
    yield from encodings()
    yield from truncated()
    yield from batches()


if __name__ == "__main__":
    print(sum(1 for _ in hostile_requests()))
