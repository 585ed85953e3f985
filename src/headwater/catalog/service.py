"""The catalog's changes and reads: :class:`Catalog` (docs/catalog.md).

Every change checks the principal's role, writes the catalog's own tables in one transaction with an
audit row (who, when, what), and — for what is lineage (publish, approve, unpublish, revoke, metadata,
a custom dataset) — appends OpenLineage events through the ingest path (validated as the API
validates, then ``Store.append``) so the projector makes them graph nodes. The catalog never writes a
graph table.

Order of a change that draws lineage: the catalog rows that make the new node hidden from those who may
not see it are committed first, then the event is appended (durable), then the state that makes it
visible is committed — a node is never visible to anyone before its rules are in place. (SQLite has one
writer: no catalog transaction is held open across an append.)

Reads answer what the principal may see: the visibility rules are the graph layer's
(:mod:`headwater.graph.visibility`); an asset the principal may not see is "not found".
"""

from __future__ import annotations

import re
import secrets
import uuid
from collections.abc import Collection, Iterable, Mapping, Sequence
from datetime import datetime
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from headwater.catalog import lineage as cl
from headwater.catalog.access import ROLES, Principal, token_hash
from headwater.catalog.errors import CatalogError, bad_request, conflict, forbidden, not_found
from headwater.catalog.markdown import render
from headwater.graph import GraphReader, NodeNotFound
from headwater.graph.visibility import ALIAS, PUBLISH_JOB, PUBLISHED, SOURCE, SUBSCRIBE_JOB, TARGET, sees_project
from headwater.ingest import IngestError
from headwater.model.jsontext import dumps_sorted as _dumps
from headwater.model.jsontext import loads as _loads
from headwater.model.nodeid import NodeRef, parse_node_id
from headwater.model.times import iso, now_micros, to_micros
from headwater.store.schema import (
    catalog_asset_versions,
    catalog_assets,
    catalog_audit,
    catalog_domains,
    catalog_glossary,
    catalog_members,
    catalog_nodes,
    catalog_projects,
    catalog_source_run_items,
    catalog_source_runs,
    catalog_subscriptions,
    catalog_users,
    datasets,
    events,
    runs,
)
from headwater.store.types import IncomingEvent

if TYPE_CHECKING:
    from headwater.ingest import Door
    from headwater.store import Store

SLUG = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
STATES = ("inventory", "published", "unpublished")
SUBSCRIPTION_STATES = ("requested", "approved", "rejected", "revoked")
EMPTY_METADATA: dict[str, Any] = {
    "businessName": None,
    "description": "",
    "owners": [],
    "glossaryTerms": [],
    "tags": [],
    "forms": {},
}
MAX_TEXT = 100_000


def _slug(value: str, what: str) -> str:
    if not isinstance(value, str) or not SLUG.match(value):
        raise bad_request(
            f"{what} {value!r} is not a valid id: 1 to 64 of a-z, 0-9, '-' and '_', starting with a letter or digit"
        )
    return value


def written(event: Mapping[str, Any]) -> dict[str, set[str]]:
    """The datasets an event writes (its outputs, a DatasetEvent's dataset), each with its aliases: the
    datasets its ``symlinks`` facet names, and the inputs whose ``symlinks`` name it (a crawler's storage
    location of a catalog table). The catalog's own nodes are left out."""

    def links(item: Mapping[str, Any]) -> list[str]:
        facets = item.get("facets") if isinstance(item.get("facets"), Mapping) else {}
        symlinks = facets.get("symlinks") if isinstance(facets, Mapping) else None
        found = symlinks.get("identifiers") if isinstance(symlinks, Mapping) else None
        return [
            NodeRef("dataset", str(link["namespace"]), str(link["name"])).id
            for link in found or []
            if isinstance(link, Mapping) and "namespace" in link and "name" in link
        ]

    outputs = [o for o in event.get("outputs") or [] if isinstance(o, Mapping)]
    if isinstance(event.get("dataset"), Mapping):
        outputs.append(event["dataset"])
    out: dict[str, set[str]] = {}
    for o in outputs:
        if "namespace" not in o or "name" not in o or str(o["namespace"]).startswith(cl.SCHEME):
            continue
        out.setdefault(NodeRef("dataset", str(o["namespace"]), str(o["name"])).id, set()).update(links(o))
    for i in event.get("inputs") or []:
        if not isinstance(i, Mapping) or "namespace" not in i or "name" not in i:
            continue
        for target in links(i):
            if target in out:
                out[target].add(NodeRef("dataset", str(i["namespace"]), str(i["name"])).id)
    for ds, aliases in out.items():
        aliases.discard(ds)
        aliases.difference_update(out)
    return out


class Catalog:
    """The catalog over one store. ``graph`` reads the whole graph (an admin reader): the catalog decides
    itself what of it a principal's answer may hold."""

    def __init__(self, store: Store, graph: GraphReader, door: Door) -> None:
        self._store = store
        self._graph = graph
        self._door = door  # the server's ingest door: the catalog's events are accepted as any other

    # --- plumbing -----------------------------------------------------------------------------------

    def _write(self) -> sa.Connection:
        # BEGIN IMMEDIATE on SQLite: a read that turns into a write waits for the projector instead of
        # failing with "database is locked"
        return self._store.write_connection()

    def _read(self) -> sa.Connection:
        # a read connection: no write transaction (on SQLite, no BEGIN IMMEDIATE queued behind the writers);
        # no wait for the projector either, as before (a catalog read never turns into a write)
        return self._store.read_connection(wait=False)

    def _append(self, lineage_events: Sequence[Mapping[str, Any]]) -> list[str]:
        """Append through the ingest door (the server's policy, as ``POST /api/v1/lineage/batch``); the ids.

        A refusal (a name longer than the setting ``max_name_bytes``, say) answers as that door would."""
        try:
            parsed = self._door.accept_events(lineage_events)
        except IngestError as exc:
            raise CatalogError(exc.status, exc.code, f"the catalog's event was refused: {exc.message}") from None
        results = self._store.append([IncomingEvent.accepted(p) for p in parsed])
        return [r.id for r in results]

    @staticmethod
    def _audit(
        conn: sa.Connection, who: Principal, project: str | None, action: str, target: str, detail: Mapping[str, Any]
    ) -> None:
        conn.execute(
            catalog_audit.insert().values(
                at=now_micros(), actor=who.user, project=project, action=action, target=target, detail=_dumps(detail)
            )
        )

    @staticmethod
    def _one(conn: sa.Connection, table: sa.Table, key: str, what: str) -> sa.Row[Any]:
        row = conn.execute(sa.select(table).where(table.c[table.primary_key.columns.keys()[0]] == key)).first()
        if row is None:
            raise not_found(f"no {what} {key!r}")
        return row

    # --- who am I -----------------------------------------------------------------------------------

    def me(self, who: Principal) -> dict[str, Any]:
        return {
            "user": who.user,
            "admin": who.admin,
            "context": who.context,
            "memberships": [{"project": p, "role": r} for p, r in sorted(who.memberships.items())],
        }

    # --- domains, projects, users, members ------------------------------------------------------------

    def create_domain(self, who: Principal, domain_id: str, name: str, description: str) -> dict[str, Any]:
        if not who.admin:
            raise forbidden("creating a domain needs the server's write token (an admin)")
        _slug(domain_id, "domain")
        now = now_micros()
        with self._write() as conn, conn.begin():
            if conn.scalar(sa.select(catalog_domains.c.id).where(catalog_domains.c.id == domain_id)):
                raise conflict(f"domain {domain_id!r} exists already")
            conn.execute(
                catalog_domains.insert().values(
                    id=domain_id, name=name or domain_id, description=description, created_at=now, created_by=who.user
                )
            )
            self._audit(conn, who, None, "domain.create", domain_id, {"name": name, "description": description})
        return self.domain(domain_id)

    def domain(self, domain_id: str) -> dict[str, Any]:
        with self._read() as conn:
            row = self._one(conn, catalog_domains, domain_id, "domain")
        return {"id": row.id, "name": row.name, "description": row.description, "createdAt": iso(row.created_at)}

    def domains(self) -> list[dict[str, Any]]:
        with self._read() as conn:
            rows = conn.execute(sa.select(catalog_domains).order_by(catalog_domains.c.id)).all()
        return [
            {"id": r.id, "name": r.name, "description": r.description, "createdAt": iso(r.created_at)} for r in rows
        ]

    def create_project(
        self, who: Principal, project_id: str, domain: str, name: str, description: str
    ) -> dict[str, Any]:
        if not who.admin:
            raise forbidden("creating a project needs the server's write token (an admin)")
        _slug(project_id, "project")
        with self._write() as conn, conn.begin():
            self._one(conn, catalog_domains, domain, "domain")
            if conn.scalar(sa.select(catalog_projects.c.id).where(catalog_projects.c.id == project_id)):
                raise conflict(f"project {project_id!r} exists already")
            conn.execute(
                catalog_projects.insert().values(
                    id=project_id,
                    domain=domain,
                    name=name or project_id,
                    description=description,
                    created_at=now_micros(),
                    created_by=who.user,
                )
            )
            self._audit(conn, who, project_id, "project.create", project_id, {"domain": domain, "name": name})
        return self.project(who, project_id)

    def _project_shape(self, conn: sa.Connection, who: Principal, row: Any) -> dict[str, Any]:
        members = None
        if who.admin or row.id in who.memberships:
            members = [
                {"user": m.user, "role": m.role, "addedAt": iso(m.added_at)}
                for m in conn.execute(
                    sa.select(catalog_members)
                    .where(catalog_members.c.project == row.id)
                    .order_by(catalog_members.c.user)
                )
            ]
        return {
            "id": row.id,
            "domain": row.domain,
            "name": row.name,
            "description": row.description,
            "createdAt": iso(row.created_at),
            "role": who.memberships.get(row.id) if not who.admin else "owner",
            "members": members,
        }

    def project(self, who: Principal, project_id: str) -> dict[str, Any]:
        with self._read() as conn:
            row = self._one(conn, catalog_projects, project_id, "project")
            return self._project_shape(conn, who, row)

    def projects(self, who: Principal) -> list[dict[str, Any]]:
        with self._read() as conn:
            rows = conn.execute(sa.select(catalog_projects).order_by(catalog_projects.c.id)).all()
            return [self._project_shape(conn, who, r) for r in rows]

    def create_user(self, who: Principal, user_id: str) -> dict[str, Any]:
        """A new catalog user and their token (shown once: only its SHA-256 is kept)."""
        if not who.admin:
            raise forbidden("creating a user needs the server's write token (an admin)")
        _slug(user_id, "user")
        token = "hwu_" + secrets.token_urlsafe(32)
        with self._write() as conn, conn.begin():
            if conn.scalar(sa.select(catalog_users.c.id).where(catalog_users.c.id == user_id)):
                raise conflict(f"user {user_id!r} exists already")
            conn.execute(
                catalog_users.insert().values(
                    id=user_id, token_hash=token_hash(token), created_at=now_micros(), created_by=who.user
                )
            )
            self._audit(conn, who, None, "user.create", user_id, {})
        return {"id": user_id, "token": token}

    def set_member(self, who: Principal, project: str, user: str, role: str) -> dict[str, Any]:
        if role not in ROLES:
            raise bad_request(f"role {role!r} is not one of {', '.join(ROLES)}")
        who.require(project, "owner", "adding a member")
        with self._write() as conn, conn.begin():
            self._one(conn, catalog_projects, project, "project")
            self._one(conn, catalog_users, user, "user")
            old = conn.scalar(
                sa.select(catalog_members.c.role).where(
                    catalog_members.c.project == project, catalog_members.c.user == user
                )
            )
            if old is None:
                conn.execute(
                    catalog_members.insert().values(
                        project=project, user=user, role=role, added_at=now_micros(), added_by=who.user
                    )
                )
            else:
                conn.execute(
                    catalog_members.update()
                    .where(catalog_members.c.project == project, catalog_members.c.user == user)
                    .values(role=role)
                )
            self._audit(conn, who, project, "member.set", user, {"role": role, "before": old})
        return {"project": project, "user": user, "role": role}

    def remove_member(self, who: Principal, project: str, user: str) -> None:
        who.require(project, "owner", "removing a member")
        with self._write() as conn, conn.begin():
            done = conn.execute(
                catalog_members.delete().where(catalog_members.c.project == project, catalog_members.c.user == user)
            )
            if not done.rowcount:
                raise not_found(f"{user!r} is not a member of project {project!r}")
            self._audit(conn, who, project, "member.remove", user, {})

    # --- glossary -------------------------------------------------------------------------------------

    def set_term(self, who: Principal, domain: str, term: str, definition: str) -> dict[str, Any]:
        term = term.strip()
        if not term or len(term) > 200:
            raise bad_request("a glossary term is 1 to 200 characters")
        with self._write() as conn, conn.begin():
            self._one(conn, catalog_domains, domain, "domain")
            owners_here = conn.scalars(
                sa.select(catalog_projects.c.id).where(catalog_projects.c.domain == domain)
            ).all()
            if not who.admin and not any(who.role(p) == "owner" for p in owners_here):
                raise forbidden(f"editing the glossary of domain {domain!r} needs an owner of one of its projects")
            now = now_micros()
            found = conn.scalar(
                sa.select(catalog_glossary.c.term).where(
                    catalog_glossary.c.domain == domain, catalog_glossary.c.term == term
                )
            )
            if found is None:
                conn.execute(
                    catalog_glossary.insert().values(
                        domain=domain, term=term, definition=definition, updated_at=now, updated_by=who.user
                    )
                )
            else:
                conn.execute(
                    catalog_glossary.update()
                    .where(catalog_glossary.c.domain == domain, catalog_glossary.c.term == term)
                    .values(definition=definition, updated_at=now, updated_by=who.user)
                )
            self._audit(conn, who, None, "glossary.set", f"{domain}/{term}", {"definition": definition})
        return {"domain": domain, "term": term, "definition": definition, "updatedAt": iso(now), "updatedBy": who.user}

    def glossary(self, domain: str) -> list[dict[str, Any]]:
        with self._read() as conn:
            self._one(conn, catalog_domains, domain, "domain")
            rows = conn.execute(
                sa.select(catalog_glossary).where(catalog_glossary.c.domain == domain).order_by(catalog_glossary.c.term)
            ).all()
        return [
            {
                "domain": r.domain,
                "term": r.term,
                "definition": r.definition,
                "updatedAt": iso(r.updated_at),
                "updatedBy": r.updated_by,
            }
            for r in rows
        ]

    # --- assets ---------------------------------------------------------------------------------------

    def _domain_of(self, conn: sa.Connection, project: str) -> str:
        return str(self._one(conn, catalog_projects, project, "project").domain)

    @staticmethod
    def _member_view(who: Principal, project: str) -> bool:
        return sees_project(who.viewer, project)

    def _asset_shape(
        self, row: Any, who: Principal, domain: str, meta: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        metadata = dict(meta if meta is not None else _loads(row.metadata))
        member = self._member_view(who, row.project)
        return {
            "id": row.id,
            "project": row.project,
            "domain": domain,
            "name": parse_node_id(row.dataset).name,
            "state": row.state,
            "custom": bool(row.custom),
            "dataset": row.dataset if member else None,
            "publishedNode": row.published_node if (member or row.state == "published") else None,
            "version": row.version,
            "metadata": {**metadata, "descriptionHtml": render(metadata.get("description") or "")},
            "createdAt": iso(row.created_at),
            "createdBy": row.created_by,
            "updatedAt": iso(row.updated_at),
            "updatedBy": row.updated_by,
            "access": "member" if member else "published",
        }

    def _visible_asset(self, conn: sa.Connection, who: Principal, asset_id: str) -> Any:
        row = conn.execute(sa.select(catalog_assets).where(catalog_assets.c.id == asset_id)).first()
        if row is None or not (self._member_view(who, row.project) or row.state == "published"):
            raise not_found(f"no asset {asset_id!r}")
        return row

    def asset(self, who: Principal, asset_id: str, at: datetime | None = None) -> dict[str, Any]:
        """An asset as ``who`` may see it; ``at``: as it was then (the version current at that moment)."""
        with self._read() as conn:
            row = conn.execute(sa.select(catalog_assets).where(catalog_assets.c.id == asset_id)).first()
            if row is None:
                raise not_found(f"no asset {asset_id!r}")
            domain = self._domain_of(conn, row.project)
            member = self._member_view(who, row.project)
            if at is None:
                if not member and row.state != "published":
                    raise not_found(f"no asset {asset_id!r}")
                return self._asset_shape(row, who, domain)
            version = conn.execute(
                sa.select(catalog_asset_versions)
                .where(catalog_asset_versions.c.asset == asset_id, catalog_asset_versions.c.changed_at <= to_micros(at))
                .order_by(catalog_asset_versions.c.version.desc())
                .limit(1)
            ).first()
            if version is None or (not member and version.state != "published"):
                raise not_found(f"no asset {asset_id!r} at {iso(to_micros(at))}")
            then = SimpleNamespace(
                **{
                    **row._asdict(),
                    "state": version.state,
                    "version": version.version,
                    "updated_at": version.changed_at,
                    "updated_by": version.changed_by,
                }
            )
            return self._asset_shape(then, who, domain, _loads(version.metadata))

    def assets(
        self,
        who: Principal,
        *,
        project: str | None = None,
        state: str | None = None,
        term: str | None = None,
        tag: str | None = None,
        q: str | None = None,
    ) -> list[dict[str, Any]]:
        if state is not None and state not in STATES:
            raise bad_request(f"state {state!r} is not one of {', '.join(STATES)}")
        query = sa.select(catalog_assets, catalog_projects.c.domain).join(
            catalog_projects, catalog_projects.c.id == catalog_assets.c.project
        )
        if project is not None:
            query = query.where(catalog_assets.c.project == project)
        if state is not None:
            query = query.where(catalog_assets.c.state == state)
        with self._read() as conn:
            rows = conn.execute(query.order_by(catalog_assets.c.project, catalog_assets.c.dataset)).all()
        out = []
        needle = (q or "").strip().lower()
        for row in rows:
            if not (self._member_view(who, row.project) or row.state == "published"):
                continue
            shaped = self._asset_shape(row, who, row.domain)
            meta = shaped["metadata"]
            if term is not None and term not in meta["glossaryTerms"]:
                continue
            if tag is not None and tag not in meta["tags"]:
                continue
            if (
                needle
                and needle not in f"{shaped['name']}\n{meta['businessName'] or ''}\n{meta['description']}".lower()
            ):
                continue
            out.append(shaped)
        return out

    def versions(self, who: Principal, asset_id: str) -> list[dict[str, Any]]:
        """The asset's versions, newest first (who and when); a non-member sees the published ones."""
        with self._read() as conn:
            row = self._visible_asset(conn, who, asset_id)
            member = self._member_view(who, row.project)
            rows = conn.execute(
                sa.select(catalog_asset_versions)
                .where(catalog_asset_versions.c.asset == asset_id)
                .order_by(catalog_asset_versions.c.version.desc())
            ).all()
        return [
            {
                "version": v.version,
                "state": v.state,
                "change": v.change,
                "changedAt": iso(v.changed_at),
                "changedBy": v.changed_by,
                "eventId": v.event_id,
                "metadata": _loads(v.metadata),
            }
            for v in rows
            if member or v.state == "published"
        ]

    def _check_metadata(self, conn: sa.Connection, domain: str, meta: Mapping[str, Any]) -> None:
        if len(meta.get("description") or "") > MAX_TEXT:
            raise bad_request(f"description: at most {MAX_TEXT} characters")
        terms = list(meta.get("glossaryTerms") or [])
        if terms:
            known = set(
                conn.scalars(
                    sa.select(catalog_glossary.c.term).where(
                        catalog_glossary.c.domain == domain, catalog_glossary.c.term.in_(terms)
                    )
                )
            )
            unknown = [t for t in terms if t not in known]
            if unknown:
                raise bad_request(
                    f"glossaryTerms: {', '.join(repr(t) for t in unknown)} not in the glossary of domain {domain!r}"
                )

    def _new_version(
        self,
        conn: sa.Connection,
        who: Principal,
        row: Any,
        *,
        state: str,
        metadata: Mapping[str, Any],
        change: str,
        event_id: str | None,
        published_node: str | None = None,
    ) -> int:
        version = int(row.version) + 1
        now = now_micros()
        values: dict[str, Any] = {
            "state": state,
            "version": version,
            "metadata": _dumps(metadata),
            "updated_at": now,
            "updated_by": who.user,
        }
        if published_node is not None:
            values["published_node"] = published_node
        conn.execute(catalog_assets.update().where(catalog_assets.c.id == row.id).values(**values))
        conn.execute(
            catalog_asset_versions.insert().values(
                asset=row.id,
                version=version,
                state=state,
                metadata=_dumps(metadata),
                change=change,
                changed_at=now,
                changed_by=who.user,
                event_id=event_id,
            )
        )
        return version

    def _insert_asset(
        self,
        conn: sa.Connection,
        who: Principal,
        project: str,
        dataset: str,
        *,
        custom: bool,
        metadata: Mapping[str, Any],
        aliases: Iterable[str] = (),
        event_id: str | None = None,
        change: str = "created",
    ) -> str:
        asset_id = uuid.uuid4().hex
        now = now_micros()
        conn.execute(
            catalog_assets.insert().values(
                id=asset_id,
                project=project,
                dataset=dataset,
                state="inventory",
                custom=custom,
                published_node=None,
                version=1,
                metadata=_dumps(metadata),
                created_at=now,
                created_by=who.user,
                updated_at=now,
                updated_by=who.user,
            )
        )
        conn.execute(
            catalog_asset_versions.insert().values(
                asset=asset_id,
                version=1,
                state="inventory",
                metadata=_dumps(metadata),
                change=change,
                changed_at=now,
                changed_by=who.user,
                event_id=event_id,
            )
        )
        self._register(conn, dataset, asset_id, SOURCE)
        for alias in aliases:
            self._register(conn, alias, asset_id, ALIAS)
        return asset_id

    @staticmethod
    def _register(conn: sa.Connection, node: str, asset: str, role: str, subscription: str | None = None) -> None:
        """Record a node the catalog answers for (the visibility policy reads these rows)."""
        if conn.scalar(sa.select(catalog_nodes.c.node).where(catalog_nodes.c.node == node)) is None:
            conn.execute(catalog_nodes.insert().values(node=node, asset=asset, role=role, subscription=subscription))

    def create_asset(
        self,
        who: Principal,
        project: str,
        dataset: NodeRef,
        *,
        custom: bool = False,
        fields: Sequence[Mapping[str, Any]] = (),
        metadata: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Catalog ``dataset`` by hand as an inventory asset of ``project``. ``custom``: a dataset no producer
        reported: the catalog reports it (a DatasetEvent with ``fields``), so it is a graph node."""
        who.require(project, "contributor", "cataloging an asset")
        if dataset.type != "dataset":
            raise bad_request(f"an asset is a dataset, not {dataset.id!r}")
        if dataset.namespace.startswith(cl.SCHEME):
            raise bad_request(f"{dataset.id!r} is a node the catalog draws itself, not an asset")
        meta = {**EMPTY_METADATA, **(metadata or {})}
        with self._read() as conn:
            domain = self._domain_of(conn, project)
            self._check_metadata(conn, domain, meta)
            cataloged = conn.scalar(sa.select(catalog_nodes.c.asset).where(catalog_nodes.c.node == dataset.id))
        # a dataset another project catalogued, hidden from the principal, is answered as one the graph does not
        # hold; only a custom one of the same name shows that the name is taken
        if cataloged is not None and (custom or not self._graph.viewing(who.viewer).hidden().hides(dataset.id)):
            raise conflict(f"{dataset.id!r} is cataloged already")
        exists = cataloged is None
        if exists:
            try:
                self._graph.node(dataset)
            except NodeNotFound:
                exists = False
        if exists and custom:
            raise conflict(f"{dataset.id!r} is in the graph already: catalog it without custom")
        if not exists and not custom:
            raise not_found(f"no dataset {dataset.id!r} in the graph (custom: true catalogs one no producer reported)")
        with self._write() as conn, conn.begin():
            asset_id = self._insert_asset(conn, who, project, dataset.id, custom=custom, metadata=meta)
            self._audit(conn, who, project, "asset.create", asset_id, {"dataset": dataset.id, "custom": custom})
        if custom:  # registered (hidden) first, then reported
            facets: dict[str, Any] = {cl.FACET: cl.catalog_facet(asset=asset_id, project=project, state="inventory")}
            if fields:
                facets["schema"] = cl.schema_facet(fields)
            (event_id,) = self._append([cl.dataset_event((dataset.namespace, dataset.name), facets)])
            with self._write() as conn, conn.begin():
                conn.execute(
                    catalog_asset_versions.update()
                    .where(catalog_asset_versions.c.asset == asset_id, catalog_asset_versions.c.version == 1)
                    .values(event_id=event_id)
                )
        return self.asset(who, asset_id)

    def _curated_facets(self, row: Any, domain: str, state: str, metadata: Mapping[str, Any]) -> dict[str, Any]:
        return {
            cl.FACET: cl.catalog_facet(
                asset=row.id, project=row.project, domain=domain, state=state, version=int(row.version) + 1, **metadata
            )
        }

    def update_metadata(self, who: Principal, asset_id: str, patch: Mapping[str, Any]) -> dict[str, Any]:
        """A new version with the changed business metadata (keys of ``patch`` replace the current ones)."""
        with self._read() as conn:
            row = self._visible_asset(conn, who, asset_id)
            who.require(row.project, "contributor", "editing an asset's metadata")
            domain = self._domain_of(conn, row.project)
            meta = {**_loads(row.metadata), **patch}
            self._check_metadata(conn, domain, meta)
        facets = self._curated_facets(row, domain, row.state, meta)
        source = parse_node_id(row.dataset)
        sent = [cl.dataset_event((source.namespace, source.name), facets)]
        if row.state == "published" and row.published_node:
            pub = parse_node_id(row.published_node)
            sent.append(cl.dataset_event((pub.namespace, pub.name), facets))
        ids = self._append(sent)
        with self._write() as conn, conn.begin():
            version = self._new_version(
                conn, who, row, state=row.state, metadata=meta, change="metadata", event_id=ids[-1]
            )
            self._audit(
                conn, who, row.project, "asset.metadata", asset_id, {"version": version, "changed": dict(patch)}
            )
        return self.asset(who, asset_id)

    def publish(self, who: Principal, asset_id: str) -> dict[str, Any]:
        """Publish: a run of the publish job from the inventory node to the published node (a new version)."""
        with self._read() as conn:
            row = self._visible_asset(conn, who, asset_id)
            who.require(row.project, "contributor", "publishing an asset")
            if row.state == "published":
                raise conflict(f"asset {asset_id!r} is published already")
            domain = self._domain_of(conn, row.project)
        source = parse_node_id(row.dataset)
        try:
            fields = self._graph.dataset(source)["fields"]
        except NodeNotFound:
            raise conflict(f"the asset's dataset {row.dataset!r} is not in the graph now: nothing to publish") from None
        name = f"{row.project}/{source.name}"
        published = NodeRef("dataset", cl.namespace(domain), name)
        job = NodeRef("job", cl.namespace(domain), f"publish/{name}")
        with self._write() as conn, conn.begin():  # the rules first: hidden until the state says published
            self._register(conn, published.id, asset_id, PUBLISHED)
            self._register(conn, job.id, asset_id, PUBLISH_JOB)
        meta = _loads(row.metadata)
        facets = {"schema": cl.schema_facet(fields), **self._curated_facets(row, domain, "published", meta)}
        (event_id,) = self._append(
            [
                cl.run_event(
                    domain=domain,
                    job=job.name,
                    job_type="PUBLISH",
                    inputs=[(source.namespace, source.name)],
                    output=(published.namespace, published.name, facets),
                    action={"action": "publish", "asset": asset_id, "project": row.project, "by": who.user},
                )
            ]
        )
        with self._write() as conn, conn.begin():
            version = self._new_version(
                conn,
                who,
                row,
                state="published",
                metadata=meta,
                change="published",
                event_id=event_id,
                published_node=published.id,
            )
            self._audit(
                conn,
                who,
                row.project,
                "asset.publish",
                asset_id,
                {"version": version, "publishedNode": published.id, "eventId": event_id},
            )
        return self.asset(who, asset_id)

    def unpublish(self, who: Principal, asset_id: str) -> dict[str, Any]:
        """Unpublish: the published node's validity ends (DROP); others no longer see it."""
        with self._read() as conn:
            row = self._visible_asset(conn, who, asset_id)
            who.require(row.project, "contributor", "unpublishing an asset")
            if row.state != "published" or not row.published_node:
                raise conflict(f"asset {asset_id!r} is not published")
            domain = self._domain_of(conn, row.project)
        meta = _loads(row.metadata)
        with self._write() as conn, conn.begin():  # hidden first, then dropped
            version = self._new_version(
                conn, who, row, state="unpublished", metadata=meta, change="unpublished", event_id=None
            )
            self._audit(conn, who, row.project, "asset.unpublish", asset_id, {"version": version})
        pub = parse_node_id(row.published_node)
        (event_id,) = self._append(
            [
                cl.dataset_event(
                    (pub.namespace, pub.name), self._curated_facets(row, domain, "unpublished", meta), dropped=True
                )
            ]
        )
        with self._write() as conn, conn.begin():
            conn.execute(
                catalog_asset_versions.update()
                .where(catalog_asset_versions.c.asset == asset_id, catalog_asset_versions.c.version == version)
                .values(event_id=event_id)
            )
        return self.asset(who, asset_id)

    # --- subscriptions --------------------------------------------------------------------------------

    def _subscription_shape(self, row: Any, asset_row: Any) -> dict[str, Any]:
        return {
            "id": row.id,
            "asset": row.asset,
            "assetName": parse_node_id(asset_row.dataset).name,
            "assetProject": asset_row.project,
            "project": row.project,
            "state": row.state,
            "target": row.target,
            "targetNode": row.target_node,
            "reason": row.reason,
            "requestedAt": iso(row.requested_at),
            "requestedBy": row.requested_by,
            "decidedAt": iso(row.decided_at),
            "decidedBy": row.decided_by,
            "eventId": row.event_id,
        }

    def _visible_subscription(self, conn: sa.Connection, who: Principal, sub_id: str) -> tuple[Any, Any]:
        row = conn.execute(sa.select(catalog_subscriptions).where(catalog_subscriptions.c.id == sub_id)).first()
        if row is not None:
            asset_row = conn.execute(sa.select(catalog_assets).where(catalog_assets.c.id == row.asset)).one()
            if self._member_view(who, row.project) or self._member_view(who, asset_row.project):
                return row, asset_row
        raise not_found(f"no subscription {sub_id!r}")

    def subscription(self, who: Principal, sub_id: str) -> dict[str, Any]:
        with self._read() as conn:
            return self._subscription_shape(*self._visible_subscription(conn, who, sub_id))

    def subscriptions(self, who: Principal) -> list[dict[str, Any]]:
        """The subscriptions of ``who``'s projects: those they asked for and those to their assets."""
        with self._read() as conn:
            rows = conn.execute(
                sa.select(
                    catalog_subscriptions, catalog_assets.c.project.label("asset_project"), catalog_assets.c.dataset
                )
                .join(catalog_assets, catalog_assets.c.id == catalog_subscriptions.c.asset)
                .order_by(catalog_subscriptions.c.requested_at, catalog_subscriptions.c.id)
            ).all()
        out = []
        for r in rows:
            if self._member_view(who, r.project) or self._member_view(who, r.asset_project):
                out.append(self._subscription_shape(r, SimpleNamespace(dataset=r.dataset, project=r.asset_project)))
        return out

    def request_subscription(self, who: Principal, asset_id: str, target: str, reason: str) -> dict[str, Any]:
        consumer = who.acting_project("requesting a subscription")
        who.require(consumer, "contributor", "requesting a subscription")
        target = target.strip()
        if not target or len(target) > 200 or "/" in target:
            raise bad_request("target: 1 to 200 characters without '/' (where the consumer gets the data)")
        with self._write() as conn, conn.begin():
            row = self._visible_asset(conn, who, asset_id)
            if row.state != "published":
                raise conflict(f"asset {asset_id!r} is not published: only published assets take subscriptions")
            if row.project == consumer:
                raise bad_request(f"project {consumer!r} owns asset {asset_id!r}: it needs no subscription")
            dup = conn.scalar(
                sa.select(catalog_subscriptions.c.id).where(
                    catalog_subscriptions.c.asset == asset_id,
                    catalog_subscriptions.c.project == consumer,
                    catalog_subscriptions.c.target == target,
                    catalog_subscriptions.c.state.in_(("requested", "approved")),
                )
            )
            if dup is not None:
                raise conflict(f"subscription {dup!r} already asks for this asset at target {target!r}")
            sub_id = uuid.uuid4().hex
            conn.execute(
                catalog_subscriptions.insert().values(
                    id=sub_id,
                    asset=asset_id,
                    project=consumer,
                    state="requested",
                    target=target,
                    target_node=None,
                    reason=reason,
                    requested_at=now_micros(),
                    requested_by=who.user,
                )
            )
            self._audit(conn, who, consumer, "subscription.request", sub_id, {"asset": asset_id, "target": target})
            self._audit(conn, who, row.project, "subscription.request", sub_id, {"asset": asset_id, "target": target})
        return self.subscription(who, sub_id)

    def decide(self, who: Principal, sub_id: str, *, approve: bool, reason: str = "") -> dict[str, Any]:
        """The asset's owner approves (a run of the subscription job draws the target node) or rejects."""
        with self._read() as conn:
            row, asset_row = self._visible_subscription(conn, who, sub_id)
            who.require(asset_row.project, "owner", "approving or rejecting a subscription")
            if row.state != "requested":
                raise conflict(f"subscription {sub_id!r} is {row.state}, not requested")
            domain = self._domain_of(conn, asset_row.project)
        event_id = None
        target_node = None
        if approve:
            if asset_row.state != "published" or not asset_row.published_node:
                raise conflict(f"asset {asset_row.id!r} is not published any more")
            source = parse_node_id(asset_row.dataset)
            pub = parse_node_id(asset_row.published_node)
            target = NodeRef("dataset", cl.namespace(domain), f"{row.project}/{row.target}/{source.name}")
            job = NodeRef("job", cl.namespace(domain), f"subscription/{sub_id}")
            target_node = target.id
            with self._write() as conn, conn.begin():  # hidden from all but the two projects before it exists
                self._register(conn, target.id, asset_row.id, TARGET, sub_id)
                self._register(conn, job.id, asset_row.id, SUBSCRIBE_JOB, sub_id)
            fields = self._graph.dataset(pub)["fields"]
            facets = {
                "schema": cl.schema_facet(fields),
                cl.FACET: cl.catalog_facet(
                    subscription=sub_id, asset=asset_row.id, project=row.project, target=row.target, state="approved"
                ),
            }
            (event_id,) = self._append(
                [
                    cl.run_event(
                        domain=domain,
                        job=job.name,
                        job_type="SUBSCRIPTION",
                        inputs=[(pub.namespace, pub.name)],
                        output=(target.namespace, target.name, facets),
                        action={"action": "approve", "subscription": sub_id, "by": who.user},
                    )
                ]
            )
        state = "approved" if approve else "rejected"
        with self._write() as conn, conn.begin():
            conn.execute(
                catalog_subscriptions.update()
                .where(catalog_subscriptions.c.id == sub_id)
                .values(
                    state=state,
                    target_node=target_node,
                    decided_at=now_micros(),
                    decided_by=who.user,
                    event_id=event_id,
                    reason=reason or row.reason,
                )
            )
            for project in (row.project, asset_row.project):
                action = "subscription.approve" if approve else "subscription.reject"
                self._audit(conn, who, project, action, sub_id, {"eventId": event_id, "reason": reason})
        return self.subscription(who, sub_id)

    def revoke(self, who: Principal, sub_id: str) -> dict[str, Any]:
        """End an approved subscription: the target node's validity ends (DROP)."""
        with self._read() as conn:
            row, asset_row = self._visible_subscription(conn, who, sub_id)
            if who.role(asset_row.project) != "owner":
                who.require(row.project, "contributor", "revoking a subscription")
            if row.state != "approved" or not row.target_node:
                raise conflict(f"subscription {sub_id!r} is {row.state}, not approved")
        target = parse_node_id(row.target_node)
        (event_id,) = self._append(
            [
                cl.dataset_event(
                    (target.namespace, target.name),
                    {cl.FACET: cl.catalog_facet(subscription=sub_id, state="revoked")},
                    dropped=True,
                )
            ]
        )
        with self._write() as conn, conn.begin():
            conn.execute(
                catalog_subscriptions.update()
                .where(catalog_subscriptions.c.id == sub_id)
                .values(state="revoked", decided_at=now_micros(), decided_by=who.user, event_id=event_id)
            )
            for project in (row.project, asset_row.project):
                self._audit(conn, who, project, "subscription.revoke", sub_id, {"eventId": event_id})
        return self.subscription(who, sub_id)

    # --- graph nodes the catalog answers for ---------------------------------------------------------------

    def node_roles(self, who: Principal, node_ids: Sequence[str], hidden: Collection[str]) -> list[dict[str, Any]]:
        """For the UI's graphs: which of ``node_ids`` are catalog nodes (an asset's inventory node or alias, its
        published node or publish job, a subscription target or its job), with the asset's state; nodes in
        ``hidden`` (the caller's hidden set, graph/visibility.py) are left out."""
        wanted = sorted({n for n in node_ids if n not in hidden})
        if not wanted:
            return []
        with self._read() as conn:
            rows = conn.execute(
                sa.select(
                    catalog_nodes.c.node,
                    catalog_nodes.c.role,
                    catalog_nodes.c.asset,
                    catalog_nodes.c.subscription,
                    catalog_assets.c.project,
                    catalog_assets.c.state,
                )
                .join(catalog_assets, catalog_assets.c.id == catalog_nodes.c.asset)
                .where(catalog_nodes.c.node.in_(wanted))
                .order_by(catalog_nodes.c.node)
            ).all()
        member = {r.project: self._member_view(who, r.project) for r in rows}
        return [
            {
                "node": r.node,
                "role": {SOURCE: "inventory", ALIAS: "inventory"}.get(r.role, r.role),
                "asset": r.asset if member[r.project] or r.state == "published" else None,
                "assetState": r.state,
                "project": r.project,
                "subscription": r.subscription,
            }
            for r in rows
        ]

    # --- data-source runs -----------------------------------------------------------------------------

    def import_source_run(
        self, who: Principal, project: str, name: str, run_ids: Sequence[str], event_ids: Sequence[str]
    ) -> dict[str, Any]:
        """Bind a data-source run (a crawl, a harvest: its runs and their child runs, or single events) to
        ``project``: every dataset it wrote becomes (or stays) an inventory asset of the project; the report
        lists each with the event that reported it and whether the graph holds it."""
        who.require(project, "contributor", "binding a data-source run")
        if not run_ids and not event_ids:
            raise bad_request("runIds or eventIds: name the runs or events of the data-source run")
        with self._store.read_connection() as conn:  # waits until the graph holds what the log holds
            self._domain_of(conn, project)
            wanted = set(run_ids)
            frontier = set(run_ids)
            for _ in range(5):  # child runs (views of a crawl, statements of a harvest)
                if not frontier:
                    break
                children = set(conn.scalars(sa.select(runs.c.run_id).where(runs.c.parent_run_id.in_(sorted(frontier)))))
                frontier = children - wanted
                wanted |= children
            cond = []
            if wanted:
                cond.append(events.c.run_id.in_(sorted(wanted)))
            if event_ids:
                cond.append(events.c.id.in_(sorted(set(event_ids))))
            rows = conn.execute(
                sa.select(events.c.id, events.c.raw).where(sa.or_(*cond)).order_by(events.c.event_time, events.c.seq)
            ).all()
            unknown = sorted(set(event_ids) - {r.id for r in rows})
            if unknown:
                raise not_found(f"eventIds: no event {', '.join(repr(u) for u in unknown[:5])}")
            if not rows:
                raise not_found(f"runIds: no events of run {', '.join(repr(r) for r in sorted(run_ids)[:5])}")
            found: dict[str, str] = {}
            aliases: dict[str, set[str]] = {}
            for r in rows:
                for ds, links in written(_loads(r.raw)).items():
                    found[ds] = r.id  # the latest event that wrote it (rows are in event time order)
                    aliases.setdefault(ds, set()).update(links)
            in_graph = set(conn.scalars(sa.select(datasets.c.id).where(datasets.c.id.in_(sorted(found)))))
        run_id = uuid.uuid4().hex
        items = []
        with self._write() as conn, conn.begin():
            conn.execute(
                catalog_source_runs.insert().values(
                    id=run_id, project=project, name=name, created_at=now_micros(), created_by=who.user
                )
            )
            for ds in sorted(found):
                owner = conn.execute(
                    sa.select(catalog_nodes.c.asset, catalog_nodes.c.role, catalog_assets.c.project)
                    .join(catalog_assets, catalog_assets.c.id == catalog_nodes.c.asset)
                    .where(catalog_nodes.c.node == ds)
                ).first()
                error = None
                if owner is not None and owner.project != project:
                    asset_id, action, status = "", "skipped", "FAILED"
                    error = "cataloged by another project"
                elif owner is not None and owner.role not in (SOURCE,):
                    asset_id, action, status = owner.asset, "skipped", "FAILED"
                    error = "an alias of another asset of this project"
                else:
                    if owner is not None:
                        asset_id, action = owner.asset, "updated"
                    else:
                        asset_id = self._insert_asset(
                            conn,
                            who,
                            project,
                            ds,
                            custom=False,
                            metadata=EMPTY_METADATA,
                            aliases=sorted(a for a in aliases.get(ds, ()) if a not in found),
                            event_id=found[ds],
                            change="imported",
                        )
                        action = "added"
                    status = "SUCCESS" if ds in in_graph else "FAILED"
                    if ds not in in_graph:
                        error = "not in the graph: its event was not derived (GET /api/v1/status lists such events)"
                conn.execute(
                    catalog_source_run_items.insert().values(
                        run=run_id,
                        dataset=ds,
                        asset=asset_id,
                        action=action,
                        event_id=found[ds],
                        status=status,
                        error=error,
                    )
                )
                items.append(ds)
            self._audit(
                conn,
                who,
                project,
                "source_run.import",
                run_id,
                {"name": name, "runIds": list(run_ids), "datasets": len(items)},
            )
        return self.source_run(who, run_id)

    def claim_outputs(self, who: Principal, project: str, payloads: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """Before events sent for ``project`` are appended: every dataset they write that no project catalogued
        becomes an inventory asset of ``project`` (committed first: never visible to anyone else). Answers
        dataset id -> (asset id or "", action, error) for :meth:`record_ingest`."""
        who.require(project, "contributor", "sending events for a project")
        wanted: dict[str, set[str]] = {}
        for payload in payloads:
            for ds, links in written(payload).items():
                wanted.setdefault(ds, set()).update(links)
        claimed: dict[str, Any] = {}
        with self._write() as conn, conn.begin():
            self._domain_of(conn, project)
            for ds in sorted(wanted):
                owner = conn.execute(
                    sa.select(catalog_nodes.c.asset, catalog_nodes.c.role, catalog_assets.c.project)
                    .join(catalog_assets, catalog_assets.c.id == catalog_nodes.c.asset)
                    .where(catalog_nodes.c.node == ds)
                ).first()
                if owner is None:
                    aliases = sorted(a for a in wanted[ds] if a not in wanted)
                    asset_id = self._insert_asset(
                        conn,
                        who,
                        project,
                        ds,
                        custom=False,
                        metadata=EMPTY_METADATA,
                        aliases=aliases,
                        change="imported",
                    )
                    claimed[ds] = (asset_id, "added", None)
                elif owner.project == project and owner.role == SOURCE:
                    claimed[ds] = (owner.asset, "updated", None)
                elif owner.project == project:
                    claimed[ds] = (owner.asset, "skipped", "an alias of another asset of this project")
                else:
                    claimed[ds] = ("", "skipped", "cataloged by another project")
            added = [ds for ds, (_, action, _) in claimed.items() if action == "added"]
            if added:
                self._audit(conn, who, project, "ingest.claim", project, {"datasets": len(added)})
        return claimed

    def record_ingest(
        self,
        who: Principal,
        project: str,
        payloads: Sequence[Mapping[str, Any]],
        event_ids: Sequence[str],
        claimed: Mapping[str, Any],
    ) -> None:
        """After the append: the events' data-source run reports (one per OpenLineage run, or one for the
        project's DatasetEvents), each dataset with the latest event that wrote it."""
        with self._write() as conn, conn.begin():
            for payload, event_id in zip(payloads, event_ids):
                datasets_written = written(payload)
                if not datasets_written:
                    continue
                run: Mapping[str, Any] = payload["run"] if isinstance(payload.get("run"), Mapping) else {}
                job: Mapping[str, Any] = payload["job"] if isinstance(payload.get("job"), Mapping) else {}
                key = str(run.get("runId") or "dataset-events")
                run_id = uuid.uuid5(uuid.NAMESPACE_URL, f"headwater-catalog:{project}:{key}").hex
                if conn.scalar(sa.select(catalog_source_runs.c.id).where(catalog_source_runs.c.id == run_id)) is None:
                    name = f"{job.get('namespace')}/{job.get('name')} run {key}" if job else "dataset events"
                    conn.execute(
                        catalog_source_runs.insert().values(
                            id=run_id, project=project, name=name, created_at=now_micros(), created_by=who.user
                        )
                    )
                for ds in datasets_written:
                    asset_id, action, error = claimed.get(ds, ("", "skipped", "not claimed"))
                    item = sa.and_(catalog_source_run_items.c.run == run_id, catalog_source_run_items.c.dataset == ds)
                    values = {"event_id": event_id, "status": "FAILED" if error else "SUCCESS", "error": error}
                    if conn.execute(sa.select(catalog_source_run_items.c.action).where(item)).first() is None:
                        conn.execute(
                            catalog_source_run_items.insert().values(
                                run=run_id, dataset=ds, asset=asset_id, action=action, **values
                            )
                        )
                    else:
                        conn.execute(catalog_source_run_items.update().where(item).values(**values))

    def source_run(self, who: Principal, run_id: str) -> dict[str, Any]:
        with self._read() as conn:
            row = conn.execute(sa.select(catalog_source_runs).where(catalog_source_runs.c.id == run_id)).first()
            if row is None or not self._member_view(who, row.project):
                raise not_found(f"no data-source run {run_id!r}")
            stored = conn.execute(
                sa.select(catalog_source_run_items)
                .where(catalog_source_run_items.c.run == run_id)
                .order_by(catalog_source_run_items.c.dataset)
            ).all()
        with self._store.read_connection() as conn:  # import status: is the dataset in the graph now
            in_graph = set(conn.scalars(sa.select(datasets.c.id).where(datasets.c.id.in_([i.dataset for i in stored]))))
        missing = "not in the graph: its event was not derived (GET /api/v1/status lists such events)"
        items: list[Any] = [
            SimpleNamespace(**{**i._asdict(), "status": "FAILED", "error": missing})
            if i.status == "SUCCESS" and i.dataset not in in_graph
            else i
            for i in stored
        ]
        return {
            "id": row.id,
            "project": row.project,
            "name": row.name,
            "createdAt": iso(row.created_at),
            "createdBy": row.created_by,
            "added": sum(i.action == "added" for i in items),
            "updated": sum(i.action == "updated" for i in items),
            "failed": sum(i.status == "FAILED" for i in items),
            "items": [
                {
                    "dataset": i.dataset if i.action != "skipped" or i.asset else None,
                    "asset": i.asset or None,
                    "action": i.action,
                    "eventId": i.event_id,
                    "status": i.status,
                    "error": i.error,
                }
                for i in items
            ],
        }

    def source_runs(self, who: Principal, project: str) -> list[dict[str, Any]]:
        if not self._member_view(who, project):
            raise not_found(f"no project {project!r} among the principal's projects")
        with self._read() as conn:
            ids = conn.scalars(
                sa.select(catalog_source_runs.c.id)
                .where(catalog_source_runs.c.project == project)
                .order_by(catalog_source_runs.c.created_at.desc())
            ).all()
        return [self.source_run(who, i) for i in ids]

    # --- audit ----------------------------------------------------------------------------------------

    def audit(self, who: Principal, *, project: str | None = None, after: int = 0, limit: int = 100) -> dict[str, Any]:
        """Catalog changes oldest first, after ``after`` (a ``seq``): an admin sees all, a member those of
        their projects, anyone else none."""
        query = sa.select(catalog_audit).where(catalog_audit.c.seq > after)
        if project is not None:
            query = query.where(catalog_audit.c.project == project)
        if not who.admin:
            allowed = sorted(p for p in who.memberships if sees_project(who.viewer, p))
            query = query.where(catalog_audit.c.project.in_(allowed))
        with self._read() as conn:
            rows = conn.execute(query.order_by(catalog_audit.c.seq).limit(limit + 1)).all()
        entries = [
            {
                "seq": int(r.seq),
                "at": iso(r.at),
                "actor": r.actor,
                "project": r.project,
                "action": r.action,
                "target": r.target,
                "detail": _loads(r.detail),
            }
            for r in rows[:limit]
        ]
        return {"entries": entries, "next": entries[-1]["seq"] if len(rows) > limit else None}


__all__ = ["Catalog"]
