"""The MCP server through the official SDK's own client: streamable HTTP against a real ``headwater serve`` and
stdio against ``headwater mcp``, on the HR story, as an admin, a member of the project that owns the tax-rates
table and the employee-attendance table (owned by the steward), and an outsider who must not see them (nor job1
and job2, which read or write them). The server's classification rules tag
columns named like a salary PII and the tax rate FINANCE."""

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

from fixtures.stories.load import ATT, COMP, DAY1, EA, EMP, J1, J2, REP, RX, TAX, fid, incoming, story
from headwater.store import Store
from live_server import ServeProcess, serve_env

ADMIN = "admin-token"
TOOLS = {
    "search", "lineage", "column_path", "impact", "history", "diff", "sql_lineage", "impact_check",
    "classification_report", "data_quality",
}  # fmt: skip
RULES = '{"PII": "Salary", "FINANCE": "^TaxRate$"}'


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    folder = tmp_path_factory.mktemp("mcp")
    url = f"sqlite:///{folder / 'headwater.db'}"
    with Store.open(url) as store:
        store.append(incoming(story()))
    server = ServeProcess(
        url, folder / "serve.log", serve_env(folder, HEADWATER_WRITE_TOKENS=ADMIN, HEADWATER_CLASSIFY_RULES=RULES)
    )
    with server:
        server.wait_ready()
        admin = {"Authorization": f"Bearer {ADMIN}"}
        with httpx.Client(base_url=server.url, headers=admin, timeout=60) as http:
            assert http.post("/api/v1/catalog/domains", json={"id": "hr"}).status_code == 201
            assert http.post("/api/v1/catalog/projects", json={"id": "payroll", "domain": "hr"}).status_code == 201
            for name in ("/data/hr/tax_rates.csv", "/warehouse/hr/employee_attendance"):
                body = {"project": "payroll", "namespace": "file", "name": name}
                assert http.post("/api/v1/catalog/assets", json=body).status_code == 201
            tokens = {}
            for user in ("member", "outsider", "steward"):
                tokens[user] = http.post("/api/v1/catalog/users", json={"id": user}).json()["token"]
            for user, role in (("member", "viewer"), ("steward", "owner")):
                member = http.put(f"/api/v1/catalog/projects/payroll/members/{user}", json={"role": role})
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


REPORT_SQL = "INSERT INTO hr.public.compensation_report SELECT EmployeeID FROM employee_compensation;"
SQL_ARGS = {"dialect": "postgres", "namespace": "postgres://db.hr.local:5432", "default_database": "hr", "job": RX}
DROP_TAX_RATE = {"kind": "drop_column", "namespace": "file", "name": "/data/hr/tax_rates.csv", "column": "TaxRate"}
DROP_ATTENDANCE = {"kind": "drop_dataset", "namespace": "file", "name": "/data/hr/attendance.csv"}


def test_http_impact_check_classification_and_quality(served: dict[str, Any]) -> None:
    """Proposed changes (JSON and a changed SQL script) in one call, where tags flow and stop, and what is failing
    upstream of the report, as an admin; expected answers by hand from the story's column lineage."""
    _, check, paged, refused, bad, unparsable, pii, comp_tags, quality = anyio.run(
        _call_http,
        served["server"].url,
        ADMIN,
        [
            ("impact_check", {"changes": [DROP_TAX_RATE, DROP_ATTENDANCE], "sql": REPORT_SQL, **SQL_ARGS}),
            ("impact_check", {"changes": [DROP_TAX_RATE], "limit": 4, "offset": 4}),
            ("impact_check", {}),
            ("impact_check", {"changes": [{"kind": "drop_column", "namespace": "file", "name": "/x"}]}),
            ("impact_check", {"sql": "SELECT 1;\nINSERT INTO t SELECT (a FROM b;", **SQL_ARGS}),
            ("classification_report", {"tag": "PII"}),
            ("classification_report", {"dataset": COMP, "tag": "finance"}),
            ("data_quality", {"dataset": REP}),
        ],
    )
    found = answer(check)
    assert found["severity"] == "breaking"
    tax, attendance, script = found["changes"]
    assert (tax["found"], tax["severity"], tax["gone"]) == (True, "breaking", [fid(TAX, "TaxRate")])
    assert tax["dataset"]["url"].startswith(served["server"].url + "/asset?node=dataset%3Afile%3A")
    # dropping the attendance file drops its three columns; only HoursWorked flows on (into TotalHours)
    assert attendance["gone"] == [fid(ATT, c) for c in ("Date", "EmployeeID", "HoursWorked")]
    # the script no longer writes TotalCompensation and reads EmployeeID from a table the SQL engine names
    assert script["kind"] == "new_lineage" and script["gone"] == [fid(REP, "TotalCompensation")]
    assert script["values"] == [
        {
            "column": "EmployeeID",
            "before": [fid(COMP, "EmployeeID")],
            "after": ["datasetField:postgres://db.hr.local:5432:hr.public.employee_compensation:employeeid"],
        }
    ]
    assert script["severity"] == "none"  # nothing reads the report downstream
    items = {i["id"]: (i["severity"], i["effect"], i["change"]) for i in found["items"]}
    assert items == {
        # dropping TaxRate: job2 computes TotalCompensation from it, which the report export copies (masked)
        J2: ("breaking", "READS", 0),
        fid(COMP, "TotalCompensation"): ("breaking", "DIRECT", 0),
        COMP: ("breaking", "DIRECT", 0),
        RX: ("breaking", "READS", 0),
        fid(REP, "TotalCompensation"): ("breaking", "DIRECT", 0),
        REP: ("breaking", "DIRECT", 0),
        # dropping the attendance file: job1 reads it and sums HoursWorked into TotalHours
        J1: ("breaking", "READS", 1),
        fid(EA, "TotalHours"): ("breaking", "DIRECT", 1),
        EA: ("breaking", "DIRECT", 1),
        # job1 joins on the attendance's EmployeeID (the facet's dataset-level list): which rows every column of
        # employee_attendance holds depends on it, and so do the columns copied on from them
        **{fid(EA, c): ("warning", "INDIRECT", 1) for c in ("BaseSalary", "Department", "Email", "EmployeeID", "Name")},
        fid(COMP, "EmployeeID"): ("warning", "INDIRECT", 1),
        fid(COMP, "Name"): ("warning", "INDIRECT", 1),
        fid(REP, "EmployeeID"): ("warning", "INDIRECT", 1),
    }
    report = next(i for i in found["items"] if i["id"] == fid(REP, "TotalCompensation"))
    assert report["path"] == [fid(TAX, "TaxRate"), J2, fid(COMP, "TotalCompensation"), RX, report["id"]]
    assert report["transformations"] == ["DIRECT/TRANSFORMATION", "DIRECT/TRANSFORMATION masked"]
    assert (report["project"], report["owners"], report["subscribers"]) == (None, [], [])  # not cataloged
    assert report["url"].startswith(served["server"].url + "/asset?node=dataset%3Apostgres")
    assert found["summary"]["breaking"] == 9 and found["page"]["total"] == 17
    # the employee-attendance table is the payroll project's, whose owner is the steward
    total_hours = next(i for i in found["items"] if i["id"] == fid(EA, "TotalHours"))
    assert (total_hours["project"], total_hours["owners"], total_hours["subscribers"]) == ("payroll", ["steward"], [])
    assert found["whoToTell"] == [{"project": "payroll", "owners": ["steward"], "subscribers": [], "datasets": [EA]}]
    assert answer(paged)["page"] == {"offset": 4, "limit": 4, "total": 6, "nextOffset": None}
    assert len(answer(paged)["items"]) == 2
    assert refused.isError and "give changes" in refused.content[0].text
    assert bad.isError and "changes[0].column: a non-empty string is required" in bad.content[0].text
    assert unparsable.isError and "sql:2" in unparsable.content[0].text

    tags = answer(pii)
    # declared by the rule on both BaseSalary columns; inherited by TotalCompensation; masked by the export
    assert tags["summary"]["tags"] == {
        "PII": {"datasets": 3, "declaredColumns": 2, "inheritedColumns": 1, "jobs": 0, "stops": 1}
    }
    inherited = next(c for c in tags["columns"] if c["inherited"])
    assert (inherited["id"], inherited["origin"], inherited["hops"]) == (
        fid(COMP, "TotalCompensation"),
        fid(EA, "BaseSalary"),
        1,
    )
    assert inherited["path"] == [fid(EA, "BaseSalary"), J2, fid(COMP, "TotalCompensation")]
    (stop,) = tags["stops"]
    assert (stop["column"], stop["job"], stop["reason"]) == (fid(REP, "TotalCompensation"), RX, "masked")
    assert stop["url"].startswith(served["server"].url + "/asset?node=dataset%3Apostgres")
    finance = answer(comp_tags)
    assert [(c["id"], c["tag"], c["origin"]) for c in finance["columns"]] == [
        (fid(COMP, "TotalCompensation"), "FINANCE", fid(TAX, "TaxRate"))
    ]

    dq = answer(quality)
    # the report has no results of its own; job2's latest run (day 4) failed, so what it writes is failing
    assert dq["summary"]["status"] == "unknown" and dq["summary"]["flagged"] is True
    (cause,) = dq["upstream"]
    assert (cause["cause"], cause["status"], cause["depth"], cause["path"]) == ("dataset:file:/warehouse/hr/employee_compensation", "failing", 2, [COMP, RX, REP])  # fmt: skip
    assert len(cause["reasons"]) == 1 and cause["reasons"][0].endswith(f" of {J2} failed")


def test_http_impact_check_and_classification_under_the_callers_visibility(served: dict[str, Any]) -> None:
    """The outsider may not see the payroll project's tables nor job1 and job2: a change to one is a change to
    nothing the graph holds, their tags are not listed, and they are restricted ids on every path and in every
    reason."""
    base, token = served["server"].url, served["tokens"]["outsider"]
    _, hidden_change, seen_change, tags, quality = anyio.run(
        _call_http,
        base,
        token,
        [
            ("impact_check", {"changes": [DROP_TAX_RATE]}),
            (
                "impact_check",
                {"changes": [{**DROP_TAX_RATE, "name": "/data/hr/employees.csv", "column": "BaseSalary"}]},
            ),
            ("classification_report", {}),
            ("data_quality", {"dataset": REP}),
        ],
    )
    nothing = answer(hidden_change)
    assert (nothing["severity"], nothing["items"], nothing["changes"][0]["found"]) == ("none", [], False)
    seen = answer(seen_change)
    text = json.dumps([seen, answer(tags), answer(quality)])
    assert "tax_rates" not in text and J2 not in text
    # BaseSalary flows through job1, the attendance table and job2 (all restricted) into TotalCompensation
    assert seen["severity"] == "breaking" and J1 not in text and "employee_attendance" not in text
    total = next(i for i in seen["items"] if i["id"] == fid(COMP, "TotalCompensation"))
    assert total["path"][0] == fid(EMP, "BaseSalary") and total["path"][-1] == total["id"]
    assert all(":restricted://hidden:" in p for p in total["path"][1:4]) and "url" in total
    assert seen["whoToTell"] == []  # the payroll project's table is one restricted item: no owners named
    assert [i["type"] for i in seen["items"]].count("RESTRICTED") == 3  # job1, the attendance table, job2
    classified = answer(tags)
    assert fid(TAX, "TaxRate") not in {c["id"] for c in classified["columns"]}
    finance = next(c for c in classified["columns"] if c["tag"] == "FINANCE")
    assert finance["id"] == fid(COMP, "TotalCompensation") and "restricted://hidden" in finance["origin"]
    api = httpx.get(f"{base}/api/v1/classify/report", headers={"Authorization": f"Bearer {token}"}, timeout=30)
    assert {c["id"] for c in classified["columns"]} == {c["id"] for c in api.json()["columns"]}
    (cause,) = answer(quality)["upstream"]
    assert cause["cause"] == COMP and cause["reasons"][0].startswith("latest run of job:restricted://hidden:")
