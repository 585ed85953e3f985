"""Migration 0014: the observation index loses its primary key for a (node, role) index and keeps the event ids as
bytes; on PostgreSQL the names' trigram indexes lose their pending list.

A store holding the HR story's graph is brought back to revision 0013 (the primary key and the indexes back, as a
0013 server had them), one run observation rewritten as plain JSON (as a server before the derived parts wrote
it); upgrading keeps every observation row, the derived tables and each node's history as they were, the schema
is the new one, and a rebuild and a late event then give what a fresh store derives.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from databases import downgrade
from fixtures.stories.load import DAG, EMP, J1, J2, REP, derived_state, incoming, story
from headwater.graph import GraphReader
from headwater.model.jsontext import dumps
from headwater.model.nodeid import parse_node_id
from headwater.store import Store
from headwater.store.engine import create_store_engine
from headwater.store.migrate import current_revision, head_revision, upgrade
from headwater.store.parts import read_observation
from headwater.store.schema import observations

NODES = (EMP, REP, J1, J2, DAG)


def _observations(conn: sa.Connection, hex_ids: bool = False) -> list[tuple[Any, ...]]:
    """Every observation row, its data read back; ``hex_ids``: the event ids are still text (revision 0013)."""
    event_id = sa.type_coerce(observations.c.event_id, sa.String) if hex_ids else observations.c.event_id
    o = observations.c
    rows = conn.execute(sa.select(o.node, o.event_seq, o.role, o.time, event_id.label("event_id"), o.data)).all()
    return sorted(
        (r.node, r.event_seq, r.role, r.time, r.event_id, dumps(read_observation(conn, r.data))) for r in rows
    )


def _indexes(conn: sa.Connection, table: str) -> set[str]:
    return {i["name"] for i in sa.inspect(conn).get_indexes(table) if i["name"]}


def _histories(store: Store) -> dict[str, Any]:
    graph = GraphReader(store)
    return {node: graph.history(parse_node_id(node)) for node in NODES}


def test_upgrade_keeps_rows_graph_and_history_and_a_rebuild_agrees(store_url: str, tmp_path: Any) -> None:
    events = story()
    with Store.open(store_url) as store:
        store.append(incoming(events[:-1]))
        expected = derived_state(store)
        histories = _histories(store)
    engine = create_store_engine(store_url)
    try:
        downgrade(engine, "0013")
        assert current_revision(engine) == "0013"
        with engine.begin() as conn:  # the store as a 0013 server left it
            key = sa.inspect(conn).get_pk_constraint("observations")["constrained_columns"]
            assert key == ["node", "event_seq", "role"]
            assert "ix_observations_node" not in _indexes(conn, "observations")
            o = observations.c
            run = conn.execute(sa.select(o.node, o.event_seq, o.data).where(o.role == "run").limit(1)).one()
            plain = dumps(read_observation(conn, run.data))
            assert plain != run.data and plain.startswith('{"eventType":')  # the new rest form, made plain
            conn.execute(
                observations.update()
                .where(observations.c.node == run.node, observations.c.event_seq == run.event_seq)
                .where(observations.c.role == "run")
                .values(data=plain)
            )
            before = _observations(conn, hex_ids=True)
        assert len(before) > 40 and all(len(r[4]) == 64 for r in before)
        upgrade(engine)
        assert current_revision(engine) == head_revision() and head_revision() >= "0014"
        with engine.connect() as conn:
            assert not sa.inspect(conn).get_pk_constraint("observations")["constrained_columns"]
            assert _indexes(conn, "observations") == {"ix_observations_node", "ix_observations_event"}
            if conn.dialect.name == "postgresql":  # the names' trigram indexes without a pending list
                options = sa.text("SELECT reloptions FROM pg_class WHERE relname = :n")
                for index in ("ix_jobs_name_trgm", "ix_datasets_name_trgm"):
                    assert conn.scalar(options, {"n": index}) == ["fastupdate=off"]
            assert _observations(conn) == before
            stored = sa.func.length(sa.type_coerce(observations.c.event_id, sa.LargeBinary))
            assert set(conn.scalars(sa.select(stored).distinct())) == {32}  # the id's bytes, not its hex digits
    finally:
        engine.dispose()
    with Store.open(store_url) as store:
        assert derived_state(store) == expected
        assert _histories(store) == histories
        store.rebuild()
        assert derived_state(store) == expected
        assert _histories(store) == histories
        store.append(incoming(events[-1:]))  # the last event, after the upgrade
        after = derived_state(store)
        after_histories = _histories(store)
    with Store.open(f"sqlite:///{tmp_path / 'fresh.db'}") as fresh:
        fresh.append(incoming(events))
        assert derived_state(fresh) == after
        assert _histories(fresh) == after_histories
