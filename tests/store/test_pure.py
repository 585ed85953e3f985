"""Small pure pieces: dataset kinds, validity-interval merging, time parsing and formatting."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from headwater.model.times import InvalidTime, iso, parse_time, to_micros
from headwater.store.intervals import merge_intervals
from headwater.store.kinds import dataset_kind

TABLE_SYMLINK = {"symlinks": {"identifiers": [{"namespace": "hive://m", "name": "db.t", "type": "TABLE"}]}}


@pytest.mark.parametrize(
    ("namespace", "facets", "kind"),
    [
        ("file", {}, "file"),
        ("s3://bucket", {}, "file"),
        ("abfss://c@acct.dfs.core.windows.net", {}, "file"),
        ("hdfs://namenode:8020", {}, "file"),
        ("gs://bucket", {}, "file"),
        ("file", TABLE_SYMLINK, "table"),
        ("s3://warehouse", {"datasetType": {"datasetType": "TABLE"}}, "table"),
        ("bigquery", {}, "table"),
        ("hive://metastore:9083", {}, "table"),
        ("postgres://db:5432", {}, "jdbc"),
        ("mysql://db:3306", TABLE_SYMLINK, "jdbc"),
        ("jdbc:sqlserver://h:1433", {}, "jdbc"),
        ("kafka://broker:9092", {}, "stream"),
        ("custom-thing", {}, "other"),
    ],
)
def test_dataset_kind(namespace: str, facets: dict, kind: str) -> None:
    assert dataset_kind(namespace, facets) == kind


def test_merge_intervals() -> None:
    versions = [(10, 20, ["a", "b"]), (20, 30, ["b"]), (30, 40, ["a", "b"]), (40, None, ["a"])]
    assert merge_intervals(versions) == [("a", 10, 20), ("b", 10, 40), ("a", 30, None)]
    assert merge_intervals([]) == []


def test_times() -> None:
    assert parse_time("2026-01-05T02:00:00.123456789Z") == datetime(2026, 1, 5, 2, 0, 0, 123456, tzinfo=UTC)
    assert parse_time("2026-01-05T04:00:00+02:00") == datetime(2026, 1, 5, 2, tzinfo=UTC)
    assert parse_time("2026-01-05T02:00:00") == datetime(2026, 1, 5, 2, tzinfo=UTC)  # naive is UTC
    with pytest.raises(InvalidTime, match="not an ISO 8601 timestamp: 'yesterday'"):
        parse_time("yesterday")
    micros = to_micros(datetime(2026, 1, 5, 2, 0, 0, 250000, tzinfo=UTC))
    assert iso(micros) == "2026-01-05T02:00:00.250Z"
    assert iso(micros + 1) == "2026-01-05T02:00:00.250001Z"
    assert iso(to_micros(datetime(2026, 1, 5, tzinfo=UTC))) == "2026-01-05T00:00:00Z"
    assert iso(None) is None
