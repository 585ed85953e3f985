"""The catalog's typed records (frozen dataclasses): its rows as stored (``*Row``: what ``catalog/tables.py``
reads and writes) and its answers, one per thing it keeps.

Times are microseconds since the epoch (the store's axis); the API writes them as ISO text and names the
fields in camelCase (``api/catalog_models.py``). A record holds only what its reader may see: the catalog
fills it for a principal (an asset's inventory node is None for a non-member).

:class:`Metadata` is an asset's business metadata as stored in each version and sent as the
``headwater_catalog`` facet's fields; its keys are the facet's (OpenLineage's camelCase).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, TypedDict, cast

from headwater.model.catalog_roles import AssetState, MemberRole, NodeRole

SubscriptionState = Literal["requested", "approved", "rejected", "revoked"]
ItemAction = Literal["added", "updated", "skipped"]
ItemStatus = Literal["SUCCESS", "FAILED"]


class Metadata(TypedDict):
    businessName: str | None
    description: str
    owners: list[str]
    glossaryTerms: list[str]
    tags: list[str]
    forms: dict[str, dict[str, str]]


def empty_metadata() -> Metadata:
    return {"businessName": None, "description": "", "owners": [], "glossaryTerms": [], "tags": [], "forms": {}}


def patched(metadata: Metadata, patch: Mapping[str, object]) -> Metadata:
    """``metadata`` with the keys of ``patch`` replaced (the API checked their shapes)."""
    return cast(Metadata, {**metadata, **patch})


# --- organisation ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Domain:
    id: str
    name: str
    description: str
    created_at: int


@dataclass(frozen=True)
class Member:
    project: str
    user: str
    role: MemberRole
    added_at: int


@dataclass(frozen=True)
class Project:
    """``role``: the reader's role in it (None: not a member); ``members``: shown to members and admins only."""

    id: str
    domain: str
    name: str
    description: str
    created_at: int
    role: MemberRole | None = None
    members: tuple[Member, ...] | None = None


@dataclass(frozen=True)
class User:
    """A catalog user as an admin (or the user themself) sees them: who made them and when, and their roles by
    project (never their token: only its SHA-256 is kept)."""

    id: str
    created_at: int
    created_by: str
    memberships: tuple[Member, ...]


@dataclass(frozen=True)
class NewUser:
    id: str
    token: str  # shown this once: only its SHA-256 is kept


@dataclass(frozen=True)
class Term:
    domain: str
    term: str
    definition: str
    updated_at: int
    updated_by: str


# --- assets ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AssetRow:
    """An asset as stored (the current version); ``domain``: its project's."""

    id: str
    project: str
    domain: str
    dataset: str
    state: AssetState
    custom: bool
    published_node: str | None
    version: int
    metadata: Metadata
    created_at: int
    created_by: str
    updated_at: int
    updated_by: str


@dataclass(frozen=True)
class NodeRow:
    """A node the catalog answers for, with its asset's project and state."""

    node: str
    role: NodeRole
    asset: str
    subscription: str | None
    project: str
    state: AssetState


@dataclass(frozen=True)
class Asset:
    """An asset as one reader sees it: ``dataset`` (the inventory node) for members only, ``published_node`` for
    members and, while published, everyone; ``access``: the member's or the public view."""

    id: str
    project: str
    domain: str
    name: str
    state: AssetState
    custom: bool
    dataset: str | None
    published_node: str | None
    version: int
    metadata: Metadata
    description_html: str
    created_at: int
    created_by: str
    updated_at: int
    updated_by: str
    member: bool


@dataclass(frozen=True)
class AssetVersion:
    asset: str
    version: int
    state: AssetState
    change: str  # created | imported | metadata | published | unpublished
    changed_at: int
    changed_by: str
    event_id: str | None
    metadata: Metadata


@dataclass(frozen=True)
class CatalogNode:
    """A graph node the catalog answers for; ``asset`` None when the reader sees the node but not the asset."""

    node: str
    role: NodeRole
    asset: str | None
    asset_state: AssetState
    project: str
    subscription: str | None


# --- subscriptions --------------------------------------------------------------------------------


@dataclass(frozen=True)
class SubscriptionRow:
    """A subscription as stored: ``project`` is the consumer; ``target_node`` is drawn once approved."""

    id: str
    asset: str
    project: str
    state: SubscriptionState
    target: str
    target_node: str | None
    reason: str
    requested_at: int
    requested_by: str
    decided_at: int | None
    decided_by: str | None
    event_id: str | None


@dataclass(frozen=True)
class Subscription(SubscriptionRow):
    """A subscription with its asset's name and project."""

    asset_name: str
    asset_project: str


# --- data-source runs -----------------------------------------------------------------------------


@dataclass(frozen=True)
class SourceRunItem:
    """One dataset a data-source run reported (``dataset`` None for one another project catalogued)."""

    dataset: str | None
    asset: str | None
    action: ItemAction
    event_id: str
    status: ItemStatus
    error: str | None


@dataclass(frozen=True)
class SourceRunRow:
    id: str
    project: str
    name: str
    created_at: int
    created_by: str


@dataclass(frozen=True)
class SourceRun:
    id: str
    project: str
    name: str
    created_at: int
    created_by: str
    items: tuple[SourceRunItem, ...]

    @property
    def added(self) -> int:
        return sum(i.action == "added" for i in self.items)

    @property
    def updated(self) -> int:
        return sum(i.action == "updated" for i in self.items)

    @property
    def failed(self) -> int:
        return sum(i.status == "FAILED" for i in self.items)


@dataclass(frozen=True)
class Claim:
    """What a dataset an event writes became: its asset ("" when none), the action and why it was skipped."""

    asset: str
    action: ItemAction
    error: str | None = None


# --- audit ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AuditEntry:
    seq: int
    at: int
    actor: str
    project: str | None
    action: str
    target: str
    detail: Mapping[str, object]


@dataclass(frozen=True)
class AuditPage:
    entries: tuple[AuditEntry, ...]
    next: int | None  # the seq to pass as ``after`` for the next page; None: no more
