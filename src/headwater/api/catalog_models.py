"""Request and response models of the catalog's routes (``/api/v1/catalog``, api/catalog.py).

The catalog answers typed records (:mod:`headwater.catalog.records`, snake_case, times in microseconds);
``Model.of(record)`` is the one place a record becomes the API's shape (the fields the model declares, camelCase,
ISO times), and a model whose answer computes a field has an ``answer(record)`` saying how. Responses are
validated by FastAPI against these models (the catalog's answers are small); like :mod:`headwater.api.models`
every model forbids keys it does not declare, and the UI's types are generated from ``/openapi.json`` (a class
name here is a type name there).
"""

from __future__ import annotations

from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field

from headwater.catalog import Principal, records
from headwater.catalog.records import SubscriptionState
from headwater.model.catalog_roles import AssetState, MemberRole, NodeRole
from headwater.model.times import iso

Role = MemberRole
Time = str
ShownRole = Literal["inventory", "published", "publish_job", "target", "subscribe_job"]
_SHOWN_ROLE: dict[NodeRole, ShownRole] = {  # an asset's source node and its aliases are both its inventory
    "source": "inventory",
    "alias": "inventory",
    "published": "published",
    "publish_job": "publish_job",
    "target": "target",
    "subscribe_job": "subscribe_job",
}


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(word.title() for word in rest)


def fields(record: object) -> dict[str, object]:
    """A record's fields under the API's names (camelCase), its times (``at``, ``*_at``: microseconds) as ISO text."""
    out: dict[str, object] = {}
    for name, value in vars(record).items():
        if (name == "at" or name.endswith("_at")) and isinstance(value, int):
            value = iso(value)
        out[_camel(name)] = value
    return out


class CatalogModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    @classmethod
    def of(cls, record: object, **given: object) -> Self:
        """The answer of a catalog record: the fields this model declares, under their camelCase names, times as
        ISO text; ``given``: the fields the answer computes otherwise (its own ``answer`` says how)."""
        shown = {k: v for k, v in fields(record).items() if k in cls.model_fields}
        return cls.model_validate({**shown, **given})


# --- answers --------------------------------------------------------------------------------------


class Membership(CatalogModel):
    project: str
    role: Role


class Me(CatalogModel):
    """Who the request's token is, and the project context it chose (``Headwater-Project`` or ``?project=``)."""

    user: str = Field(description="A catalog user's id, 'admin' (the server's write token) or 'anonymous'")
    admin: bool
    context: str | None
    memberships: list[Membership]

    @classmethod
    def answer(cls, who: Principal) -> Me:
        memberships = [Membership(project=p, role=r) for p, r in sorted(who.memberships.items())]
        return cls(user=who.user, admin=who.admin, context=who.context, memberships=memberships)


class Domain(CatalogModel):
    id: str
    name: str
    description: str
    createdAt: Time


class DomainsAnswer(CatalogModel):
    domains: list[Domain]


class Member(CatalogModel):
    user: str
    role: Role
    addedAt: Time


class Project(CatalogModel):
    id: str
    domain: str
    name: str
    description: str
    createdAt: Time
    role: Role | None = Field(description="The caller's role in the project (null: not a member)")
    members: list[Member] | None = Field(description="Shown to the project's members and admins only")

    @classmethod
    def answer(cls, p: records.Project) -> Project:
        return cls.of(p, members=None if p.members is None else [Member.of(m) for m in p.members])


class ProjectsAnswer(CatalogModel):
    projects: list[Project]


class UserMembership(CatalogModel):
    project: str
    role: Role
    addedAt: Time


class User(CatalogModel):
    """A catalog user (never their token: only its SHA-256 is kept)."""

    id: str
    createdAt: Time
    createdBy: str = Field(description="Who made the user ('admin': the server's write token)")
    memberships: list[UserMembership] = Field(description="The user's roles, by project")

    @classmethod
    def answer(cls, u: records.User) -> User:
        return cls.of(u, memberships=[UserMembership.of(m) for m in u.memberships])


class UsersAnswer(CatalogModel):
    users: list[User]


class NewUser(CatalogModel):
    id: str
    token: str = Field(description="The user's bearer token, shown this once (only its SHA-256 is kept)")


class MemberAnswer(CatalogModel):
    project: str
    user: str
    role: Role


class GlossaryTerm(CatalogModel):
    domain: str
    term: str
    definition: str
    updatedAt: Time
    updatedBy: str


class GlossaryAnswer(CatalogModel):
    terms: list[GlossaryTerm]


class MetadataFields(CatalogModel):
    """An asset's business metadata as stored in a version."""

    businessName: str | None
    description: str = Field(description="Markdown (CommonMark)")
    owners: list[str]
    glossaryTerms: list[str] = Field(description="Terms of the domain's glossary")
    tags: list[str]
    forms: dict[str, dict[str, str]] = Field(description="Custom metadata forms: form name -> key -> value")


class AssetMetadata(MetadataFields):
    descriptionHtml: str = Field(description="The description rendered to safe HTML (raw HTML shown as text)")


class Asset(CatalogModel):
    """A catalog asset. ``dataset`` (its inventory node) is shown to its project's members only; others see a
    published asset through ``publishedNode``."""

    id: str
    project: str
    domain: str
    name: str
    state: AssetState
    custom: bool = Field(description="Made by hand for a dataset no producer reported")
    dataset: str | None
    publishedNode: str | None
    version: int
    metadata: AssetMetadata
    createdAt: Time
    createdBy: str
    updatedAt: Time
    updatedBy: str
    access: Literal["member", "published"] = Field(description="What the caller sees: the member's or the public view")

    @classmethod
    def answer(cls, a: records.Asset) -> Asset:
        metadata = {**a.metadata, "descriptionHtml": a.description_html}
        return cls.of(a, metadata=metadata, access="member" if a.member else "published")


class AssetsAnswer(CatalogModel):
    assets: list[Asset]


class AssetVersion(CatalogModel):
    version: int
    state: AssetState
    change: str = Field(description="created | imported | metadata | published | unpublished")
    changedAt: Time
    changedBy: str
    eventId: str | None = Field(description="The lineage event this change sent (GET /api/v1/events/{id})")
    metadata: MetadataFields


class AssetVersionsAnswer(CatalogModel):
    versions: list[AssetVersion]


class Subscription(CatalogModel):
    id: str
    asset: str
    assetName: str
    assetProject: str
    project: str = Field(description="The consumer project")
    state: SubscriptionState
    target: str
    targetNode: str | None = Field(description="The subscription target's graph node, once approved")
    reason: str
    requestedAt: Time
    requestedBy: str
    decidedAt: Time | None
    decidedBy: str | None
    eventId: str | None


class SubscriptionsAnswer(CatalogModel):
    subscriptions: list[Subscription]


class CatalogNode(CatalogModel):
    """A graph node the catalog answers for, so a graph can draw inventory, published and subscription-target
    nodes apart."""

    node: str
    role: ShownRole
    asset: str | None = Field(description="The asset (null when the caller sees the node but not the asset)")
    assetState: AssetState
    project: str = Field(description="The asset's project")
    subscription: str | None = Field(description="For a target and its job: the subscription")

    @classmethod
    def answer(cls, n: records.CatalogNode) -> CatalogNode:
        return cls.of(n, role=_SHOWN_ROLE[n.role])


class CatalogNodesAnswer(CatalogModel):
    nodes: list[CatalogNode]


class SourceRunItem(CatalogModel):
    """One dataset a data-source run reported: the asset it became, the lineage event that reported it
    (GET /api/v1/events/{eventId}) and whether the graph holds it (import status)."""

    dataset: str | None
    asset: str | None
    action: Literal["added", "updated", "skipped"]
    eventId: str
    status: Literal["SUCCESS", "FAILED"]
    error: str | None


class SourceRun(CatalogModel):
    id: str
    project: str
    name: str
    createdAt: Time
    createdBy: str
    added: int
    updated: int
    failed: int
    items: list[SourceRunItem]

    @classmethod
    def answer(cls, r: records.SourceRun) -> SourceRun:
        items = [SourceRunItem.of(i) for i in r.items]
        return cls.of(r, added=r.added, updated=r.updated, failed=r.failed, items=items)


class SourceRunsAnswer(CatalogModel):
    runs: list[SourceRun]


class AuditEntry(CatalogModel):
    seq: int
    at: Time
    actor: str
    project: str | None
    action: str
    target: str
    detail: dict[str, Any]


class AuditAnswer(CatalogModel):
    entries: list[AuditEntry]
    next: int | None = Field(description="Pass as after= for the next page; null: no more")

    @classmethod
    def answer(cls, page: records.AuditPage) -> AuditAnswer:
        return cls(entries=[AuditEntry.of(e) for e in page.entries], next=page.next)


# --- request bodies -------------------------------------------------------------------------------


class DomainIn(CatalogModel):
    id: str
    name: str = ""
    description: str = ""


class ProjectIn(CatalogModel):
    id: str
    domain: str
    name: str = ""
    description: str = ""


class UserIn(CatalogModel):
    id: str


class MemberIn(CatalogModel):
    role: Role


class TermIn(CatalogModel):
    definition: str = Field(max_length=100_000)


class MetadataPatch(CatalogModel):
    """The keys given replace the asset's current ones (a new version)."""

    businessName: str | None = Field(None, max_length=500)
    description: str = Field("", max_length=100_000)
    owners: list[str] = Field(default_factory=list, max_length=100)
    glossaryTerms: list[str] = Field(default_factory=list, max_length=100)
    tags: list[str] = Field(default_factory=list, max_length=100)
    forms: dict[str, dict[str, str]] = Field(default_factory=dict)


class FieldIn(CatalogModel):
    name: str
    type: str | None = None
    description: str | None = None


class AssetIn(CatalogModel):
    """Catalog a dataset by hand (``nodeId`` or ``namespace`` + ``name``); ``custom``: one no producer reported."""

    project: str | None = Field(None, description="The owning project (default: the request's project context)")
    nodeId: str | None = None
    namespace: str | None = None
    name: str | None = None
    custom: bool = False
    fields: list[FieldIn] = Field(default_factory=list, description="custom: the dataset's columns")
    metadata: MetadataPatch | None = None


class SubscriptionIn(CatalogModel):
    target: str = Field(description="Where the consumer gets the data (an environment, a database)")
    reason: str = Field("", max_length=10_000)


class DecisionIn(CatalogModel):
    reason: str = Field("", max_length=10_000)


class SourceRunIn(CatalogModel):
    """A data-source run (a crawl, a harvest) to bind to the project: its runs (with their child runs) or events."""

    name: str = Field(description="What the run was, e.g. 'crawl hr database'")
    runIds: list[str] = Field(default_factory=list)
    eventIds: list[str] = Field(default_factory=list)
