"""Incompatible files in one table folder are split into tables of their own; Avro row counts from block headers."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import fastavro
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from lakefiles import AVRO_SCHEMA, write_avro

from headwater.client import PrintClient
from headwater.crawl import crawl
from headwater.crawl.formats.avro import count_records
from olschema import event_errors


def _crawl(root: Path, state: Path) -> tuple[Any, list[dict[str, Any]]]:
    out = io.StringIO()
    result = crawl(str(root), PrintClient(out), state_path=state)
    return result, [json.loads(line) for line in out.getvalue().splitlines()]


def _outputs(events: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {o["name"]: o for e in events for o in e["outputs"] if o["namespace"] == "headwater"}


def _fields(dataset: dict[str, Any]) -> list[tuple[str, str]]:
    return [(f["name"], f["type"]) for f in dataset["facets"]["schema"]["fields"]]


def _location(dataset: dict[str, Any]) -> str:
    (link,) = dataset["facets"]["symlinks"]["identifiers"]
    return str(link["name"])


AB = pa.table({"a": [1, 2], "b": ["x", "y"]})
XYZ = pa.table({"x": [1.0], "y": [2.0], "z": [3.0]})


def test_incompatible_files_become_tables_of_their_own(tmp_path: Path, spec_dir: Path) -> None:
    root = tmp_path / "lake"
    for sub in ("a", "b", "c"):
        (root / "t" / sub).mkdir(parents=True)
    for i in range(3):
        pq.write_table(AB, root / "t" / "a" / f"p{i}.parquet")
    pq.write_table(pa.table({"a": [3], "b": ["z"], "c": [True]}), root / "t" / "a" / "p3.parquet")  # merged
    for i in range(2):  # another layout in a folder of its own
        pq.write_table(XYZ, root / "t" / "b" / f"x{i}.parquet")
    pq.write_table(pa.table({"k": ["a"], "v": [1]}), root / "t" / "c" / "lookup.parquet")
    pq.write_table(pa.table({"k": ["b"], "v": [2]}), root / "t" / "c" / "lookup2.parquet")
    state = tmp_path / "state.json"
    result, events = _crawl(root, state)
    assert result.ok, result.summary.failures
    assert sorted(result.summary.added) == ["t", "t_2", "t_3"]
    for event in events:
        assert event_errors(event, spec_dir) == []
    out = _outputs(events)
    assert _fields(out["default.t"]) == [("a", "bigint"), ("b", "string"), ("c", "boolean"), ("partition_0", "string")]
    assert _location(out["default.t"]) == str(root / "t")
    assert out["default.t"]["outputFacets"]["outputStatistics"]["fileCount"] == 4
    # numbered in the order of their first file's path (t/b/x0 before t/c/lookup), each at its own folder
    assert _fields(out["default.t_2"]) == [("x", "double"), ("y", "double"), ("z", "double"), ("partition_0", "string")]
    assert _location(out["default.t_2"]) == str(root / "t" / "b")
    stats = out["default.t_2"]["outputFacets"]["outputStatistics"]
    assert (stats["rowCount"], stats["fileCount"]) == (2, 2)
    assert stats["size"] == sum(f.stat().st_size for f in (root / "t" / "b").iterdir())
    assert _fields(out["default.t_3"]) == [("k", "string"), ("v", "bigint"), ("partition_0", "string")]
    assert _location(out["default.t_3"]) == str(root / "t" / "c")
    locations = [(i["namespace"], i["name"]) for e in events for i in e["inputs"]]
    assert len(locations) == len(set(locations)) == 3  # one storage location per table

    again, _ = _crawl(root, state)  # the same names again: nothing changed
    assert sorted(again.summary.unchanged) == ["t", "t_2", "t_3"] and again.stats["filesRead"] == 0


def test_one_odd_file_beside_the_tables_files_is_a_table_at_that_file(tmp_path: Path) -> None:
    root = tmp_path / "lake"
    (root / "t").mkdir(parents=True)
    for i in range(2):
        pq.write_table(AB, root / "t" / f"p{i}.parquet")
    pq.write_table(XYZ, root / "t" / "other.parquet")
    result, events = _crawl(root, tmp_path / "s.json")
    assert result.ok and sorted(result.summary.added) == ["t", "t_2"]
    assert _location(_outputs(events)["default.t_2"]) == str(root / "t" / "other.parquet")


def test_mixed_incompatible_files_without_a_location_are_reported(tmp_path: Path) -> None:
    root = tmp_path / "lake"
    (root / "t" / "dt=2026-01-01").mkdir(parents=True)
    (root / "t" / "dt=2026-01-02").mkdir(parents=True)
    for day in ("2026-01-01", "2026-01-02"):
        for part in range(2):
            pq.write_table(AB, root / "t" / f"dt={day}" / f"part-{part:05d}.parquet")
    # two files of another layout side by side with the table's: no folder or single file to name them by
    pq.write_table(XYZ, root / "t" / "dt=2026-01-01" / "o1.parquet")
    pq.write_table(XYZ, root / "t" / "dt=2026-01-02" / "o2.parquet")
    result, events = _crawl(root, tmp_path / "s.json")
    assert result.summary.added == ["t"]
    assert sorted(Path(s.path).name for s in result.summary.failures) == ["o1.parquet", "o2.parquet"]
    assert "same folder" in result.summary.failures[0].reason
    assert _fields(_outputs(events)["default.t"]) == [("a", "bigint"), ("b", "string"), ("dt", "string")]


def test_avro_row_counts_from_block_headers(tmp_path: Path) -> None:
    rows = [{"url": f"u{i}", "at": i, "ref": None} for i in range(2500)]
    schema = fastavro.parse_schema(AVRO_SCHEMA)
    for codec in ("null", "deflate"):
        path = tmp_path / "clicks" / f"{codec}.avro"
        path.parent.mkdir(exist_ok=True)
        with path.open("wb") as f:
            fastavro.writer(f, schema, rows, codec=codec, sync_interval=1000)  # many blocks
    write_avro(tmp_path / "clicks" / "empty.avro", [])
    result, events = _crawl(tmp_path / "clicks", tmp_path / "s.json")
    assert result.ok, result.summary.failures
    assert _outputs(events)["default.clicks"]["outputFacets"]["outputStatistics"]["rowCount"] == 5000
    # a file cut short is a corrupt file: reported, not counted
    data = (tmp_path / "clicks" / "null.avro").read_bytes()
    handle = io.BytesIO(data[:-40])
    reader = fastavro.reader(handle)
    with pytest.raises(ValueError, match="truncated|sync"):
        count_records(handle, reader._header["sync"], len(data) - 40)
