"""The demo's catalog: a domain, a producer and a consumer project with members, a published asset, a subscription.

Done through the running server's catalog API (``/api/v1/catalog``, docs/catalog.md), as an admin would:
the demo's server has no write tokens, so a request without a token may make catalog changes. Made:

- the domain ``people`` with the projects ``payroll`` (the producer) and ``finance`` (the consumer);
- the users ``payroll-owner`` (owner of ``payroll``) and ``finance-analyst`` (contributor of ``finance``);
- ``employee_compensation`` catalogued as a ``payroll`` asset and published by ``payroll-owner``;
- ``finance``'s subscription to it (target ``finance-warehouse``), requested by ``finance-analyst`` and
  approved by ``payroll-owner``.

Every step reads first and makes only what is missing, so a re-run on the same data dir changes nothing.
A user's token is shown once by the server, so the tokens are kept in ``<data_dir>/catalog-tokens.json``
and shown again on every run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import httpx

from headwater.demo.checks import DemoError

DOMAIN = "people"
PRODUCER = "payroll"
CONSUMER = "finance"
PRODUCER_USER = "payroll-owner"
CONSUMER_USER = "finance-analyst"
TARGET = "finance-warehouse"  # where the consumer gets the data
_API = "/api/v1/catalog"
# each user and the short label the demo prints before their token
ROLES = (
    (PRODUCER_USER, f"{PRODUCER_USER} (owner of {PRODUCER}, the producer)"),
    (CONSUMER_USER, f"{CONSUMER_USER} (contributor of {CONSUMER}, the consumer)"),
)


@dataclass(frozen=True)
class DemoCatalog:
    asset: str  # the published asset's id
    subscription: str  # the consumer's approved subscription
    tokens: dict[str, str]  # user -> bearer token

    def describe(self) -> str:
        return f"domain {DOMAIN}: {PRODUCER} publishes employee_compensation, {CONSUMER} subscribes"


def tokens_path(data_dir: Path) -> Path:
    return data_dir / "catalog-tokens.json"


class _Api:
    def __init__(self, client: httpx.Client) -> None:
        self.client = client

    def call(
        self, method: str, path: str, *, token: str | None = None, project: str | None = None, body: object = None
    ) -> dict[str, object]:
        headers = {}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        if project:
            headers["Headwater-Project"] = project
        try:
            answer = self.client.request(method, _API + path, headers=headers, json=body)
        except httpx.HTTPError as exc:
            raise DemoError(f"the catalog API did not answer {method} {_API}{path}: {exc}") from None
        if answer.status_code >= 400:
            raise DemoError(
                f"the catalog API refused {method} {_API}{path} ({answer.status_code}): {answer.text[:300]}"
                + (
                    "\nThe demo's catalog needs a server without write tokens (or run it with its own server)."
                    if answer.status_code in (401, 403) and token is None
                    else ""
                )
            )
        if answer.status_code == 204:
            return {}
        parsed: dict[str, object] = answer.json()
        return parsed


def _ids(answer: dict[str, object], key: str) -> set[str]:
    rows = answer.get(key)
    assert isinstance(rows, list)
    return {str(row["id"]) for row in rows}


def set_up(server_url: str, data_dir: Path, dataset_node: str) -> DemoCatalog:
    """Make what is missing of the demo's catalog on the server at ``server_url``; :class:`DemoError` if refused."""
    kept = tokens_path(data_dir)
    tokens: dict[str, str] = json.loads(kept.read_text()) if kept.is_file() else {}
    with httpx.Client(base_url=server_url, timeout=30.0) as client:
        api = _Api(client)
        if DOMAIN not in _ids(api.call("GET", "/domains"), "domains"):
            api.call("POST", "/domains", body={"id": DOMAIN, "name": "People", "description": "HR and payroll data"})
        projects = _ids(api.call("GET", "/projects"), "projects")
        for project, name, what in (
            (PRODUCER, "Payroll", "Produces the HR payroll tables"),
            (CONSUMER, "Finance", "Consumes payroll data for budgeting"),
        ):
            if project not in projects:
                api.call("POST", "/projects", body={"id": project, "domain": DOMAIN, "name": name, "description": what})
        for user in (PRODUCER_USER, CONSUMER_USER):
            if user not in tokens:
                try:
                    made = api.call("POST", "/users", body={"id": user})
                except DemoError as exc:
                    raise DemoError(
                        f"{exc}\nIts token is not in {kept}: remove the demo's data dir to start afresh"
                    ) from None
                tokens[user] = str(made["token"])
                kept.write_text(json.dumps(tokens, indent=2))
                kept.chmod(0o600)
        api.call("PUT", f"/projects/{PRODUCER}/members/{PRODUCER_USER}", body={"role": "owner"})
        api.call("PUT", f"/projects/{CONSUMER}/members/{CONSUMER_USER}", body={"role": "contributor"})

        producer = tokens[PRODUCER_USER]
        consumer = tokens[CONSUMER_USER]
        found = api.call("GET", f"/assets?ownerProject={PRODUCER}", token=producer)["assets"]
        assert isinstance(found, list)
        mine = [a for a in found if a.get("dataset") == dataset_node]
        asset = (
            mine[0]
            if mine
            else api.call("POST", "/assets", token=producer, body={"project": PRODUCER, "nodeId": dataset_node})
        )
        asset_id = str(asset["id"])
        if asset.get("state") != "published":
            api.call("POST", f"/assets/{asset_id}/publish", token=producer)

        subs = api.call("GET", "/subscriptions", token=consumer, project=CONSUMER)["subscriptions"]
        assert isinstance(subs, list)
        live = [s for s in subs if s.get("asset") == asset_id and s.get("state") in ("requested", "approved")]
        sub = (
            live[0]
            if live
            else api.call(
                "POST",
                f"/assets/{asset_id}/subscriptions",
                token=consumer,
                project=CONSUMER,
                body={"target": TARGET, "reason": "Budget planning needs the total compensation per employee"},
            )
        )
        sub_id = str(sub["id"])
        if sub.get("state") == "requested":
            api.call(
                "POST", f"/subscriptions/{sub_id}/approve", token=producer, body={"reason": "Approved for budgeting"}
            )
    return DemoCatalog(asset_id, sub_id, dict(tokens))
