"""The ``store_horizon`` table: how far back the store's history goes after ``headwater db prune``.

Named values (store/retention.py): ``pruned_before``, the event time (microseconds) before which raw events
and finished runs were removed (as-of reads before it answer "history pruned" instead of an incomplete
graph), and ``pruned_seq``, the log position at that prune. No rows: nothing was ever pruned. Not derived
from the log: ``db rebuild`` leaves it alone.

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if sa.inspect(op.get_bind()).has_table("store_horizon"):
        return
    op.create_table(
        "store_horizon",
        sa.Column("name", sa.String(32), primary_key=True),
        sa.Column("value", sa.BigInteger, nullable=False),
        sa.Column("updated_at", sa.BigInteger, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("store_horizon")
