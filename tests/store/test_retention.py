"""Retention: ``headwater db prune --before T`` and the rolling window, on SQLite and PostgreSQL.

The invariants: after a prune the graph is the graph before it without the pruned runs; a rebuild from
what remains (the log after T and the snapshot the prune left) gives the same graph; events arriving
afterwards, late ones from before T too, give the graph the whole history would give (without the
pruned runs), incrementally and by rebuild; as-of reads before T answer 410 history_pruned.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from click.testing import CliRunner
from fastapi.testclient import TestClient

from deploy.workload import T0, run_events
from fixtures.stories.load import derived_state, incoming, story
from headwater.api import create_app
from headwater.cli.db import command as db_command
from headwater.model.times import to_micros
from headwater.settings import load_settings
from headwater.store import HistoryPruned, Store
from headwater.store.schema import events, observations, runs

T = T0 + timedelta(hours=6)  # half of the workload's runs (and all of the HR story, in January) are older
UPDATED_AT = list(runs.c.keys()).index("updated_at")
RUN_ID = list(runs.c.keys()).index("run_id")


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    s = Store.open(store_url)
    yield s
    s.close()


def without_runs(state: dict[str, list[tuple[Any, ...]]], gone: set[str]) -> dict[str, list[tuple[Any, ...]]]:
    return {**state, "runs": [r for r in state["runs"] if r[RUN_ID] not in gone]}


def first_events() -> list[dict[str, Any]]:
    return story() + run_events(150, seed=3)


def later_events() -> list[dict[str, Any]]:
    """New runs around T: late ones (before T) and newer ones, with other schemas and inputs."""
    return run_events(80, seed=4, start=T - timedelta(hours=3))


def test_prune_keeps_the_present_and_a_rebuild_gives_the_same_graph(store: Store, tmp_path: Path) -> None:
    store.append(incoming(first_events()))
    full = derived_state(store)
    pruned_runs = {r[RUN_ID] for r in full["runs"] if r[UPDATED_AT] < to_micros(T)}
    assert 50 < len(pruned_runs) < len(full["runs"])

    result = store.prune(T)
    assert result.runs == len(pruned_runs) == result.job_samples
    assert result.events > 2 * 50
    pruned = derived_state(store)
    assert pruned == without_runs(full, pruned_runs)  # every version, edge and column edge as it was
    with store.engine.connect() as conn:
        times = conn.execute(sa.select(events.c.event_time, events.c.run_id).where(events.c.event_time < to_micros(T)))
        assert {run for _, run in times} <= {r[RUN_ID] for r in pruned["runs"]}  # only active runs keep old events
        assert (
            conn.scalar(
                sa.select(sa.func.count())
                .select_from(observations)
                .where(observations.c.role == "run")
                .where(observations.c.node.in_([f"run:{r}" for r in pruned_runs]))
            )
            == 0
        )
    assert store.pruned_before() == T

    store.rebuild()
    assert derived_state(store) == pruned

    # later events, late ones among them: the graph the whole history gives, without the pruned runs
    more = later_events()
    store.append(incoming(more))
    incremental = derived_state(store)
    with Store.open(f"sqlite:///{tmp_path / 'whole.db'}") as whole:
        whole.append(incoming(first_events() + more))
        assert incremental == without_runs(derived_state(whole), pruned_runs)
    store.rebuild()
    assert derived_state(store) == incremental


def test_a_pruned_run_that_comes_back_is_pruned_again_once(store: Store) -> None:
    sent = first_events()
    store.append(incoming(sent))
    store.prune(T)
    with store.engine.connect() as conn:
        gone_ids = set(conn.scalars(sa.select(events.c.id)))
    old = next(e for e in run_events(150, seed=3) if e["eventType"] == "COMPLETE" and e["eventTime"] < "2026-03-01T05")
    back = json.loads(json.dumps(old))
    back["eventTime"] = back["eventTime"].replace(":00Z", ":30Z")  # a late copy: another event of the pruned run
    store.append(incoming([back]))
    assert gone_ids  # (the log still holds the newer half)
    again = store.prune(T)
    assert again.runs == 1 and again.events == 1
    with store.engine.connect() as conn:
        samples = [
            json.loads(d)["runId"]
            for d in conn.scalars(sa.select(observations.c.data).where(observations.c.role == "jobrun"))
        ]
    assert samples.count(old["run"]["runId"]) == 1
    state = derived_state(store)
    store.rebuild()
    assert derived_state(store) == state


def test_as_of_before_the_horizon_answers_history_pruned(store: Store) -> None:
    store.append(incoming(first_events()))
    node = "dataset:deploy:table_9"
    store.prune(T)
    with pytest.raises(HistoryPruned):
        store.check_as_of(T - timedelta(seconds=1))
    store.check_as_of(T)
    app = create_app(load_settings({}, environ={}), store)
    with TestClient(app) as client:
        before = (T - timedelta(minutes=1)).isoformat().replace("+00:00", "Z")
        after = (T + timedelta(hours=1)).isoformat().replace("+00:00", "Z")
        for path, params in (
            ("/api/v1/graph/lineage", {"nodeId": node, "at": before}),
            ("/api/v1/graph/node", {"nodeId": node, "at": before}),
            ("/api/v1/graph/impact", {"nodeId": node, "at": before}),
            ("/api/v1/graph/column-lineage", {"nodeId": "datasetField:deploy:table_9:id", "at": before}),
            ("/api/v1/graph/compare", {"nodeId": node, "from": before}),
        ):
            answer = client.get(path, params=params)
            assert answer.status_code == 410, (path, answer.text)
            error = answer.json()["error"]
            assert error["code"] == "history_pruned"
            assert "was pruned" in error["message"] and T.isoformat().replace("+00:00", "Z") in error["message"]
        assert client.get("/api/v1/graph/lineage", params={"nodeId": node, "at": after}).status_code == 200
        assert client.get("/api/v1/graph/lineage", params={"nodeId": node}).status_code == 200


def test_db_prune_command(store_url: str) -> None:
    with Store.open(store_url) as store:
        store.append(incoming(first_events()))
    result = CliRunner().invoke(db_command, ["prune", "--before", "2026-03-01T06:00:00Z", "--db", store_url])
    assert result.exit_code == 0, result.output
    assert "run(s) before 2026-03-01T06:00:00Z" in result.output
    bad = CliRunner().invoke(db_command, ["prune", "--before", "yesterday", "--db", store_url])
    assert bad.exit_code == 2 and "is not a time" in bad.output
    with Store.open(store_url) as store:
        assert store.pruned_before() == T
    status = CliRunner().invoke(db_command, ["status", "--db", store_url])
    assert "history pruned before 2026-03-01T06:00:00Z" in status.output


def test_rolling_window_prunes_at_start(store_url: str) -> None:
    with Store.open(store_url) as store:
        store.append(incoming(first_events()))  # March 2026 and older: outside a 1-day window today
    with Store.open(store_url, retention_days=1.0) as store:
        deadline = time.monotonic() + 60
        while store.pruned_before() is None:
            assert time.monotonic() < deadline, "the rolling window did not prune"
            time.sleep(0.1)
        with store.engine.connect() as conn:
            assert conn.scalar(sa.select(sa.func.count()).select_from(runs)) == 0
            assert conn.scalar(sa.select(sa.func.count()).select_from(events)) == 0
        assert store.caught_up()


def test_a_long_history_is_pruned_in_slices_to_the_same_end(store_url: str, tmp_path: Path) -> None:
    """Slices of 7 events (each its own transaction, the horizon moving forward) end where one prune does."""
    with Store.open(store_url) as sliced, Store.open(f"sqlite:///{tmp_path / 'one.db'}") as whole:
        for s in (sliced, whole):
            s.append(incoming(first_events()))
        many = sliced.prune(T, slice_events=7)
        one = whole.prune(T)
        assert (many.events, many.runs, many.job_samples, many.before) == (
            one.events,
            one.runs,
            one.job_samples,
            one.before,
        )
        assert derived_state(sliced) == derived_state(whole)
        index = sa.select(observations.c.node, observations.c.role, observations.c.time, observations.c.data)
        with sliced.engine.connect() as a, whole.engine.connect() as b:
            assert sorted(a.execute(index)) == sorted(b.execute(index))
        state = derived_state(sliced)
        sliced.rebuild()
        assert derived_state(sliced) == state


@pytest.mark.parametrize("raw", ["0", "-3", "soon", "inf"])
def test_a_bad_retention_window_fails_at_start_naming_the_setting(raw: str) -> None:
    from headwater.settings import SettingError

    with pytest.raises(SettingError, match="retention_days"):
        load_settings({}, environ={"HEADWATER_RETENTION_DAYS": raw})
    assert load_settings({}, environ={"HEADWATER_RETENTION_DAYS": "0.5"}).retention_days == "0.5"
