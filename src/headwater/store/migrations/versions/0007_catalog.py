"""The catalog's tables: domains, projects, users and members, the glossary, assets and
their versions, the graph nodes the catalog answers for, subscriptions, data-source runs, the audit log.

The catalog is a layer over the graph (docs/catalog.md): these rows reference graph nodes by id and
are written only by ``headwater.catalog``; the lineage the catalog draws (publish, subscribe) goes into
the event log through the ingest path like any producer's. Not derived from the log: ``db rebuild``
leaves them alone.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

SEQ = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    # Re-runnable, as 0005 (docs/store.md re-runs the migrations after 0002)
    if sa.inspect(op.get_bind()).has_table("catalog_audit"):
        return
    op.create_table(
        "catalog_domains",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("description", sa.Text, nullable=False),
        sa.Column("created_at", sa.BigInteger, nullable=False),
        sa.Column("created_by", sa.Text, nullable=False),
    )
    op.create_table(
        "catalog_projects",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("domain", sa.String(64), nullable=False),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("description", sa.Text, nullable=False),
        sa.Column("created_at", sa.BigInteger, nullable=False),
        sa.Column("created_by", sa.Text, nullable=False),
    )
    op.create_index("ix_catalog_projects_domain", "catalog_projects", ["domain"])
    op.create_table(
        "catalog_users",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("created_at", sa.BigInteger, nullable=False),
        sa.Column("created_by", sa.Text, nullable=False),
    )
    op.create_table(
        "catalog_members",
        sa.Column("project", sa.String(64), primary_key=True),
        sa.Column("user", sa.String(64), primary_key=True),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("added_at", sa.BigInteger, nullable=False),
        sa.Column("added_by", sa.Text, nullable=False),
    )
    op.create_index("ix_catalog_members_user", "catalog_members", ["user"])
    op.create_table(
        "catalog_glossary",
        sa.Column("domain", sa.String(64), primary_key=True),
        sa.Column("term", sa.String(200), primary_key=True),
        sa.Column("definition", sa.Text, nullable=False),
        sa.Column("updated_at", sa.BigInteger, nullable=False),
        sa.Column("updated_by", sa.Text, nullable=False),
    )
    op.create_table(
        "catalog_assets",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("project", sa.String(64), nullable=False),
        sa.Column("dataset", sa.Text, nullable=False, unique=True),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("custom", sa.Boolean, nullable=False),
        sa.Column("published_node", sa.Text),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("metadata", sa.Text, nullable=False),
        sa.Column("created_at", sa.BigInteger, nullable=False),
        sa.Column("created_by", sa.Text, nullable=False),
        sa.Column("updated_at", sa.BigInteger, nullable=False),
        sa.Column("updated_by", sa.Text, nullable=False),
    )
    op.create_index("ix_catalog_assets_project", "catalog_assets", ["project"])
    op.create_table(
        "catalog_asset_versions",
        sa.Column("asset", sa.String(64), primary_key=True),
        sa.Column("version", sa.Integer, primary_key=True),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("metadata", sa.Text, nullable=False),
        sa.Column("change", sa.String(32), nullable=False),
        sa.Column("changed_at", sa.BigInteger, nullable=False),
        sa.Column("changed_by", sa.Text, nullable=False),
        sa.Column("event_id", sa.String(64)),
    )
    op.create_table(
        "catalog_nodes",
        sa.Column("node", sa.Text, primary_key=True),
        sa.Column("asset", sa.String(64), nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("subscription", sa.String(64)),
    )
    op.create_index("ix_catalog_nodes_asset", "catalog_nodes", ["asset"])
    op.create_table(
        "catalog_subscriptions",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("asset", sa.String(64), nullable=False),
        sa.Column("project", sa.String(64), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("target", sa.Text, nullable=False),
        sa.Column("target_node", sa.Text),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("requested_at", sa.BigInteger, nullable=False),
        sa.Column("requested_by", sa.Text, nullable=False),
        sa.Column("decided_at", sa.BigInteger),
        sa.Column("decided_by", sa.Text),
        sa.Column("event_id", sa.String(64)),
    )
    op.create_index("ix_catalog_subscriptions_asset", "catalog_subscriptions", ["asset"])
    op.create_index("ix_catalog_subscriptions_project", "catalog_subscriptions", ["project"])
    op.create_table(
        "catalog_source_runs",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("project", sa.String(64), nullable=False),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("created_at", sa.BigInteger, nullable=False),
        sa.Column("created_by", sa.Text, nullable=False),
    )
    op.create_index("ix_catalog_source_runs_project", "catalog_source_runs", ["project"])
    op.create_table(
        "catalog_source_run_items",
        sa.Column("run", sa.String(64), primary_key=True),
        sa.Column("dataset", sa.Text, primary_key=True),
        sa.Column("asset", sa.String(64), nullable=False),
        sa.Column("action", sa.String(16), nullable=False),
        sa.Column("event_id", sa.String(64), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("error", sa.Text),
    )
    op.create_table(
        "catalog_audit",
        sa.Column("seq", SEQ, primary_key=True, autoincrement=True),
        sa.Column("at", sa.BigInteger, nullable=False),
        sa.Column("actor", sa.Text, nullable=False),
        sa.Column("project", sa.String(64)),
        sa.Column("action", sa.String(40), nullable=False),
        sa.Column("target", sa.Text, nullable=False),
        sa.Column("detail", sa.Text, nullable=False),
    )
    op.create_index("ix_catalog_audit_project", "catalog_audit", ["project", "seq"])


def downgrade() -> None:
    for table in (
        "catalog_audit",
        "catalog_source_run_items",
        "catalog_source_runs",
        "catalog_subscriptions",
        "catalog_nodes",
        "catalog_asset_versions",
        "catalog_assets",
        "catalog_glossary",
        "catalog_members",
        "catalog_users",
        "catalog_projects",
        "catalog_domains",
    ):
        op.drop_table(table)
