"""Compressed event log: ``events.body`` / ``events.dictionary`` and the ``event_dictionaries`` table.

From this revision new events are stored as one zstd frame of their text's UTF-8 bytes (``body``), compressed
with the newest dictionary trained on the log's own events (``dictionary``: its ``event_dictionaries`` id, 0
for none), and ``raw`` is ''. Rows written before it keep ``raw`` and ``dictionary`` NULL and read as before;
``headwater db compact`` compresses them (store/codec.py). Ids do not change: they hash the event, not
its stored form.

Upgrade only adds (no row is rewritten, so it is instant on any log). On SQLite the log may already be in its
own file (schema ``log``, store/engine.py): the columns and the table go where ``events`` is (a new table
made in the main file is moved into the log's by ``migrate.move_log``, as the log's other tables).

Downgrade writes every compressed row's text back into ``raw``, then drops the columns and the table.

Revision ID: 0011
Revises: 0010
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def _schema(bind: sa.Connection) -> str | None:
    """Where ``events`` is: ``log`` for a SQLite store whose log has its own file, else the default schema."""
    if bind.dialect.name != "sqlite":
        return None
    attached = any(row[1] == "log" for row in bind.exec_driver_sql("PRAGMA database_list"))
    return "log" if attached and sa.inspect(bind).has_table("events", schema="log") else None


def upgrade() -> None:
    bind = op.get_bind()
    schema = _schema(bind)
    inspector = sa.inspect(bind)
    have = {c["name"] for c in inspector.get_columns("events", schema=schema)}
    if "body" not in have:  # re-runnable, as the others
        op.add_column("events", sa.Column("body", sa.LargeBinary), schema=schema)
    if "dictionary" not in have:
        op.add_column("events", sa.Column("dictionary", sa.Integer), schema=schema)
    if not inspector.has_table("event_dictionaries", schema=schema):
        op.create_table(
            "event_dictionaries",
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
            sa.Column("body", sa.LargeBinary, nullable=False),
            sa.Column("created_at", sa.BigInteger, nullable=False),
            sa.Column("trained_seq", sa.BigInteger, nullable=False),
            sa.Column("samples", sa.Integer, nullable=False),
            schema=schema,
        )


def downgrade() -> None:
    import zstandard

    bind = op.get_bind()
    schema = _schema(bind)
    events = sa.table(
        "events",
        sa.column("seq", sa.BigInteger),
        sa.column("raw", sa.Text),
        sa.column("body", sa.LargeBinary),
        sa.column("dictionary", sa.Integer),
        schema=schema,
    )
    dictionaries = sa.table(
        "event_dictionaries", sa.column("id", sa.Integer), sa.column("body", sa.LargeBinary), schema=schema
    )
    readers = {0: zstandard.ZstdDecompressor()}
    for kept in bind.execute(sa.select(dictionaries.c.id, dictionaries.c.body)):
        readers[kept.id] = zstandard.ZstdDecompressor(dict_data=zstandard.ZstdCompressionDict(kept.body))
    last = 0
    while True:
        rows = bind.execute(
            sa.select(events.c.seq, events.c.body, events.c.dictionary)
            .where(events.c.seq > last, events.c.dictionary.is_not(None))
            .order_by(events.c.seq)
            .limit(1000)
        ).all()
        if not rows:
            break
        for row in rows:
            text = readers[row.dictionary].decompress(row.body).decode("utf-8")
            bind.execute(events.update().where(events.c.seq == row.seq).values(raw=text, body=None, dictionary=None))
        last = rows[-1].seq
    op.drop_table("event_dictionaries", schema=schema)
    op.drop_column("events", "dictionary", schema=schema)
    op.drop_column("events", "body", schema=schema)
