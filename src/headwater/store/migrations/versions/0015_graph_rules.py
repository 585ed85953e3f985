"""The ``graph_rules`` table: which rules of derivation the graph was derived by (store/rules.py).

A release that changes what the derivation makes of the same log (a rebuild would give another graph) raises
``rules.RULES``; a store whose graph was derived by older rules says so until ``headwater db rebuild``. One row
(``id`` 1); none: the graph was derived before the rules were recorded (a store with events then needs a rebuild
to be sure; an empty one is recorded as derived by the current rules when it is opened). Not derived from the log.

Revision ID: 0015
Revises: 0014
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if sa.inspect(op.get_bind()).has_table("graph_rules"):
        return
    op.create_table(
        "graph_rules",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("rules", sa.Integer, nullable=False),
        sa.Column("set_at", sa.BigInteger, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("graph_rules")
