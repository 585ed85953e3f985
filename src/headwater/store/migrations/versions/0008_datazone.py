"""The DataZone lineage API's own records (api/datazone.py): ``datazone_events`` and ``datazone_nodes``.

- ``datazone_events``: one row per (domain, event) posted with ``PostLineageEvent``: the domain the
  event was posted to, the log's event id, its event time (the order ``ListLineageEvents`` pages in),
  the request's ``Client-Token`` (unique per domain: a token names one event), who sent it (the SigV4
  access key id) and when. The event itself is in ``events``, appended through the one ingest path.
- ``datazone_nodes``: the DataZone node id (at most 36 characters) of each graph node id Headwater
  has handed out through the API, so an id read back resolves to its node.

Not derived from the log: ``db rebuild`` leaves them alone.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Re-runnable, as 0005 (docs/store.md re-runs the migrations after 0002)
    inspector = sa.inspect(op.get_bind())
    if not inspector.has_table("datazone_events"):
        op.create_table(
            "datazone_events",
            sa.Column("domain_id", sa.String(64), primary_key=True),
            sa.Column("event_id", sa.String(64), primary_key=True),
            sa.Column("event_time", sa.BigInteger, nullable=False),
            sa.Column("client_token", sa.String(128)),
            sa.Column("created_by", sa.String(128)),
            sa.Column("created_at", sa.BigInteger, nullable=False),
        )
        op.create_index("ix_datazone_events_time", "datazone_events", ["domain_id", "event_time", "event_id"])
        op.create_index("ix_datazone_events_token", "datazone_events", ["domain_id", "client_token"], unique=True)
    if not inspector.has_table("datazone_nodes"):
        op.create_table(
            "datazone_nodes",
            sa.Column("id", sa.String(36), primary_key=True),
            sa.Column("node", sa.Text, nullable=False),
        )


def downgrade() -> None:
    op.drop_table("datazone_nodes")
    op.drop_index("ix_datazone_events_token", table_name="datazone_events")
    op.drop_index("ix_datazone_events_time", table_name="datazone_events")
    op.drop_table("datazone_events")
