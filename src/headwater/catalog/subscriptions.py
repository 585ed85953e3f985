"""Subscriptions: a project asks for another project's published asset at a target (an environment, a
database); the asset project's owner approves (a run of the subscription job draws the target node
``<consumer>/<target>/<asset name>``) or rejects; the asset's owner or the consumer revokes an approved one (the
target node's validity ends).

A subscription is seen by the members of both projects; to anyone else it is "not found". Each change is
audited in both projects. The order of lineage and rules is the assets' (catalog/assets.py).
"""

from __future__ import annotations

import uuid

import sqlalchemy as sa

from headwater.catalog import lineage as cl
from headwater.catalog import tables
from headwater.catalog.access import Principal
from headwater.catalog.assets import visible_asset
from headwater.catalog.errors import Conflict, InvalidRequest, NotFound
from headwater.catalog.records import AssetRow, Subscription, SubscriptionRow
from headwater.catalog.room import Room, member_view
from headwater.model.catalog_roles import SUBSCRIBE_JOB, TARGET
from headwater.model.nodeid import NodeRef, parse_node_id
from headwater.model.times import now_micros


def _answer(row: SubscriptionRow, asset: AssetRow) -> Subscription:
    return Subscription(**vars(row), asset_name=parse_node_id(asset.dataset).name, asset_project=asset.project)


class Subscriptions(Room):
    """Requests, decisions, revocations and their reads."""

    def _visible(self, conn: sa.Connection, who: Principal, sub_id: str) -> tuple[SubscriptionRow, AssetRow]:
        for row in tables.subscriptions(conn, sub_id):
            asset = tables.asset(conn, row.asset)
            if asset is not None and (member_view(who, row.project) or member_view(who, asset.project)):
                return row, asset
        raise NotFound(f"no subscription {sub_id!r}")

    def subscription(self, who: Principal, sub_id: str) -> Subscription:
        with self._read() as conn:
            return _answer(*self._visible(conn, who, sub_id))

    def subscriptions(self, who: Principal) -> list[Subscription]:
        """The subscriptions of ``who``'s projects: those they asked for and those to their assets."""
        with self._read() as conn:
            rows = tables.subscriptions(conn)
            assets = {a: tables.asset(conn, a) for a in {r.asset for r in rows}}
        return [
            _answer(r, asset)
            for r in rows
            if (asset := assets[r.asset]) is not None
            and (member_view(who, r.project) or member_view(who, asset.project))
        ]

    def request(self, who: Principal, asset_id: str, target: str, reason: str) -> Subscription:
        consumer = who.acting_project("requesting a subscription")
        who.require(consumer, "contributor", "requesting a subscription")
        target = target.strip()
        if not target or len(target) > 200 or "/" in target:
            raise InvalidRequest("target: 1 to 200 characters without '/' (where the consumer gets the data)")
        with self._write() as conn, conn.begin():
            asset = visible_asset(conn, who, asset_id)
            if asset.state != "published":
                raise Conflict(f"asset {asset_id!r} is not published: only published assets take subscriptions")
            if asset.project == consumer:
                raise InvalidRequest(f"project {consumer!r} owns asset {asset_id!r}: it needs no subscription")
            dup = tables.open_subscription(conn, asset_id, consumer, target)
            if dup is not None:
                raise Conflict(f"subscription {dup!r} already asks for this asset at target {target!r}")
            sub_id = uuid.uuid4().hex
            made = SubscriptionRow(
                sub_id, asset_id, consumer, "requested", target, None, reason, now_micros(), who.user, None, None, None
            )
            tables.insert_subscription(conn, made)
            for project in (consumer, asset.project):
                detail = {"asset": asset_id, "target": target}
                tables.audit(conn, who.user, project, "subscription.request", sub_id, detail)
        return self.subscription(who, sub_id)

    def decide(self, who: Principal, sub_id: str, *, approve: bool, reason: str = "") -> Subscription:
        """The asset's owner approves (a run of the subscription job draws the target node) or rejects."""
        with self._read() as conn:
            row, asset = self._visible(conn, who, sub_id)
        who.require(asset.project, "owner", "approving or rejecting a subscription")
        if row.state != "requested":
            raise Conflict(f"subscription {sub_id!r} is {row.state}, not requested")
        event_id = target_node = None
        if approve:
            if asset.state != "published" or not asset.published_node:
                raise Conflict(f"asset {asset.id!r} is not published any more")
            event_id, target_node = self._draw_target(who, row, asset)
        state = "approved" if approve else "rejected"
        with self._write() as conn, conn.begin():
            tables.decide_subscription(
                conn,
                sub_id,
                state=state,
                target_node=target_node,
                decided_at=now_micros(),
                decided_by=who.user,
                event_id=event_id,
                reason=reason or row.reason,
            )
            for project in (row.project, asset.project):
                detail = {"eventId": event_id, "reason": reason}
                action = "subscription.approve" if approve else "subscription.reject"
                tables.audit(conn, who.user, project, action, sub_id, detail)
        return self.subscription(who, sub_id)

    def _draw_target(self, who: Principal, row: SubscriptionRow, asset: AssetRow) -> tuple[str, str]:
        """The target node, hidden from all but the two projects before it exists, then drawn; (event, node)."""
        assert asset.published_node is not None
        source = parse_node_id(asset.dataset)
        pub = parse_node_id(asset.published_node)
        target = NodeRef("dataset", cl.namespace(asset.domain), f"{row.project}/{row.target}/{source.name}")
        job = NodeRef("job", cl.namespace(asset.domain), f"subscription/{row.id}")
        with self._write() as conn, conn.begin():
            tables.register(conn, target.id, asset.id, TARGET, row.id)
            tables.register(conn, job.id, asset.id, SUBSCRIBE_JOB, row.id)
        facets = {
            "schema": cl.schema_facet(self._graph.dataset(pub)["fields"]),
            cl.FACET: cl.catalog_facet(
                subscription=row.id, asset=asset.id, project=row.project, target=row.target, state="approved"
            ),
        }
        (event_id,) = self._append(
            [
                cl.run_event(
                    domain=asset.domain,
                    job=job.name,
                    job_type="SUBSCRIPTION",
                    inputs=[(pub.namespace, pub.name)],
                    output=(target.namespace, target.name, facets),
                    action={"action": "approve", "subscription": row.id, "by": who.user},
                )
            ]
        )
        return event_id, target.id

    def revoke(self, who: Principal, sub_id: str) -> Subscription:
        """End an approved subscription: the target node's validity ends (DROP)."""
        with self._read() as conn:
            row, asset = self._visible(conn, who, sub_id)
        if who.role(asset.project) != "owner":
            who.require(row.project, "contributor", "revoking a subscription")
        if row.state != "approved" or not row.target_node:
            raise Conflict(f"subscription {sub_id!r} is {row.state}, not approved")
        target = parse_node_id(row.target_node)
        facets = {cl.FACET: cl.catalog_facet(subscription=sub_id, state="revoked")}
        (event_id,) = self._append([cl.dataset_event((target.namespace, target.name), facets, dropped=True)])
        with self._write() as conn, conn.begin():
            tables.decide_subscription(
                conn, sub_id, state="revoked", decided_at=now_micros(), decided_by=who.user, event_id=event_id
            )
            for project in (row.project, asset.project):
                tables.audit(conn, who.user, project, "subscription.revoke", sub_id, {"eventId": event_id})
        return self.subscription(who, sub_id)
