"""InQuery: ``column IN (...)`` compiled once and run per chunk, with public SQLAlchemy API only.

The direct path writes each chunk's placeholders where a marker literal sits in the compiled SQL.
If a SQLAlchemy release compiled the marker differently, ``direct`` turns False and every chunk
takes SQLAlchemy's usual path (still correct, slower): the first test then fails loudly, so the
change is seen, not silently paid for.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from headwater.graph.common import SMALL, InQuery

metadata = sa.MetaData()
items = sa.Table(
    "items",
    metadata,
    sa.Column("id", sa.Text, primary_key=True),
    sa.Column("kind", sa.Text),
    sa.Column("size", sa.Integer),
)


@pytest.fixture
def conn(store_url: str) -> Iterator[sa.Connection]:
    engine = sa.create_engine(store_url.replace("postgresql://", "postgresql+psycopg://", 1))
    metadata.create_all(engine)
    with engine.connect() as connection:
        connection.execute(
            items.insert(), [{"id": f"n{i:05d}", "kind": "ab"[i % 2], "size": i % 7} for i in range(3000)]
        )
        connection.commit()
        yield connection
    engine.dispose()


def _query() -> sa.Select[tuple[str, str, int]]:  # parameters before and after the IN list
    return sa.select(items.c.id, items.c.kind, items.c.size).where(items.c.kind == "a").where(items.c.size < 5)


def test_the_once_compiled_path_is_taken_on_this_sqlalchemy(conn: sa.Connection) -> None:
    assert InQuery(conn, _query(), items.c.id).direct, f"SQLAlchemy {sa.__version__} compiled the IN marker differently"


@pytest.mark.parametrize("count", [1, SMALL - 1, SMALL, 499, 500, 501, 1777])
def test_rows_are_sqlalchemys_own(conn: sa.Connection, count: int) -> None:
    wanted = [f"n{i:05d}" for i in range(0, 3 * count, 3)] + ["missing"]
    got = InQuery(conn, _query(), items.c.id).rows(wanted)
    expected = conn.execute(_query().where(items.c.id.in_(wanted))).all()
    assert sorted(tuple(r) for r in got) == sorted(tuple(r) for r in expected)
    assert got, "the chosen ids include rows of kind 'a' and size < 5"


@pytest.mark.parametrize("count", [SMALL, 500])
def test_a_query_with_its_own_in_list(conn: sa.Connection, count: int) -> None:
    # an IN list of the query itself (quality's roles) is an expanding parameter SQLAlchemy renders only at
    # execution: the once-compiled SQL must hold its placeholders, not SQLAlchemy's POSTCOMPILE marker
    query = sa.select(items.c.id, items.c.kind).where(items.c.size.in_((1, 2, 3))).where(items.c.kind == "b")
    wanted = [f"n{i:05d}" for i in range(count)]
    got = InQuery(conn, query, items.c.id).rows(wanted)
    expected = conn.execute(query.where(items.c.id.in_(wanted))).all()
    assert sorted(tuple(r) for r in got) == sorted(tuple(r) for r in expected)
    assert got
