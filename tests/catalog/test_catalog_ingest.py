"""Events sent for a project (``Headwater-Project``, ``headwater crawl --project``) are its inventory from the
first moment: a real crawl over HTTP into a real ``headwater serve`` (thread), on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from catalog_world import make_hr_database
from click.testing import CliRunner

from headwater.api import create_app
from headwater.cli import cli
from headwater.cli.crawl import command as crawl_command
from headwater.client import SendError, open_client
from headwater.crawl import crawl
from headwater.settings import load_settings
from headwater.store import Store
from live_server import ThreadServer

ADMIN = "admin-token"


@pytest.fixture
def server(store_url: str) -> Iterator[tuple[str, dict[str, str]]]:
    store = Store.open(store_url)
    with ThreadServer(create_app(load_settings({"write_tokens": ADMIN}, environ={}), store)) as served:
        url = served.url
        admin = {"Authorization": f"Bearer {ADMIN}"}
        tokens: dict[str, str] = {}

        def ok(answer: httpx.Response) -> Any:
            assert answer.status_code < 300, answer.text
            return answer.json()

        ok(httpx.post(f"{url}/api/v1/catalog/domains", json={"id": "people"}, headers=admin))
        ok(httpx.post(f"{url}/api/v1/catalog/projects", json={"id": "producer", "domain": "people"}, headers=admin))
        for user, role in (("bob", "contributor"), ("carol", "viewer")):
            tokens[user] = ok(httpx.post(f"{url}/api/v1/catalog/users", json={"id": user}, headers=admin))["token"]
            ok(httpx.put(f"{url}/api/v1/catalog/projects/producer/members/{user}", json={"role": role}, headers=admin))
        yield url, tokens
    store.close()


def test_a_crawl_sent_for_a_project_is_never_seen_by_others(server: tuple[str, dict[str, str]], tmp_path: Path) -> None:
    url, tokens = server
    source = make_hr_database(tmp_path)
    with open_client(url=url, token=tokens["bob"], project="producer") as client:
        result = crawl(source, client, catalog_database="hr")
    assert result.ok, result.error
    bob = {"Authorization": f"Bearer {tokens['bob']}"}
    # the public never sees the tables, their storage location, the crawl or its events
    for params in ({"q": "salary"}, {"q": "employee"}, {"q": "hr_secret"}, {"q": "crawl"}):
        assert httpx.get(f"{url}/api/v1/graph/search", params=params).json()["results"] == []
    events = httpx.get(f"{url}/api/v1/events", params={"limit": 1000}).json()["events"]
    assert events == []
    assert (
        httpx.get(f"{url}/api/v1/graph/node", params={"nodeId": "dataset:headwater:hr.salary_bands"}).status_code == 404
    )
    # the project sees its three inventory assets and the crawl's report, with each dataset's event
    assets = httpx.get(f"{url}/api/v1/catalog/assets", headers=bob).json()["assets"]
    assert sorted(a["name"] for a in assets) == ["hr.employee_compensation", "hr.employees", "hr.salary_bands"]
    assert {a["state"] for a in assets} == {"inventory"}
    (report,) = httpx.get(f"{url}/api/v1/catalog/projects/producer/source-runs", headers=bob).json()["runs"]
    assert report["added"] == 3 and report["failed"] == 0 and result.run_id in report["name"]
    for item in report["items"]:
        assert item["status"] == "SUCCESS"
        event = httpx.get(f"{url}/api/v1/events/{item['eventId']}", headers=bob)
        assert event.status_code == 200 and item["dataset"].rsplit(".", 1)[-1] in event.text
        assert httpx.get(f"{url}/api/v1/events/{item['eventId']}").status_code == 404
    # crawled again: the same report, updated, no new assets
    with open_client(url=url, token=tokens["bob"], project="producer") as client:
        crawl(source, client, catalog_database="hr")
    assert len(httpx.get(f"{url}/api/v1/catalog/assets", headers=bob).json()["assets"]) == 3


def test_only_owners_and_contributors_send_for_a_project(server: tuple[str, dict[str, str]]) -> None:
    url, tokens = server
    with pytest.raises(SendError, match="403"):
        with open_client(url=url, token=tokens["carol"], project="producer") as client:
            client.send([_event()])
    with pytest.raises(SendError, match="not a member"):
        with open_client(url=url, token=tokens["bob"], project="consumer") as client:
            client.send([_event()])


def test_the_crawl_command_needs_a_server_for_a_project(tmp_path: Path) -> None:
    answer = CliRunner().invoke(crawl_command, [str(tmp_path), "--project", "producer"])
    assert answer.exit_code == 2 and "--project needs --url" in answer.output
    answer = CliRunner().invoke(cli, ["harvest", "logs", "-q", "-", "--project", "producer"], input="x\n")
    assert answer.exit_code == 2 and "needs a Headwater URL" in answer.output


def test_a_harvest_sent_for_a_project_is_its_inventory(server: tuple[str, dict[str, str]], tmp_path: Path) -> None:
    """headwater harvest logs --project: the events found in a log file are sent for the project."""
    url, tokens = server
    log = tmp_path / "task.log"
    log.write_text("INFO - " + json.dumps(_event()) + "\n")
    args = ["harvest", "logs", "-q", str(log), "--url", url, "--token", tokens["bob"], "--project", "producer"]
    answer = CliRunner().invoke(cli, [*args, "--state", str(tmp_path / "state.json")], catch_exceptions=False)
    assert answer.exit_code == 0, answer.output
    bob = {"Authorization": f"Bearer {tokens['bob']}"}
    (asset,) = httpx.get(f"{url}/api/v1/catalog/assets", headers=bob).json()["assets"]
    assert asset["dataset"] == "dataset:warehouse:t" and asset["state"] == "inventory"
    assert httpx.get(f"{url}/api/v1/graph/node", params={"nodeId": "dataset:warehouse:t"}).status_code == 404


def _event() -> dict[str, Any]:
    return {
        "eventType": "COMPLETE",
        "eventTime": "2026-11-25T00:00:00Z",
        "producer": "https://example.test",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": "01938a5e-0000-7000-8000-000000000001"},
        "job": {"namespace": "x", "name": "y"},
        "inputs": [],
        "outputs": [{"namespace": "warehouse", "name": "t"}],
    }


def test_sql_lineage_sent_for_a_project(server: tuple[str, dict[str, str]], tmp_path: Path) -> None:
    """headwater sql lineage --url --token --project: the table a statement writes is the project's inventory."""
    url, tokens = server
    script = tmp_path / "load.sql"
    script.write_text("INSERT INTO mart.payroll SELECT id, salary FROM hr.pay;\n")
    args = ["sql", "lineage", str(script), "--dialect", "postgres", "--namespace", "postgres://db:5432"]
    answer = CliRunner().invoke(cli, [*args, "--url", url, "--token", tokens["bob"], "--project", "producer"])
    assert answer.exit_code == 0, answer.output
    bob = {"Authorization": f"Bearer {tokens['bob']}"}
    names = [a["name"] for a in httpx.get(f"{url}/api/v1/catalog/assets", headers=bob).json()["assets"]]
    assert names and all("payroll" in n for n in names)
    assert httpx.get(f"{url}/api/v1/graph/search", params={"q": "payroll"}).json()["results"] == []


SPLINE_FIXTURES = Path(__file__).resolve().parent.parent / "spline" / "fixtures"


def test_a_spline_plan_naming_inventory_is_not_found_by_others(server: tuple[str, dict[str, str]]) -> None:
    """The raw Spline plan is read through the same policy as the events it became."""
    url, tokens = server
    admin = {"Authorization": f"Bearer {ADMIN}"}
    spline = {**admin, "Content-Type": "application/vnd.absa.spline.producer.v1.2+json"}
    plan = json.loads((SPLINE_FIXTURES / "join_aggregate_to_file.plan.json").read_text())
    events = json.loads((SPLINE_FIXTURES / "join_aggregate_to_file.events.json").read_text())
    answer = httpx.post(f"{url}/spline/producer/execution-plans", content=json.dumps(plan), headers=spline)
    assert answer.status_code == 201, answer.text
    plan_id = answer.json()
    plan_id = plan_id if isinstance(plan_id, str) else plan["id"]
    sent = httpx.post(f"{url}/spline/producer/execution-events", content=json.dumps(events), headers=spline)
    assert sent.status_code == 201, sent.text
    first = httpx.get(f"{url}/spline/producer/execution-plans/{plan_id}")
    assert first.status_code == 200, first.text
    written = [d["id"] for d in httpx.get(f"{url}/api/v1/graph/datasets", headers=admin).json()["items"]]
    bob = {"Authorization": f"Bearer {tokens['bob']}"}
    for node in written:  # the producer catalogs every dataset of the plan
        made = httpx.post(f"{url}/api/v1/catalog/assets", json={"nodeId": node, "project": "producer"}, headers=bob)
        assert made.status_code == 201, made.text
    assert httpx.get(f"{url}/spline/producer/execution-plans/{plan_id}").status_code == 404
    assert httpx.get(f"{url}/spline/producer/execution-plans/{plan_id}", headers=bob).status_code == 200
