"""The compressed event log (store/codec.py, migration 0011): every read gives back the text as sent.

- any JSON text, however it is spelled (spacing, escapes, non-ASCII), reads back byte for byte, with no
  dictionary and with a trained one (Hypothesis);
- a live store: events before the first dictionary (zstd alone), the dictionary the store trains itself
  at its threshold, events after it, ``headwater db compact``, a rebuild, a prune and (SQLite) a backup —
  every text and id the same throughout, the graph the same as a store that never compressed;
- a store written before migration 0011 (texts in ``raw``): its events read after the upgrade, the graph
  derives from them, compaction compresses them, and a downgrade writes the texts back.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from databases import downgrade
from fixtures.stories.load import derived_state, story
from headwater.cli.db import command as db_command
from headwater.model.times import now_micros
from headwater.store import IncomingEvent, Store, codec
from headwater.store.backup import backup
from headwater.store.engine import create_store_engine
from headwater.store.eventlog import prepare
from headwater.store.migrate import current_revision, head_revision, upgrade
from headwater.store.schema import event_dictionaries, events


def _event(job: int, run: int, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """A run event of a Spark-like job: a 30-column schema on its input and output, column lineage."""
    cols = [{"name": f"c_{c:02d}", "type": ("string", "long", "double")[c % 3]} for c in range(30)]
    src, dst = f"raw.src_{job:02d}", f"warehouse.table_{job:02d}"
    return {
        "eventType": "COMPLETE" if run % 2 else "START",
        "eventTime": f"2026-01-{1 + run // 40:02d}T{run % 24:02d}:{job:02d}:00.000Z",
        "producer": "https://github.com/OpenLineage/OpenLineage/tree/1.24.2/integration/spark",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": f"01930000-0000-7000-8000-{job:04d}{run:08d}", "facets": extra or {}},
        "job": {"namespace": "spark", "name": f"etl.insert_into.{dst}"},
        "inputs": [{"namespace": "s3://lake", "name": src, "facets": {"schema": {"fields": cols}}}],
        "outputs": [
            {
                "namespace": "s3://lake",
                "name": dst,
                "facets": {
                    "schema": {"fields": cols},
                    "columnLineage": {
                        "fields": {
                            c["name"]: {"inputFields": [{"namespace": "s3://lake", "name": src, "field": c["name"]}]}
                            for c in cols
                        }
                    },
                },
            }
        ],
    }


def _spelled(payload: dict[str, Any], i: int) -> str:
    """The same event in one of several spellings a producer may send (the log keeps each as sent)."""
    return [
        json.dumps(payload, separators=(",", ":")),
        json.dumps(payload, indent=2),
        json.dumps(payload, ensure_ascii=False),
        json.dumps(payload, sort_keys=True),
    ][i % 4]


def _texts(store: Store, ids: list[str]) -> list[str]:
    found = [store.get_event(i) for i in ids]
    return [e.raw if e is not None else "<missing>" for e in found]


def _forms(store: Store) -> dict[int | None, int]:
    """How many rows are in each stored form (dictionary id; None: plain text)."""
    with store.engine.connect() as conn:
        rows = conn.execute(sa.select(events.c.dictionary, sa.func.count()).group_by(events.c.dictionary))
        return {r[0]: int(r[1]) for r in rows}


# -- any text, byte for byte --------------------------------------------------------------------------

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=30,
)


@pytest.fixture(scope="module")
def trained_engine(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A migrated SQLite store's engine holding one dictionary trained on Spark-like events."""
    engine = create_store_engine(f"sqlite:///{tmp_path_factory.mktemp('codec') / 'h.db'}")
    upgrade(engine)
    with engine.begin() as conn:
        conn.execute(events.insert(), [{**p.row, "received_at": 0} for p in prepare(_incoming(120))])
    trained = codec.train(engine)
    assert trained.new and trained.dictionary == 1 and trained.with_new < trained.with_previous
    yield engine
    engine.dispose()


def _incoming(n: int, start: int = 0) -> list[IncomingEvent]:
    out = []
    for i in range(start, start + n):
        payload = _event(i % 7, i)
        out.append(IncomingEvent(payload, _spelled(payload, i)))
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=_json, spelling=st.integers(0, 3), dictionary=st.sampled_from([0, 1]))
def test_any_json_text_reads_back_byte_for_byte(
    trained_engine: Any, value: Any, spelling: int, dictionary: int
) -> None:
    text = _spelled({"eventType": "OTHER", "x": value}, spelling)
    with trained_engine.connect() as conn:
        stored = codec.codec_of(trained_engine).encode_with(conn, text, dictionary)
        assert stored.raw == "" and stored.dictionary == dictionary and stored.body is not None
        assert codec.text(conn, stored) == text


def test_a_damaged_body_is_an_error_not_another_text(trained_engine: Any) -> None:
    text = _spelled(_event(1, 1), 0)
    with trained_engine.connect() as conn:
        stored = codec.codec_of(trained_engine).encode_with(conn, text, 1)
        assert stored.body is not None
        body = bytearray(stored.body)
        body[len(body) // 2] ^= 0xFF
        with pytest.raises(codec.CorruptEvent, match="dictionary 1"):
            codec.text(conn, codec.Encoded("", bytes(body), 1))
        with pytest.raises(codec.CorruptEvent, match="dictionary 7, which the store does not hold"):
            codec.text(conn, codec.Encoded("", stored.body, 7))


# -- a live store ---------------------------------------------------------------------------------------


def _log_pages(store: Store) -> int:
    """SQLite: the log file's pages (free ones included; WAL content counted); 0 on PostgreSQL."""
    if store.dialect != "sqlite":
        return 0
    with store.engine.connect() as conn:
        return int(conn.exec_driver_sql("PRAGMA log.page_count").scalar() or 0)


def _wait_for_dictionary(store: Store) -> None:
    deadline = time.monotonic() + 60
    with store.engine.connect() as conn:
        while not conn.scalar(sa.select(sa.func.count()).select_from(event_dictionaries)):
            assert time.monotonic() < deadline, "the store trained no dictionary at its threshold"
            time.sleep(0.05)
            conn.rollback()


def test_reads_are_byte_identical_across_a_dictionary_change(
    store_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(codec, "TRAIN_AT", 130)  # the store's own threshold, small for the test
    sent = _incoming(200)
    with Store.open(store_url) as store:
        first = store.append(sent[:100])
        assert _forms(store) == {0: 100}  # zstd alone before the store has a dictionary
        second = store.append(sent[100:140])  # the log passes the threshold: a dictionary is trained
        _wait_for_dictionary(store)
        third = store.append(sent[140:])
        forms = _forms(store)
        assert forms[0] >= 100 and forms.get(1, 0) >= 60 and sum(forms.values()) == 200
        ids = [r.id for r in first + second + third]
        assert _texts(store, ids) == [e.raw for e in sent]
        with store.engine.connect() as conn:  # compressed rows keep no text of their own
            assert conn.scalar(sa.select(sa.func.count()).where(events.c.raw != "")) == 0
        listed, _ = store.list_events(limit=500)
        assert sorted(e.raw for e in listed) == sorted(e.raw for e in sent)
        graph = derived_state(store)

        before = _log_pages(store)
        compact = ["compact", "--db", store_url, "--no-train", "--batch", "64", "--vacuum"]
        result = CliRunner().invoke(db_command, compact)
        assert result.exit_code == 0, result.output
        assert "with dictionary 1" in result.output and "freed space returned" in result.output
        if store.dialect == "sqlite":  # the rows rewritten smaller, VACUUM gave the pages back
            assert _log_pages(store) < before
        assert _forms(store) == {1: 200}
        assert _texts(store, ids) == [e.raw for e in sent]
        store.rebuild()
        assert derived_state(store) == graph

        if store.dialect == "sqlite":
            copy = backup(store_url, tmp_path / "copy.db")
            with Store.open(f"sqlite:///{copy.files[0]}") as restored:
                assert _texts(restored, ids) == [e.raw for e in sent]
                assert derived_state(restored) == graph

        store.prune(store.get_event(ids[150]).event_time)  # type: ignore[union-attr]
        kept = [(i, e.raw) for i, e in zip(ids, sent, strict=True) if store.get_event(i) is not None]
        assert 0 < len(kept) < 200
        assert _texts(store, [i for i, _ in kept]) == [raw for _, raw in kept]

    with Store.open(f"sqlite:///{tmp_path / 'other.db'}") as other:  # the same events, another store: the same graph
        other.append(sent)
        assert derived_state(other) == graph


# -- a store from before the migration ------------------------------------------------------------------


def test_rows_written_before_the_migration_still_read(store_url: str) -> None:
    hr = story()
    sent = [IncomingEvent(e, _spelled(e, i)) for i, e in enumerate(hr)]
    engine = create_store_engine(store_url)
    try:
        upgrade(engine, "0010")
        old = sa.table(  # the log as a 0010 server wrote it: the text in raw
            "events",
            *(sa.column(c) for c in ("id", "raw", "received_at", "event_time", "kind", "event_type", "job", "run_id")),
        )
        with engine.begin() as conn:
            conn.execute(old.insert(), [{**p.row, "received_at": now_micros()} for p in prepare(sent)])
    finally:
        engine.dispose()
    ids = [p.id for p in prepare(sent)]
    with Store.open(store_url) as store:
        assert current_revision(store.engine) == head_revision()
        assert _forms(store) == {None: len(hr)}
        assert _texts(store, ids) == [e.raw for e in sent]
        graph = derived_state(store)
        assert graph["edges"]  # derived from the old rows
        new = IncomingEvent(_event(1, 1), _spelled(_event(1, 1), 1))
        store.append([new])
        assert _forms(store) == {None: len(hr), 0: 1}

        result = CliRunner().invoke(db_command, ["compact", "--db", store_url])
        assert result.exit_code == 0, result.output
        assert f"{len(hr)} of {len(hr)} event(s) recompressed with dictionary 0" in result.output
        assert _forms(store) == {0: len(hr) + 1}
        assert _texts(store, [*ids, prepare([new])[0].id]) == [e.raw for e in [*sent, new]]
        store.rebuild()
        rebuilt = derived_state(store)
    with Store.open(store_url) as store:
        assert derived_state(store) == rebuilt

    engine = create_store_engine(store_url)
    try:
        downgrade(engine, "0010")
        with engine.connect() as conn:
            back = {r.id: r.raw for r in conn.execute(sa.text("SELECT id, raw FROM events"))}
        assert [back[i] for i in ids] == [e.raw for e in sent]
    finally:
        engine.dispose()
