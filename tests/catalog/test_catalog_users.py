"""A catalog user's token is replaced, and a user removed, over HTTP (docs/catalog.md, "Users and their tokens"):
the token before is refused from the next request on, the roles stay (a new token) or end (removed), each change
is in the audit log, a removed user's id is not given out again, and nobody but the user or an admin gets a
user's token; on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from headwater.api import create_app
from headwater.settings import load_settings
from headwater.store import Store

WRITE = "the-write-token"
ADMIN = {"Authorization": f"Bearer {WRITE}"}
C = "/api/v1/catalog"


@pytest.fixture
def http(store_url: str) -> Iterator[TestClient]:
    store = Store.open(store_url)
    settings = load_settings({"write_tokens": WRITE}, environ={})
    with TestClient(create_app(settings, store), base_url="http://headwater.test") as client:
        yield client
    store.close()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def made(http: TestClient, method: str, url: str, headers: dict[str, str], status: int, **kw: object) -> dict:
    answer = http.request(method, url, headers=headers, **kw)  # type: ignore[arg-type]
    assert answer.status_code == status, f"{method} {url}: {answer.status_code} {answer.text}"
    return answer.json() if answer.content else {}


def me(http: TestClient, token: str) -> dict:
    """Who the token is, as ``GET /me`` answers."""
    return made(http, "GET", f"{C}/me", bearer(token), 200)


def nobody_s(http: TestClient, token: str) -> bool:
    """Whether ``token`` is refused as unknown both to read (reads here need no token: it is not read as an
    anonymous reader's, who sees less) and to send an event (a known owner's gets as far as the body, which is
    refused as empty)."""
    read = http.get(f"{C}/me", headers=bearer(token))
    write = http.post("/api/v1/lineage", json={}, headers=bearer(token))
    return all(
        a.status_code == 401 and a.json()["error"]["message"].startswith("unknown token: ") for a in (read, write)
    )


def test_a_user_s_token_is_replaced_and_a_user_removed(http: TestClient) -> None:
    made(http, "POST", f"{C}/domains", ADMIN, 201, json={"id": "people"})
    made(http, "POST", f"{C}/projects", ADMIN, 201, json={"id": "hr", "domain": "people"})
    tokens = {u: made(http, "POST", f"{C}/users", ADMIN, 201, json={"id": u})["token"] for u in ("ann", "bob")}
    made(http, "PUT", f"{C}/projects/hr/members/ann", ADMIN, 200, json={"role": "owner"})
    made(http, "PUT", f"{C}/projects/hr/members/bob", ADMIN, 200, json={"role": "viewer"})
    ann_before = me(http, tokens["ann"])
    assert ann_before["user"] == "ann" and ann_before["memberships"] != []
    assert not nobody_s(http, tokens["ann"])

    # the user themself: a new token, the roles kept, the one before refused from now on
    fresh = made(http, "POST", f"{C}/users/ann/token", bearer(tokens["ann"]), 201)
    assert fresh["id"] == "ann" and fresh["token"].startswith("hwu_") and fresh["token"] != tokens["ann"]
    assert nobody_s(http, tokens["ann"])
    assert me(http, fresh["token"]) == ann_before
    # nobody else but an admin: another user, even an owner of the same project, or no token at all
    refused = http.post(f"{C}/users/ann/token", headers=bearer(tokens["bob"]))
    assert refused.status_code == 403 and "ann" in refused.json()["error"]["message"]
    assert http.post(f"{C}/users/ann/token").status_code == 403  # no token: an anonymous reader
    assert me(http, fresh["token"]) == ann_before  # nothing changed by the refusals
    by_admin = made(http, "POST", f"{C}/users/ann/token", ADMIN, 201)["token"]
    assert nobody_s(http, fresh["token"])
    assert me(http, by_admin) == ann_before
    assert http.post(f"{C}/users/nobody/token", headers=ADMIN).status_code == 404

    # removed (an admin only): the token refused, the memberships gone, the id not given out again
    assert http.delete(f"{C}/users/bob", headers=bearer(by_admin)).status_code == 403  # an owner is no admin
    assert me(http, tokens["bob"])["user"] == "bob"
    made(http, "DELETE", f"{C}/users/bob", ADMIN, 204)
    assert nobody_s(http, tokens["bob"])
    members = made(http, "GET", f"{C}/projects/hr", ADMIN, 200)["members"]
    assert [m["user"] for m in members] == ["ann"]
    assert http.delete(f"{C}/users/bob", headers=ADMIN).status_code == 404
    again = http.post(f"{C}/users", json={"id": "bob"}, headers=ADMIN)
    assert again.status_code == 409 and "was removed" in again.json()["error"]["message"]
    for reserved in ("admin", "anonymous"):  # the names the server's own tokens act under
        answer = http.post(f"{C}/users", json={"id": reserved}, headers=ADMIN)
        assert answer.status_code == 400 and "server's own tokens" in answer.json()["error"]["message"]

    entries = made(http, "GET", f"{C}/audit", ADMIN, 200, params={"limit": 1000})["entries"]
    users = [(e["actor"], e["action"], e["target"], e["detail"]) for e in entries if e["action"].startswith("user.")]
    assert users == [
        ("admin", "user.create", "ann", {}),
        ("admin", "user.create", "bob", {}),
        ("ann", "user.token", "ann", {}),
        ("admin", "user.token", "ann", {}),
        ("admin", "user.remove", "bob", {"roles": {"hr": "viewer"}}),
    ]


def test_users_are_listed_to_admins_and_each_shown_to_themself(http: TestClient) -> None:
    made(http, "POST", f"{C}/domains", ADMIN, 201, json={"id": "people"})
    for project in ("hr", "payroll"):
        made(http, "POST", f"{C}/projects", ADMIN, 201, json={"id": project, "domain": "people"})
    tokens = {u: made(http, "POST", f"{C}/users", ADMIN, 201, json={"id": u})["token"] for u in ("cy", "ann", "bob")}
    made(http, "PUT", f"{C}/projects/payroll/members/ann", ADMIN, 200, json={"role": "contributor"})
    made(http, "PUT", f"{C}/projects/hr/members/ann", ADMIN, 200, json={"role": "owner"})
    made(http, "PUT", f"{C}/projects/hr/members/bob", bearer(tokens["ann"]), 200, json={"role": "viewer"})

    def shown(user: dict) -> tuple[str, str, list[tuple[str, str]]]:
        assert set(user) == {"id", "createdAt", "createdBy", "memberships"}  # never a token, nor its hash
        assert user["createdAt"].endswith("Z") and all(m["addedAt"].endswith("Z") for m in user["memberships"])
        return user["id"], user["createdBy"], [(m["project"], m["role"]) for m in user["memberships"]]

    listed = made(http, "GET", f"{C}/users", ADMIN, 200)["users"]
    assert [shown(u) for u in listed] == [
        ("ann", "admin", [("hr", "owner"), ("payroll", "contributor")]),
        ("bob", "admin", [("hr", "viewer")]),
        ("cy", "admin", []),
    ]
    for headers in (bearer(tokens["bob"]), ADMIN):  # the user themself, an admin: the list's entry
        assert made(http, "GET", f"{C}/users/bob", headers, 200) == listed[1]
    # the list is an admin's; another user, even the owner of a user's project, or nobody is refused
    for headers in (bearer(tokens["ann"]), {}):
        answer = http.get(f"{C}/users", headers=headers)
        assert answer.status_code == 403 and "admin" in answer.json()["error"]["message"]
        other = http.get(f"{C}/users/bob", headers=headers)
        assert other.status_code == 403 and "bob" in other.json()["error"]["message"]
    assert http.get(f"{C}/users/nobody", headers=ADMIN).status_code == 404
    assert http.get(f"{C}/users/admin", headers=ADMIN).status_code == 404  # the name the write token acts under

    made(http, "DELETE", f"{C}/users/bob", ADMIN, 204)
    assert [u["id"] for u in made(http, "GET", f"{C}/users", ADMIN, 200)["users"]] == ["ann", "cy"]
    assert http.get(f"{C}/users/bob", headers=ADMIN).status_code == 404
    assert nobody_s(http, tokens["bob"])
