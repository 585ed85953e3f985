"""The derived tables' many-row insert (``projector.insert_rows``, ``parts.insert_many``) and look-up
(``parts.select_in``): what goes in comes back, on both stores, in the caller's transaction (PostgreSQL: by COPY,
through a temporary table when duplicates are skipped; SQLite: the driver's executemany); a skipped duplicate
leaves the row held as it was."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from headwater.store.engine import create_store_engine
from headwater.store.parts import COPY_ROWS, insert_many, select_in
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


def _tuples(rows: list[dict[str, object]]) -> list[tuple[object, ...]]:
    return [(r["id"], r["name"], r["n"], r["body"]) for r in rows]


def _held(engine: sa.Engine, table: sa.Table) -> list[tuple[object, ...]]:
    with engine.connect() as conn:
        rows = conn.execute(sa.select(table).order_by(table.c.id)).all()
    return [(i, name, n, None if body is None else bytes(body)) for i, name, n, body in rows]


@pytest.mark.parametrize("count", [3, COPY_ROWS + 10])  # one executemany; the many-row path
def test_duplicates_are_skipped_and_the_rows_held_stay_as_they_were(engine: sa.Engine, count: int) -> None:
    table = _table(sa.MetaData())
    columns = ["id", "name", "n", "body"]
    first = _rows(count)
    with engine.begin() as conn:
        table.create(conn)
        insert_many(conn, table, columns, _tuples(first[::2]))  # every other row held before
    again = [{**r, "name": "changed", "n": 0} for r in first]  # same ids, other values
    more = [{**r, "id": int(str(r["id"])) + count} for r in first]
    with engine.begin() as conn:  # two calls in one transaction: the second stages only its own rows
        insert_many(conn, table, columns, _tuples(again), on_conflict="id")
        insert_many(conn, table, columns, _tuples(more + again[:2]), on_conflict="id")
    expected = sorted(_tuples(first[::2]) + _tuples(again[1::2]) + _tuples(more), key=lambda r: int(str(r[0])))
    assert _held(engine, table) == expected
    with engine.connect() as conn:  # rolled back: nothing of it stays
        transaction = conn.begin()
        insert_many(conn, table, columns, [(10**6 + i, "x", i, None) for i in range(count)], on_conflict="id")
        transaction.rollback()
    assert _held(engine, table) == expected


def test_select_in_finds_the_rows_of_the_keys_held(engine: sa.Engine) -> None:
    table = _table(sa.MetaData())
    rows = _rows(COPY_ROWS * 3)
    with engine.begin() as conn:
        table.create(conn)
        insert_rows(conn, table, rows)
    wanted = [r for r in rows if int(str(r["id"])) % 3 == 0]
    with engine.connect() as conn:
        by_id = select_in(conn, table, "id", [r["id"] for r in wanted] + [-1, 10**9])
        named = [r for r in rows if r["name"] is not None][: len(AWKWARD) + 2]  # every awkward text
        by_name = select_in(conn, table, "name", [r["name"] for r in named] + ["nobody"])
    assert sorted(r[0] for r in by_id) == [r["id"] for r in wanted]
    assert sorted((r[0], r[1]) for r in by_name) == [(r["id"], r["name"]) for r in named]
