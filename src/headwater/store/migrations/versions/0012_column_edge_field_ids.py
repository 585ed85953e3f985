"""Column edges keyed by ids: the ``fields`` and ``column_transformations`` dictionaries, and ``column_edges``
naming its ends and its transformations by their ids.

Before this revision every column edge repeated its ends' dataset ids and field names as text (and again in its
primary key and its two indexes), and its transformation list's JSON; now it holds three 64-bit ids
(store/fields.py: each id hashes its text, so it is the same in every store). Upgrade converts in place: the
dictionaries are filled with the stored edges' distinct ends and transformation lists (their ids computed here,
in batches), then the edges are copied into the new table by one ``INSERT … SELECT`` joining the dictionaries,
the old table is dropped and the new one takes its name and indexes. No event is read: the graph stays what it
was (``headwater db rebuild`` derives the same rows).

Downgrade copies the edges back into the text form and drops the dictionaries.

Revision ID: 0012
Revises: 0011
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from headwater.store.fields import FieldCollision, field_key, transformations_key

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

BATCH = 5000
_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _columns(bind: sa.Connection) -> set[str]:
    return {c["name"] for c in sa.inspect(bind).get_columns("column_edges")}


def _rename_primary_key(bind: sa.Connection, old: str, new: str) -> None:
    """PostgreSQL names a table's primary key after the table it was made for: keep the usual name."""
    if bind.dialect.name == "postgresql":
        bind.exec_driver_sql(f'ALTER INDEX "{old}_pkey" RENAME TO "{new}_pkey"')


def upgrade() -> None:
    bind = op.get_bind()
    if "src_field_id" in _columns(bind):  # re-runnable, as the others
        return
    if not sa.inspect(bind).has_table("fields"):
        op.create_table(
            "fields",
            sa.Column("id", _ID, primary_key=True, autoincrement=False),
            sa.Column("dataset", sa.Text, nullable=False),
            sa.Column("field", sa.Text, nullable=False),
        )
        op.create_index("ix_fields_dataset", "fields", ["dataset"], unique=False, postgresql_using="hash")
    fields = sa.table("fields", sa.column("id"), sa.column("dataset"), sa.column("field"))
    held = {r.id: (r.dataset, r.field) for r in bind.execute(sa.select(fields))}
    ends = sa.text(
        "SELECT src_dataset, src_field FROM column_edges UNION SELECT dst_dataset, dst_field FROM column_edges"
    )
    pending: list[dict[str, object]] = []
    for dataset, field in bind.execute(ends).yield_per(BATCH):
        key = field_key(dataset, field)
        if key in held:  # the union gives each pair once: a held id is another pair's, or this one's from a rerun
            if held[key] != (dataset, field):
                raise FieldCollision(f"fields {held[key]!r} and {(dataset, field)!r} hash to one id ({key})")
            continue
        held[key] = (dataset, field)
        pending.append({"id": key, "dataset": dataset, "field": field})
        if len(pending) >= BATCH:
            bind.execute(fields.insert(), pending)
            pending = []
    if pending:
        bind.execute(fields.insert(), pending)
    if not sa.inspect(bind).has_table("column_transformations"):
        op.create_table(
            "column_transformations",
            sa.Column("id", _ID, primary_key=True, autoincrement=False),
            sa.Column("body", sa.Text, nullable=False),
        )
    lists = sa.table("column_transformations", sa.column("id"), sa.column("body"))
    known = {r.id: r.body for r in bind.execute(sa.select(lists))}
    fresh: list[dict[str, object]] = []
    for (body,) in bind.execute(sa.text("SELECT DISTINCT transformations FROM column_edges")):
        key = transformations_key(body)
        if key in known:
            if known[key] != body:
                raise FieldCollision(f"column_transformations: {known[key]!r} and {body!r} hash to one id ({key})")
            continue
        known[key] = body
        fresh.append({"id": key, "body": body})
    for start in range(0, len(fresh), BATCH):
        bind.execute(lists.insert(), fresh[start : start + BATCH])
    op.create_table(
        "column_edges_new",
        sa.Column("job", sa.Text, primary_key=True),
        sa.Column("src_field_id", sa.BigInteger, primary_key=True),
        sa.Column("dst_field_id", sa.BigInteger, primary_key=True),
        sa.Column("valid_from", sa.BigInteger, primary_key=True),
        sa.Column("valid_to", sa.BigInteger),
        sa.Column("transformations_id", sa.BigInteger, nullable=False),
    )
    bind.exec_driver_sql(
        "INSERT INTO column_edges_new (job, src_field_id, dst_field_id, valid_from, valid_to, transformations_id) "
        "SELECT e.job, s.id, d.id, e.valid_from, e.valid_to, t.id FROM column_edges e "
        "JOIN fields s ON s.dataset = e.src_dataset AND s.field = e.src_field "
        "JOIN fields d ON d.dataset = e.dst_dataset AND d.field = e.dst_field "
        "JOIN column_transformations t ON t.body = e.transformations"
    )
    op.drop_index("ix_column_edges_src", table_name="column_edges")
    op.drop_index("ix_column_edges_dst", table_name="column_edges")
    op.drop_table("column_edges")
    op.rename_table("column_edges_new", "column_edges")
    _rename_primary_key(bind, "column_edges_new", "column_edges")
    op.create_index("ix_column_edges_src", "column_edges", ["src_field_id"], unique=False)
    op.create_index("ix_column_edges_dst", "column_edges", ["dst_field_id"], unique=False)


def downgrade() -> None:
    bind = op.get_bind()
    if "src_field_id" not in _columns(bind):
        return
    op.create_table(
        "column_edges_old",
        sa.Column("job", sa.Text, primary_key=True),
        sa.Column("src_dataset", sa.Text, primary_key=True),
        sa.Column("src_field", sa.Text, primary_key=True),
        sa.Column("dst_dataset", sa.Text, primary_key=True),
        sa.Column("dst_field", sa.Text, primary_key=True),
        sa.Column("valid_from", sa.BigInteger, primary_key=True),
        sa.Column("valid_to", sa.BigInteger),
        sa.Column("transformations", sa.Text, nullable=False),
    )
    bind.exec_driver_sql(
        "INSERT INTO column_edges_old (job, src_dataset, src_field, dst_dataset, dst_field, valid_from, valid_to, "
        "transformations) SELECT e.job, s.dataset, s.field, d.dataset, d.field, e.valid_from, e.valid_to, "
        "t.body FROM column_edges e JOIN fields s ON s.id = e.src_field_id "
        "JOIN fields d ON d.id = e.dst_field_id JOIN column_transformations t ON t.id = e.transformations_id"
    )
    op.drop_index("ix_column_edges_src", table_name="column_edges")
    op.drop_index("ix_column_edges_dst", table_name="column_edges")
    op.drop_table("column_edges")
    op.rename_table("column_edges_old", "column_edges")
    _rename_primary_key(bind, "column_edges_old", "column_edges")
    op.create_index("ix_column_edges_dst", "column_edges", ["dst_dataset", "dst_field"], unique=False)
    op.create_index("ix_column_edges_src", "column_edges", ["src_dataset", "src_field"], unique=False)
    op.drop_index("ix_fields_dataset", table_name="fields")
    op.drop_table("fields")
    op.drop_table("column_transformations")
