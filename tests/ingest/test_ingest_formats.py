"""The format checks both validation engines use: uuid, date-time (RFC 3339), uri (URI reference)."""

from __future__ import annotations

import pytest
from ingest_events import facet, run_event

from headwater.spec import EventValidator
from headwater.spec.formats import is_date_time, is_uri, is_uuid


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("2026-11-22T05:10:10Z", True),
        ("2026-11-22T05:10:10.123456789Z", True),  # Java sends nanoseconds
        ("2026-11-22T05:10:10.1+05:30", True),
        ("2026-11-22t05:10:10z", True),
        ("2026-11-22T05:10:10", False),  # no zone
        ("2026-11-22", False),
        ("2026-02-30T05:10:10Z", False),
        ("2026-11-22T25:10:10Z", False),
        ("yesterday", False),
    ],
)
def test_date_time(value: str, ok: bool) -> None:
    assert is_date_time(value) is ok


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("https://github.com/OpenLineage/OpenLineage/tree/1.54.0/client/python", True),
        ("https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent", True),
        ("file", True),  # what the Spark integration sends as dataSource.uri for files
        ("s3://bucket/path", True),
        ("postgres://db:5432", True),
        ("jdbc:postgresql://db:5432/hr?ssl=true", True),
        ("/data/employees.csv", True),
        ("%20encoded", True),
        ("not a uri", False),
        ("tab\there", False),
        ("100%", False),
        ("1http://x", False),
    ],
)
def test_uri(value: str, ok: bool) -> None:
    assert is_uri(value) is ok


def test_uuid() -> None:
    assert is_uuid("3f1c1e76-7d3c-4d6a-9c1b-5f2e8f0a1b2c")
    assert not is_uuid("3f1c1e767d3c4d6a9c1b5f2e8f0a1b2c")  # hyphens are part of the format
    assert not is_uuid("run-1")


def test_spark_style_data_source_facet_is_accepted(validator: EventValidator) -> None:
    event = run_event()
    for ds in (*event["inputs"], *event["outputs"]):
        ds["facets"]["dataSource"] = facet(name="file", uri="file")
    assert validator.validate(event) == []
    assert validator.validate_thorough(event) == []
    event["inputs"][0]["facets"]["dataSource"]["uri"] = "file name with spaces"
    assert [p.path for p in validator.validate(event)] == ["$.inputs[0].facets.dataSource.uri"]
