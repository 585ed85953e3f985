"""The catalog's one door to its tables (migration 0007's ``catalog_*``): every row it reads or writes, as typed
records (:mod:`headwater.catalog.records`), and the few reads of the event log and the derived graph it needs
(which runs a data-source run holds, which datasets the graph has).

Functions take the caller's connection, so one catalog change is one transaction; they check nothing a rule
decides (roles, states): the concept modules do (``organisation``, ``assets``, ``subscriptions``,
``sourceruns``, ``audit``). Stored JSON (metadata, audit details) goes through :mod:`headwater.model.jsontext`.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any, cast

import sqlalchemy as sa

from headwater.catalog.records import (
    AssetRow,
    AssetVersion,
    AuditEntry,
    Domain,
    Member,
    Metadata,
    NodeRow,
    Project,
    SourceRunItem,
    SourceRunRow,
    SubscriptionRow,
    Term,
    User,
)
from headwater.model.catalog_roles import ALIAS, SOURCE, AssetState, MemberRole, NodeRole
from headwater.model.jsontext import dumps_sorted, loads
from headwater.model.times import now_micros
from headwater.store import codec
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

Values = Mapping[str, object]


def _upsert(conn: sa.Connection, table: sa.Table, key: Values, update: Values, insert: Values) -> sa.Row[Any] | None:
    """The row at ``key`` before: inserted with ``key``, ``update`` and ``insert`` when there was none, else its
    ``update`` columns set (none: left as it is). The caller's transaction holds the write lock."""
    where = sa.and_(*(table.c[k] == v for k, v in key.items()))
    old = conn.execute(sa.select(table).where(where)).first()
    if old is None:
        conn.execute(table.insert().values(**key, **insert, **update))
    elif update:
        conn.execute(table.update().where(where).values(**update))
    return old


def _exists(conn: sa.Connection, column: sa.Column[Any], value: object) -> bool:
    return conn.scalar(sa.select(column).where(column == value).limit(1)) is not None


# --- audit ----------------------------------------------------------------------------------------


def audit(conn: sa.Connection, actor: str, project: str | None, action: str, target: str, detail: Values) -> None:
    """One audit entry (who, when, what) in the caller's transaction."""
    conn.execute(
        catalog_audit.insert().values(
            at=now_micros(), actor=actor, project=project, action=action, target=target, detail=dumps_sorted(detail)
        )
    )


def audit_entries(
    conn: sa.Connection, *, after: int, project: str | None, among: Collection[str] | None, limit: int
) -> list[AuditEntry]:
    """Entries after seq ``after``, oldest first, at most ``limit``; of ``project`` and (unless None) ``among``."""
    query = sa.select(catalog_audit).where(catalog_audit.c.seq > after)
    if project is not None:
        query = query.where(catalog_audit.c.project == project)
    if among is not None:
        query = query.where(catalog_audit.c.project.in_(sorted(among)))
    rows = conn.execute(query.order_by(catalog_audit.c.seq).limit(limit))
    return [
        AuditEntry(int(r.seq), int(r.at), r.actor, r.project, r.action, r.target, loads(r.detail) or {}) for r in rows
    ]


# --- domains, projects, users, members, glossary ----------------------------------------------------


def domain(conn: sa.Connection, domain_id: str) -> Domain | None:
    r = conn.execute(sa.select(catalog_domains).where(catalog_domains.c.id == domain_id)).first()
    return None if r is None else Domain(r.id, r.name, r.description, int(r.created_at))


def domains(conn: sa.Connection) -> list[Domain]:
    rows = conn.execute(sa.select(catalog_domains).order_by(catalog_domains.c.id))
    return [Domain(r.id, r.name, r.description, int(r.created_at)) for r in rows]


def insert_domain(conn: sa.Connection, found: Domain, by: str) -> None:
    conn.execute(catalog_domains.insert().values(**_fields(found), created_by=by))


def _project(r: sa.Row[Any]) -> Project:
    return Project(r.id, r.domain, r.name, r.description, int(r.created_at))


def project(conn: sa.Connection, project_id: str) -> Project | None:
    r = conn.execute(sa.select(catalog_projects).where(catalog_projects.c.id == project_id)).first()
    return None if r is None else _project(r)


def projects(conn: sa.Connection, *, domain: str | None = None) -> list[Project]:
    query = sa.select(catalog_projects).order_by(catalog_projects.c.id)
    if domain is not None:
        query = query.where(catalog_projects.c.domain == domain)
    return [_project(r) for r in conn.execute(query)]


def insert_project(conn: sa.Connection, found: Project, by: str) -> None:
    values = {k: v for k, v in _fields(found).items() if k not in ("role", "members")}
    conn.execute(catalog_projects.insert().values(**values, created_by=by))


def members(conn: sa.Connection, project_id: str) -> tuple[Member, ...]:
    rows = conn.execute(
        sa.select(catalog_members).where(catalog_members.c.project == project_id).order_by(catalog_members.c.user)
    )
    return tuple(Member(r.project, r.user, r.role, int(r.added_at)) for r in rows)


def users(conn: sa.Connection, *, user_id: str | None = None) -> list[User]:
    """The catalog's users by id (or the one of ``user_id``: [] when there is none), each with their memberships
    by project."""
    query = sa.select(catalog_users.c.id, catalog_users.c.created_at, catalog_users.c.created_by)
    held = sa.select(catalog_members).order_by(catalog_members.c.project)
    if user_id is not None:
        query, held = query.where(catalog_users.c.id == user_id), held.where(catalog_members.c.user == user_id)
    by_user: dict[str, list[Member]] = {}
    for r in conn.execute(held):
        by_user.setdefault(r.user, []).append(Member(r.project, r.user, r.role, int(r.added_at)))
    return [
        User(r.id, int(r.created_at), r.created_by, tuple(by_user.get(r.id, ())))
        for r in conn.execute(query.order_by(catalog_users.c.id))
    ]


def any_user(conn: sa.Connection) -> bool:
    return conn.scalar(sa.select(catalog_users.c.id).limit(1)) is not None


def user_exists(conn: sa.Connection, user_id: str) -> bool:
    return _exists(conn, catalog_users.c.id, user_id)


def insert_user(conn: sa.Connection, user_id: str, token_hash: str, by: str) -> None:
    conn.execute(
        catalog_users.insert().values(id=user_id, token_hash=token_hash, created_at=now_micros(), created_by=by)
    )


def set_user_token(conn: sa.Connection, user_id: str, token_hash: str) -> bool:
    """Replace the user's token (by its SHA-256); False when there is no such user."""
    done = conn.execute(catalog_users.update().where(catalog_users.c.id == user_id).values(token_hash=token_hash))
    return bool(done.rowcount)


def delete_user(conn: sa.Connection, user_id: str) -> dict[str, MemberRole] | None:
    """Remove the user and their memberships; their roles by project before, or None when there is no such user."""
    rows = conn.execute(
        sa.select(catalog_members.c.project, catalog_members.c.role).where(catalog_members.c.user == user_id)
    )
    roles = {str(r.project): cast(MemberRole, r.role) for r in rows}
    if not conn.execute(catalog_users.delete().where(catalog_users.c.id == user_id)).rowcount:
        return None
    conn.execute(catalog_members.delete().where(catalog_members.c.user == user_id))
    return roles


def user_removed_at(conn: sa.Connection, user_id: str) -> int | None:
    """When a user of this id was removed (the newest ``user.remove`` audit entry), or None: ids are not given
    out again, so the audit log names one user per id."""
    when = conn.scalar(
        sa.select(sa.func.max(catalog_audit.c.at)).where(
            catalog_audit.c.action == "user.remove", catalog_audit.c.target == user_id
        )
    )
    return None if when is None else int(when)


def user_of_token(conn: sa.Connection, token_hash: str) -> tuple[str, dict[str, MemberRole]] | None:
    """The catalog user holding the token of SHA-256 ``token_hash`` and their roles by project, or None."""
    user = conn.scalar(sa.select(catalog_users.c.id).where(catalog_users.c.token_hash == token_hash))
    if user is None:
        return None
    rows = conn.execute(
        sa.select(catalog_members.c.project, catalog_members.c.role).where(catalog_members.c.user == user)
    )
    return str(user), {r.project: r.role for r in rows}


def set_member(conn: sa.Connection, project_id: str, user: str, role: MemberRole, by: str) -> MemberRole | None:
    """Add ``user`` to the project or change their role; their role before (None: not a member)."""
    key = {"project": project_id, "user": user}
    old = _upsert(conn, catalog_members, key, {"role": role}, {"added_at": now_micros(), "added_by": by})
    return None if old is None else cast(MemberRole, old.role)


def remove_member(conn: sa.Connection, project_id: str, user: str) -> bool:
    where = sa.and_(catalog_members.c.project == project_id, catalog_members.c.user == user)
    return bool(conn.execute(catalog_members.delete().where(where)).rowcount)


def set_term(conn: sa.Connection, found: Term) -> None:
    key = {"domain": found.domain, "term": found.term}
    update = {"definition": found.definition, "updated_at": found.updated_at, "updated_by": found.updated_by}
    _upsert(conn, catalog_glossary, key, update, {})


def terms(conn: sa.Connection, domain_id: str, among: Collection[str] | None = None) -> list[Term]:
    query = sa.select(catalog_glossary).where(catalog_glossary.c.domain == domain_id)
    if among is not None:
        query = query.where(catalog_glossary.c.term.in_(sorted(among)))
    rows = conn.execute(query.order_by(catalog_glossary.c.term))
    return [Term(r.domain, r.term, r.definition, int(r.updated_at), r.updated_by) for r in rows]


# --- assets and the nodes they answer for ------------------------------------------------------------


def _asset_query() -> sa.Select[Any]:
    return sa.select(catalog_assets, catalog_projects.c.domain).join(
        catalog_projects, catalog_projects.c.id == catalog_assets.c.project
    )


def _asset(r: sa.Row[Any]) -> AssetRow:
    m = r._mapping
    return AssetRow(**{**{k: m[k] for k in AssetRow.__dataclass_fields__}, "metadata": loads(m["metadata"])})


def asset(conn: sa.Connection, asset_id: str) -> AssetRow | None:
    r = conn.execute(_asset_query().where(catalog_assets.c.id == asset_id)).first()
    return None if r is None else _asset(r)


def assets(conn: sa.Connection, *, project: str | None = None, state: str | None = None) -> list[AssetRow]:
    query = _asset_query()
    if project is not None:
        query = query.where(catalog_assets.c.project == project)
    if state is not None:
        query = query.where(catalog_assets.c.state == state)
    return [_asset(r) for r in conn.execute(query.order_by(catalog_assets.c.project, catalog_assets.c.dataset))]


def _version(r: sa.Row[Any]) -> AssetVersion:
    return AssetVersion(
        r.asset, r.version, r.state, r.change, int(r.changed_at), r.changed_by, r.event_id, loads(r.metadata)
    )


def versions(conn: sa.Connection, asset_id: str, *, until: int | None = None) -> list[AssetVersion]:
    """The asset's versions, newest first; ``until``: only those changed then or before (microseconds)."""
    query = sa.select(catalog_asset_versions).where(catalog_asset_versions.c.asset == asset_id)
    if until is not None:
        query = query.where(catalog_asset_versions.c.changed_at <= until)
    return [_version(r) for r in conn.execute(query.order_by(catalog_asset_versions.c.version.desc()))]


def _add_version(conn: sa.Connection, found: AssetVersion) -> None:
    values = {**_fields(found), "metadata": dumps_sorted(found.metadata)}
    conn.execute(catalog_asset_versions.insert().values(**values))


def insert_asset(
    conn: sa.Connection,
    by: str,
    project_id: str,
    dataset: str,
    *,
    custom: bool,
    metadata: Metadata,
    aliases: Iterable[str] = (),
    event_id: str | None = None,
    change: str = "created",
) -> str:
    """A new inventory asset of ``dataset`` (version 1) with its source node and aliases registered; its id."""
    asset_id = uuid.uuid4().hex
    now = now_micros()
    conn.execute(
        catalog_assets.insert().values(
            id=asset_id,
            project=project_id,
            dataset=dataset,
            state="inventory",
            custom=custom,
            published_node=None,
            version=1,
            metadata=dumps_sorted(metadata),
            created_at=now,
            created_by=by,
            updated_at=now,
            updated_by=by,
        )
    )
    _add_version(conn, AssetVersion(asset_id, 1, "inventory", change, now, by, event_id, metadata))
    register(conn, dataset, asset_id, SOURCE)
    for alias in aliases:
        register(conn, alias, asset_id, ALIAS)
    return asset_id


def new_version(
    conn: sa.Connection,
    by: str,
    row: AssetRow,
    *,
    state: AssetState,
    metadata: Metadata,
    change: str,
    event_id: str | None,
    published_node: str | None = None,
) -> int:
    """The asset's next version (its state and metadata now), kept in its history; the version number."""
    now = now_micros()
    version = row.version + 1
    values: dict[str, object] = {
        "state": state,
        "version": version,
        "metadata": dumps_sorted(metadata),
        "updated_at": now,
        "updated_by": by,
    }
    if published_node is not None:
        values["published_node"] = published_node
    conn.execute(catalog_assets.update().where(catalog_assets.c.id == row.id).values(**values))
    _add_version(conn, AssetVersion(row.id, version, state, change, now, by, event_id, metadata))
    return version


def set_version_event(conn: sa.Connection, asset_id: str, version: int, event_id: str) -> None:
    """The lineage event a version's change sent (known after the append)."""
    conn.execute(
        catalog_asset_versions.update()
        .where(catalog_asset_versions.c.asset == asset_id, catalog_asset_versions.c.version == version)
        .values(event_id=event_id)
    )


def register(conn: sa.Connection, node: str, asset_id: str, role: NodeRole, subscription: str | None = None) -> None:
    """Record a node the catalog answers for (the visibility policy reads these rows); a known node stays."""
    _upsert(conn, catalog_nodes, {"node": node}, {}, {"asset": asset_id, "role": role, "subscription": subscription})


def nodes(conn: sa.Connection, node_ids: Sequence[str]) -> list[NodeRow]:
    """The catalog's rows of those of ``node_ids`` it answers for, ordered by node."""
    out: list[NodeRow] = []
    ordered = sorted(set(node_ids))
    for start in range(0, len(ordered), 500):
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
            .where(catalog_nodes.c.node.in_(ordered[start : start + 500]))
        )
        out.extend(NodeRow(*r) for r in rows)
    return sorted(out, key=lambda n: n.node)


# --- subscriptions --------------------------------------------------------------------------------


def subscriptions(conn: sa.Connection, sub_id: str | None = None) -> list[SubscriptionRow]:
    """Every subscription (or the one ``sub_id``), oldest request first."""
    query = sa.select(catalog_subscriptions).order_by(catalog_subscriptions.c.requested_at, catalog_subscriptions.c.id)
    if sub_id is not None:
        query = query.where(catalog_subscriptions.c.id == sub_id)
    return [SubscriptionRow(**r._mapping) for r in conn.execute(query)]


def open_subscription(conn: sa.Connection, asset_id: str, project_id: str, target: str) -> str | None:
    """A requested or approved subscription of ``project_id`` to the asset at ``target``, or None."""
    return conn.scalar(
        sa.select(catalog_subscriptions.c.id).where(
            catalog_subscriptions.c.asset == asset_id,
            catalog_subscriptions.c.project == project_id,
            catalog_subscriptions.c.target == target,
            catalog_subscriptions.c.state.in_(("requested", "approved")),
        )
    )


def insert_subscription(conn: sa.Connection, found: SubscriptionRow) -> None:
    conn.execute(catalog_subscriptions.insert().values(**_fields(found)))


def decide_subscription(conn: sa.Connection, sub_id: str, **values: str | int | None) -> None:
    """Set a subscription's decision columns (state, decided_at, decided_by, event_id, target_node, reason)."""
    conn.execute(catalog_subscriptions.update().where(catalog_subscriptions.c.id == sub_id).values(**values))


# --- data-source runs -----------------------------------------------------------------------------


def source_run(conn: sa.Connection, run_id: str) -> SourceRunRow | None:
    r = conn.execute(sa.select(catalog_source_runs).where(catalog_source_runs.c.id == run_id)).first()
    return None if r is None else SourceRunRow(**r._mapping)


def source_run_ids(conn: sa.Connection, project_id: str) -> list[str]:
    """The project's data-source runs, newest first."""
    query = sa.select(catalog_source_runs.c.id).where(catalog_source_runs.c.project == project_id)
    return list(conn.scalars(query.order_by(catalog_source_runs.c.created_at.desc())))


def add_source_run(conn: sa.Connection, run_id: str, project_id: str, name: str, by: str) -> None:
    """Record the data-source run ``run_id`` unless it is recorded already."""
    _upsert(
        conn,
        catalog_source_runs,
        {"id": run_id},
        {},
        {"project": project_id, "name": name, "created_at": now_micros(), "created_by": by},
    )


def source_run_items(conn: sa.Connection, run_id: str) -> list[SourceRunItem]:
    query = sa.select(catalog_source_run_items).where(catalog_source_run_items.c.run == run_id)
    rows = conn.execute(query.order_by(catalog_source_run_items.c.dataset))
    return [SourceRunItem(r.dataset, r.asset or None, r.action, r.event_id, r.status, r.error) for r in rows]


def put_source_run_item(conn: sa.Connection, run_id: str, item: SourceRunItem) -> None:
    """The run's report of ``item.dataset``: a dataset reported before keeps its asset and action (the latest
    event, status and error replace the earlier ones)."""
    update = {"event_id": item.event_id, "status": item.status, "error": item.error}
    first = {"asset": item.asset or "", "action": item.action}
    _upsert(conn, catalog_source_run_items, {"run": run_id, "dataset": item.dataset}, update, first)


# --- the event log and the graph, read ---------------------------------------------------------------


def with_child_runs(conn: sa.Connection, run_ids: Collection[str], depth: int = 5) -> set[str]:
    """``run_ids`` and their child runs (views of a crawl, statements of a harvest), ``depth`` levels down."""
    found, frontier = set(run_ids), set(run_ids)
    for _ in range(depth):
        if not frontier:
            break
        children = set(conn.scalars(sa.select(runs.c.run_id).where(runs.c.parent_run_id.in_(sorted(frontier)))))
        frontier = children - found
        found |= children
    return found


def logged_events(conn: sa.Connection, run_ids: Collection[str], event_ids: Collection[str]) -> list[tuple[str, str]]:
    """(id, raw text) of the events of ``run_ids`` and of ``event_ids``, in event time order."""
    cond = []
    if run_ids:
        cond.append(events.c.run_id.in_(sorted(run_ids)))
    if event_ids:
        cond.append(events.c.id.in_(sorted(event_ids)))
    if not cond:
        return []
    query = sa.select(events.c.id, *codec.TEXT_COLUMNS).where(sa.or_(*cond)).order_by(events.c.event_time, events.c.seq)
    return [(str(r.id), codec.text(conn, r)) for r in conn.execute(query)]


def in_graph(conn: sa.Connection, dataset_ids: Collection[str]) -> set[str]:
    """Those of ``dataset_ids`` the derived graph holds."""
    return set(conn.scalars(sa.select(datasets.c.id).where(datasets.c.id.in_(sorted(dataset_ids)))))


def _fields(record: object) -> dict[str, object]:
    return dict(vars(record))
