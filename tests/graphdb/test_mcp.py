"""The MCP server through the official SDK's own client: streamable HTTP against a real ``headwater serve`` and
stdio against ``headwater mcp``, on the HR story, as an admin, a member of the project that owns the tax-rates
table, and an outsider who must not see it (nor job2, which reads it)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from fixtures.stories.load import COMP, DAY1, EA, EMP, J1, J2, REP, RX, TAX, fid, incoming, story
from headwater.store import Store
from live_server import ServeProcess, serve_env

ADMIN = "admin-token"
TOOLS = {"search", "lineage", "column_path", "impact", "history", "diff", "sql_lineage"}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    folder = tmp_path_factory.mktemp("mcp")
    url = f"sqlite:///{folder / 'headwater.db'}"
    with Store.open(url) as store:
        store.append(incoming(story()))
    server = ServeProcess(url, folder / "serve.log", serve_env(folder, HEADWATER_WRITE_TOKENS=ADMIN))
    with server:
        server.wait_ready()
        admin = {"Authorization": f"Bearer {ADMIN}"}
        with httpx.Client(base_url=server.url, headers=admin, timeout=60) as http:
            assert http.post("/api/v1/catalog/domains", json={"id": "hr"}).status_code == 201
            assert http.post("/api/v1/catalog/projects", json={"id": "payroll", "domain": "hr"}).status_code == 201
            body = {"project": "payroll", "namespace": "file", "name": "/data/hr/tax_rates.csv"}
            assert http.post("/api/v1/catalog/assets", json=body).status_code == 201
            tokens = {}
            for user in ("member", "outsider"):
                tokens[user] = http.post("/api/v1/catalog/users", json={"id": user}).json()["token"]
            member = http.put("/api/v1/catalog/projects/payroll/members/member", json={"role": "viewer"})
            assert member.status_code in (200, 201), member.text
        yield {"server": server, "url": url, "tokens": {"admin": ADMIN, **tokens}}


async def _call_http(base: str, token: str, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    client = httpx.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60)
    async with client, streamable_http_client(f"{base}/mcp", http_client=client) as (r, w, _):
        async with ClientSession(r, w) as session:
            await session.initialize()
            out: list[Any] = [{t.name for t in (await session.list_tools()).tools}]
            for name, args in calls:
                out.append(await session.call_tool(name, args))
            return out


def answer(result: Any) -> dict[str, Any]:
    assert not result.isError, result.content
    return dict(result.structuredContent)


def test_http_admin_gets_a_whole_datasets_column_impact_in_one_call(served: dict[str, Any]) -> None:
    tools, impact, at_day1, lineage, path, sql = anyio.run(
        _call_http,
        served["server"].url,
        ADMIN,
        [
            ("impact", {"node": EMP}),
            ("impact", {"node": EMP, "at": "2026-01-05T12:00:00Z"}),
            ("lineage", {"node": COMP, "direction": "upstream", "depth": 4, "limit": 3}),
            ("column_path", {"column": fid(REP, "TotalCompensation"), "direction": "upstream"}),
            (
                "sql_lineage",
                {"sql": "INSERT INTO report SELECT id, upper(name) AS name FROM staff", "dialect": "postgres"},
            ),
        ],
    )
    assert tools == TOOLS
    found = answer(impact)
    # by hand (tests/graph/test_columns_impact.py): 3 datasets, 3 jobs, 10 columns downstream of the employees file
    assert {k: found["summary"][k] for k in ("datasets", "jobs", "columns")} == {
        "datasets": 3,
        "jobs": 3,
        "columns": 10,
    }
    cols = {c["id"]: c for c in found["columns"]}
    report = cols[fid(REP, "TotalCompensation")]
    assert [(s["from"], s["job"], s["to"]) for s in report["path"]] == [
        (fid(EMP, "BaseSalary"), J1, fid(EA, "BaseSalary")),
        (fid(EA, "BaseSalary"), J2, fid(COMP, "TotalCompensation")),
        (fid(COMP, "TotalCompensation"), RX, fid(REP, "TotalCompensation")),
    ]
    assert report["path"][0]["transformations"] == ["DIRECT/IDENTITY"]
    assert report["path"][-1]["transformations"] == ["DIRECT/TRANSFORMATION (masking)"] and report["masking"]
    assert report["url"].startswith(served["server"].url + "/asset?node=dataset%3A")
    assert answer(at_day1)["summary"]["columns"] == 7  # before the report export existed
    up = answer(lineage)
    assert up["summary"]["upstream"] == {"datasets": 6, "jobs": 2} and up["page"] == {
        "offset": 0,
        "limit": 3,
        "total": 8,
        "nextOffset": 3,
    }
    assert [n["id"] for n in up["nodes"]] == [
        J2,
        "dataset:file:/data/hr/bonus_payments.csv",
        "dataset:file:/data/hr/salary_adjustments.csv",
    ]
    assert fid(EMP, "BaseSalary") in {c["id"] for c in answer(path)["columns"]}
    (statement,) = answer(sql)["statements"]
    assert statement["inputs"] == ["dataset:postgres:staff"] or statement["inputs"][0].endswith("staff")
    assert statement["outputs"][0]["columns"]["name"][0]["transformations"] == ["DIRECT/TRANSFORMATION"]


def test_http_visibility_is_the_callers(served: dict[str, Any]) -> None:
    tokens = served["tokens"]
    base = served["server"].url
    calls: list[tuple[str, dict[str, Any]]] = [
        ("search", {"query": "tax"}),
        ("lineage", {"node": TAX}),
        ("impact", {"node": EMP, "columns": ["BaseSalary"]}),
    ]
    _, m_search, m_lineage, _ = anyio.run(_call_http, base, tokens["member"], calls)
    assert TAX in {r["id"] for r in answer(m_search)["results"]}
    assert answer(m_lineage)["summary"]["downstream"]["jobs"] >= 1
    _, o_search, o_lineage, o_impact = anyio.run(_call_http, base, tokens["outsider"], calls)
    assert answer(o_search)["results"] == []
    assert o_lineage.isError and "not found" in o_lineage.content[0].text
    hidden = answer(o_impact)
    text = json.dumps(hidden)
    assert "tax_rates" not in text and J2 not in text  # job2 reads the hidden table: restricted on every path
    report = {c["id"]: c for c in hidden["columns"]}[fid(REP, "TotalCompensation")]
    assert report["path"][1]["job"].startswith("job:restricted://hidden:")
    # a catalog user who is a member nowhere, and a reader without a token, see what the API shows them
    api = httpx.get(
        f"{base}/api/v1/graph/node", params={"nodeId": TAX}, headers={"Authorization": f"Bearer {tokens['outsider']}"}
    )
    assert api.status_code == 404


async def _call_stdio(url: str, token: str, calls: list[tuple[str, dict[str, Any]]], folder: Path) -> list[Any]:
    env = serve_env(folder, HEADWATER_TOKEN=token, HEADWATER_WRITE_TOKENS=ADMIN)
    params = StdioServerParameters(command=sys.executable, args=["-m", "headwater", "mcp", "--db", url], env=env)
    async with stdio_client(params) as (r, w), ClientSession(r, w) as session:
        await session.initialize()
        return [await session.call_tool(name, args) for name, args in calls]


def test_stdio_with_the_callers_token(served: dict[str, Any], tmp_path: Path) -> None:
    calls: list[tuple[str, dict[str, Any]]] = [
        ("history", {"node": COMP}),
        ("diff", {"node": COMP, "from_time": DAY1.isoformat(), "to_time": "2026-01-08T12:00:00Z"}),
        ("lineage", {"node": TAX}),
    ]
    history, diff, lineage = anyio.run(_call_stdio, served["url"], served["tokens"]["member"], calls, tmp_path)
    assert [v["changes"] for v in answer(history)["versions"]] == [["facets"], ["created"]]
    assert TAX in {n["id"] for n in answer(diff)["nodes"]["added"]}
    assert not lineage.isError
    (lineage,) = anyio.run(_call_stdio, served["url"], served["tokens"]["outsider"], calls[2:], tmp_path)
    assert lineage.isError and "not found" in lineage.content[0].text


def test_http_refuses_as_the_api_does(tmp_path: Path) -> None:
    """With read tokens set, a request without one is refused before MCP sees it, with the API's 401 body."""
    from headwater.api import create_app
    from headwater.mcpserver import mount
    from headwater.settings import load_settings
    from live_server import ThreadServer

    settings = load_settings({"read_tokens": "reader", "write_tokens": ADMIN}, environ={})
    with Store.open(f"sqlite:///{tmp_path / 'h.db'}") as store:
        app = create_app(settings, store)
        mount(app, store, settings)
        with ThreadServer(app) as http:
            refused = httpx.post(f"{http.url}/mcp", json={}, timeout=30)
            assert refused.status_code == 401 and refused.json()["error"]["code"] == "unauthorized"
            tools = anyio.run(_call_http, http.url, "reader", [])
            assert tools == [TOOLS]
