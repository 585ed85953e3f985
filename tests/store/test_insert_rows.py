"""The derived tables' many-row insert (``projector.insert_rows``): what goes in comes back, on both stores, in the
caller's transaction (PostgreSQL: by COPY; SQLite: the driver's executemany)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from headwater.store.engine import create_store_engine
from headwater.store.projector import BULK_ROWS, insert_rows

# values a text format must escape, and values it must not take for something else
AWKWARD = ["tab\there", "line\nbreak", "back\\slash", "\\N", "", "comma, 'quote' \"double\"", "ünïcødé ✓", "\r\n"]


def _table(metadata: sa.MetaData) -> sa.Table:
    return sa.Table(
        "insert_rows_check",
        metadata,
        sa.Column("id", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("name", sa.Text, nullable=True),
        sa.Column("n", sa.BigInteger, nullable=True),
        sa.Column("body", sa.LargeBinary, nullable=True),
    )


def _rows(count: int) -> list[dict[str, object]]:
    return [
        {
            "id": i,
            "name": None if i % 10 == 9 else AWKWARD[i % len(AWKWARD)] + str(i),
            "n": None if i % 7 == 6 else (2**62 if i % 2 else -(2**40)) + i,
            "body": None if i % 5 == 4 else bytes([0, 92, 10, 9, i % 256]),
        }
        for i in range(count)
    ]


@pytest.fixture
def engine(store_url: str) -> Iterator[sa.Engine]:
    made = create_store_engine(store_url)  # as the store makes it (SQLite: its pragmas and transactions)
    yield made
    with made.begin() as conn:
        conn.exec_driver_sql("DROP TABLE IF EXISTS insert_rows_check")
    made.dispose()


@pytest.mark.parametrize("count", [3, BULK_ROWS + 44])  # one insert statement; the many-row path
def test_every_value_comes_back_as_it_went_in(engine: sa.Engine, count: int) -> None:
    table = _table(sa.MetaData())
    rows = _rows(count)
    with engine.begin() as conn:
        table.create(conn)
        insert_rows(conn, table, rows)
    with engine.connect() as conn:
        back = [dict(r._mapping) for r in conn.execute(sa.select(table).order_by(table.c.id))]
    for row in back:
        if row["body"] is not None:
            row["body"] = bytes(row["body"])
    assert back == rows


def test_the_rows_belong_to_the_callers_transaction(engine: sa.Engine) -> None:
    table = _table(sa.MetaData())
    with engine.begin() as conn:
        table.create(conn)
    with engine.connect() as conn:
        transaction = conn.begin()
        insert_rows(conn, table, _rows(BULK_ROWS + 1))
        assert conn.execute(sa.select(sa.func.count()).select_from(table)).scalar_one() == BULK_ROWS + 1
        transaction.rollback()
    with engine.connect() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(table)).scalar_one() == 0
