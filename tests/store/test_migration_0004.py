"""Migration 0004: event ids move to the RFC 8785 form, in stores that hold events under the old form.

A store is built at revision 0003 with events whose ids were computed the old way (CPython's
``json.dumps`` form): the HR story (same bytes in both forms: ids unchanged), an event carrying
floats (its id changes) and its twin spelled with ``1`` instead of ``1.0`` (distinct before, the
same event now). Upgrading gives every event its RFC 8785 id, removes the twin, and the graph
derived again equals the graph of a fresh store fed the same events.
"""

from __future__ import annotations

import copy
import hashlib
import json
from typing import Any

import sqlalchemy as sa

from databases import downgrade
from fixtures.stories.load import derived_state, incoming, story
from headwater.model.times import now_micros
from headwater.store import Store
from headwater.store.canonical import event_id
from headwater.store.engine import create_store_engine
from headwater.store.eventlog import prepare
from headwater.store.migrate import current_revision, head_revision, upgrade
from headwater.store.schema import events as events_table


def _old_id(payload: Any) -> str:  # the scheme before 0004, written out here on purpose
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _events() -> tuple[list[dict[str, Any]], dict[str, Any], dict[str, Any]]:
    hr = story()
    with_floats = copy.deepcopy(hr[0])
    with_floats["run"]["runId"] = "01930000-0000-7000-8000-00000000f10a"
    with_floats["run"]["facets"]["measure"] = {
        "_producer": "https://example.com/p",
        "_schemaURL": "https://example.com/s",
        "ratio": 1.0,
        "tiny": 1e-05,
    }
    twin = copy.deepcopy(with_floats)
    twin["run"]["facets"]["measure"]["ratio"] = 1  # 1.0 and 1: one number in RFC 8785
    return hr, with_floats, twin


def _ids(engine: sa.Engine) -> list[str]:
    with engine.connect() as conn:
        return list(conn.scalars(sa.select(events_table.c.id).order_by(events_table.c.seq)))


def test_upgrade_gives_rfc_8785_ids_and_derives_the_same_graph(empty_store_url: str, tmp_path: Any) -> None:
    store_url = empty_store_url
    hr, with_floats, twin = _events()
    logged = [*hr, with_floats, twin]
    assert _old_id(with_floats) != event_id(with_floats) and _old_id(with_floats) != _old_id(twin)
    assert event_id(with_floats) == event_id(twin)
    assert all(_old_id(e) == event_id(e) for e in hr)  # ASCII and integers: the same bytes in both forms
    engine = create_store_engine(store_url)
    try:
        upgrade(engine, "0003")
        with engine.begin() as conn:  # the log as a 0003 server wrote it: old ids, texts in raw, no graph yet
            columns = ("id", "raw", "received_at", "event_time", "kind", "event_type", "job", "run_id")
            old = [
                {**p.row, "id": _old_id(e), "received_at": now_micros()}
                for e, p in zip(logged, prepare(incoming(logged)))
            ]
            conn.execute(sa.table("events", *(sa.column(c) for c in columns)).insert(), old)
        assert _ids(engine) == [_old_id(e) for e in logged]
    finally:
        engine.dispose()
    with Store.open(store_url) as store:  # migrates to head; the projector derives the graph from the log
        assert current_revision(store.engine) == head_revision()
        assert _ids(store.engine) == [event_id(e) for e in [*hr, with_floats]]  # the twin is gone
        migrated = derived_state(store)
    with Store.open(f"sqlite:///{tmp_path / 'fresh.db'}") as fresh:
        fresh.append(incoming([*hr, with_floats]))
        assert migrated == derived_state(fresh)


def test_downgrade_restores_the_old_ids(store_url: str) -> None:
    hr, with_floats, _twin = _events()
    with Store.open(store_url) as store:
        store.append(incoming([*hr, with_floats]))
    engine = create_store_engine(store_url)
    try:
        downgrade(engine, "0003")
        assert _ids(engine) == [_old_id(e) for e in [*hr, with_floats]]
        upgrade(engine)
        assert _ids(engine) == [event_id(e) for e in [*hr, with_floats]]
    finally:
        engine.dispose()
