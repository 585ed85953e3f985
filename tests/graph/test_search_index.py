"""Name search through the trigram indexes of migration 0003 gives exactly the scan's answers.

The oracle is the scan itself, on the same data in the same snapshot: inside one transaction the
search runs with the index, then the index is dropped (DDL is transactional on both databases)
and the same search runs again as a scan; the transaction is rolled back.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest
import sqlalchemy as sa

from headwater.graph import search as search_module
from headwater.graph.search import search
from headwater.store import IncomingEvent, Store
from headwater.store.schema import datasets, jobs

P = "https://example.com/producer"
NAMESPACES = ("file", "s3://b")
SPECIAL = [
    "a%b_c\\d",
    "per%cent/report",
    "under_score_table",
    "back\\slash\\path",
    'quote"name',
    "it's_here",
    'x"y"z',
    "ÑAME_upper",
    "ñame_lower",
    "Straße",
    "STRASSE",
    "İstanbul",
    "istanbul",
    "ǅemal",
    "数据集_表",
    "emoji_📦_box",
    "Mixed_Case_Name",
    "a b c",
    "ab",
    "a",
    "xyz",
    "tab\tname",
    "ΣΊΣΥΦΟΣ",
    "σίσυφος",
    "K_kelvin_sign",
]
JOBS = [
    "etl.orders_daily",
    "ETL.Orders_Hourly",
    "job%1",
    "job_1",
    "orders",
    "Straße_loader",
    "数据_job",
    *(f"etl.orders_backfill_{i:03d}" for i in range(30)),
]
QUERIES = [
    "orders",
    "ORDERS",
    "ord",
    "or",
    "o",
    "sales/orders_00",
    "ders_1",
    "rders_2",
    "%",
    "_",
    "\\",
    "a%b",
    "per%",
    "under_",
    "\\sla",
    'quote"',
    '"',
    '"y"',
    "ñame",
    "ÑAME",
    "name",
    "straße",
    "STRASSE",
    "strasse",
    "İstanbul",
    "istanbul",
    "ǆem",
    "数据",
    "数据集",
    "📦",
    "📦_b",
    "case_n",
    "a b",
    "b c",
    "job",
    "etl",
    "nomatch_xyz",
    "warehouse",
    "ware",
    "σίσ",
    "ΣΊΣ",
    "k_k",
    "\tna",
    "it's",
    "  orders_01  ",
]


def _dataset_event(namespace: str, name: str, minute: int, field: str = "id") -> dict[str, Any]:
    return {
        "eventTime": f"2026-03-01T00:{minute:02d}:00Z",
        "producer": P,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/DatasetEvent",
        "dataset": {
            "namespace": namespace,
            "name": name,
            "facets": {
                "schema": {
                    "_producer": P,
                    "_schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/SchemaDatasetFacet",
                    "fields": [{"name": field, "type": "int"}],
                }
            },
        },
    }


def _job_event(namespace: str, name: str, minute: int) -> dict[str, Any]:
    return {
        "eventTime": f"2026-03-01T00:{minute:02d}:00Z",
        "producer": P,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/JobEvent",
        "job": {"namespace": namespace, "name": name},
        "inputs": [],
        "outputs": [],
    }


def varied_events() -> list[dict[str, Any]]:
    """Datasets and jobs with special characters, case, unicode, ties across namespaces, many matches."""
    evs: list[dict[str, Any]] = []
    for i in range(260):  # 'orders' matches 520 datasets: beyond the pre-cut of 200 rows (and 3000 for limit 300)
        for ns in NAMESPACES:  # the same name in two namespaces: ties in length(name), name
            evs.append(_dataset_event(ns, f"warehouse/sales/orders_{i:03d}", i % 50))
    for i, name in enumerate(SPECIAL):
        evs.append(_dataset_event(NAMESPACES[i % 2], name, i % 50, field=f"f_{name}"))
    for i, name in enumerate(JOBS):
        evs.append(_job_event("ns" if i % 3 else "file", name, i % 50))
    return evs


def incoming(events: Sequence[dict[str, Any]]) -> list[IncomingEvent]:
    return [IncomingEvent(e, json.dumps(e)) for e in events]


@pytest.fixture(scope="module")
def varied_store(new_store_url: Callable[[], str]) -> Iterator[Store]:
    store = Store.open(new_store_url())
    store.append(incoming(varied_events()))
    yield store
    store.close()


def drop_name_indexes(conn: sa.Connection) -> None:
    if conn.dialect.name == "sqlite":
        for fts in search_module.SQLITE_NAME_INDEXES.values():
            conn.exec_driver_sql(f"DROP TABLE {fts}")
    else:
        for table in ("datasets", "jobs"):
            conn.exec_driver_sql(f"DROP INDEX ix_{table}_name_trgm")


Case = tuple[str, tuple[str, ...], str | None, int]


def cases(queries: Sequence[str] = QUERIES) -> list[Case]:
    out: list[Case] = []
    for q in queries:
        for types in (("dataset", "job", "field"), ("dataset",), ("job",)):
            for namespace in (None, "file", "s3://b", "nope"):
                for limit in (1, 20, 300):
                    out.append((q, types, namespace, limit))
    return out


def answers(conn: sa.Connection, todo: Sequence[Case]) -> list[dict[str, Any]]:
    return [search(conn, q, types=types, namespace=namespace, limit=limit) for q, types, namespace, limit in todo]


def indexed_and_scanned(store: Store, todo: Sequence[Case]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The answers with the index, then without it (dropped inside the transaction), same snapshot."""
    assert store.caught_up()  # store.engine does not wait for the projector
    with store.engine.connect() as conn, conn.begin() as tx:
        if conn.dialect.name == "postgresql":
            conn.exec_driver_sql("SET LOCAL enable_seqscan = off")  # small tables: make the planner use the index
        indexed = answers(conn, todo)
        drop_name_indexes(conn)
        if conn.dialect.name == "postgresql":
            conn.exec_driver_sql("SET LOCAL enable_seqscan = on")
        scanned = answers(conn, todo)
        tx.rollback()
    return indexed, scanned


def assert_same(store: Store, todo: Sequence[Case]) -> None:
    indexed, scanned = indexed_and_scanned(store, todo)
    for case, got, expected in zip(todo, indexed, scanned, strict=True):
        assert got == expected, case


def test_indexed_answers_equal_the_scan(varied_store: Store) -> None:
    todo = cases()
    indexed, scanned = indexed_and_scanned(varied_store, todo)
    assert indexed == scanned
    # the data exercises what it should: a pre-cut beyond 200 rows, ties across namespaces, empty answers
    by_case = dict(zip(todo, indexed, strict=True))
    assert len(by_case[("orders", ("dataset",), None, 300)]["results"]) == 300
    assert by_case[("nomatch_xyz", ("dataset", "job", "field"), None, 20)]["results"] == []
    assert [r["name"] for r in by_case[("a%b", ("dataset",), None, 20)]["results"]] == ["a%b_c\\d"]
    assert [r["name"] for r in by_case[('"y"', ("dataset",), None, 20)]["results"]] == ['x"y"z']


def test_index_is_used(varied_store: Store) -> None:
    assert varied_store.caught_up()  # store.engine does not wait for the projector
    with varied_store.engine.connect() as conn:
        if conn.dialect.name == "sqlite":
            indexes = search_module._sqlite_name_indexes(conn)
            assert indexes == frozenset(search_module.SQLITE_NAME_INDEXES.values())
            assert search_module._candidates(conn, datasets, "orders_01", indexes) is not None
            assert search_module._candidates(conn, jobs, "ord", indexes) is not None
            assert search_module._candidates(conn, datasets, "or", indexes) is None  # too short: scan
            assert search_module._candidates(conn, datasets, "a\x00b", indexes) is None  # LIKE stops at NUL
            # more candidates than the bound: the scan is as good
            assert search_module._candidates(conn, datasets, "orders", indexes, bound=519) is None
            assert search_module._candidates(conn, datasets, "orders", indexes, bound=520) is not None
        else:
            conn.exec_driver_sql("SET enable_seqscan = off")
            plan = "\n".join(
                conn.scalars(
                    sa.text("EXPLAIN SELECT id FROM datasets WHERE lower(name) LIKE :p ESCAPE '\\'"),
                    {"p": "%orders\\_01%"},
                )
            )
            assert "ix_datasets_name_trgm" in plan


def test_nul_in_the_query_scans_the_same(tmp_path: Any) -> None:
    with Store.open(f"sqlite:///{tmp_path / 'nul.db'}") as store:
        store.append(incoming([_dataset_event("file", "abc", 1), _dataset_event("file", "xab", 2)]))
        assert_same(store, cases(["ab\x00zz", "a\x00", "xab\x00"]))


def test_index_stays_in_step(store_url: str) -> None:
    todo = cases(["orders", "orders_1", "renamed", "ÑAME", "stra", "etl.o", "job%", "ders_0"])
    with Store.open(store_url) as store:
        events = varied_events()
        store.append(incoming(events[:300]))
        assert_same(store, todo)
        # more datasets and jobs, new versions (a schema change), events older than the graph (full path)
        later = events[300:] + [
            _dataset_event(ns, f"warehouse/sales/orders_{i:03d}", 55, field="amount")
            for i in range(0, 260, 7)
            for ns in NAMESPACES
        ]
        later += [_dataset_event("file", f"renamed/orders_{i}", 0) for i in range(40)]
        store.append(incoming(later))
        assert_same(store, todo)
        store.rebuild()
        assert_same(store, todo)
        if store.engine.dialect.name == "sqlite":
            raw = store.engine.raw_connection()  # no transaction: FTS5 checks, then VACUUM
            try:
                for fts in search_module.SQLITE_NAME_INDEXES.values():  # postings against the table rows
                    raw.driver_connection.execute(f"INSERT INTO {fts}({fts}, rank) VALUES ('integrity-check', 1)")
                raw.driver_connection.execute("VACUUM")  # keeps the rowids the external-content index refers to
            finally:
                raw.close()
        assert_same(store, todo)
        assert store.caught_up()  # store.engine does not wait for the projector
        with store.engine.connect() as conn:
            # the write path's updates of updated_at leave the index alone; a name update is followed
            conn.execute(sa.update(datasets).values(updated_at=datasets.c.updated_at + 1))
            conn.execute(sa.update(jobs).where(jobs.c.name == "job_1").values(name="job_renamed_1"))
            conn.commit()
        assert_same(store, cases(["job_", "renamed_1", "orders"]))
