"""Who works where: domains, their projects, catalog users, project members and each domain's glossary.

- Domains, projects and users are made by an admin (the server's write token); ids are slugs (1 to 64 of
  a-z, 0-9, ``-`` and ``_``).
- Users are listed to an admin; a user is shown to themself and to an admin (with their roles, never a token).
- A user's token is replaced by the user or an admin (the one before is nobody's from then on); a user is
  removed by an admin (their memberships end; their id is not given out again).
- A project's owner (or an admin) adds, changes and removes its members.
- A domain's glossary is edited by an owner of one of its projects (or an admin); read by anyone.
- Every change is one transaction with its audit entry.
"""

from __future__ import annotations

import re
import secrets

import sqlalchemy as sa

from headwater.catalog import tables
from headwater.catalog.access import RESERVED_USERS, Principal, token_hash
from headwater.catalog.errors import Conflict, Forbidden, InvalidRequest, NotFound
from headwater.catalog.records import Domain, Member, NewUser, Project, Term, User
from headwater.catalog.room import Room, found
from headwater.model.catalog_roles import MEMBER_ROLES, MemberRole, is_member_role
from headwater.model.times import iso, now_micros

SLUG = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")


def slug(value: str, what: str) -> str:
    if not isinstance(value, str) or not SLUG.match(value):
        raise InvalidRequest(
            f"{what} {value!r} is not a valid id: 1 to 64 of a-z, 0-9, '-' and '_', starting with a letter or digit"
        )
    return value


def _new_token() -> str:
    """A catalog user's token: ``hwu_`` + 32 random bytes (URL-safe base64)."""
    return "hwu_" + secrets.token_urlsafe(32)


def _admin(who: Principal, doing: str) -> None:
    if not who.admin:
        raise Forbidden(f"{doing} needs the server's write token (an admin)")


def _self_or_admin(who: Principal, user_id: str, refusal: str) -> None:
    """The user ``user_id`` themself or an admin (the names the server's own tokens act under are no user's)."""
    if not who.admin and (who.user != user_id or user_id in RESERVED_USERS):
        raise Forbidden(refusal)


class Organisation(Room):
    """Domains, projects, users, members and glossaries."""

    def create_domain(self, who: Principal, domain_id: str, name: str, description: str) -> Domain:
        _admin(who, "creating a domain")
        made = Domain(slug(domain_id, "domain"), name or domain_id, description, now_micros())
        with self._write() as conn, conn.begin():
            if tables.domain(conn, domain_id) is not None:
                raise Conflict(f"domain {domain_id!r} exists already")
            tables.insert_domain(conn, made, who.user)
            tables.audit(conn, who.user, None, "domain.create", domain_id, {"name": name, "description": description})
        return made

    def domain(self, domain_id: str) -> Domain:
        with self._read() as conn:
            return found(tables.domain(conn, domain_id), f"no domain {domain_id!r}")

    def domains(self) -> list[Domain]:
        with self._read() as conn:
            return tables.domains(conn)

    def create_project(self, who: Principal, project_id: str, domain: str, name: str, description: str) -> Project:
        _admin(who, "creating a project")
        made = Project(slug(project_id, "project"), domain, name or project_id, description, now_micros())
        with self._write() as conn, conn.begin():
            found(tables.domain(conn, domain), f"no domain {domain!r}")
            if tables.project(conn, project_id) is not None:
                raise Conflict(f"project {project_id!r} exists already")
            tables.insert_project(conn, made, who.user)
            tables.audit(conn, who.user, project_id, "project.create", project_id, {"domain": domain, "name": name})
        return self.project(who, project_id)

    def project(self, who: Principal, project_id: str) -> Project:
        """The project; its members listed to its members and admins."""
        with self._read() as conn:
            return self._as_seen(conn, who, found(tables.project(conn, project_id), f"no project {project_id!r}"))

    def projects(self, who: Principal) -> list[Project]:
        with self._read() as conn:
            return [self._as_seen(conn, who, p) for p in tables.projects(conn)]

    @staticmethod
    def _as_seen(conn: sa.Connection, who: Principal, project: Project) -> Project:
        members = tables.members(conn, project.id) if who.admin or project.id in who.memberships else None
        role: MemberRole | None = "owner" if who.admin else who.memberships.get(project.id)
        return Project(project.id, project.domain, project.name, project.description, project.created_at, role, members)

    def create_user(self, who: Principal, user_id: str) -> NewUser:
        """A new catalog user and their token (shown once: only its SHA-256 is kept). The id of a removed user
        is not given out again (the audit log names one user per id)."""
        _admin(who, "creating a user")
        slug(user_id, "user")
        if user_id in RESERVED_USERS:
            raise InvalidRequest(f"user {user_id!r} is the name the server's own tokens act under: choose another")
        token = _new_token()
        with self._write() as conn, conn.begin():
            if tables.user_exists(conn, user_id):
                raise Conflict(f"user {user_id!r} exists already")
            removed = tables.user_removed_at(conn, user_id)
            if removed is not None:
                raise Conflict(
                    f"user {user_id!r} was removed at {iso(removed)}; ids are not given out again "
                    "(the audit log names one user per id): choose another"
                )
            tables.insert_user(conn, user_id, token_hash(token), who.user)
            tables.audit(conn, who.user, None, "user.create", user_id, {})
        return NewUser(user_id, token)

    def users(self, who: Principal) -> list[User]:
        """Every catalog user, by id, with their memberships (an admin)."""
        _admin(who, "listing users")
        with self._read() as conn:
            return tables.users(conn)

    def user(self, who: Principal, user_id: str) -> User:
        """One user with their memberships (the user themself, or an admin)."""
        _self_or_admin(who, user_id, f"user {user_id!r} is shown to that user and to admins only")
        with self._read() as conn:
            return found(next(iter(tables.users(conn, user_id=user_id)), None), f"no user {user_id!r}")

    def new_token(self, who: Principal, user_id: str) -> NewUser:
        """A new token for ``user_id`` (the user themself, or an admin), shown once; the one before is refused
        from the next request on (a leaked or lost token is replaced without touching the user's roles)."""
        _self_or_admin(who, user_id, f"a new token for {user_id!r} needs that user's token or the server's write token")
        token = _new_token()
        with self._write() as conn, conn.begin():
            if not tables.set_user_token(conn, user_id, token_hash(token)):
                raise NotFound(f"no user {user_id!r}")
            tables.audit(conn, who.user, None, "user.token", user_id, {})
        return NewUser(user_id, token)

    def remove_user(self, who: Principal, user_id: str) -> None:
        """Remove a user (an admin): their token is refused from the next request on and their memberships end;
        what they did stays in the audit log under their id, which is not given out again."""
        _admin(who, "removing a user")
        with self._write() as conn, conn.begin():
            roles = tables.delete_user(conn, user_id)
            if roles is None:
                raise NotFound(f"no user {user_id!r}")
            tables.audit(conn, who.user, None, "user.remove", user_id, {"roles": dict(sorted(roles.items()))})

    def set_member(self, who: Principal, project: str, user: str, role: str) -> Member:
        """Add ``user`` to ``project`` with ``role``, or change their role (the project's owner)."""
        if not is_member_role(role):
            raise InvalidRequest(f"role {role!r} is not one of {', '.join(MEMBER_ROLES)}")
        who.require(project, "owner", "adding a member")
        with self._write() as conn, conn.begin():
            found(tables.project(conn, project), f"no project {project!r}")
            if not tables.user_exists(conn, user):
                raise NotFound(f"no user {user!r}")
            before = tables.set_member(conn, project, user, role, who.user)
            tables.audit(conn, who.user, project, "member.set", user, {"role": role, "before": before})
            return next(m for m in tables.members(conn, project) if m.user == user)

    def remove_member(self, who: Principal, project: str, user: str) -> None:
        who.require(project, "owner", "removing a member")
        with self._write() as conn, conn.begin():
            if not tables.remove_member(conn, project, user):
                raise NotFound(f"{user!r} is not a member of project {project!r}")
            tables.audit(conn, who.user, project, "member.remove", user, {})

    def set_term(self, who: Principal, domain: str, term: str, definition: str) -> Term:
        """Define ``term`` in the domain's glossary (an owner of one of the domain's projects, or an admin)."""
        term = term.strip()
        if not term or len(term) > 200:
            raise InvalidRequest("a glossary term is 1 to 200 characters")
        made = Term(domain, term, definition, now_micros(), who.user)
        with self._write() as conn, conn.begin():
            found(tables.domain(conn, domain), f"no domain {domain!r}")
            if not who.admin and not any(who.role(p.id) == "owner" for p in tables.projects(conn, domain=domain)):
                raise Forbidden(f"editing the glossary of domain {domain!r} needs an owner of one of its projects")
            tables.set_term(conn, made)
            tables.audit(conn, who.user, None, "glossary.set", f"{domain}/{term}", {"definition": definition})
        return made

    def glossary(self, domain: str) -> list[Term]:
        with self._read() as conn:
            found(tables.domain(conn, domain), f"no domain {domain!r}")
            return tables.terms(conn, domain)
