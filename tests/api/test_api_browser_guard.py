"""Browser-facing security: cross-site writes refused (Origin, Sec-Fetch-Site,
media type), the Host check against DNS rebinding, security headers on the UI, and names full of
URL and HTML syntax round-tripping through the API's query parameters and answers."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from api_helpers import assert_error, client_for, make_settings
from hostile_payloads import template

from headwater.api import create_app
from headwater.api.guard import allowed_hosts
from headwater.store import Store

pytestmark = pytest.mark.anyio

JSON = {"Content-Type": "application/json"}


async def stored(client: httpx.AsyncClient) -> int:
    return len((await client.get("/api/v1/events")).json()["events"])


async def test_cross_site_writes_are_refused(client: httpx.AsyncClient) -> None:
    event = template()
    for headers in (
        {"Origin": "http://evil.example"},
        {"Origin": "null"},
        {"Origin": "http://headwater.test.evil.example"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site"},
        {"Origin": "http://headwater.test", "Sec-Fetch-Site": "cross-site"},
    ):
        for path, body in (("/api/v1/lineage", event), ("/api/v1/lineage/batch", [event])):
            answer = await client.post(path, json=body, headers=headers)
            error = assert_error(answer, 403, "forbidden")
            assert "may not write" in error["message"], error
    # a simple request a page may send cross-site without a preflight: refused by its media type
    for ctype in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"):
        answer = await client.post("/api/v1/lineage", content=b"{}", headers={"Content-Type": ctype})
        assert_error(answer, 415, "unsupported_media_type")
    assert await stored(client) == 0


async def test_same_origin_and_server_to_server_writes_pass(client: httpx.AsyncClient) -> None:
    event = template()
    # Headwater's own page (same origin), as a browser sends it
    page = {"Origin": "http://headwater.test", "Sec-Fetch-Site": "same-origin", **JSON}
    assert (await client.post("/api/v1/lineage", json=event, headers=page)).status_code == 201
    # the OpenLineage Java/Spark client: application/json with a charset, no Origin, no Sec-Fetch-*
    java = {"Content-Type": "application/json; charset=UTF-8", "User-Agent": "Apache-HttpClient/5.4 (Java/17)"}
    other = {**event, "eventType": "COMPLETE"}
    assert (await client.post("/api/v1/lineage", json=other, headers=java)).status_code == 201
    # a user typing the URL / a bookmark: Sec-Fetch-Site none
    third = {**event, "eventType": "OTHER"}
    assert (await client.post("/api/v1/lineage", json=third, headers={"Sec-Fetch-Site": "none"})).status_code == 201
    # reads are never refused for their Origin (no CORS headers are granted, so a page cannot read them)
    assert (await client.get("/api/v1/events", headers={"Origin": "http://evil.example"})).status_code == 200


@pytest.mark.parametrize(
    ("bind", "configured", "host", "ok"),
    [
        ("127.0.0.1", "", "localhost:5000", True),
        ("127.0.0.1", "", "127.0.0.1:5000", True),
        ("127.0.0.1", "", "[::1]:5000", True),
        ("127.0.0.1", "", "LOCALHOST", True),
        ("127.0.0.1", "", "evil.example:5000", False),  # DNS rebinding: evil.example resolved to 127.0.0.1
        ("127.0.0.1", "", "127.0.0.1.evil.example", False),
        ("localhost", "lineage.internal", "lineage.internal:5000", True),
        ("127.0.0.1", "lineage.internal", "evil.example", False),
        ("0.0.0.0", "", "anything.example:5000", True),
        ("0.0.0.0", "lineage.example.com", "lineage.example.com", True),
        ("0.0.0.0", "lineage.example.com", "evil.example", False),
        (None, "", "headwater.test", True),  # create_app without a bind address (tests, embedding)
    ],
)
async def test_host_check(store: Store, bind: str | None, configured: str, host: str, ok: bool) -> None:
    app = create_app(make_settings(allowed_hosts=configured), store, bind_host=bind)
    async with client_for(app) as client:
        answer = await client.get("/api/v1/graph/recent", headers={"Host": host})
        if ok:
            assert answer.status_code == 200, answer.text
        else:
            error = assert_error(answer, 403, "forbidden")
            assert "allowed_hosts" in error["message"]
            assert error["details"][0]["path"] == "Host"


def test_allowed_hosts_rules() -> None:
    assert allowed_hosts(None, []) is None
    assert allowed_hosts("0.0.0.0", []) is None
    assert allowed_hosts("::1", []) == {"localhost", "127.0.0.1", "[::1]"}
    assert allowed_hosts("0.0.0.0", ["A.example:80"]) == {"a.example"}


async def test_ui_answers_carry_security_headers(store: Store, tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text("<!doctype html><script type=module src=/assets/a.js></script>")
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "a.js").write_text("console.log(1)")
    app = create_app(make_settings(), store, ui_folder=tmp_path)
    async with client_for(app) as client:
        for path in ("/", "/lineage/dataset:file:/x", "/assets/a.js"):
            answer = await client.get(path)
            assert answer.status_code == 200
            csp = answer.headers["content-security-policy"]
            assert "script-src 'self';" in csp and "unsafe-inline" not in csp.split("script-src")[1].split(";")[0]
            assert "frame-ancestors 'none'" in csp
            assert answer.headers["x-frame-options"] == "DENY"
            assert answer.headers["x-content-type-options"] == "nosniff"
            assert answer.headers["referrer-policy"] == "no-referrer"
        api = await client.get("/api/v1/graph/recent")
        assert api.headers["x-content-type-options"] == "nosniff"


NASTY = [
    "a:b",
    "s3://bucket/dir/file.csv",
    "x#frag",
    "100%",
    "%2F%41",
    "with space",
    "<img src=x onerror=alert(1)>",
    "q?x=1&y=2",
    "semi;colon",
    "back\\slash",
    "quote\"'",
    "unicode é 漢字 🙂",
    "plus+sign",
    "..",
    "a/../b",
    "trailing:",
    ":leading",
    "tab\there",
]


async def test_nasty_names_round_trip_through_the_api(client: httpx.AsyncClient) -> None:
    """Every nasty name as namespace, dataset name and field: posted, then found by nodeId= (as the
    answers give it) and by type=&namespace=&name=&field=, answering the same names."""
    for i, nasty in enumerate(NASTY):
        event = template()
        event["run"]["runId"] = f"38af66ad-be14-41ee-ae43-{i:012d}"
        event["outputs"][0]["namespace"] = f"ns {nasty}"
        event["outputs"][0]["name"] = nasty
        event["outputs"][0]["facets"]["schema"]["fields"][1]["name"] = nasty
        event["outputs"][0]["facets"]["columnLineage"]["fields"] = {
            nasty: {"inputFields": [{"namespace": "file", "name": "/data/payroll", "field": "Total"}]}
        }
        assert (await client.post("/api/v1/lineage", json=event)).status_code == 201, nasty
    for nasty in NASTY:
        by_parts = await client.get(
            "/api/v1/graph/node", params={"type": "dataset", "namespace": f"ns {nasty}", "name": nasty}
        )
        assert by_parts.status_code == 200, (nasty, by_parts.text)
        node = by_parts.json()
        assert (node["namespace"], node["name"]) == (f"ns {nasty}", nasty)
        assert nasty in [f["name"] for f in node["fields"]]
        # the id the answer gives is a valid nodeId= for the same node
        again = await client.get("/api/v1/graph/node", params={"nodeId": node["id"]})
        assert again.status_code == 200 and again.json()["id"] == node["id"], (nasty, again.text)
        columns = await client.get(
            "/api/v1/graph/column-lineage",
            params={
                "type": "datasetField",
                "namespace": f"ns {nasty}",
                "name": nasty,
                "field": nasty,
                "direction": "upstream",
            },
        )
        assert columns.status_code == 200, (nasty, columns.text)
        root = [n for n in columns.json()["nodes"] if n["level"] == 0]
        assert [(n["namespace"], n["name"], n["field"]) for n in root] == [(f"ns {nasty}", nasty, nasty)]
        field_again = await client.get(
            "/api/v1/graph/column-lineage", params={"nodeId": root[0]["id"], "direction": "upstream"}
        )
        assert field_again.status_code == 200 and field_again.json()["root"] == root[0]["id"], (nasty, field_again.text)
        found = await client.get("/api/v1/graph/search", params={"q": nasty, "type": "dataset"})
        assert node["id"] in [r["id"] for r in found.json()["results"]], nasty
