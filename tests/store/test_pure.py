"""Small pure pieces: dataset kinds, validity-interval merging, time parsing and formatting."""

from __future__ import annotations

import copy
import hashlib
from datetime import UTC, datetime

import pytest

from headwater.ingest.shared import share, unshare
from headwater.model.times import InvalidTime, iso, parse_time, to_micros
from headwater.store.derive_datasets import DatasetObservation, derive_dataset_versions
from headwater.store.derive_runs import RunObservation, derive_run
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


def test_a_run_content_hash_is_the_same_when_its_lineage_is_shared_and_recognized() -> None:
    """A run whose column lineage is a shared value (the observation memo's answer) has its content hash
    recognized the second time; it is the SHA-256 of the content's canonical JSON, written here by hand, the
    same as for an equal lineage that is not shared, and another lineage gives another hash."""
    edges = [{"src": "dataset:a:b", "srcField": "x", "dstField": "y", "transformations": []}]
    share(edges)
    try:

        def run(run_id: str, lineage: list[dict[str, object]]) -> str:
            data = {"eventType": "COMPLETE", "job": "job:a:j", "inputs": ["dataset:a:b"], "outputs": []}
            obs = RunObservation(1, run_id, {**data, "columnLineage": {"dataset:a:c": lineage}})
            return str(derive_run(run_id, [obs])["content_hash"])

        text = (
            b'{"code":{},"columnLineage":{"dataset:a:c":[{"dstField":"y","src":"dataset:a:b","srcField":"x",'
            b'"transformations":[]}]},"inputs":["dataset:a:b"],"outputs":[]}'
        )
        expected = hashlib.sha256(text).hexdigest()
        assert run("r1", edges) == expected
        assert run("r2", edges) == expected  # recognized
        assert run("r3", [dict(e) for e in edges]) == expected  # an equal copy, not shared
        other = [{**edges[0], "srcField": "z"}]
        share(other)
        try:
            assert run("r4", other) != expected
        finally:
            unshare(other)
    finally:
        unshare(edges)


def test_a_dataset_fold_passes_over_the_same_shared_values_and_sees_every_change() -> None:
    """Observations handing over the very same fields list and facet objects (as the projector's memos do) are
    passed over without a new version; a change of fields (also back to an earlier list object), a drop and the
    return after it each make one, with the same versions as for equal copies that share nothing."""
    f1 = [{"name": "a", "type": "int", "description": None, "fields": []}]
    f2 = [{"name": "b", "type": "int", "description": None, "fields": []}]
    source = {"name": "pg", "uri": "postgres://h"}

    def obs(time: int, fields: object, dropped: bool = False, seen: list[str] | None = None) -> DatasetObservation:
        data = {"namespace": "ns", "name": "t", "runId": f"r{time}", "fields": fields}
        data |= {"facets": {"dataSource": source}, "dropped": dropped} | ({"seen": seen} if seen else {})
        return DatasetObservation(time, f"e{time}", "output", data)

    given = [
        obs(1, f1),
        obs(2, f1),  # the same objects: no version
        obs(3, None),  # no schema: the fields stay
        obs(4, f2),  # schema
        obs(5, f1),  # back to the first list object: schema again
        obs(6, f1, seen=["c"]),  # a column seen only in column lineage: added
        obs(7, f1),  # a schema replaces the fields: the added column goes again
        obs(8, f1),  # the same objects: no version
        obs(9, f1, dropped=True),
        obs(10, f1, dropped=True),
        obs(11, f1),  # back after the drop
    ]
    expected = [(1, ["created"]), (4, ["schema"]), (5, ["schema"]), (6, ["schema"]), (7, ["schema"])]
    expected += [(9, ["dropped"]), (11, ["created"])]
    shared = derive_dataset_versions("dataset:ns:t", given)
    assert [(v["valid_from"], v["changes"]) for v in shared] == expected
    assert [f["name"] for f in shared[3]["fields"]] == ["a", "c"]
    copies = derive_dataset_versions("dataset:ns:t", [copy.deepcopy(o) for o in given])
    assert shared == copies
