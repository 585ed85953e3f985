"""Covering indexes for graph traversal: one-hop edge lookups read the index only.

A BFS level asks ``edges`` for every edge of a set of jobs (``job IN (...)``) or datasets
(``dataset IN (...)``) valid now (``valid_to IS NULL``) or at a time (``valid_from <= t AND
(valid_to IS NULL OR valid_to > t)``). With ``(key, valid_to, valid_from, other end, direction)``
both databases answer from the index alone (SQLite: ``USING COVERING INDEX``; PostgreSQL: an
index-only scan once vacuumed), with no table lookup per edge. The dataset-side index replaces
``ix_edges_dataset (dataset, direction)``, whose lookups it serves too.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_edges_job_at", "edges", ["job", "valid_to", "valid_from", "dataset", "direction"])
    op.create_index("ix_edges_dataset_at", "edges", ["dataset", "valid_to", "valid_from", "job", "direction"])
    op.drop_index("ix_edges_dataset", table_name="edges")


def downgrade() -> None:
    op.create_index("ix_edges_dataset", "edges", ["dataset", "direction"])
    op.drop_index("ix_edges_dataset_at", table_name="edges")
    op.drop_index("ix_edges_job_at", table_name="edges")
