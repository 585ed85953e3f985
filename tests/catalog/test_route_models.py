"""Every route of the app answers what its declared response model says, on real answers.

The routes are enumerated from the app itself (FastAPI's route contexts, included routers walked): a
route that declares a response model must be called here (:data:`WRITES`, or the permission matrix's read
calls of tests/catalog/test_catalog_matrix.py) and each of its 2xx answers is validated against the model
in pydantic's strict JSON mode; a route without a model must be listed in :data:`UNMODELLED` with the
reason it has none. So a new route without a model, with a model its answers do not fit, or never called
here, fails. The models' objects all forbid undeclared keys (checked on their JSON schema), so an answer
with a key the model does not declare fails too.

The world is the catalog story's (tests/catalog/catalog_world.py): the one fixture where every route,
the catalog's included, has something real to answer. SQLite only: the answers' shapes do not depend on
the backend (the matrix runs both).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from catalog_world import DOMAIN, World, build_world, payroll_event
from fastapi.routing import iter_route_contexts
from pydantic import BaseModel, TypeAdapter, ValidationError
from test_catalog_matrix import matrix
from typing_extensions import is_typeddict

SPLINE_FIXTURES = Path(__file__).resolve().parent.parent / "spline" / "fixtures"
SPLINE_V12 = "application/vnd.absa.spline.producer.v1.2+json"

MARQUEZ = "Marquez's own shapes: validated against Marquez's spec in tests/api/test_api_marquez_spec.py"
UNMODELLED: dict[tuple[str, str], str] = {
    ("GET", "/openapi.json"): "the OpenAPI document itself",
    ("GET", "/docs"): "HTML: the offline Swagger UI",
    ("GET", "/docs/oauth2-redirect"): "HTML: Swagger UI's OAuth2 redirect page",
    ("GET", "/redoc"): "HTML: ReDoc",
    **{
        (method, "/{path:path}"): "the UI's static files (HTML, JS, CSS); other methods answer 405"
        for method in ("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")
    },
    ("GET", "/metrics"): "Prometheus text exposition format",
    ("GET", "/livez"): "plain-text liveness probe",
    ("GET", "/readyz"): "plain-text readiness probe",
    ("GET", "/api/v1/events/{event_id}"): "the raw OpenLineage event as received (any producer's facets)",
    ("DELETE", "/api/v1/catalog/projects/{project_id}/members/{user}"): "204 No Content",
    ("DELETE", "/api/v1/catalog/users/{user}"): "204 No Content",
    ("GET", "/spline/producer/status"): "Spline's health check: an empty 200 with headers",
    ("HEAD", "/spline/producer/status"): "Spline's health check: headers only",
    ("POST", "/spline/producer/execution-plans"): "Spline's protocol: the plan id as a JSON string",
    ("GET", "/spline/producer/execution-plans/{plan_id}"): "the raw Spline plan as received",
    **{
        (method, f"/v2/domains/{{domainIdentifier}}/lineage/{tail}"): (
            "Amazon DataZone's own shapes (botocore's service model): validated in tests/datazone"
        )
        for method, tail in (
            ("POST", "events"),
            ("GET", "events/{identifier}"),
            ("GET", "events"),
            ("DELETE", "events/{identifier}"),
            ("GET", "nodes/{identifier:path}/history"),
            ("GET", "nodes/{identifier:path}"),
        )
    },
    **{
        (method, path): MARQUEZ
        for method, path in (
            ("GET", "/api/v1/namespaces"),
            ("GET", "/api/v1/namespaces/{path:path}"),
            ("PUT", "/api/v1/namespaces/{path:path}"),
            ("POST", "/api/v1/namespaces/{path:path}"),
            ("DELETE", "/api/v1/namespaces/{path:path}"),
            ("GET", "/api/v1/jobs"),
            ("GET", "/api/v1/jobs/runs/{run_id}"),
            ("GET", "/api/v1/jobs/runs/{run_id}/facets"),
            ("POST", "/api/v1/jobs/runs/{run_id}/{action}"),
            ("GET", "/api/v1/runlineage/upstream"),
            ("GET", "/api/v1/lineage"),
            ("GET", "/api/v1/column-lineage"),
            ("GET", "/api/v1/search"),
            ("GET", "/api/v1/events/lineage"),
            ("GET", "/api/v1/sources"),
            ("GET", "/api/v1/sources/{name:path}"),
            ("PUT", "/api/v1/sources/{name:path}"),
            ("GET", "/api/v1/tags"),
            ("PUT", "/api/v1/tags/{name:path}"),
            ("GET", "/api/v1/stats/{kind}"),
        )
    },
}


@dataclass
class Route:
    method: str
    path: str
    model: Any  # the route's response model as FastAPI holds it (a class, a generic alias, or None)


def app_routes(app: Any) -> Iterator[Route]:
    """Every (method, path) the app serves, with its response model; HEAD of a GET route is the GET's."""
    for context in iter_route_contexts(app.routes):
        methods = context.methods or set()
        for method in sorted(methods):
            if method == "HEAD" and "GET" in methods:
                continue
            yield Route(method, str(context.path), getattr(context, "response_model", None))


def is_model(model: Any) -> bool:
    """A pydantic model, or a typed record (the graph answers' TypedDicts, graph/answers.py)."""
    return isinstance(model, type) and (issubclass(model, BaseModel) or is_typeddict(model))


@dataclass
class Answered:
    route: tuple[str, str]
    what: str
    answer: httpx.Response


def _writes(w: World) -> list[Answered]:
    """One real call of each writing route with a model, in an order that leaves each one's subject in place."""
    out: list[Answered] = []

    def call(method: str, route: str, url: str, role: str = "admin", **kwargs: Any) -> httpx.Response:
        headers = {**w.headers(role), **kwargs.pop("headers", {})}
        answer: httpx.Response = w.http.request(method, url, headers=headers, **kwargs)
        assert answer.status_code < 300, f"{method} {url}: {answer.status_code} {answer.text}"
        out.append(Answered((method, route), f"{method} {url}", answer))
        return answer

    c = "/api/v1/catalog"
    call("POST", "/api/v1/lineage", "/api/v1/lineage", json=payroll_event())
    call("POST", "/api/v1/lineage/batch", "/api/v1/lineage/batch", json=[payroll_event(), payroll_event()])
    call("POST", f"{c}/domains", f"{c}/domains", json={"id": "finance", "name": "Finance"})
    call("PUT", f"{c}/domains/{{domain}}/glossary/{{term}}", f"{c}/domains/{DOMAIN}/glossary/Bonus",
         json={"definition": "Paid once a year"})  # fmt: skip
    call("POST", f"{c}/projects", f"{c}/projects", json={"id": "ledger", "domain": "finance"})
    call("POST", f"{c}/users", f"{c}/users", json={"id": "frank"})
    call("POST", f"{c}/users/{{user}}/token", f"{c}/users/frank/token")
    call("PUT", f"{c}/projects/{{project_id}}/members/{{user}}", f"{c}/projects/ledger/members/frank",
         json={"role": "owner"})  # fmt: skip
    asset = call("POST", f"{c}/assets", f"{c}/assets",
                 json={"project": "ledger", "namespace": "ledger", "name": "accounts", "custom": True,
                       "fields": [{"name": "iban", "type": "TEXT"}]}).json()  # fmt: skip
    url = f"{c}/assets/{asset['id']}"
    call("PATCH", f"{c}/assets/{{asset_id}}", url, json={"description": "The ledger's accounts", "tags": ["pii"]})
    call("POST", f"{c}/assets/{{asset_id}}/publish", f"{url}/publish")
    call("POST", f"{c}/assets/{{asset_id}}/unpublish", f"{url}/unpublish")
    call("POST", f"{c}/assets/{{asset_id}}/publish", f"{url}/publish")
    subscriptions = [
        call("POST", f"{c}/assets/{{asset_id}}/subscriptions", f"{url}/subscriptions", role="other",
             json={"target": f"analytics-{n}", "reason": "reports"}).json()["id"]
        for n in range(2)
    ]  # fmt: skip
    for action, subscription in (("approve", subscriptions[0]), ("reject", subscriptions[1])):
        route = f"{c}/subscriptions/{{subscription_id}}/{action}"
        call("POST", route, f"{c}/subscriptions/{subscription}/{action}", json={"reason": "ok"})
    route = f"{c}/subscriptions/{{subscription_id}}/revoke"
    call("POST", route, f"{c}/subscriptions/{subscriptions[0]}/revoke", json={"reason": "ended"})
    call("POST", f"{c}/projects/{{project_id}}/source-runs", f"{c}/projects/producer/source-runs",
         role="contributor", json={"name": "crawl HR again", "runIds": [w.ids["crawl_run"]]})  # fmt: skip
    call("POST", "/api/v1/impact/check", "/api/v1/impact/check",
         json={"changes": [{"kind": "drop_column", "namespace": "headwater", "name": "hr.employee_compensation",
                            "column": "salary"}]})  # fmt: skip
    spline = {"Content-Type": SPLINE_V12}
    plan = (SPLINE_FIXTURES / "join_aggregate_to_file.plan.json").read_text()
    assert w.http.post("/spline/producer/execution-plans", content=plan, headers={**w.headers("admin"), **spline})
    events = (SPLINE_FIXTURES / "join_aggregate_to_file.events.json").read_text()
    call("POST", "/spline/producer/execution-events", "/spline/producer/execution-events", content=events,
         headers=spline)  # fmt: skip
    return out


def _reads(w: World) -> list[Answered]:
    """Every read call of the permission matrix, as an admin (who sees everything: the fullest answers)."""
    out = []
    for route, calls in matrix(w).items():
        for c in calls:
            if c.params.get("format") == "csv":  # the same answer as a table, asked for by name
                continue
            answer = w.get("admin", c.url, params=c.params)
            out.append(Answered(("GET", route), f"GET {c.url} {c.params}", answer))
    return out


@dataclass
class Exercised:
    world: World
    answers: list[Answered]


@pytest.fixture(scope="module")
def exercised(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Exercised]:
    tmp = tmp_path_factory.mktemp("route-models")
    w = build_world(f"sqlite:///{tmp / 'world.db'}", tmp)
    try:
        writes = _writes(w)
        yield Exercised(w, [*_reads(w), *writes])
    finally:
        w.http.close()
        w.store.close()


def test_every_route_has_a_model_or_a_reason(exercised: Exercised) -> None:
    routes = list(app_routes(exercised.world.app))
    assert len(routes) > 80  # the enumeration walks the included routers
    for r in routes:
        key = (r.method, r.path)
        if key in UNMODELLED:
            assert not is_model(r.model), f"{key} declares {r.model} but is listed as unmodelled"
        else:
            assert is_model(r.model), f"{key} declares no response model ({r.model!r}): give it one or a reason"
    listed = {(r.method, r.path) for r in routes}
    assert set(UNMODELLED) <= listed, f"listed routes the app does not serve: {set(UNMODELLED) - listed}"


def test_every_modelled_route_is_called(exercised: Exercised) -> None:
    modelled = {(r.method, r.path) for r in app_routes(exercised.world.app) if is_model(r.model)}
    called = {a.route for a in exercised.answers}
    assert modelled - called == set(), "routes with a model that no call here exercises"


def _open_objects(schema: dict[str, Any]) -> list[str]:
    """Names of the object schemas (the root and its $defs) that would accept undeclared keys."""
    out = []
    for name, part in [("<root>", schema), *schema.get("$defs", {}).items()]:
        if part.get("type") == "object" and "properties" in part and part.get("additionalProperties") is not False:
            out.append(name)
    return out


def test_every_answer_fits_its_model(exercised: Exercised) -> None:
    models = {(r.method, r.path): r.model for r in app_routes(exercised.world.app)}
    checked = 0
    problems: list[str] = []
    for a in exercised.answers:
        model = models[a.route]
        if not is_model(model):
            continue
        assert a.answer.status_code == 200 or a.route[0] != "GET", f"{a.what}: {a.answer.text}"
        assert _open_objects(TypeAdapter(model).json_schema(mode="serialization")) == [], model
        assert a.answer.headers["content-type"].startswith("application/json"), a.what
        body = a.answer.json()
        assert body not in ({}, [], None), a.what  # something real is validated
        try:
            TypeAdapter(model).validate_json(a.answer.content, strict=True)
        except ValidationError as e:
            problems.append(f"{a.what} -> {model.__name__}: {e.errors()[:3]}")
        checked += 1
    assert problems == []
    assert checked >= 60


def test_a_wrong_answer_fails_its_model(exercised: Exercised) -> None:
    """The check has teeth: an undeclared key, a missing key and a mistyped value are each refused."""
    a = next(x for x in exercised.answers if x.route == ("GET", "/api/v1/graph/lineage"))
    model = {(r.method, r.path): r.model for r in app_routes(exercised.world.app)}[a.route]
    body = a.answer.json()
    node = body["nodes"][0]
    for lie in ({**node, "color": "teal"}, {k: v for k, v in node.items() if k != "level"}, {**node, "level": "0"}):
        wrong = {**body, "nodes": [lie, *body["nodes"][1:]]}
        with pytest.raises(ValidationError):
            TypeAdapter(model).validate_json(json.dumps(wrong), strict=True)


def test_a_new_route_without_a_model_is_caught(exercised: Exercised) -> None:
    """A route added without a response model is seen by the enumeration and is in no list."""
    from fastapi import APIRouter

    extra = APIRouter()

    @extra.get(f"/api/v1/probe-{uuid.uuid4().hex[:6]}")
    def probe() -> dict[str, str]:
        return {"at": datetime.now(UTC).isoformat()}

    from fastapi import FastAPI

    app = FastAPI()
    app.include_router(extra, prefix="/x")
    found = [r for r in app_routes(app) if r.path.startswith("/x/api/v1/probe-")]
    assert len(found) == 1 and not is_model(found[0].model) and (found[0].method, found[0].path) not in UNMODELLED
