"""The event log: append, dedupe, fetch, list with filters and cursors (SQLite and PostgreSQL)."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from typing import Any

import pytest
import sqlalchemy as sa

from headwater.model.nodeid import NodeRef
from headwater.store import IncomingEvent, InvalidCursor, InvalidStoreUrl, Store
from headwater.store.engine import normalize_url


def run_event(
    event_type: str,
    time: str,
    run_id: str,
    job: str = "job1",
    inputs: list[str] | None = None,
    outputs: list[str] | None = None,
) -> dict[str, Any]:
    return {
        "eventType": event_type,
        "eventTime": time,
        "producer": "https://example.com/test",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": run_id},
        "job": {"namespace": "ns", "name": job},
        "inputs": [{"namespace": "file", "name": n} for n in inputs or []],
        "outputs": [{"namespace": "file", "name": n} for n in outputs or []],
    }


def incoming(payload: dict[str, Any]) -> IncomingEvent:
    return IncomingEvent(payload, json.dumps(payload))


@pytest.fixture
def store(store_url: str) -> Any:
    s = Store.open(store_url)
    yield s
    s.close()


def test_append_keeps_raw_text_and_dedupes(store: Store) -> None:
    payload = run_event("START", "2026-03-01T10:00:00.123456789Z", str(uuid.uuid4()), inputs=["/a"])
    raw = json.dumps(payload, indent=2)  # verbatim, whatever the formatting
    first = store.append([IncomingEvent(payload, raw)])
    second = store.append([IncomingEvent(payload, json.dumps(payload))])
    assert first[0].duplicate is False and second[0].duplicate is True
    assert first[0].id == second[0].id and len(first[0].id) == 64
    got = store.get_event(first[0].id)
    assert got is not None
    assert got.raw == raw
    assert got.kind == "RUN" and got.event_type == "START" and got.job == "job:ns:job1"
    assert got.run_id == payload["run"]["runId"]
    assert got.event_time == datetime(2026, 3, 1, 10, 0, 0, 123456, tzinfo=UTC)
    assert got.received_at.tzinfo is not None
    assert store.get_event("0" * 64) is None
    events, cursor = store.list_events()
    assert [e.id for e in events] == [first[0].id] and cursor is None


def test_duplicate_inside_one_batch(store: Store) -> None:
    payload = run_event("START", "2026-03-01T10:00:00Z", str(uuid.uuid4()))
    results = store.append([incoming(payload), incoming(payload)])
    assert [r.duplicate for r in results] == [False, True]
    assert len(store.list_events()[0]) == 1


def test_list_events_newest_first_with_filters_and_cursor(store: Store) -> None:
    run_a, run_b = str(uuid.uuid4()), str(uuid.uuid4())
    batch = [
        run_event(
            "START",
            f"2026-03-01T10:0{i}:00Z",
            run_a if i % 2 else run_b,
            inputs=["/in"] if i < 3 else [],
            outputs=["/out"],
        )
        for i in range(6)
    ]
    ids = [r.id for r in store.append([incoming(p) for p in batch])]
    page1, cursor = store.list_events(limit=4)
    assert [e.id for e in page1] == ids[::-1][:4]
    assert cursor is not None
    page2, cursor2 = store.list_events(limit=4, cursor=cursor)
    assert [e.id for e in page2] == ids[::-1][4:] and cursor2 is None
    since = datetime(2026, 3, 1, 10, 2, tzinfo=UTC)
    until = datetime(2026, 3, 1, 10, 4, tzinfo=UTC)
    assert [e.id for e in store.list_events(since=since, until=until)[0]] == ids[2:5][::-1]
    touched_in = store.list_events(node=NodeRef("dataset", "file", "/in"))[0]
    assert [e.id for e in touched_in] == ids[:3][::-1]
    by_field = store.list_events(node=NodeRef("datasetField", "file", "/in", "x"))[0]
    assert [e.id for e in by_field] == ids[:3][::-1]
    by_run = store.list_events(node=NodeRef("run", "", run_a))[0]
    assert [e.id for e in by_run] == [ids[5], ids[3], ids[1]]
    by_job = store.list_events(node=NodeRef("job", "ns", "job1"))[0]
    assert len(by_job) == 6
    with pytest.raises(InvalidCursor, match="invalid cursor"):
        store.list_events(cursor="nonsense!")


def test_append_is_all_or_nothing(store: Store) -> None:
    good = run_event("START", "2026-03-01T10:00:00Z", str(uuid.uuid4()))
    bad = run_event("START", "not a time", str(uuid.uuid4()))
    with pytest.raises(ValueError, match="not a time"):
        store.append([incoming(good), incoming(bad)])
    assert store.list_events()[0] == []
    assert store.append([incoming(good)])[0].duplicate is False


def test_store_urls() -> None:
    assert normalize_url("postgres://u:p@h/db") == "postgresql+psycopg://u:p@h/db"
    assert normalize_url("postgresql://u:p@h:5432/db") == "postgresql+psycopg://u:p@h:5432/db"
    assert normalize_url("sqlite:////tmp/x.db") == "sqlite:////tmp/x.db"
    with pytest.raises(InvalidStoreUrl, match="unsupported store URL 'mysql://h/db'"):
        normalize_url("mysql://h/db")


def test_reopen_keeps_events(sqlite_url: str) -> None:
    payload = run_event("COMPLETE", "2026-03-01T10:00:00Z", str(uuid.uuid4()))
    with Store.open(sqlite_url) as s:
        eid = s.append([incoming(payload)])[0].id
    with Store.open(sqlite_url) as s:
        assert s.get_event(eid) is not None
        assert s.dialect == "sqlite"


def test_concurrent_appends_are_group_committed_and_isolated(store: Store) -> None:
    import threading

    good = [
        [run_event("START", f"2026-03-02T10:{t:02d}:{i:02d}Z", str(uuid.uuid4()), job=f"job{t}") for i in range(5)]
        for t in range(8)
    ]
    bad = [
        run_event("START", "2026-03-02T11:00:00Z", str(uuid.uuid4())),
        run_event("START", "never", str(uuid.uuid4())),
    ]
    results: dict[int, Any] = {}

    def worker(n: int, batch: list[dict[str, Any]]) -> None:
        try:
            results[n] = (
                [r.id for e in batch for r in store.append([incoming(e)])]
                if n < 8
                else store.append([incoming(e) for e in batch])
            )
        except ValueError as exc:
            results[n] = exc

    threads = [threading.Thread(target=worker, args=(n, b)) for n, b in enumerate([*good, bad])]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert isinstance(results[8], ValueError) and "never" in str(results[8])
    stored = {e.id for e in store.list_events(limit=1000)[0]}
    assert stored == {i for n in range(8) for i in results[n]}
    assert len(stored) == 40  # every good event, nothing of the bad batch


def test_a_big_batch_is_logged_in_its_order_with_every_text_as_sent(store: Store) -> None:
    """A batch of many events (a bulk load's: PostgreSQL takes it by COPY) stores each text as sent, in the
    batch's order, once: the events the log holds already and the repeats inside the batch are duplicates."""
    held = run_event("START", "2026-03-01T09:00:00Z", str(uuid.uuid4()))
    store.append([incoming(held)])
    batch = []
    for i in range(150):
        # one time for all: the log lists the events of one time in their order in the log
        payload = run_event("COMPLETE", "2026-03-01T10:00:00Z", str(uuid.uuid4()), job=f'j\\{i}\t"ü✓"')
        batch.append(IncomingEvent(payload, json.dumps(payload, indent=i % 3 or None, ensure_ascii=i % 2 == 0)))
    sent = [*batch[:75], incoming(held), batch[3], *batch[75:]]
    results = store.append(sent)
    assert [r.duplicate for r in results] == [False] * 75 + [True, True] + [False] * 75
    newest_first, _ = store.list_events(limit=500)
    assert [e.id for e in newest_first] == [r.id for r in results if not r.duplicate][::-1] + [results[75].id]
    for event, result in zip(batch, [*results[:75], *results[77:]], strict=True):
        got = store.get_event(result.id)
        assert got is not None and got.raw == event.raw
        assert got.job == f"job:ns:{event.payload['job']['name']}"


def test_each_appended_event_s_warnings_name_its_own_seq(store: Store) -> None:
    """The append answers each new row's ``seq`` without reading the rows back (SQLite: consecutive from the
    last ``rowid``): the warnings kept beside an event name the ``seq`` the log gave it, in a batch holding
    duplicates and after earlier appends, and the graph's watermark reaches the log's head."""
    warned = [{"path": "$.run", "message": f"note {i}"} for i in range(3)]
    first = run_event("START", "2026-03-01T09:00:00Z", str(uuid.uuid4()))
    store.append([incoming(first), incoming(run_event("START", "2026-03-01T09:01:00Z", str(uuid.uuid4())))])
    batch = []
    for i in range(9):
        payload = run_event("COMPLETE", f"2026-03-01T10:0{i}:00Z", str(uuid.uuid4()), job=f"j{i}")
        batch.append(IncomingEvent(payload, json.dumps(payload), warned[: i % 3]))
    results = store.append([batch[0], incoming(first), *batch[1:5], batch[2], *batch[5:]])
    assert [r.duplicate for r in results] == [False, True, False, False, False, False, True] + [False] * 4
    with store.engine.connect() as conn:
        seq_of = {r.id: r.seq for r in conn.execute(sa.text("SELECT id, seq FROM events"))}
        kept = conn.execute(sa.text("SELECT event_id, event_seq, warnings FROM event_warnings")).all()
    assert sorted(seq_of.values()) == list(range(1, 12))
    assert {k.event_id: len(json.loads(k.warnings)) for k in kept} == {
        r.id: i % 3 for i, r in enumerate(x for x in results if not x.duplicate) if i % 3
    }
    assert all(seq_of[k.event_id] == k.event_seq for k in kept)
    position = store.catch_up(30.0)
    assert position.caught_up and position.graph == position.log == 11
