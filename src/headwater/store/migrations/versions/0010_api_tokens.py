"""The ``api_tokens`` table: server tokens an operator creates, lists and revokes without a restart
(``headwater token``, catalog/tokens.py), beside the ``write_tokens``/``read_tokens`` settings.

Only each token's SHA-256 is kept. ``kind`` is ``write`` or ``read``; ``project`` (optional) binds what a
write token sends to that project; ``expires_at``/``revoked_at``/``last_used_at`` are microseconds. Not
derived from the log: ``db rebuild`` leaves it alone.

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if sa.inspect(op.get_bind()).has_table("api_tokens"):
        return
    op.create_table(
        "api_tokens",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("project", sa.String(64)),
        sa.Column("created_at", sa.BigInteger, nullable=False),
        sa.Column("created_by", sa.Text, nullable=False),
        sa.Column("expires_at", sa.BigInteger),
        sa.Column("revoked_at", sa.BigInteger),
        sa.Column("last_used_at", sa.BigInteger),
    )


def downgrade() -> None:
    op.drop_table("api_tokens")
