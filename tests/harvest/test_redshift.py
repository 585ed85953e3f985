"""``headwater harvest redshift-export``: realistic exports of SYS_QUERY_HISTORY (CSV with a header as UNLOAD
writes it, UNLOAD's JSON lines, ``aws redshift-data get-statement-result``) and SYS_QUERY_TEXT; the events posted to a
real Headwater and read back; a second harvest stores nothing twice."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from headwater.cli import cli
from olschema import event_errors

from .conftest import graph

FIXTURES = Path(__file__).parent / "fixtures" / "redshift"
CLUSTER = "examplecluster.abc123xyz789.us-west-2"
NS = f"redshift://{CLUSTER}:5439"


def _harvest(*args: str):
    return CliRunner().invoke(cli, ["harvest", "redshift-export", "--cluster", CLUSTER, *args], catch_exceptions=False)


def _events(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]


@pytest.mark.parametrize("name", ["sys_query_history.csv", "sys_query_history.json", "get-statement-result.json"])
def test_every_export_format_gives_the_same_events(name: str) -> None:
    result = _harvest(str(FIXTURES / name), "--texts", str(FIXTURES / "sys_query_text.csv"))
    assert result.exit_code == 0, result.stderr
    events = _events(result.stdout)
    for e in events:
        assert event_errors(e) == []
    summary = [(e["eventType"], e["eventTime"], e["job"]["name"].rsplit(".", 1)[0]) for e in events]
    assert summary == [
        ("START", "2026-11-24T10:00:00.120481Z", "create_table_as.dev.staging.daily_sales"),
        ("COMPLETE", "2026-11-24T10:00:03.884210Z", "create_table_as.dev.staging.daily_sales"),
        ("START", "2026-11-24T10:00:04.002113Z", "insert_into.dev.mart.store_revenue"),
        ("COMPLETE", "2026-11-24T10:00:05.301877Z", "insert_into.dev.mart.store_revenue"),
        ("START", "2026-11-24T10:01:00.000000Z", "insert_into.dev.mart.store_revenue"),
        ("FAIL", "2026-11-24T10:01:00.500000Z", "insert_into.dev.mart.store_revenue"),
        ("START", "2026-11-24T10:03:00.000000Z", "insert_into.dev.mart.wide_metrics"),
        ("COMPLETE", "2026-11-24T10:03:09.000000Z", "insert_into.dev.mart.wide_metrics"),
        ("START", "2026-11-24T10:04:00.000000Z", "unload.revenue"),
        ("COMPLETE", "2026-11-24T10:04:02.000000Z", "unload.revenue"),
    ]
    assert {e["job"]["namespace"] for e in events} == {NS}
    # the long statement was reassembled from SYS_QUERY_TEXT: its last line (past 4,000 characters) is there
    wide = events[7]
    assert wide["job"]["facets"]["sql"]["query"].endswith("JOIN staging.stores st ON st.store_id = s.store_id")
    assert len(wide["outputs"][0]["facets"]["columnLineage"]["fields"]) == 221
    failed = events[5]["run"]["facets"]["headwater_harvest"]
    assert failed["error"].startswith('ERROR: column "revenue"') and failed["queryId"] == "4104"
    assert "skipped 1: not finished (status running)" in result.stderr
    assert "skipped 1: no lineage: reads only" in result.stderr


def test_without_the_texts_a_cut_statement_is_skipped_with_its_reason() -> None:
    result = _harvest(str(FIXTURES / "sys_query_history.csv"))
    assert result.exit_code == 0
    assert "text cut at 4,000 characters: export SYS_QUERY_TEXT too (--texts)" in result.stderr
    assert not any("wide_metrics" in e["job"]["name"] for e in _events(result.stdout))


def test_posted_to_headwater_and_harvested_twice_stores_nothing_twice(served: str) -> None:
    args = [str(FIXTURES / "sys_query_history.csv"), "--texts", str(FIXTURES / "sys_query_text.csv"), "--url", served]
    first = _harvest(*args)
    assert first.exit_code == 0, first.stderr
    assert "5 with lineage, 10 events sent (0 already known)" in first.stderr
    again = _harvest(
        str(FIXTURES / "get-statement-result.json"), "--texts", str(FIXTURES / "sys_query_text.csv"), "--url", served
    )
    assert "10 events sent (10 already known)" in again.stderr

    lineage = graph(served, "lineage", nodeId=f"dataset:{NS}:dev.mart.store_revenue", direction="upstream", depth=4)
    names = {n.get("name") for n in lineage["nodes"]}
    assert {"dev.staging.daily_sales", "dev.public.orders", "dev.public.stores"} <= names
    jobs = [n for n in lineage["nodes"] if n.get("type") == "JOB"]
    (ctas,) = [j for j in jobs if j["name"].startswith("create_table_as.dev.staging.daily_sales")]
    runs = graph(served, "runs", nodeId=f"job:{NS}:{ctas['name']}")
    (run,) = runs["runs"]
    assert run["state"] == "COMPLETE"
    assert run["startedAt"].startswith("2026-11-24T10:00:00.120") and run["endedAt"].startswith(
        "2026-11-24T10:00:03.884"
    )


def test_a_file_that_is_no_export_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "notes.csv"
    bad.write_text("a,b\n1,2\n")
    result = _harvest(str(bad))
    assert result.exit_code == 2
    assert "a CSV export needs a header row with query_id" in result.stderr


def test_no_start_events_halves_the_events_and_keeps_the_start_in_the_facet() -> None:
    result = _harvest(
        str(FIXTURES / "sys_query_history.csv"), "--texts", str(FIXTURES / "sys_query_text.csv"), "--no-start-events"
    )
    events = _events(result.stdout)
    assert [e["eventType"] for e in events] == ["COMPLETE", "COMPLETE", "FAIL", "COMPLETE", "COMPLETE"]
    assert events[0]["run"]["facets"]["headwater_harvest"]["startTime"] == "2026-11-24T10:00:00.120481Z"
