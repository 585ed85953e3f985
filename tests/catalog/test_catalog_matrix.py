"""The permission matrix: every read route of the app, called as the producer project's owner,
contributor and viewer, a member of another project, an anonymous reader and an admin, answers exactly what
each may see — on SQLite and PostgreSQL.

The routes are listed from the app's router: a read route missing from :data:`MATRIX` fails
:func:`test_every_read_route_is_in_the_matrix`, so a new endpoint is checked as soon as it exists (and one
that forgets the visibility policy fails the matrix). For each call:

- a call about something the role may not see answers ``denied`` (404 for a node, as for one that does
  not exist; 200 with nothing of it for a list);
- no answer holds a marker of anything the role may not see (names of inventory tables and their columns,
  the storage location, the producer's jobs, another project's subscription target);
- an answer holds a marker of each group in ``shows`` the role may see (so the check is not blind).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, unquote

import pytest
from catalog_world import CATALOG_NS, DZ_DOMAIN, MARKERS, SEES, World

I = "dataset:headwater:hr.employee_compensation"  # the inventory node of the published asset
BANDS = "dataset:headwater:hr.salary_bands"  # an inventory asset never published
REPORT = "dataset:warehouse:reports.payroll_summary"  # not cataloged: everyone sees it
PAYROLL_JOB = "job:payroll-etl:payroll_job"  # reads inventory tables: the producer's
STATS = ("lineage-events", "jobs", "datasets", "sources")


@dataclass
class Call:
    url: str
    params: dict[str, Any] = field(default_factory=dict)
    subject: str | None = None  # the group the call asks about
    shows: frozenset[str] = frozenset()  # groups whose markers the answer holds for a role that sees them
    denied: int = 404  # the status for a role that does not see the subject
    only: frozenset[str] | None = None  # the roles that may read it at all (None: by what they see)


def call(url: str, subject: str | None = None, shows: str = "", denied: int = 404, **params: Any) -> Call:
    return Call(url, params, subject, frozenset(shows.split()), denied)


def only(url: str, *roles: str) -> Call:
    """A route only ``roles`` may read (403 for every other, anonymous readers included)."""
    return Call(url, denied=403, only=frozenset(roles))


def _graph(w: World) -> dict[str, list[Call]]:
    pub, tgt = w.ids["published_node"], w.ids["target_node"]
    comp_field = "datasetField:headwater:hr.employee_compensation:salary"
    p_field = f"datasetField:{pub[len('dataset:') :]}:salary"
    g = "/api/v1/graph"
    return {
        f"{g}/lineage": [
            call(f"{g}/lineage", "inventory", "inventory", nodeId=I),
            call(f"{g}/lineage", "inventory", "inventory", nodeId=BANDS),
            call(f"{g}/lineage", "inventory", "inventory", nodeId=w.ids["alias"]),
            call(f"{g}/lineage", "inventory", "inventory", nodeId=PAYROLL_JOB),
            call(f"{g}/lineage", "inventory", "inventory", nodeId=comp_field),
            call(f"{g}/lineage", "published", "published inventory target", nodeId=pub, depth=4),
            call(f"{g}/lineage", "published", "published inventory", nodeId=pub, depth=4, columns="true"),
            call(f"{g}/lineage", "published", "published inventory", nodeId=pub, datasetsOnly="true", depth=4),
            call(f"{g}/lineage", "published", "published inventory", nodeId=pub, collapseJobs="true", depth=4),
            call(f"{g}/lineage", "target", "target published inventory", nodeId=tgt, depth=6),
            call(f"{g}/lineage", None, "inventory", nodeId=REPORT, depth=3, columns="true"),
        ],
        f"{g}/column-lineage": [
            call(f"{g}/column-lineage", "inventory", "inventory", nodeId=I),
            call(f"{g}/column-lineage", "inventory", "inventory", nodeId=comp_field),
            call(f"{g}/column-lineage", None, "inventory", nodeId=REPORT),
            call(f"{g}/column-lineage", "published", "published", nodeId=p_field),
        ],
        f"{g}/impact": [
            call(f"{g}/impact", "inventory", "inventory", nodeId=I),
            call(f"{g}/impact", "inventory", "inventory", nodeId=comp_field),
            call(f"{g}/impact", "inventory", "", nodeId=BANDS, format="csv"),
            call(f"{g}/impact", "published", "target", nodeId=pub),
        ],
        f"{g}/node": [
            call(f"{g}/node", "inventory", "inventory", nodeId=I),
            call(f"{g}/node", "inventory", "inventory", nodeId=BANDS),
            call(f"{g}/node", "inventory", "inventory", nodeId=w.ids["alias"]),
            call(f"{g}/node", "inventory", "inventory", nodeId=PAYROLL_JOB),
            call(f"{g}/node", "inventory", "inventory", nodeId=w.ids["crawl_job"]),
            call(f"{g}/node", "inventory", "inventory", nodeId=f"run:{w.ids['payroll_run']}"),
            call(f"{g}/node", "inventory", "inventory", nodeId=f"run:{w.ids['crawl_run']}"),
            call(f"{g}/node", "published", "published", nodeId=pub),
            call(f"{g}/node", "target", "target", nodeId=tgt),
            call(f"{g}/node", None, "inventory", nodeId=REPORT),
        ],
        f"{g}/history": [
            call(f"{g}/history", "inventory", "inventory", nodeId=I),
            call(f"{g}/history", "inventory", "", nodeId=PAYROLL_JOB),
            call(f"{g}/history", "published", "", nodeId=pub),
            call(f"{g}/history", "target", "", nodeId=tgt),
            call(f"{g}/history", None, "inventory", nodeId=REPORT),
        ],
        f"{g}/runs": [
            call(f"{g}/runs", "inventory", "inventory", nodeId=PAYROLL_JOB),
            call(f"{g}/runs", "inventory", "inventory", nodeId=w.ids["crawl_job"]),
            call(
                f"{g}/runs",
                "published",
                "published",
                nodeId=f"job:{CATALOG_NS}:publish/producer/hr.employee_compensation",
            ),
        ],
        f"{g}/search": [
            call(f"{g}/search", None, "inventory published", q="salary"),
            call(f"{g}/search", None, "inventory published target", q="employee"),
            call(f"{g}/search", None, "inventory", q="payroll"),
            call(f"{g}/search", None, "inventory", q="hr.", type="dataset,job"),
        ],
        f"{g}/compare": [
            call(f"{g}/compare", "inventory", "inventory", nodeId=I, **{"from": "2000-01-01T00:00:00Z"}),
            call(
                f"{g}/compare",
                "published",
                "published inventory target",
                nodeId=pub,
                depth=4,
                **{"from": "2000-01-01T00:00:00Z"},
            ),
        ],
        f"{g}/namespaces": [call(f"{g}/namespaces", None, "inventory")],
        f"{g}/datasets": [
            call(f"{g}/datasets", None, "inventory published target"),
            call(f"{g}/datasets", None, "inventory", namespace="headwater"),
        ],
        f"{g}/jobs": [call(f"{g}/jobs", None, "inventory published")],
        f"{g}/recent": [call(f"{g}/recent", None, "inventory published", limit=200)],
    }


def _events(w: World) -> dict[str, list[Call]]:
    pub = w.ids["published_node"]
    return {
        "/api/v1/events": [
            # the public sees no event of the published node: the publish run names its inventory input
            call("/api/v1/events", None, "inventory target", limit=1000),
            call("/api/v1/events", "inventory", "inventory", denied=200, nodeId=I),
            call("/api/v1/events", "inventory", "inventory", denied=200, nodeId=PAYROLL_JOB),
            call("/api/v1/events", "published", "", nodeId=pub),
        ],
        "/api/v1/events/{event_id}": [
            call(f"/api/v1/events/{w.ids['crawl_event']}", "inventory", "inventory"),
            call(f"/api/v1/events/{w.ids['payroll_event']}", "inventory", "inventory"),
            call(f"/api/v1/events/{w.ids['publish_event']}", "inventory", "published"),
            call(f"/api/v1/events/{w.ids['approve_event']}", "target", "target published"),
        ],
    }


def _marquez(w: World) -> dict[str, list[Call]]:
    pub = w.ids["published_node"]
    ns = quote(CATALOG_NS, safe="")
    return {
        "/api/v1/namespaces": [call("/api/v1/namespaces", None, "inventory")],
        "/api/v1/namespaces/{path:path}": [
            call("/api/v1/namespaces/payroll-etl", "inventory", "inventory"),
            call("/api/v1/namespaces/headwater/datasets", None, "inventory"),
            call("/api/v1/namespaces/payroll-etl/jobs", None, "inventory"),
            call("/api/v1/namespaces/headwater/datasets/hr.employee_compensation", "inventory", "inventory"),
            call("/api/v1/namespaces/headwater/datasets/hr.salary_bands/versions", "inventory", "inventory"),
            call("/api/v1/namespaces/payroll-etl/jobs/payroll_job", "inventory", "inventory"),
            call("/api/v1/namespaces/payroll-etl/jobs/payroll_job/runs", "inventory", "inventory"),
            call(f"/api/v1/namespaces/{ns}/datasets/producer%2Fhr.employee_compensation", "published", "published"),
        ],
        "/api/v1/jobs/runs/{run_id}": [
            call(f"/api/v1/jobs/runs/{w.ids['payroll_run']}", "inventory", "inventory"),
            call(f"/api/v1/jobs/runs/{w.ids['crawl_run']}", "inventory", "inventory"),
        ],
        "/api/v1/lineage": [
            call("/api/v1/lineage", "inventory", "inventory", nodeId=I),
            call("/api/v1/lineage", "published", "published inventory target", nodeId=pub),
            call("/api/v1/lineage", None, "inventory", nodeId=REPORT),
        ],
        "/api/v1/column-lineage": [
            call("/api/v1/column-lineage", "inventory", "inventory", nodeId=I, withDownstream="true"),
            call("/api/v1/column-lineage", None, "inventory", nodeId=REPORT),
        ],
        "/api/v1/search": [
            call("/api/v1/search", None, "inventory", q="salary"),
            call("/api/v1/search", None, "inventory published target", q="employee"),
            call("/api/v1/search", None, "inventory", q="payroll"),
        ],
        "/api/v1/events/lineage": [call("/api/v1/events/lineage", None, "inventory target", limit=1000)],
        "/api/v1/jobs": [call("/api/v1/jobs", None, "inventory published")],
        "/api/v1/jobs/runs/{run_id}/facets": [
            call(f"/api/v1/jobs/runs/{w.ids['payroll_run']}/facets", "inventory", "", type="job"),
            call(f"/api/v1/jobs/runs/{w.ids['crawl_run']}/facets", "inventory", "", type="run"),
        ],
        "/api/v1/runlineage/upstream": [
            call("/api/v1/runlineage/upstream", "inventory", "inventory", runId=w.ids["payroll_run"])
        ],
        "/api/v1/sources": [call("/api/v1/sources", None, "inventory")],
        "/api/v1/sources/{name:path}": [call("/api/v1/sources/sqlite:%2F%2Flocalhost", "inventory", "inventory")],
        "/api/v1/stats/{kind}": [call(f"/api/v1/stats/{kind}", period="WEEK", timezone="UTC") for kind in STATS],
        "/api/v1/tags": [call("/api/v1/tags")],
    }


def _others(w: World) -> dict[str, list[Call]]:
    dz = f"/v2/domains/{DZ_DOMAIN}/lineage"
    pub = w.ids["published_node"]
    return {
        "/spline/producer/status": [Call("/spline/producer/status", subject="producer")],  # a producer's health check
        "/spline/producer/execution-plans/{plan_id}": [
            Call("/spline/producer/execution-plans/00000000-0000-0000-0000-000000000000", denied=404, subject="none")
        ],
        "/v2/domains/{domainIdentifier}/lineage/events": [call(f"{dz}/events", None, "inventory")],
        "/v2/domains/{domainIdentifier}/lineage/events/{identifier}": [
            call(f"{dz}/events/{w.ids['payroll_dz_event']}", "inventory", "inventory")
        ],
        "/v2/domains/{domainIdentifier}/lineage/nodes/{identifier:path}": [
            call(f"{dz}/nodes/{quote(I, safe='')}", "inventory", "inventory"),
            call(f"{dz}/nodes/{quote(pub, safe='')}", "published", "published"),
        ],
        "/v2/domains/{domainIdentifier}/lineage/nodes/{identifier:path}/history": [
            call(f"{dz}/nodes/{quote(I, safe='')}/history", "inventory"),
        ],
        "/api/v1/status": [call("/api/v1/status")],
        "/api/v1/classify/report": [  # the asset's tags are on its inventory node and its published node
            call("/api/v1/classify/report", None, "published inventory", tag="pii"),
            call("/api/v1/classify/report", None, "published inventory"),
        ],
        "/api/v1/classify/node": [
            call("/api/v1/classify/node", "inventory", "inventory", nodeId=I),
            call("/api/v1/classify/node", "published", "published", nodeId=pub),
        ],
        "/api/v1/quality": [
            call("/api/v1/quality", "inventory", "inventory", nodeId=I),
            call("/api/v1/quality", "published", "published", nodeId=pub),
        ],
        # operators' endpoints: counts and states, no name of any node
        "/metrics": [call("/metrics")],
        "/livez": [call("/livez")],
        "/readyz": [call("/readyz")],
    }


def _catalog(w: World) -> dict[str, list[Call]]:
    c = "/api/v1/catalog"
    a, b = w.ids["asset"], w.ids["bands_asset"]
    return {
        f"{c}/me": [call(f"{c}/me")],
        f"{c}/domains": [call(f"{c}/domains")],
        f"{c}/domains/{{domain}}/glossary": [call(f"{c}/domains/people/glossary")],
        f"{c}/projects": [call(f"{c}/projects")],
        f"{c}/projects/{{project_id}}": [call(f"{c}/projects/producer"), call(f"{c}/projects/consumer")],
        f"{c}/assets": [
            call(f"{c}/assets", None, "published inventory"),
            call(f"{c}/assets", None, "inventory", state="inventory"),
            call(f"{c}/assets", None, "published", term="Compensation"),
        ],
        f"{c}/assets/{{asset_id}}": [
            call(f"{c}/assets/{a}", "published", "published inventory"),
            call(f"{c}/assets/{b}", "inventory", "inventory"),
        ],
        f"{c}/assets/{{asset_id}}/versions": [
            call(f"{c}/assets/{a}/versions", "published"),
            call(f"{c}/assets/{b}/versions", "inventory"),
        ],
        f"{c}/subscriptions": [call(f"{c}/subscriptions", None, "target")],
        f"{c}/subscriptions/{{subscription_id}}": [call(f"{c}/subscriptions/{w.ids['subscription']}", "target")],
        f"{c}/projects/{{project_id}}/source-runs": [
            call(f"{c}/projects/producer/source-runs", "inventory", "inventory")
        ],
        f"{c}/source-runs/{{run_id}}": [call(f"{c}/source-runs/{w.ids['source_run']}", "inventory", "inventory")],
        f"{c}/audit": [call(f"{c}/audit", None, "", limit=1000)],
        f"{c}/users": [only(f"{c}/users", "admin")],
        f"{c}/users/{{user}}": [only(f"{c}/users/alice", "admin", "owner"), only(f"{c}/users/erin", "admin", "other")],
        f"{c}/nodes": [
            call(
                f"{c}/nodes",
                None,
                "inventory published target",
                nodeId=[I, BANDS, w.ids["alias"], w.ids["published_node"], w.ids["target_node"], REPORT],
            )
        ],
    }


MATRIX: tuple[Callable[[World], dict[str, list[Call]]], ...] = (_graph, _events, _marquez, _others, _catalog)
# Routes that serve no lineage: the OpenAPI document, its viewers, the UI's static files.
STATIC = {"/openapi.json", "/docs", "/docs/oauth2-redirect", "/redoc", "/{path:path}"}


def read_routes(routes: Any, prefix: str = "") -> Iterator[str]:
    """Paths of every GET route, walking included routers (FastAPI keeps them nested)."""
    for route in routes:
        if hasattr(route, "original_router"):
            yield from read_routes(route.original_router.routes, prefix + route.include_context.prefix)
        elif "GET" in (getattr(route, "methods", None) or ()):
            yield prefix + route.path


def matrix(w: World) -> dict[str, list[Call]]:
    out: dict[str, list[Call]] = {}
    for part in MATRIX:
        out.update(part(w))
    return out


def test_every_read_route_is_in_the_matrix(world: World) -> None:
    routes = set(read_routes(world.app.routes)) - STATIC
    missing = sorted(routes - set(matrix(world)))
    assert not missing, f"read routes not in the permission matrix (add them to tests/catalog): {missing}"


@pytest.mark.parametrize("role", sorted(SEES))
def test_each_role_sees_exactly_what_it_may(world: World, role: str) -> None:
    problems: list[str] = []
    hidden = [g for g in MARKERS if g not in SEES[role]]
    routes = set(read_routes(world.app.routes))
    for route, calls in matrix(world).items():
        if route not in routes:  # a route of another version of the app; the test above fails on a missing one
            continue
        for c in calls:
            answer = world.get(role, c.url, params=c.params)
            where = f"{route} {c.url} {c.params} as {role}: {answer.status_code}"
            text = answer.text + " " + " ".join(f"{k}: {v}" for k, v in answer.headers.items())
            if answer.status_code >= 400:  # "not found" may repeat what was asked, never more
                asked_ids = [str(v) for v in c.params.values()]
                # a field's id names its dataset: "dataset ... not found" repeats what was asked
                asked_ids += [
                    "dataset:" + v[len("datasetField:") :].rsplit(":", 1)[0]
                    for v in asked_ids
                    if v.startswith("datasetField:")
                ]
                for asked in (*asked_ids, *unquote(c.url).split("/")):
                    text = text.replace(asked, "") if len(asked) > 3 else text
            allowed = c.subject is None or c.subject in SEES[role]
            expected = 200 if allowed else c.denied
            if c.subject == "none":
                expected = c.denied
            if c.only is not None:
                expected = 200 if role in c.only else c.denied
            if c.subject == "producer":  # sending events: the server's write token or an owner or contributor
                expected = 200 if role in ("admin", "owner", "contributor", "other") else 403
                expected = 401 if role == "anonymous" else expected
            if answer.status_code != expected:
                problems.append(f"{where}, expected {expected}: {answer.text[:300]}")
                continue
            for group in hidden:
                leaked = [m for m in MARKERS[group] if m in text]
                if leaked:
                    problems.append(f"{where} leaks {group} ({', '.join(leaked)}): {answer.text[:300]}")
            if answer.status_code == 200:
                for group in c.shows & SEES[role]:
                    if not any(m in text for m in MARKERS[group]):
                        problems.append(f"{where} shows nothing of {group} it may see: {answer.text[:300]}")
    assert not problems, "\n".join(problems)


# --- restricted is missing: the answer about a hidden node is the answer about a node that does not exist ---

GHOST_RUN = "7a3c6f1e-0b5d-4c2e-9f81-3d2e1b0a9c77"
GHOST_EVENT = "f" * 64


def ghosts(w: World, dz_ids: dict[str, str]) -> list[tuple[str, str]]:
    """Each hidden name or id, paired with a name or id of the same form that nothing holds (longest first, so
    a name inside another is replaced after it)."""
    crawl_job = w.ids["crawl_job"].rsplit(":", 1)[1]
    pairs = [
        ("hr.employee_compensation", "hr.ghost_pay_records"),
        ("hr.salary_bands", "hr.ghost_banding"),
        ("hr_secret.db", "ghost_sec.db"),
        ("payroll_job", "ghost_job"),
        ("payroll-etl", "ghost-etl"),
        ("sqlite:%2F%2Flocalhost", "ghostdb:%2F%2Flocalhost"),
        ("/projects/producer/", "/projects/ghost-project/"),
        ("project 'producer'", "project 'ghost-project'"),
        ("sqlite://localhost", "ghostdb://localhost"),
        (crawl_job, "ghost-crawl-job"),
        ("consumer/analytics/", "consumer/ghostytics/"),
        (w.ids["payroll_run"], GHOST_RUN),
        (w.ids["crawl_run"], GHOST_RUN),
        (w.ids["crawl_event"], GHOST_EVENT),
        (w.ids["payroll_event"], GHOST_EVENT),
        (w.ids["publish_event"], GHOST_EVENT),
        (w.ids["approve_event"], GHOST_EVENT),
        (w.ids["payroll_dz_event"], "zzzzzzzzzzzzzz"),
        (w.ids["subscription"], "0" * len(w.ids["subscription"])),
        (w.ids["source_run"], "0" * len(w.ids["source_run"])),
        (w.ids["bands_asset"], "1" * len(w.ids["bands_asset"])),
        (w.ids["asset"], "2" * len(w.ids["asset"])),
        *((dz_id, dz_id[0] + "a" * (len(dz_id) - 1)) for dz_id in dz_ids.values()),  # DataZone node ids
    ]
    return sorted(pairs, key=lambda p: -len(p[0]))


def haunt(value: Any, pairs: list[tuple[str, str]]) -> Any:
    """``value`` with every hidden name replaced by its ghost (strings, lists; url-quoted forms too)."""
    if isinstance(value, list):
        return [haunt(v, pairs) for v in value]
    if not isinstance(value, str):
        return value
    for hidden, ghost in pairs:
        value = value.replace(hidden, ghost).replace(quote(hidden, safe=""), quote(ghost, safe=""))
    return value


def _twin_calls(w: World, dz_ids: dict[str, str]) -> list[Call]:
    """Calls the read matrix does not make: field ids, as-of reads, compare, translator ids of hidden nodes."""
    g, dz = "/api/v1/graph", f"/v2/domains/{DZ_DOMAIN}/lineage"
    comp_field = "datasetField:headwater:hr.employee_compensation:salary"
    bands_field = "datasetField:headwater:hr.salary_bands:high"
    at = {"at": "2000-01-01T00:00:00Z"}
    later = {"at": "2999-01-01T00:00:00Z"}
    out = [
        call(f"{g}/compare", "inventory", nodeId=PAYROLL_JOB, **{"from": "2000-01-01T00:00:00Z"}),
        call(f"{g}/compare", "inventory", nodeId=comp_field, **{"from": "2000-01-01T00:00:00Z"}),
        call(f"{g}/compare", "inventory", nodeId=BANDS, **{"from": "2000-01-01T00:00:00Z", "to": "2999-01-01"}),
        call("/api/v1/lineage", "inventory", nodeId=comp_field),
        call("/api/v1/lineage", "inventory", nodeId=PAYROLL_JOB),
        call("/api/v1/column-lineage", "inventory", nodeId=bands_field),
        call("/api/v1/column-lineage", "inventory", nodeId=PAYROLL_JOB),
        call(f"{dz}/nodes/{dz_ids[I]}", "inventory"),
        call(f"{dz}/nodes/{dz_ids[I]}/history", "inventory"),
        call(f"{dz}/nodes/{dz_ids[PAYROLL_JOB]}", "inventory"),
        call(f"{dz}/nodes/{quote('headwater/hr.salary_bands', safe='')}", "inventory"),
    ]
    for route in ("lineage", "column-lineage", "impact", "node", "history"):
        for node in (comp_field, bands_field, I):
            out.append(call(f"{g}/{route}", "inventory", nodeId=node))
            if route != "history":
                out.append(call(f"{g}/{route}", "inventory", nodeId=node, **at))
                out.append(call(f"{g}/{route}", "inventory", nodeId=node, **later))
    for route in ("lineage", "node", "runs"):
        out.append(call(f"{g}/{route}", "inventory", nodeId=PAYROLL_JOB, **at))
    return out


def test_restricted_answers_exactly_as_missing(world: World) -> None:
    """Every call about something a role may not see answers, status and body, what the same call about a
    node that does not exist answers (names swapped back): no message, count or status tells them apart."""
    dz = f"/v2/domains/{DZ_DOMAIN}/lineage"
    dz_ids = {
        node: world.ok(world.get("admin", f"{dz}/nodes/{quote(node, safe='')}"))["id"] for node in (I, PAYROLL_JOB)
    }
    pairs = ghosts(world, dz_ids)
    calls = [c for calls in matrix(world).values() for c in calls] + _twin_calls(world, dz_ids)
    problems: list[str] = []
    checked = 0
    for role in ("other", "anonymous"):
        for c in calls:
            if c.subject in (None, "none", "producer") or c.subject in SEES[role]:
                continue
            if c.url.endswith("/compare"):  # "to" is now by default: a time in the message, the same for both
                c = Call(c.url, {"to": "2999-01-01T00:00:00Z", **c.params}, c.subject, c.shows, c.denied)
            twin_url, twin_params = haunt(c.url, pairs), {k: haunt(v, pairs) for k, v in c.params.items()}
            if (twin_url, twin_params) == (c.url, c.params):
                problems.append(f"no ghost for {c.url} {c.params} (add its hidden name to ghosts())")
                continue
            hidden, missing = world.get(role, c.url, params=c.params), world.get(role, twin_url, params=twin_params)
            checked += 1
            if (hidden.status_code, haunt(hidden.text, pairs)) != (missing.status_code, missing.text):
                problems.append(
                    f"{c.url} {c.params} as {role}: restricted {hidden.status_code} {hidden.text[:240]}"
                    f"\n    missing {missing.status_code} {missing.text[:240]}"
                )
    assert checked > 80
    assert not problems, f"{len(problems)} answers tell a restricted node from a missing one:\n" + "\n".join(problems)


def test_cataloging_a_hidden_dataset_answers_as_missing(world: World) -> None:
    """Cataloging by hand a dataset another project owns answers as for one the graph does not hold."""
    body = {"project": "consumer", "nodeId": I}
    ghost = {"project": "consumer", "nodeId": "dataset:headwater:hr.ghost_pay_records"}
    hidden = world.post("other", "/api/v1/catalog/assets", body)
    missing = world.post("other", "/api/v1/catalog/assets", ghost)
    assert missing.status_code == 404, missing.text
    assert (hidden.status_code, hidden.text.replace("employee_compensation", "ghost_pay_records")) == (
        404,
        missing.text,
    )
