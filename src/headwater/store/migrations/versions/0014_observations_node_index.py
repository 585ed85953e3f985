"""The observation index found by node through a narrower index: no primary key, ``ix_observations_node`` on
(node, role).

The primary key (node, event_seq, role) held every row's node id text again, with its log position: on PostgreSQL
about 150 bytes a row, five rows an event, more than the rows' own data but the texts. Every read finds a node's
rows by node and role (the derivations, the history, a dataset's facets) or by log position
(``ix_observations_event``: the watermark, a rebuild, a prune); none needs the three together. An index on
(node, role) serves the first: on PostgreSQL its entries are deduplicated (one key per node and role, a 6-byte
row pointer per row). The projector writes an event's rows once, in the step that derives it, so the rows stay
distinct without a key enforcing it. And the event id, repeated on every row, is kept as its 32 bytes instead of
64 hex digits (``schema.EventId``).

On PostgreSQL the name's trigram index of ``jobs`` and ``datasets`` (migration 0003) no longer keeps a pending list
(``fastupdate`` off): every projection step updates the ``updated_at`` of the jobs and datasets it touches, and
each update adds an entry per trigram of the name (a hundred for a long job name) to that index; in the pending list
each was an index tuple of its own until the next vacuum merged them, in the index's posting lists it is a few
bytes.

Upgrade: on PostgreSQL the primary key is dropped, the event ids converted (``ALTER … TYPE bytea``) and the index
made; SQLite cannot drop a primary key, so the table is copied into one without it (one ``INSERT … SELECT``, the
ids converted by a function registered on the connection). No event is read: the rows stay what they were.
Downgrade puts the primary key, the hex ids and the indexes back.

Revision ID: 0014
Revises: 0013
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from headwater.store.schema import event_id_bytes, event_id_text

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None

COLUMNS = "node, event_seq, role, time, event_id, data"
TRIGRAM_INDEXES = ("ix_jobs_name_trgm", "ix_datasets_name_trgm")  # PostgreSQL, when pg_trgm was available

# PostgreSQL: the conversions of schema.event_id_bytes / event_id_text, in SQL
_TO_BYTES = (
    "CASE WHEN event_id ~ '^[0-9a-f]{64}$' THEN decode(event_id, 'hex') "
    "WHEN octet_length(event_id) = 31 THEN '\\x0000'::bytea || convert_to(event_id, 'UTF8') "
    "ELSE '\\x00'::bytea || convert_to(event_id, 'UTF8') END"
)
_TO_TEXT = (
    "CASE WHEN length(event_id) = 32 THEN encode(event_id, 'hex') "
    "ELSE convert_from(ltrim(event_id, '\\x00'::bytea), 'UTF8') END"
)


def _columns(old: bool) -> list[sa.Column[object]]:
    """The observation table's columns: at 0013 (``old``: the primary key, hex ids) or from here."""
    return [
        sa.Column("node", sa.Text, nullable=False, primary_key=old),
        sa.Column("event_seq", sa.BigInteger, nullable=False, primary_key=old),
        sa.Column("role", sa.String(8), nullable=False, primary_key=old),
        sa.Column("time", sa.BigInteger, nullable=False),
        sa.Column("event_id", sa.String(64) if old else sa.LargeBinary, nullable=False),
        sa.Column("data", sa.Text, nullable=False),
    ]


def _has_primary_key(bind: sa.Connection) -> bool:
    return bool(sa.inspect(bind).get_pk_constraint("observations").get("constrained_columns"))


def _copy(bind: sa.Connection, old: bool) -> None:
    """SQLite: the observations copied into a table of the 0013 (``old``) or the new form, which takes their name."""
    convert = event_id_text if old else event_id_bytes
    bind.connection.driver_connection.create_function("hw_event_id", 1, convert, deterministic=True)  # type: ignore[union-attr]
    op.create_table("observations_new", *_columns(old))
    selected = COLUMNS.replace("event_id", "hw_event_id(event_id)")
    bind.exec_driver_sql(f"INSERT INTO observations_new ({COLUMNS}) SELECT {selected} FROM observations")
    op.drop_table("observations")  # its indexes go with it
    op.rename_table("observations_new", "observations")
    op.create_index("ix_observations_event", "observations", ["event_seq"], unique=False)


def upgrade() -> None:
    bind = op.get_bind()
    if not _has_primary_key(bind):  # re-runnable, as the others
        return
    if bind.dialect.name == "sqlite":
        _copy(bind, old=False)
    else:
        bind.exec_driver_sql("ALTER TABLE observations DROP CONSTRAINT observations_pkey")
        bind.exec_driver_sql(f"ALTER TABLE observations ALTER COLUMN event_id TYPE bytea USING {_TO_BYTES}")
        for index in TRIGRAM_INDEXES:
            bind.exec_driver_sql(f"ALTER INDEX IF EXISTS {index} SET (fastupdate = off)")
    op.create_index("ix_observations_node", "observations", ["node", "role"], unique=False)


def downgrade() -> None:
    bind = op.get_bind()
    if _has_primary_key(bind):
        return
    op.drop_index("ix_observations_node", table_name="observations")
    if bind.dialect.name == "sqlite":
        _copy(bind, old=True)
    else:
        for index in TRIGRAM_INDEXES:
            bind.exec_driver_sql(f"ALTER INDEX IF EXISTS {index} RESET (fastupdate)")
        bind.exec_driver_sql(f"ALTER TABLE observations ALTER COLUMN event_id TYPE varchar(64) USING {_TO_TEXT}")
        bind.exec_driver_sql(
            "ALTER TABLE observations ADD CONSTRAINT observations_pkey PRIMARY KEY (node, event_seq, role)"
        )
