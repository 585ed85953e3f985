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

:func:`holder_of` is the one question the API asks of a token it does not find in the settings: a managed
token (``headwater token``, :mod:`headwater.catalog.tokens`) or a catalog user's, answered from the tables'
owners (``catalog/tokens.py``, ``catalog/tables.py``); :func:`managed_kinds` says which kinds of managed token
exist (a server with one requires tokens for that kind of request).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

import sqlalchemy as sa

from headwater.catalog import tables, tokens
from headwater.catalog.errors import Forbidden
from headwater.catalog.tokens import token_hash
from headwater.graph.visibility import Viewer
from headwater.model.catalog_roles import MEMBER_ROLES, MemberRole, at_least

ROLES = MEMBER_ROLES
__all__ = [
    "ADMIN",
    "ANONYMOUS",
    "RESERVED_USERS",
    "ROLES",
    "Holder",
    "Principal",
    "holder_of",
    "managed_kinds",
    "token_hash",
]


@dataclass(frozen=True)
class Principal:
    """``user``: the catalog user's id, ``admin`` or ``anonymous``; ``memberships``: project → role;
    ``context``: the project chosen for this request (None: none chosen)."""

    user: str
    admin: bool = False
    memberships: Mapping[str, MemberRole] = field(default_factory=dict)
    context: str | None = None

    @property
    def viewer(self) -> Viewer:
        if self.admin:
            return Viewer(admin=True)
        projects = {self.context} if self.context is not None else set(self.memberships)
        return Viewer(projects=frozenset(projects))

    def role(self, project: str) -> MemberRole | None:
        """The principal's role in ``project`` (an admin is an owner everywhere); None: not a member."""
        if self.admin:
            return "owner"
        if self.context is not None and project != self.context:
            return None
        return self.memberships.get(project)

    def require(self, project: str, least: str, doing: str) -> None:
        """:class:`Forbidden` unless the principal has at least role ``least`` in ``project``."""
        role = self.role(project)
        if role is None:
            where = f" (the request's project context is {self.context!r})" if self.context else ""
            raise Forbidden(f"{doing} needs a member of project {project!r}{where}")
        if not at_least(role, least):
            raise Forbidden(f"{doing} needs the role {least} or higher in project {project!r}; {self.user!r} is {role}")

    def acting_project(self, doing: str) -> str:
        """The project a request acts for: the context, or the user's only project."""
        if self.context is not None:
            return self.context
        if len(self.memberships) == 1:
            return next(iter(self.memberships))
        raise Forbidden(f"{doing}: choose a project with the Headwater-Project header or ?project=")

    def with_context(self, project: str | None) -> Principal:
        """This principal in ``project``'s context (:class:`Forbidden` when not a member; an admin may pick any)."""
        if project is None:
            return self
        if not self.admin and project not in self.memberships:
            raise Forbidden(f"{self.user!r} is not a member of project {project!r}")
        return Principal(self.user, self.admin, self.memberships, project)


ADMIN = Principal("admin", admin=True)
ANONYMOUS = Principal("anonymous")
# the names the server's own tokens act under (in principals and the audit log): no catalog user is given one
RESERVED_USERS = frozenset({ADMIN.user, ANONYMOUS.user})


@dataclass(frozen=True)
class Holder:
    """Who holds a token: ``kind`` ``write`` or ``read`` (a managed token) or ``user`` (a catalog user's)."""

    principal: Principal
    kind: Literal["write", "read", "user"]


def holder_of(engine: sa.Engine, token: str) -> Holder | None:
    """The holder of a valid managed token (its use recorded) or of a catalog user's token, or None.

    A managed write token acts as the server's write token (an admin), or as its project's contributor when it
    is bound to one; a managed read token reads as the anonymous reader."""
    if token.startswith(tokens.PREFIX):
        with engine.connect() as conn:
            record = tokens.resolve_token(conn, token)
        if record is None:
            return None
        tokens.mark_used(engine, record)
        if record.kind == "read":
            return Holder(ANONYMOUS, "read")
        if record.project is None:
            return Holder(ADMIN, "write")
        bound = Principal(f"token:{record.id}", memberships={record.project: "contributor"}, context=record.project)
        return Holder(bound, "write")
    with engine.connect() as conn:
        user = tables.user_of_token(conn, token_hash(token))
    return None if user is None else Holder(Principal(user[0], memberships=user[1]), "user")


def has_users(engine: sa.Engine) -> bool:
    """Whether the catalog has a user (and so tokens of its users a request may hold)."""
    with engine.connect() as conn:
        return tables.any_user(conn)


def managed_kinds(engine: sa.Engine) -> frozenset[str]:
    """The kinds (``write``, ``read``) of which a valid managed token exists."""
    return tokens.active_kinds(engine)
