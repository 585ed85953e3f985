"""The ``spline_plans`` table: Spline execution plans as they arrived (api/spline.py).

A Spline agent posts a plan, then the execution events that reference it by id; the plan is kept
here (durable before the answer, once per id) until, and after, its events are converted into
OpenLineage events in the log. Not a derived table: ``db rebuild`` leaves it alone.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Re-runnable: docs/store.md ("Search") re-runs the migrations after 0002 to add the name index later
    if sa.inspect(op.get_bind()).has_table("spline_plans"):
        return
    op.create_table(
        "spline_plans",
        sa.Column("plan_id", sa.String(36), primary_key=True),
        sa.Column("raw", sa.Text, nullable=False),
        sa.Column("api_version", sa.String(8), nullable=False),
        sa.Column("received_at", sa.BigInteger, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("spline_plans")
