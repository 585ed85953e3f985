"""Crawling real files: grouping, partitions, every format, nesting, drift across files, corrupt files."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from lakefiles import write_lake

from headwater.client import PrintClient
from headwater.crawl import Limits, crawl
from olschema import event_errors


def _crawl(root: Path, state: Path, **kw: Any) -> tuple[Any, list[dict[str, Any]]]:
    out = io.StringIO()
    result = crawl(str(root), PrintClient(out), state_path=state, **kw)
    return result, [json.loads(line) for line in out.getvalue().splitlines()]


def _outputs(events: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {o["name"]: o for e in events for o in e["outputs"] if o["namespace"] == "headwater"}


def _fields(dataset: dict[str, Any]) -> list[tuple[str, str]]:
    return [(f["name"], f["type"]) for f in dataset["facets"]["schema"]["fields"]]


def test_a_lake_becomes_tables_of_every_format(tmp_path: Path, spec_dir: Path) -> None:
    root = write_lake(tmp_path / "lake")
    result, events = _crawl(root, tmp_path / "state.json")
    assert result.ok, result.summary.failures
    assert sorted(result.summary.added) == ["clicks", "employees", "events", "orders", "stock"]
    for event in events:
        assert event_errors(event, spec_dir) == []
    out = _outputs(events)
    assert _fields(out["default.employees"]) == [
        ("id", "bigint"),
        ("name", "string"),
        ("salary", "double"),
        ("hired", "date"),
    ]
    assert out["default.employees"]["facets"]["headwater_columns"]["columns"]["salary"]["nullable"] is True
    assert out["default.employees"]["outputFacets"]["outputStatistics"]["fileCount"] == 2
    assert _fields(out["default.orders"]) == [
        ("order_id", "bigint"),
        ("amount", "double"),
        ("note", "string"),
        ("year", "bigint"),
        ("month", "bigint"),
    ]
    assert out["default.orders"]["outputFacets"]["outputStatistics"]["rowCount"] == 4
    events_fields = out["default.events"]["facets"]["schema"]["fields"]
    assert _fields(out["default.events"]) == [
        ("id", "bigint"),
        ("user", "struct<name:string,tags:array<string>>"),
        ("items", "array<struct<sku:string,qty:bigint>>"),
    ]
    assert [f["name"] for f in events_fields[1]["fields"]] == ["name", "tags"]
    assert _fields(out["default.stock"]) == [("sku", "string"), ("count", "int")]
    assert out["default.stock"]["outputFacets"]["outputStatistics"]["rowCount"] == 3
    assert _fields(out["default.clicks"]) == [("url", "string"), ("at", "timestamp"), ("ref", "string")]
    # lineage as catalogs draw it: folder -> crawler -> catalog table, symlinked both ways
    final = events[-1]
    storage = {i["name"]: i for i in final["inputs"]}
    orders = storage[str(root / "orders")]
    assert orders["namespace"] == "file"
    assert orders["facets"]["symlinks"]["identifiers"] == [
        {"namespace": "headwater", "name": "default.orders", "type": "TABLE"}
    ]
    assert out["default.orders"]["facets"]["symlinks"]["identifiers"][0]["type"] == "LOCATION"
    assert final["run"]["facets"]["headwater_crawl"]["summary"]["ignored"] == 1  # _SUCCESS


def test_recrawl_skips_unchanged_files_and_sees_drift(tmp_path: Path) -> None:
    root = write_lake(tmp_path / "lake")
    state = tmp_path / "state.json"
    first, _ = _crawl(root, state)
    assert first.stats["filesRead"] == 7
    again, _ = _crawl(root, state)
    assert again.stats == {"filesRead": 0, "filesUnchanged": 7}
    assert sorted(again.summary.unchanged) == sorted(first.summary.added)
    # a new file with one more column: merged (nullable), the table is updated
    (root / "employees" / "part-3.csv").write_text("id;name;salary;hired;dept\n4;Di;3;2024-05-06;ops\n")
    drift, events = _crawl(root, state)
    assert drift.summary.updated == ["employees"] and drift.stats["filesRead"] == 1
    columns = _outputs(events)["default.employees"]["facets"]["headwater_columns"]["columns"]
    assert _fields(_outputs(events)["default.employees"])[-1] == ("dept", "string") and columns["dept"]["nullable"]
    # a folder gone: the table is removed, sent with lifecycleStateChange DROP
    for f in (root / "stock").iterdir():
        f.unlink()
    (root / "stock").rmdir()
    gone, events = _crawl(root, state)
    assert gone.summary.removed == ["stock"]
    dropped = _outputs(events)["default.stock"]
    assert dropped["facets"]["lifecycleStateChange"]["lifecycleStateChange"] == "DROP"


def test_bad_files_are_reported_and_skipped(tmp_path: Path) -> None:
    root = write_lake(tmp_path / "lake")
    (root / "orders" / "year=2026" / "month=01").mkdir(parents=True)
    (root / "orders" / "year=2026" / "month=01" / "bad.parquet").write_bytes(b"PAR1 not really")
    (root / "events" / "broken.jsonl").write_text('{"id": 3}\n{"id": \n{"id": 4}\n')
    (root / "clicks" / "zero.avro").write_bytes(b"")
    result, events = _crawl(root, tmp_path / "state.json")
    reasons = {Path(s.path).name: s.reason for s in result.summary.failures}
    assert set(reasons) == {"bad.parquet", "broken.jsonl", "zero.avro"}
    assert "line 2: invalid JSON" in reasons["broken.jsonl"]
    assert not result.ok
    assert sorted(result.summary.added) == ["clicks", "employees", "events", "orders", "stock"]
    assert events[-1]["eventType"] == "COMPLETE"
    assert len(events[-1]["run"]["facets"]["headwater_crawl"]["summary"]["skipped"]) == 3


def test_incompatible_files_and_mixed_formats(tmp_path: Path) -> None:
    root = tmp_path / "lake"
    (root / "t").mkdir(parents=True)
    for i in range(2):
        pq.write_table(pa.table({"a": [1], "b": ["x"]}), root / "t" / f"p{i}.parquet")
    pq.write_table(pa.table({"x": [1.0], "y": [2.0], "z": [3.0]}), root / "t" / "other.parquet")
    pq.write_table(pa.table({"a": pa.array([1], pa.int32()), "b": ["x"]}), root / "t" / "narrow.parquet")
    (root / "t" / "extra.csv").write_text("a,b\n1,2\n")
    result, events = _crawl(root, tmp_path / "state.json")
    # the incompatible file is a table of its own (test_crawl_split.py), at its own location
    assert sorted(result.summary.added) == ["t_csv", "t_parquet", "t_parquet_2"]
    assert result.ok, result.summary.failures
    assert _fields(_outputs(events)["default.t_parquet"]) == [("a", "bigint"), ("b", "string")]
    assert _fields(_outputs(events)["default.t_parquet_2"]) == [("x", "double"), ("y", "double"), ("z", "double")]


def test_sampling_limits(tmp_path: Path) -> None:
    root = tmp_path / "lake" / "big"
    root.mkdir(parents=True)
    (root / "a.csv").write_text("n,s\n" + "".join(f"{i},x\n" for i in range(5000)) + "oops,x\n")
    result, events = _crawl(tmp_path / "lake", tmp_path / "s.json", limits=Limits(sample_rows=100))
    assert _fields(_outputs(events)["default.big"]) == [("n", "bigint"), ("s", "string")]  # the tail is not read
    result, events = _crawl(tmp_path / "lake", tmp_path / "s2.json", limits=Limits(sample_rows=10_000))
    assert _fields(_outputs(events)["default.big"]) == [("n", "string"), ("s", "string")]


def test_root_folder_partitioned_and_json_array(tmp_path: Path) -> None:
    root = tmp_path / "sales"
    (root / "dt=2024-01-01").mkdir(parents=True)
    (root / "dt=2024-01-01" / "a.json").write_text(json.dumps([{"k": 1, "v": {"w": True}}, {"k": 2}]))
    result, events = _crawl(root, tmp_path / "s.json")
    assert result.summary.added == ["sales"]
    assert _fields(_outputs(events)["default.sales"]) == [("k", "bigint"), ("v", "struct<w:boolean>"), ("dt", "string")]
