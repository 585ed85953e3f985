"""The ``event_warnings`` table: what a leniently accepted event did not satisfy.

With ``validation = lenient`` (the default) an event whose core (event type, run id, job and dataset
identity, a readable eventTime) is sound is stored as sent even when a facet or an optional field does
not match its schema; each such problem is kept here, one row per event, beside the log: read back
with the event (``GET /api/v1/events``), counted in ``GET /api/v1/status``. Not derived: ``db rebuild``
leaves it alone.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Re-runnable, as 0005 (docs/store.md re-runs the migrations after 0002)
    if sa.inspect(op.get_bind()).has_table("event_warnings"):
        return
    op.create_table(
        "event_warnings",
        sa.Column("event_id", sa.String(64), primary_key=True),
        sa.Column("event_seq", sa.BigInteger, nullable=False),
        sa.Column("warnings", sa.Text, nullable=False),
    )
    op.create_index("ix_event_warnings_seq", "event_warnings", ["event_seq"])


def downgrade() -> None:
    op.drop_index("ix_event_warnings_seq", table_name="event_warnings")
    op.drop_table("event_warnings")
