"""Initial store schema: event log, observation index and the derived graph tables.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "column_edges",
        sa.Column("job", sa.Text(), nullable=False),
        sa.Column("src_dataset", sa.Text(), nullable=False),
        sa.Column("src_field", sa.Text(), nullable=False),
        sa.Column("dst_dataset", sa.Text(), nullable=False),
        sa.Column("dst_field", sa.Text(), nullable=False),
        sa.Column("valid_from", sa.BigInteger(), nullable=False),
        sa.Column("valid_to", sa.BigInteger(), nullable=True),
        sa.Column("transformations", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("job", "src_dataset", "src_field", "dst_dataset", "dst_field", "valid_from"),
    )
    op.create_index("ix_column_edges_dst", "column_edges", ["dst_dataset", "dst_field"], unique=False)
    op.create_index("ix_column_edges_src", "column_edges", ["src_dataset", "src_field"], unique=False)
    op.create_table(
        "dataset_fields",
        sa.Column("dataset", sa.Text(), nullable=False),
        sa.Column("field", sa.Text(), nullable=False),
        sa.Column("valid_from", sa.BigInteger(), nullable=False),
        sa.Column("valid_to", sa.BigInteger(), nullable=True),
        sa.Column("type", sa.Text(), nullable=True),
        sa.Column("namespace", sa.Text(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("dataset", "field", "valid_from"),
    )
    op.create_index("ix_dataset_fields_field", "dataset_fields", ["field"], unique=False)
    op.create_table(
        "dataset_versions",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("dataset", sa.Text(), nullable=False),
        sa.Column("valid_from", sa.BigInteger(), nullable=False),
        sa.Column("valid_to", sa.BigInteger(), nullable=True),
        sa.Column("run_id", sa.Text(), nullable=True),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("fields", sa.Text(), nullable=False),
        sa.Column("facets", sa.Text(), nullable=False),
        sa.Column("changes", sa.Text(), nullable=False),
        sa.Column("deleted", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_dataset_versions_dataset", "dataset_versions", ["dataset", "valid_from"], unique=False)
    op.create_table(
        "datasets",
        sa.Column("id", sa.Text(), nullable=False),
        sa.Column("namespace", sa.Text(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.Column("updated_at", sa.BigInteger(), nullable=False),
        sa.Column("deleted", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_datasets_namespace_name", "datasets", ["namespace", "name"], unique=False)
    op.create_index("ix_datasets_updated", "datasets", ["updated_at"], unique=False)
    op.create_table(
        "edges",
        sa.Column("job", sa.Text(), nullable=False),
        sa.Column("dataset", sa.Text(), nullable=False),
        sa.Column("direction", sa.String(length=8), nullable=False),
        sa.Column("valid_from", sa.BigInteger(), nullable=False),
        sa.Column("valid_to", sa.BigInteger(), nullable=True),
        sa.PrimaryKeyConstraint("job", "dataset", "direction", "valid_from"),
    )
    op.create_index("ix_edges_dataset", "edges", ["dataset", "direction"], unique=False)
    op.create_table(
        "events",
        sa.Column("seq", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("raw", sa.Text(), nullable=False),
        sa.Column("received_at", sa.BigInteger(), nullable=False),
        sa.Column("event_time", sa.BigInteger(), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("event_type", sa.String(length=16), nullable=True),
        sa.Column("job", sa.Text(), nullable=True),
        sa.Column("run_id", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("seq"),
        sa.UniqueConstraint("id"),
    )
    op.create_index("ix_events_time", "events", ["event_time", "seq"], unique=False)
    op.create_table(
        "job_versions",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("job", sa.Text(), nullable=False),
        sa.Column("valid_from", sa.BigInteger(), nullable=False),
        sa.Column("valid_to", sa.BigInteger(), nullable=True),
        sa.Column("run_id", sa.Text(), nullable=True),
        sa.Column("inputs", sa.Text(), nullable=False),
        sa.Column("outputs", sa.Text(), nullable=False),
        sa.Column("facets", sa.Text(), nullable=False),
        sa.Column("column_lineage", sa.Text(), nullable=False),
        sa.Column("changes", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_job_versions_job", "job_versions", ["job", "valid_from"], unique=False)
    op.create_table(
        "jobs",
        sa.Column("id", sa.Text(), nullable=False),
        sa.Column("namespace", sa.Text(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.Column("updated_at", sa.BigInteger(), nullable=False),
        sa.Column("facets", sa.Text(), nullable=False),
        sa.Column("parent_job", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_jobs_namespace_name", "jobs", ["namespace", "name"], unique=False)
    op.create_index("ix_jobs_updated", "jobs", ["updated_at"], unique=False)
    op.create_table(
        "observations",
        sa.Column("node", sa.Text(), nullable=False),
        sa.Column("event_seq", sa.BigInteger(), nullable=False),
        sa.Column("role", sa.String(length=8), nullable=False),
        sa.Column("time", sa.BigInteger(), nullable=False),
        sa.Column("event_id", sa.String(length=64), nullable=False),
        sa.Column("data", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("node", "event_seq", "role"),
    )
    op.create_index("ix_observations_event", "observations", ["event_seq"], unique=False)
    op.create_table(
        "runs",
        sa.Column("run_id", sa.Text(), nullable=False),
        sa.Column("job", sa.Text(), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("started_at", sa.BigInteger(), nullable=False),
        sa.Column("ended_at", sa.BigInteger(), nullable=True),
        sa.Column("updated_at", sa.BigInteger(), nullable=False),
        sa.Column("error_message", sa.Text(), nullable=True),
        sa.Column("stack_trace", sa.Text(), nullable=True),
        sa.Column("parent_run_id", sa.Text(), nullable=True),
        sa.Column("parent_job", sa.Text(), nullable=True),
        sa.Column("facets", sa.Text(), nullable=False),
        sa.Column("job_facets", sa.Text(), nullable=False),
        sa.Column("inputs", sa.Text(), nullable=False),
        sa.Column("outputs", sa.Text(), nullable=False),
        sa.Column("column_lineage", sa.Text(), nullable=False),
        sa.Column("content_hash", sa.String(length=64), nullable=False),
        sa.PrimaryKeyConstraint("run_id"),
    )
    op.create_index("ix_runs_job_started", "runs", ["job", "started_at"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_runs_job_started", table_name="runs")
    op.drop_table("runs")
    op.drop_index("ix_observations_event", table_name="observations")
    op.drop_table("observations")
    op.drop_index("ix_jobs_updated", table_name="jobs")
    op.drop_index("ix_jobs_namespace_name", table_name="jobs")
    op.drop_table("jobs")
    op.drop_index("ix_job_versions_job", table_name="job_versions")
    op.drop_table("job_versions")
    op.drop_index("ix_events_time", table_name="events")
    op.drop_table("events")
    op.drop_index("ix_edges_dataset", table_name="edges")
    op.drop_table("edges")
    op.drop_index("ix_datasets_updated", table_name="datasets")
    op.drop_index("ix_datasets_namespace_name", table_name="datasets")
    op.drop_table("datasets")
    op.drop_index("ix_dataset_versions_dataset", table_name="dataset_versions")
    op.drop_table("dataset_versions")
    op.drop_index("ix_dataset_fields_field", table_name="dataset_fields")
    op.drop_table("dataset_fields")
    op.drop_index("ix_column_edges_src", table_name="column_edges")
    op.drop_index("ix_column_edges_dst", table_name="column_edges")
    op.drop_table("column_edges")
