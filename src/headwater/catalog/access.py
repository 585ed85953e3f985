"""Who is asking: a :class:`Principal` from a bearer token and a project context.

- the server's write token (setting ``write_tokens``): an admin — sees everything, manages domains,
  projects, users and members;
- the server's read token (``read_tokens``), or no token where reads need none: an anonymous reader —
  sees what is not cataloged and the published assets;
- a catalog user's token (``POST /api/v1/catalog/users`` gives it once; only its SHA-256 is kept): the
  user's memberships, each with a role (owner, contributor, viewer).

A user of several projects picks the project context per request (header ``Headwater-Project`` or query
``project``); without one, a user sees what all of their projects may see and acts where one project
is implied. The viewer the graph layer filters for is :attr:`Principal.viewer`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field

import sqlalchemy as sa

from headwater.catalog.errors import forbidden
from headwater.graph.visibility import Viewer
from headwater.store.schema import catalog_members, catalog_users

ROLES = ("owner", "contributor", "viewer")
_RANK = {"viewer": 0, "contributor": 1, "owner": 2}


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Principal:
    """``user``: the catalog user's id, ``admin`` or ``anonymous``; ``memberships``: project → role;
    ``context``: the project chosen for this request (None: none chosen)."""

    user: str
    admin: bool = False
    memberships: Mapping[str, str] = field(default_factory=dict)
    context: str | None = None

    @property
    def viewer(self) -> Viewer:
        if self.admin:
            return Viewer(admin=True)
        projects = {self.context} if self.context is not None else set(self.memberships)
        return Viewer(projects=frozenset(projects))

    def role(self, project: str) -> str | None:
        """The principal's role in ``project`` (an admin is an owner everywhere); None: not a member."""
        if self.admin:
            return "owner"
        if self.context is not None and project != self.context:
            return None
        return self.memberships.get(project)

    def require(self, project: str, least: str, doing: str) -> None:
        """403 unless the principal has at least role ``least`` in ``project``."""
        role = self.role(project)
        if role is None:
            where = f" (the request's project context is {self.context!r})" if self.context else ""
            raise forbidden(f"{doing} needs a member of project {project!r}{where}")
        if _RANK[role] < _RANK[least]:
            raise forbidden(f"{doing} needs the role {least} or higher in project {project!r}; {self.user!r} is {role}")

    def acting_project(self, doing: str) -> str:
        """The project a request acts for: the context, or the user's only project."""
        if self.context is not None:
            return self.context
        if len(self.memberships) == 1:
            return next(iter(self.memberships))
        raise forbidden(f"{doing}: choose a project with the Headwater-Project header or ?project=")

    def with_context(self, project: str | None) -> Principal:
        """This principal in ``project``'s context (403 when not a member; an admin may pick any)."""
        if project is None:
            return self
        if not self.admin and project not in self.memberships:
            raise forbidden(f"{self.user!r} is not a member of project {project!r}")
        return Principal(self.user, self.admin, self.memberships, project)


ADMIN = Principal("admin", admin=True)
ANONYMOUS = Principal("anonymous")


def resolve_user(conn: sa.Connection, token: str) -> Principal | None:
    """The catalog user holding ``token`` with their memberships, or None."""
    user = conn.scalar(sa.select(catalog_users.c.id).where(catalog_users.c.token_hash == token_hash(token)))
    if user is None:
        return None
    rows = conn.execute(
        sa.select(catalog_members.c.project, catalog_members.c.role).where(catalog_members.c.user == user)
    )
    return Principal(str(user), memberships={r.project: r.role for r in rows})
