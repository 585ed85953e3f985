"""Migration 0012: column edges move from repeated dataset/field and transformation texts to ids of the ``fields``
and ``column_transformations`` dictionaries.

A store is brought to revision 0011 holding the HR story's graph, as a 0011 server wrote it (its column edges
name their ends as text), plus one edge written by hand. Upgrading converts it in place: every edge reads back
with the same ends, times and transformations, each end's id is the dictionary's for its text, and a rebuild
from the log then gives the graph a fresh store derives (the hand-written edge, derived from no event, goes).
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from databases import downgrade
from fixtures.stories.load import EA, EMP, J1, derived_state, incoming, story
from headwater.store import Store
from headwater.store.engine import create_store_engine
from headwater.store.fields import edge_select, field_key, transformations_key
from headwater.store.migrate import current_revision, head_revision, upgrade
from headwater.store.schema import column_transformations, fields

OLD_COLUMNS = "job, src_dataset, src_field, dst_dataset, dst_field, valid_from, valid_to, transformations"
BY_HAND = (
    "job:hand:made",
    "dataset:file:/by/hand/a",
    "id",
    "dataset:file:/by/hand/b",
    "",  # the whole dataset: an INDIRECT dependency
    1_700_000_000_000_000,
    None,
    '[{"type":"INDIRECT","subtype":"FILTER","description":null,"masking":false}]',
)


def _texts(conn: sa.Connection) -> list[tuple[Any, ...]]:
    return sorted((tuple(r) for r in conn.execute(edge_select())), key=repr)


def test_upgrade_converts_column_edges_in_place_and_a_rebuild_agrees(store_url: str, tmp_path: Any) -> None:
    with Store.open(store_url) as store:
        store.append(incoming(story()))
        expected = derived_state(store)
    engine = create_store_engine(store_url)
    try:
        downgrade(engine, "0011")
        assert current_revision(engine) == "0011"
        with engine.begin() as conn:  # the store as a 0011 server left it, and one more edge by hand
            old = sorted((tuple(r) for r in conn.exec_driver_sql(f"SELECT {OLD_COLUMNS} FROM column_edges")), key=repr)
            assert not sa.inspect(conn).has_table("fields")
            names = OLD_COLUMNS.split(", ")
            marks = ", ".join(f":{n}" for n in names)
            conn.execute(
                sa.text(f"INSERT INTO column_edges ({OLD_COLUMNS}) VALUES ({marks})"), dict(zip(names, BY_HAND))
            )
        # job1 copies employees.csv's EmployeeID into employee_attendance (the story's first run)
        assert any(r[:5] == (J1, EMP, "EmployeeID", EA, "EmployeeID") for r in old)
        upgrade(engine)
        assert current_revision(engine) == head_revision()
        with engine.connect() as conn:
            assert _texts(conn) == sorted([*old, BY_HAND], key=repr)
            held = {r.id: (r.dataset, r.field) for r in conn.execute(sa.select(fields))}
            assert held[field_key("dataset:file:/by/hand/b", "")] == ("dataset:file:/by/hand/b", "")
            assert held[field_key(EMP, "EmployeeID")] == (EMP, "EmployeeID")
            assert all(field_key(*pair) == key for key, pair in held.items())
            lists = {r.id: r.body for r in conn.execute(sa.select(column_transformations))}
            assert lists == {transformations_key(r[7]): r[7] for r in [*old, BY_HAND]}
    finally:
        engine.dispose()
    with Store.open(store_url) as store:
        upgraded = derived_state(store)  # the story's rows as they were, and the hand-written edge besides
        assert {k: v for k, v in upgraded.items() if k != "column_edges"} == {
            k: v for k, v in expected.items() if k != "column_edges"
        }
        assert set(upgraded["column_edges"]) - set(expected["column_edges"]) == {
            (
                "job:hand:made",
                field_key(*BY_HAND[1:3]),
                field_key(*BY_HAND[3:5]),
                *BY_HAND[5:7],
                transformations_key(BY_HAND[7]),
            )
        }
        store.rebuild()
        assert derived_state(store) == expected
    with Store.open(f"sqlite:///{tmp_path / 'fresh.db'}") as fresh:
        fresh.append(incoming(story()))
        assert derived_state(fresh) == expected
