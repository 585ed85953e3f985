"""The catalog's routes (``/api/v1/catalog``, docs/catalog.md): thin handlers over :class:`headwater.catalog.Catalog`.

Every route takes the request's principal (``require_catalog``: a token and the project context,
``Headwater-Project`` header or ``?project=``) and answers what that principal may see. The catalog answers
typed records, which :mod:`headwater.api.catalog_models` shapes (``Model.of``, ``Model.answer``); a refusal is a catalog error,
which ``api/errors.py`` answers with the standard error body (400 naming the field, 403 saying which role is
needed, 404, 409). Bodies are checked against the models (400 with the path of each problem).
"""

from __future__ import annotations

from fastapi import APIRouter, Depends, Query, Request, Response

from headwater.api.auth import principal, require_catalog
from headwater.api.catalog_models import (
    Asset,
    AssetIn,
    AssetsAnswer,
    AssetVersion,
    AssetVersionsAnswer,
    AuditAnswer,
    CatalogNode,
    CatalogNodesAnswer,
    DecisionIn,
    Domain,
    DomainIn,
    DomainsAnswer,
    GlossaryAnswer,
    GlossaryTerm,
    Me,
    MemberAnswer,
    MemberIn,
    MetadataPatch,
    NewUser,
    Project,
    ProjectIn,
    ProjectsAnswer,
    SourceRun,
    SourceRunIn,
    SourceRunsAnswer,
    Subscription,
    SubscriptionIn,
    SubscriptionsAnswer,
    TermIn,
    User,
    UserIn,
    UsersAnswer,
)
from headwater.api.errors import ApiError
from headwater.api.freshness import read_barrier
from headwater.api.models import error_responses
from headwater.api.params import node_ref, parse_time
from headwater.api.state import AppState, app_state
from headwater.catalog import Catalog
from headwater.model.catalog_roles import AssetState

router = APIRouter(
    prefix="/api/v1/catalog",
    tags=["Catalog"],
    dependencies=[Depends(require_catalog), Depends(read_barrier)],
    responses=error_responses(
        400,
        401,
        403,
        404,
        409,
        503,
        s400="A bad parameter or body (invalid_parameter / invalid_request; the message names the field)",
        s403="The principal's role does not allow it (forbidden: the message says which role is needed)",
        s404="No such domain, project, user, asset, subscription or run, or not one the principal may see",
        s409="The change conflicts with the current state (conflict: exists already, not published ...)",
    ),
)


def _catalog(request: Request) -> Catalog:
    base = request.app.state.headwater
    assert isinstance(base, AppState)
    return Catalog(base.store, base.graph, base.door)  # base.graph: the whole graph (the catalog filters)


@router.get("/me", summary="Who the token is, its memberships and the project context", response_model=Me)
def me(request: Request) -> Me:
    return Me.answer(principal(request))


# --- domains, projects, users, members --------------------------------------------------------------


@router.get("/domains", summary="Domains", response_model=DomainsAnswer)
def domains(request: Request) -> DomainsAnswer:
    return DomainsAnswer(domains=[Domain.of(d) for d in _catalog(request).organisation.domains()])


@router.post("/domains", status_code=201, summary="Create a domain (admin)", response_model=Domain)
def create_domain(request: Request, body: DomainIn) -> Domain:
    return Domain.of(
        _catalog(request).organisation.create_domain(principal(request), body.id, body.name, body.description)
    )


@router.get("/domains/{domain}/glossary", summary="A domain's glossary", response_model=GlossaryAnswer)
def glossary(request: Request, domain: str) -> GlossaryAnswer:
    return GlossaryAnswer(terms=[GlossaryTerm.of(t) for t in _catalog(request).organisation.glossary(domain)])


@router.put(
    "/domains/{domain}/glossary/{term}",
    summary="Define a glossary term (an owner of a project of the domain, or an admin)",
    response_model=GlossaryTerm,
)
def set_term(request: Request, domain: str, term: str, body: TermIn) -> GlossaryTerm:
    return GlossaryTerm.of(_catalog(request).organisation.set_term(principal(request), domain, term, body.definition))


@router.get("/projects", summary="Projects (members listed to members)", response_model=ProjectsAnswer)
def projects(request: Request) -> ProjectsAnswer:
    return ProjectsAnswer(
        projects=[Project.answer(p) for p in _catalog(request).organisation.projects(principal(request))]
    )


@router.post("/projects", status_code=201, summary="Create a project in a domain (admin)", response_model=Project)
def create_project(request: Request, body: ProjectIn) -> Project:
    made = _catalog(request).organisation.create_project(
        principal(request), body.id, body.domain, body.name, body.description
    )
    return Project.answer(made)


@router.get("/projects/{project_id}", summary="A project", response_model=Project)
def project(request: Request, project_id: str) -> Project:
    return Project.answer(_catalog(request).organisation.project(principal(request), project_id))


@router.get("/users", summary="Every catalog user with their memberships (admin)", response_model=UsersAnswer)
def list_users(request: Request) -> UsersAnswer:
    return UsersAnswer(users=[User.answer(u) for u in _catalog(request).organisation.users(principal(request))])


@router.get("/users/{user}", summary="A user with their memberships (the user, or an admin)", response_model=User)
def one_user(request: Request, user: str) -> User:
    return User.answer(_catalog(request).organisation.user(principal(request), user))


@router.post("/users", status_code=201, summary="Create a user and their token (admin)", response_model=NewUser)
def create_user(request: Request, body: UserIn) -> NewUser:
    made = _catalog(request).organisation.create_user(principal(request), body.id)
    return NewUser.of(made)


@router.post(
    "/users/{user}/token",
    status_code=201,
    summary="A new token for a user, the one before refused from now on (the user, or an admin)",
    response_model=NewUser,
)
def new_user_token(request: Request, user: str) -> NewUser:
    return NewUser.of(_catalog(request).organisation.new_token(principal(request), user))


@router.delete("/users/{user}", status_code=204, summary="Remove a user: their token and memberships end (admin)")
def remove_user(request: Request, user: str) -> Response:
    _catalog(request).organisation.remove_user(principal(request), user)
    return Response(status_code=204)


@router.put(
    "/projects/{project_id}/members/{user}",
    summary="Add a member or change their role (the project's owner, or an admin)",
    response_model=MemberAnswer,
)
def set_member(request: Request, project_id: str, user: str, body: MemberIn) -> MemberAnswer:
    member = _catalog(request).organisation.set_member(principal(request), project_id, user, body.role)
    return MemberAnswer.of(member)


@router.delete("/projects/{project_id}/members/{user}", status_code=204, summary="Remove a member")
def remove_member(request: Request, project_id: str, user: str) -> Response:
    _catalog(request).organisation.remove_member(principal(request), project_id, user)
    return Response(status_code=204)


# --- assets ------------------------------------------------------------------------------------------


@router.get("/assets", summary="Assets the caller may see (members: inventory too)", response_model=AssetsAnswer)
def assets(
    request: Request,
    owner_project: str | None = Query(None, alias="ownerProject", description="Only the assets of this project"),
    state: AssetState | None = Query(None),
    term: str | None = Query(None, description="Only assets with this glossary term"),
    tag: str | None = Query(None),
    q: str | None = Query(None, description="Substring of the name, business name or description"),
) -> AssetsAnswer:
    found = _catalog(request).assets.assets(
        principal(request), project=owner_project, state=state, term=term, tag=tag, q=q
    )
    return AssetsAnswer(assets=[Asset.answer(a) for a in found])


@router.post("/assets", status_code=201, summary="Catalog a dataset by hand (contributor)", response_model=Asset)
def create_asset(request: Request, body: AssetIn) -> Asset:
    who = principal(request)
    named = body.nodeId is None and (body.namespace is not None or body.name is not None)
    ref = node_ref(body.nodeId, "dataset" if named else None, body.namespace, body.name)
    assert ref is not None
    made = _catalog(request).assets.create(
        who,
        body.project or who.acting_project("cataloging an asset"),
        ref,
        custom=body.custom,
        fields=[f.model_dump() for f in body.fields],
        metadata=None if body.metadata is None else body.metadata.model_dump(exclude_unset=True),
    )
    return Asset.answer(made)


@router.get("/assets/{asset_id}", summary="An asset (at=: as it was then)", response_model=Asset)
def asset(
    request: Request, asset_id: str, at: str | None = Query(None, description="ISO 8601 or epoch ms; default now")
) -> Asset:
    return Asset.answer(_catalog(request).assets.asset(principal(request), asset_id, parse_time(at, "at")))


@router.get(
    "/assets/{asset_id}/versions", summary="An asset's versions, newest first", response_model=AssetVersionsAnswer
)
def asset_versions(request: Request, asset_id: str) -> AssetVersionsAnswer:
    found = _catalog(request).assets.versions(principal(request), asset_id)
    return AssetVersionsAnswer(versions=[AssetVersion.of(v) for v in found])


@router.patch("/assets/{asset_id}", summary="Edit business metadata: a new version (contributor)", response_model=Asset)
def edit_asset(request: Request, asset_id: str, body: MetadataPatch) -> Asset:
    patch = body.model_dump(exclude_unset=True)
    return Asset.answer(_catalog(request).assets.update_metadata(principal(request), asset_id, patch))


@router.post(
    "/assets/{asset_id}/publish", summary="Publish: draws the published node (contributor)", response_model=Asset
)
def publish(request: Request, asset_id: str) -> Asset:
    return Asset.answer(_catalog(request).assets.publish(principal(request), asset_id))


@router.post(
    "/assets/{asset_id}/unpublish", summary="Unpublish: ends the published node (contributor)", response_model=Asset
)
def unpublish(request: Request, asset_id: str) -> Asset:
    return Asset.answer(_catalog(request).assets.unpublish(principal(request), asset_id))


# --- subscriptions ------------------------------------------------------------------------------------


@router.post(
    "/assets/{asset_id}/subscriptions",
    status_code=201,
    summary="Request a subscription for the project in context (contributor)",
    response_model=Subscription,
)
def request_subscription(request: Request, asset_id: str, body: SubscriptionIn) -> Subscription:
    made = _catalog(request).subscriptions.request(principal(request), asset_id, body.target, body.reason)
    return Subscription.of(made)


@router.get("/subscriptions", summary="Subscriptions of the caller's projects", response_model=SubscriptionsAnswer)
def subscriptions(request: Request) -> SubscriptionsAnswer:
    found = _catalog(request).subscriptions.subscriptions(principal(request))
    return SubscriptionsAnswer(subscriptions=[Subscription.of(s) for s in found])


@router.get("/subscriptions/{subscription_id}", summary="A subscription", response_model=Subscription)
def subscription(request: Request, subscription_id: str) -> Subscription:
    return Subscription.of(_catalog(request).subscriptions.subscription(principal(request), subscription_id))


def _decide(request: Request, subscription_id: str, body: DecisionIn | None, *, approve: bool) -> Subscription:
    reason = "" if body is None else body.reason
    decided = _catalog(request).subscriptions.decide(
        principal(request), subscription_id, approve=approve, reason=reason
    )
    return Subscription.of(decided)


@router.post(
    "/subscriptions/{subscription_id}/approve",
    summary="Approve: draws the subscription target node (the asset project's owner)",
    response_model=Subscription,
)
def approve(request: Request, subscription_id: str, body: DecisionIn | None = None) -> Subscription:
    return _decide(request, subscription_id, body, approve=True)


@router.post(
    "/subscriptions/{subscription_id}/reject", summary="Reject (the asset project's owner)", response_model=Subscription
)
def reject(request: Request, subscription_id: str, body: DecisionIn | None = None) -> Subscription:
    return _decide(request, subscription_id, body, approve=False)


@router.post(
    "/subscriptions/{subscription_id}/revoke",
    summary="Revoke: ends the target node (the asset's owner or the consumer)",
    response_model=Subscription,
)
def revoke(request: Request, subscription_id: str) -> Subscription:
    return Subscription.of(_catalog(request).subscriptions.revoke(principal(request), subscription_id))


@router.get(
    "/nodes",
    summary="Which graph nodes are catalog nodes (inventory, published, subscription target) and their asset's state",
    response_model=CatalogNodesAnswer,
)
def catalog_nodes(
    request: Request,
    node_ids: list[str] = Query(
        ..., alias="nodeId", description="Node ids (repeat the parameter), e.g. a lineage answer's"
    ),
) -> CatalogNodesAnswer:
    if len(node_ids) > 5000:
        raise ApiError(400, "invalid_parameter", "nodeId: at most 5000 ids per request")
    hidden = app_state(request).graph.hidden()  # the one visibility policy: what this caller may not see
    found = _catalog(request).assets.node_roles(principal(request), node_ids, hidden.ids)
    return CatalogNodesAnswer(nodes=[CatalogNode.answer(n) for n in found])


# --- data-source runs and audit ---------------------------------------------------------------------------


@router.post(
    "/projects/{project_id}/source-runs",
    status_code=201,
    summary="Bind a data-source run (crawl, harvest) to a project: its datasets become inventory assets",
    response_model=SourceRun,
)
def import_source_run(request: Request, project_id: str, body: SourceRunIn) -> SourceRun:
    made = _catalog(request).source_runs.import_run(
        principal(request), project_id, body.name, body.runIds, body.eventIds
    )
    return SourceRun.answer(made)


@router.get(
    "/projects/{project_id}/source-runs",
    summary="A project's data-source runs, newest first",
    response_model=SourceRunsAnswer,
)
def source_runs(request: Request, project_id: str) -> SourceRunsAnswer:
    found = _catalog(request).source_runs.runs(principal(request), project_id)
    return SourceRunsAnswer(runs=[SourceRun.answer(r) for r in found])


@router.get("/source-runs/{run_id}", summary="A data-source run's report", response_model=SourceRun)
def source_run(request: Request, run_id: str) -> SourceRun:
    return SourceRun.answer(_catalog(request).source_runs.run(principal(request), run_id))


@router.get(
    "/audit", summary="Catalog changes, oldest first (of the project in context, if one)", response_model=AuditAnswer
)
def audit(
    request: Request,
    after: int = Query(0, ge=0, description="The seq of the last entry already read"),
    limit: int = Query(100, ge=1, le=1000),
) -> AuditAnswer:
    who = principal(request)
    return AuditAnswer.answer(_catalog(request).audit.page(who, project=who.context, after=after, limit=limit))
