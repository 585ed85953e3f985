"""An asset's life: cataloged (by hand or from a data-source run), curated (business metadata, versioned),
published, unpublished; and the reads of assets, their versions and the graph nodes the catalog answers for.

Order of a change that draws lineage: the catalog rows that make the new node hidden from those who may not
see it are committed first, then the event is appended (durable), then the state that makes it visible is
committed — a node is never visible to anyone before its rules are in place. (SQLite has one writer: no
catalog transaction is held open across an append.)

An asset the principal may not see (neither a member of its project nor published) is "not found".
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from datetime import datetime

import sqlalchemy as sa

from headwater.catalog import lineage as cl
from headwater.catalog import tables
from headwater.catalog.access import Principal
from headwater.catalog.errors import Conflict, InvalidRequest, NotFound
from headwater.catalog.markdown import render
from headwater.catalog.records import Asset, AssetRow, AssetVersion, CatalogNode, Metadata, empty_metadata, patched
from headwater.catalog.room import Room, member_view
from headwater.graph import NodeNotFound
from headwater.model.catalog_roles import ASSET_STATES, PUBLISH_JOB, PUBLISHED, AssetState
from headwater.model.nodeid import NodeRef, parse_node_id
from headwater.model.times import iso, to_micros

MAX_TEXT = 100_000


def visible_asset(conn: sa.Connection, who: Principal, asset_id: str) -> AssetRow:
    """The asset, when ``who`` is a member of its project or it is published; else :class:`NotFound`."""
    row = tables.asset(conn, asset_id)
    if row is None or not (member_view(who, row.project) or row.state == "published"):
        raise NotFound(f"no asset {asset_id!r}")
    return row


def as_seen(row: AssetRow, who: Principal) -> Asset:
    """The asset as ``who`` sees it: the inventory node for members, the published node while published."""
    member = member_view(who, row.project)
    return Asset(
        id=row.id,
        project=row.project,
        domain=row.domain,
        name=parse_node_id(row.dataset).name,
        state=row.state,
        custom=row.custom,
        dataset=row.dataset if member else None,
        published_node=row.published_node if (member or row.state == "published") else None,
        version=row.version,
        metadata=row.metadata,
        description_html=render(row.metadata.get("description") or ""),
        created_at=row.created_at,
        created_by=row.created_by,
        updated_at=row.updated_at,
        updated_by=row.updated_by,
        member=member,
    )


def _matches(found: Asset, term: str | None, tag: str | None, needle: str) -> bool:
    meta = found.metadata
    if term is not None and term not in meta["glossaryTerms"]:
        return False
    if tag is not None and tag not in meta["tags"]:
        return False
    text = f"{found.name}\n{meta['businessName'] or ''}\n{meta['description']}".lower()
    return not needle or needle in text


def _check_metadata(conn: sa.Connection, domain: str, meta: Metadata) -> None:
    if len(meta.get("description") or "") > MAX_TEXT:
        raise InvalidRequest(f"description: at most {MAX_TEXT} characters")
    wanted = list(meta.get("glossaryTerms") or [])
    known = {t.term for t in tables.terms(conn, domain, wanted)} if wanted else set()
    unknown = [t for t in wanted if t not in known]
    if unknown:
        raise InvalidRequest(
            f"glossaryTerms: {', '.join(repr(t) for t in unknown)} not in the glossary of domain {domain!r}"
        )


def _curated(row: AssetRow, state: str, metadata: Metadata) -> dict[str, object]:
    """The ``headwater_catalog`` facet of the asset's next version."""
    return {
        cl.FACET: cl.catalog_facet(
            asset=row.id, project=row.project, domain=row.domain, state=state, version=row.version + 1, **metadata
        )
    }


class Assets(Room):
    """Cataloging, curating, publishing; the reads of assets and catalog nodes."""

    def asset(self, who: Principal, asset_id: str, at: datetime | None = None) -> Asset:
        """An asset as ``who`` may see it; ``at``: as it was then (the version current at that moment)."""
        with self._read() as conn:
            row = visible_asset(conn, who, asset_id) if at is None else tables.asset(conn, asset_id)
            if row is None:
                raise NotFound(f"no asset {asset_id!r}")
            if at is None:
                return as_seen(row, who)
            then = next(iter(tables.versions(conn, asset_id, until=to_micros(at))), None)
        if then is None or (not member_view(who, row.project) and then.state != "published"):
            raise NotFound(f"no asset {asset_id!r} at {iso(to_micros(at))}")
        past = replace(
            row,
            state=then.state,
            version=then.version,
            metadata=then.metadata,
            updated_at=then.changed_at,
            updated_by=then.changed_by,
        )
        return as_seen(past, who)

    def assets(
        self,
        who: Principal,
        *,
        project: str | None = None,
        state: str | None = None,
        term: str | None = None,
        tag: str | None = None,
        q: str | None = None,
    ) -> list[Asset]:
        """The assets ``who`` may see (members: inventory too), filtered by project, state, term, tag and text."""
        if state is not None and state not in ASSET_STATES:
            raise InvalidRequest(f"state {state!r} is not one of {', '.join(ASSET_STATES)}")
        with self._read() as conn:
            rows = tables.assets(conn, project=project, state=state)
        seen = [as_seen(r, who) for r in rows if member_view(who, r.project) or r.state == "published"]
        needle = (q or "").strip().lower()
        return [a for a in seen if _matches(a, term, tag, needle)]

    def versions(self, who: Principal, asset_id: str) -> list[AssetVersion]:
        """The asset's versions, newest first (who and when); a non-member sees the published ones."""
        with self._read() as conn:
            row = visible_asset(conn, who, asset_id)
            found = tables.versions(conn, asset_id)
        member = member_view(who, row.project)
        return [v for v in found if member or v.state == "published"]

    def create(
        self,
        who: Principal,
        project: str,
        dataset: NodeRef,
        *,
        custom: bool = False,
        fields: Sequence[Mapping[str, object]] = (),
        metadata: Mapping[str, object] | None = None,
    ) -> Asset:
        """Catalog ``dataset`` by hand as an inventory asset of ``project``. ``custom``: a dataset no producer
        reported: the catalog reports it (a DatasetEvent with ``fields``), so it is a graph node."""
        who.require(project, "contributor", "cataloging an asset")
        if dataset.type != "dataset":
            raise InvalidRequest(f"an asset is a dataset, not {dataset.id!r}")
        if dataset.namespace.startswith(cl.SCHEME):
            raise InvalidRequest(f"{dataset.id!r} is a node the catalog draws itself, not an asset")
        meta = patched(empty_metadata(), metadata or {})
        with self._read() as conn:
            where = tables.project(conn, project)
            if where is None:
                raise NotFound(f"no project {project!r}")
            _check_metadata(conn, where.domain, meta)
            cataloged = bool(tables.nodes(conn, [dataset.id]))
        # a dataset another project catalogued, hidden from the principal, is answered as one the graph does not
        # hold; only a custom one of the same name shows that the name is taken
        if cataloged and (custom or not self._graph.viewing(who.viewer).hidden().hides(dataset.id)):
            raise Conflict(f"{dataset.id!r} is cataloged already")
        exists = not cataloged
        if exists:
            try:
                self._graph.node(dataset)
            except NodeNotFound:
                exists = False
        if exists and custom:
            raise Conflict(f"{dataset.id!r} is in the graph already: catalog it without custom")
        if not exists and not custom:
            raise NotFound(f"no dataset {dataset.id!r} in the graph (custom: true catalogs one no producer reported)")
        with self._write() as conn, conn.begin():
            asset_id = tables.insert_asset(conn, who.user, project, dataset.id, custom=custom, metadata=meta)
            tables.audit(conn, who.user, project, "asset.create", asset_id, {"dataset": dataset.id, "custom": custom})
        if custom:  # registered (hidden) first, then reported
            facets: dict[str, object] = {cl.FACET: cl.catalog_facet(asset=asset_id, project=project, state="inventory")}
            if fields:
                facets["schema"] = cl.schema_facet(fields)
            (event_id,) = self._append([cl.dataset_event((dataset.namespace, dataset.name), facets)])
            with self._write() as conn, conn.begin():
                tables.set_version_event(conn, asset_id, 1, event_id)
        return self.asset(who, asset_id)

    def _editable(self, who: Principal, asset_id: str, doing: str) -> AssetRow:
        with self._read() as conn:
            row = visible_asset(conn, who, asset_id)
        who.require(row.project, "contributor", doing)
        return row

    def update_metadata(self, who: Principal, asset_id: str, patch: Mapping[str, object]) -> Asset:
        """A new version with the changed business metadata (keys of ``patch`` replace the current ones)."""
        row = self._editable(who, asset_id, "editing an asset's metadata")
        meta = patched(row.metadata, patch)
        with self._read() as conn:
            _check_metadata(conn, row.domain, meta)
        facets = _curated(row, row.state, meta)
        source = parse_node_id(row.dataset)
        sent = [cl.dataset_event((source.namespace, source.name), facets)]
        if row.state == "published" and row.published_node:
            pub = parse_node_id(row.published_node)
            sent.append(cl.dataset_event((pub.namespace, pub.name), facets))
        ids = self._append(sent)
        with self._write() as conn, conn.begin():
            version = tables.new_version(
                conn, who.user, row, state=row.state, metadata=meta, change="metadata", event_id=ids[-1]
            )
            detail = {"version": version, "changed": dict(patch)}
            tables.audit(conn, who.user, row.project, "asset.metadata", asset_id, detail)
        return self.asset(who, asset_id)

    def publish(self, who: Principal, asset_id: str) -> Asset:
        """Publish: a run of the publish job from the inventory node to the published node (a new version)."""
        row = self._editable(who, asset_id, "publishing an asset")
        if row.state == "published":
            raise Conflict(f"asset {asset_id!r} is published already")
        source = parse_node_id(row.dataset)
        try:
            fields = self._graph.dataset(source)["fields"]
        except NodeNotFound:
            raise Conflict(f"the asset's dataset {row.dataset!r} is not in the graph now: nothing to publish") from None
        name = f"{row.project}/{source.name}"
        published = NodeRef("dataset", cl.namespace(row.domain), name)
        job = NodeRef("job", cl.namespace(row.domain), f"publish/{name}")
        with self._write() as conn, conn.begin():  # the rules first: hidden until the state says published
            tables.register(conn, published.id, asset_id, PUBLISHED)
            tables.register(conn, job.id, asset_id, PUBLISH_JOB)
        facets = {"schema": cl.schema_facet(fields), **_curated(row, "published", row.metadata)}
        action = {"action": "publish", "asset": asset_id, "project": row.project, "by": who.user}
        output = (published.namespace, published.name, facets)
        inputs = [(source.namespace, source.name)]
        run = cl.run_event(
            domain=row.domain, job=job.name, job_type="PUBLISH", inputs=inputs, output=output, action=action
        )
        (event_id,) = self._append([run])
        with self._write() as conn, conn.begin():
            version = tables.new_version(
                conn,
                who.user,
                row,
                state="published",
                metadata=row.metadata,
                change="published",
                event_id=event_id,
                published_node=published.id,
            )
            detail = {"version": version, "publishedNode": published.id, "eventId": event_id}
            tables.audit(conn, who.user, row.project, "asset.publish", asset_id, detail)
        return self.asset(who, asset_id)

    def unpublish(self, who: Principal, asset_id: str) -> Asset:
        """Unpublish: the published node's validity ends (DROP); others no longer see it."""
        row = self._editable(who, asset_id, "unpublishing an asset")
        if row.state != "published" or not row.published_node:
            raise Conflict(f"asset {asset_id!r} is not published")
        state: AssetState = "unpublished"
        with self._write() as conn, conn.begin():  # hidden first, then dropped
            version = tables.new_version(
                conn, who.user, row, state=state, metadata=row.metadata, change=state, event_id=None
            )
            tables.audit(conn, who.user, row.project, "asset.unpublish", asset_id, {"version": version})
        pub = parse_node_id(row.published_node)
        facets = _curated(row, state, row.metadata)
        (event_id,) = self._append([cl.dataset_event((pub.namespace, pub.name), facets, dropped=True)])
        with self._write() as conn, conn.begin():
            tables.set_version_event(conn, asset_id, version, event_id)
        return self.asset(who, asset_id)

    def node_roles(self, who: Principal, node_ids: Sequence[str], hidden: Collection[str]) -> list[CatalogNode]:
        """For the UI's graphs: which of ``node_ids`` are catalog nodes (an asset's inventory node or alias, its
        published node or publish job, a subscription target or its job), with the asset's state; nodes in
        ``hidden`` (the caller's hidden set, graph/visibility.py) are left out."""
        wanted = [n for n in node_ids if n not in hidden]
        if not wanted:
            return []
        with self._read() as conn:
            rows = tables.nodes(conn, wanted)
        return [
            CatalogNode(
                node=r.node,
                role=r.role,
                asset=r.asset if member_view(who, r.project) or r.state == "published" else None,
                asset_state=r.state,
                project=r.project,
                subscription=r.subscription,
            )
            for r in rows
        ]
