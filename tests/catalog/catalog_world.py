"""The catalog story's world, shared by the catalog tests (imported by name).

One Headwater with two projects of the domain ``people``: the producer project (alice owner, bob
contributor, carol viewer) crawls an HR database (a real SQLite file, crawled by the real crawler
into the same store through the producer's one door), binds the crawl to its project, curates and
publishes ``employee_compensation``; a payroll job of the producer reads two inventory tables and
writes an uncataloged report. The consumer project (dave owner, erin contributor) finds the published
asset, subscribes at target ``analytics``, gets approved. The app is driven in-process (real HTTP
semantics through Starlette's TestClient) on a real SQLite or PostgreSQL store.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from fastapi.testclient import TestClient

from headwater.api import create_app
from headwater.client import StoreClient
from headwater.crawl import crawl
from headwater.settings import load_settings
from headwater.store import Store
from headwater.store.canonical import event_id

ADMIN_TOKEN = "admin-write-token"
BASE = "http://headwater.test"
DOMAIN = "people"
CATALOG_NS = f"headwater-catalog://{DOMAIN}"
DZ_DOMAIN = "dzd-people"

# What only the producer's members may see (any of these in an answer to anyone else is a leak)
INVENTORY_MARKERS = (
    "salary_bands",
    "hr.employees",
    "hr_secret",
    "headwater:hr.",
    "crawl:sqlite",
    "payroll_job",
    "payroll-etl",
    "sqlite://",
)
# The published asset's node (everyone sees it)
PUBLISHED_MARKERS = ("producer/hr.employee_compensation",)
# The subscription target (the consumer's and the producer's members see it)
TARGET_MARKERS = ("consumer/analytics/",)

ROLES = ("owner", "contributor", "viewer", "other", "anonymous", "admin")
SEES = {
    "owner": {"inventory", "published", "target"},
    "contributor": {"inventory", "published", "target"},
    "viewer": {"inventory", "published", "target"},
    "admin": {"inventory", "published", "target"},
    "other": {"published", "target"},
    "anonymous": {"published"},
}
MARKERS = {"inventory": INVENTORY_MARKERS, "published": PUBLISHED_MARKERS, "target": TARGET_MARKERS}


@dataclass
class World:
    app: Any
    http: TestClient
    store: Store
    tokens: dict[str, str | None]
    ids: dict[str, str] = field(default_factory=dict)

    def headers(self, role: str, **extra: str) -> dict[str, str]:
        token = self.tokens[role]
        return {**({"Authorization": f"Bearer {token}"} if token else {}), **extra}

    def get(self, role: str, url: str, **kwargs: Any) -> Any:
        return self.http.get(url, headers=self.headers(role, **kwargs.pop("headers", {})), **kwargs)

    def post(self, role: str, url: str, body: Any = None, **kwargs: Any) -> Any:
        return self.http.post(url, json=body, headers=self.headers(role, **kwargs.pop("headers", {})), **kwargs)

    def ok(self, answer: Any, status: int = 200) -> Any:
        assert answer.status_code == status, f"{answer.request.method} {answer.request.url}: {answer.text}"
        return answer.json() if answer.content else None


def make_hr_database(folder: Path) -> str:
    path = folder / "hr_secret.db"
    engine = sa.create_engine(f"sqlite:///{path}")
    with engine.begin() as conn:
        conn.execute(sa.text("CREATE TABLE employees (id INTEGER PRIMARY KEY, full_name TEXT, department TEXT)"))
        conn.execute(
            sa.text(
                "CREATE TABLE employee_compensation (employee_id INTEGER PRIMARY KEY, salary NUMERIC, bonus NUMERIC)"
            )
        )
        conn.execute(sa.text("CREATE TABLE salary_bands (band TEXT PRIMARY KEY, low NUMERIC, high NUMERIC)"))
    engine.dispose()
    return f"sqlite:///{path}"


def payroll_event() -> dict[str, Any]:
    """The producer's payroll job: two inventory tables in, an uncataloged report out (with column lineage)."""
    producer = "https://example.test/payroll"
    col = "https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json#/$defs/ColumnLineageDatasetFacet"
    return {
        "eventType": "COMPLETE",
        "eventTime": datetime.now(UTC).isoformat(),
        "producer": producer,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": str(uuid.uuid4())},
        "job": {"namespace": "payroll-etl", "name": "payroll_job"},
        "inputs": [
            {"namespace": "headwater", "name": "hr.employee_compensation"},
            {"namespace": "headwater", "name": "hr.salary_bands"},
        ],
        "outputs": [
            {
                "namespace": "warehouse",
                "name": "reports.payroll_summary",
                "facets": {
                    "schema": {
                        "_producer": producer,
                        "_schemaURL": "https://openlineage.io/spec/facets/1-1-1/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet",
                        "fields": [{"name": "total_pay", "type": "NUMERIC"}],
                    },
                    "columnLineage": {
                        "_producer": producer,
                        "_schemaURL": col,
                        "fields": {
                            "total_pay": {
                                "inputFields": [
                                    {
                                        "namespace": "headwater",
                                        "name": "hr.employee_compensation",
                                        "field": "salary",
                                        "transformations": [{"type": "DIRECT", "subtype": "AGGREGATION"}],
                                    },
                                    {
                                        "namespace": "headwater",
                                        "name": "hr.salary_bands",
                                        "field": "high",
                                        "transformations": [{"type": "INDIRECT", "subtype": "FILTER"}],
                                    },
                                ]
                            }
                        },
                    },
                },
            }
        ],
    }


def build_world(store_url: str, tmp: Path) -> World:
    """The whole story, each step checked; answers the world for further questions."""
    store = Store.open(store_url)
    settings = load_settings({"write_tokens": ADMIN_TOKEN}, environ={})
    app = create_app(settings, store)
    http = TestClient(app, base_url=BASE)
    w = World(app, http, store, {"admin": ADMIN_TOKEN, "anonymous": None})

    # the admin sets up the domain, the projects, the users and their roles
    w.ok(w.post("admin", "/api/v1/catalog/domains", {"id": DOMAIN, "name": "People"}), 201)
    for project in ("producer", "consumer"):
        w.ok(w.post("admin", "/api/v1/catalog/projects", {"id": project, "domain": DOMAIN}), 201)
    people = {
        "alice": ("producer", "owner"),
        "bob": ("producer", "contributor"),
        "carol": ("producer", "viewer"),
        "dave": ("consumer", "owner"),
        "erin": ("consumer", "contributor"),
    }
    for user, (project, role) in people.items():
        token = w.ok(w.post("admin", "/api/v1/catalog/users", {"id": user}), 201)["token"]
        w.tokens[user] = token
        answer = w.http.put(
            f"/api/v1/catalog/projects/{project}/members/{user}", json={"role": role}, headers=w.headers("admin")
        )
        w.ok(answer)
    for role, user in (("owner", "alice"), ("contributor", "bob"), ("viewer", "carol"), ("other", "erin")):
        w.tokens[role] = w.tokens[user]

    # the producer crawls its HR database (embedded: the crawler's one door into this very store)
    source = make_hr_database(tmp)
    result = crawl(source, StoreClient(store), catalog_database="hr")
    assert result.ok, result.error
    w.ids["crawl_run"] = result.run_id
    w.ids["crawl_job"] = f"job:headwater:{result.job}"
    w.ids["alias"] = f"dataset:sqlite://localhost:{tmp / 'hr_secret.db'}.employee_compensation"
    # the payroll job reports through the DataZone door (its own event table: read back through the policy too)
    payroll = payroll_event()
    w.ids["payroll_run"] = payroll["run"]["runId"]
    posted = w.http.post(
        f"/v2/domains/{DZ_DOMAIN}/lineage/events", content=json.dumps(payroll), headers=w.headers("admin")
    )
    assert posted.status_code == 200, posted.text
    w.ids["payroll_event"] = event_id(payroll)
    w.ids["payroll_dz_event"] = posted.json()["id"]

    # bob binds the crawl to the producer project: every table becomes an inventory asset
    report = w.ok(
        w.post(
            "contributor",
            "/api/v1/catalog/projects/producer/source-runs",
            {"name": "crawl HR", "runIds": [result.run_id]},
        ),
        201,
    )
    assert report["added"] == 3 and report["failed"] == 0, report
    by_name = {item["dataset"]: item for item in report["items"]}
    comp = "dataset:headwater:hr.employee_compensation"
    assert set(by_name) == {comp, "dataset:headwater:hr.employees", "dataset:headwater:hr.salary_bands"}
    assert all(
        item["status"] == "SUCCESS" and item["action"] == "added" and item["eventId"] for item in report["items"]
    )
    w.ids["source_run"] = report["id"]
    w.ids["asset"] = by_name[comp]["asset"]
    w.ids["bands_asset"] = by_name["dataset:headwater:hr.salary_bands"]["asset"]
    w.ids["crawl_event"] = by_name[comp]["eventId"]

    # the owner defines the glossary; bob curates and publishes employee_compensation
    w.ok(
        w.http.put(
            f"/api/v1/catalog/domains/{DOMAIN}/glossary/Compensation",
            json={"definition": "What an employee is paid"},
            headers=w.headers("owner"),
        )
    )
    asset_url = f"/api/v1/catalog/assets/{w.ids['asset']}"
    curated = w.ok(
        w.http.patch(
            asset_url,
            json={
                "businessName": "Employee compensation",
                "description": "Pay per employee. <script>alert(1)</script> [x](javascript:alert(1))",
                "owners": ["alice"],
                "glossaryTerms": ["Compensation"],
                "tags": ["pii", "finance"],
                "forms": {"retention": {"years": "7"}},
            },
            headers=w.headers("contributor"),
        )
    )
    assert curated["version"] == 2 and curated["state"] == "inventory"
    w.ids["curated_at"] = curated["updatedAt"]
    published = w.ok(w.post("contributor", f"{asset_url}/publish"))
    assert published["state"] == "published" and published["version"] == 3
    w.ids["published_node"] = published["publishedNode"]
    versions = w.ok(w.get("owner", f"{asset_url}/versions"))["versions"]
    w.ids["publish_event"] = versions[0]["eventId"]
    assert w.ids["published_node"] == f"dataset:{CATALOG_NS}:producer/hr.employee_compensation"

    # the consumer finds only the published asset, subscribes, the producer's owner approves
    found = w.ok(w.get("other", "/api/v1/catalog/assets"))["assets"]
    assert [a["id"] for a in found] == [w.ids["asset"]] and found[0]["dataset"] is None
    sub = w.ok(
        w.post(
            "other",
            f"{asset_url}/subscriptions",
            {"target": "analytics", "reason": "payroll dashboards"},
            headers={"Headwater-Project": "consumer"},
        ),
        201,
    )
    assert sub["state"] == "requested"
    w.ids["subscription"] = sub["id"]
    approved = w.ok(w.post("owner", f"/api/v1/catalog/subscriptions/{sub['id']}/approve", {"reason": "ok"}))
    assert approved["state"] == "approved" and approved["targetNode"]
    w.ids["target_node"] = approved["targetNode"]
    w.ids["approve_event"] = approved["eventId"]
    return w
