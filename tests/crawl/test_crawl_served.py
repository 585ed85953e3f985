"""The crawler against a real ``headwater serve`` over HTTP; lineage and History read back over HTTP."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from lakefiles import write_lake

from headwater.api import create_app
from headwater.client import open_client
from headwater.crawl import crawl
from headwater.settings import load_settings
from headwater.store import Store
from live_server import ThreadServer


@pytest.fixture
def server(store_url: str) -> Iterator[str]:
    store = Store.open(store_url)
    with ThreadServer(create_app(load_settings({}, environ={}), store)) as served:
        yield served.url
    store.close()


def _history(url: str, node: str) -> list[dict]:
    answer = httpx.get(f"{url}/api/v1/graph/history", params={"nodeId": node})
    assert answer.status_code == 200, answer.text
    return answer.json()["versions"]


def test_recrawl_history_shows_schema_diffs_and_the_runs(server: str, tmp_path: Path) -> None:
    root = write_lake(tmp_path / "lake")
    state = tmp_path / "state.json"
    with open_client(url=server) as client:
        first = crawl(str(root), client, name="landing", state_path=state)
        same = crawl(str(root), client, name="landing", state_path=state)
        (root / "employees" / "part-2.csv").write_text("id;name;salary;hired;dept\n3;Cy;7;2024-03-04;ops\n")
        (root / "employees" / "part-1.csv").write_text("id;name;salary;hired;dept\n1;Ann;10.5;x;hr\n")
        changed = crawl(str(root), client, name="landing", state_path=state)
    assert changed.summary.updated == ["employees"]
    versions = _history(server, "dataset:headwater:default.employees")
    assert len(versions) == 2  # the unchanged re-crawl made no version
    newest, oldest = versions
    assert oldest["schemaChanges"] is None and oldest["madeBy"]["runId"] == first.run_id
    assert newest["madeBy"]["runId"] == changed.run_id != same.run_id
    assert newest["madeBy"]["jobName"] == "landing" and newest["madeBy"]["jobType"] == "CRAWLER"
    assert newest["schemaChanges"] == {
        "added": [{"field": "dept", "type": "string", "nullable": False}],
        "removed": [],
        "typeChanged": [{"field": "hired", "fromType": "date", "toType": "string"}],
        "nullabilityChanged": [{"field": "salary", "fromNullable": True, "toNullable": False}],
    }
    # lineage: storage folder -> crawler -> catalog table
    lineage = httpx.get(
        f"{server}/api/v1/graph/lineage",
        params={"nodeId": "dataset:headwater:default.employees", "direction": "upstream"},
    ).json()
    ids = {n["id"] for n in lineage["nodes"]}
    assert {"job:headwater:landing", f"dataset:file:{root / 'employees'}"} <= ids
    # the graph at the first crawl's moment shows the columns as they were
    past = httpx.get(
        f"{server}/api/v1/graph/node",
        params={"nodeId": "dataset:headwater:default.employees", "at": oldest["validFrom"]},
    ).json()
    assert [f["name"] for f in past["currentVersion"]["fields"]] == ["id", "name", "salary", "hired"]


def test_a_removed_folder_is_marked_deleted(server: str, tmp_path: Path) -> None:
    root = write_lake(tmp_path / "lake")
    state = tmp_path / "state.json"
    with open_client(url=server) as client:
        crawl(str(root), client, name="landing", state_path=state)
        for f in (root / "stock").iterdir():
            f.unlink()
        (root / "stock").rmdir()
        gone = crawl(str(root), client, name="landing", state_path=state)
    assert gone.summary.removed == ["stock"]
    newest = _history(server, "dataset:headwater:default.stock")[0]
    assert newest["changes"] == ["dropped"]
    assert newest["madeBy"]["runId"] == gone.run_id
