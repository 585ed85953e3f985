"""The catalog's role vocabulary (docs/catalog.md): what the catalog writes in its tables and the graph's
visibility policy (``graph/visibility.py``) reads, so both speak the same words from one place.

- A member's role in a project: ``owner`` > ``contributor`` > ``viewer`` (:func:`at_least` compares them);
  owners and contributors write (:data:`WRITERS`).
- A node's role in ``catalog_nodes``: an asset's inventory node (:data:`SOURCE`) and its aliases
  (:data:`ALIAS`), its published node and publish job, a subscription's target node and its job.
- An asset's state: ``inventory`` → ``published`` → ``unpublished`` (and published again).
"""

from __future__ import annotations

from typing import Final, Literal, TypeGuard

MemberRole = Literal["owner", "contributor", "viewer"]
MEMBER_ROLES: Final[tuple[MemberRole, ...]] = ("owner", "contributor", "viewer")
WRITERS: Final[tuple[MemberRole, ...]] = ("owner", "contributor")
_RANK: Final[dict[str, int]] = {"viewer": 0, "contributor": 1, "owner": 2}


def is_member_role(value: str) -> TypeGuard[MemberRole]:
    return value in MEMBER_ROLES


def at_least(role: str, least: str) -> bool:
    """Whether member role ``role`` is ``least`` or higher."""
    return _RANK[role] >= _RANK[least]


NodeRole = Literal["source", "alias", "published", "publish_job", "target", "subscribe_job"]
SOURCE: Final = "source"
ALIAS: Final = "alias"
PUBLISHED: Final = "published"
PUBLISH_JOB: Final = "publish_job"
TARGET: Final = "target"
SUBSCRIBE_JOB: Final = "subscribe_job"

AssetState = Literal["inventory", "published", "unpublished"]
ASSET_STATES: Final[tuple[AssetState, ...]] = ("inventory", "published", "unpublished")
