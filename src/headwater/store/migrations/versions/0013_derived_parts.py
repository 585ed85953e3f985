"""Derived texts as content-addressed parts: the ``derived_parts`` table; observations and runs rewritten into it.

The observation index kept, per event and node, the schemas, facets and column lineage the event said, and
``runs`` each run's job facets and column lineage: the same texts again for every run of a daily job. From
this revision each distinct large value is kept once in ``derived_parts`` (keyed by its hash, compressed with
the event log's dictionaries) and the rows name it (store/parts.py). Upgrade creates the table and rewrites
the existing rows, ``batch`` rows at a time, in the migration's transaction (a store of millions of
observations takes minutes); readers read both forms, so a store could also be upgraded first and its rows
rewritten later by ``headwater db compact``.

Downgrade writes every row's values back as plain JSON, then drops the table.

Revision ID: 0013
Revises: 0012
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    from headwater.store import parts

    bind = op.get_bind()
    if not sa.inspect(bind).has_table("derived_parts"):  # re-runnable, as the others
        op.create_table(
            "derived_parts",
            sa.Column("key", sa.String(32), primary_key=True),
            sa.Column("raw", sa.Text, nullable=False),
            sa.Column("body", sa.LargeBinary),
            sa.Column("dictionary", sa.Integer),
        )
    parts.pack_stored(bind)


def downgrade() -> None:
    from headwater.model.jsontext import dumps
    from headwater.store import parts
    from headwater.store.schema import observations, runs

    bind = op.get_bind()
    key = (observations.c.node, observations.c.event_seq, observations.c.role)
    for row in bind.execute(sa.select(*key, observations.c.data).where(observations.c.data.like('%#"%'))).all():
        plain = dumps(parts.read_observation(bind, row.data))
        bind.execute(
            observations.update().where(*(c == v for c, v in zip(key, row[:3], strict=True))).values(data=plain)
        )
    columns = [runs.c[c] for c in parts.RUN_COLUMNS]
    for run in bind.execute(sa.select(runs.c.run_id, *columns).where(sa.or_(*(c.like("#%") for c in columns)))).all():
        values = {
            c: dumps(parts.read_column(bind, getattr(run, c))) for c in parts.RUN_COLUMNS if getattr(run, c)[:1] == "#"
        }
        bind.execute(runs.update().where(runs.c.run_id == run.run_id).values(**values))
    op.drop_table("derived_parts")
