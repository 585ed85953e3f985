"""Stateful property tests of the store (Hypothesis), on SQLite and PostgreSQL.

A state machine ingests events from a pool — a random small pipeline (3 jobs over 5 datasets: random
schemas, docs, column lineage, event types and times, often equal; DatasetEvents DROP/CREATE and
JobEvents) or the HR payroll story — in any order, in batches of any size, with duplicates (resent
events and the same event twice in one batch), and rebuilds the graph at any point. It checks:

- every append answers ``duplicate`` exactly for the events the log already held (or that came
  earlier in the same batch);
- the graph derived incrementally equals the graph of a fresh store that got the same distinct events
  in one chronological batch (arrival order changes nothing: fast and full paths of the projector); the
  events reach the first store through the ingest door (its fast path, and the parsed events handed to the
  projector), the fresh one as texts the projector parses;
- ``rebuild`` gives exactly the incremental graph, and ingesting after a rebuild goes on as before.

Every example uses new, empty databases (SQLite files; PostgreSQL databases created and dropped).
Examples are derandomized under CI (``CI`` set): the same examples every run, so a CI failure
reproduces locally with ``CI=1``. Locally they are random. Either way a failure prints the shrunk steps
(pool seed, batches, rebuilds) and a ``@reproduce_failure`` blob; no example database is written.
"""

from __future__ import annotations

import os
import random
import shutil
import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test

from databases import pg_database, sqlite_store_file
from fixtures.stories.load import COMP, EA, J2, derived_state, fid, incoming, story
from headwater.graph import GraphReader, NodeNotFound
from headwater.ingest import Door, Policy
from headwater.model.nodeid import parse_node_id
from headwater.spec import EventValidator
from headwater.store import IncomingEvent, Store
from headwater.store.canonical import event_id

P = "https://example.com/fuzz"
DOOR = Door(Policy(), EventValidator())


def f(**b: Any) -> dict[str, Any]:
    return {"_producer": P, "_schemaURL": P + "/s.json", **b}


def gen(rng: random.Random) -> list[dict[str, Any]]:
    """3-12 runs of 3 jobs over 5 datasets (random schemas, docs, column lineage, event types and
    times, often equal), a few DatasetEvents (DROP/CREATE) and JobEvents (some sending only facets or only one of
    inputs and outputs, some deleting a facet)."""
    evs: list[dict[str, Any]] = []
    ds = [f"/d{i}" for i in range(5)]
    for _ in range(rng.randint(3, 12)):
        job = f"j{rng.randint(0, 2)}"
        run = str(uuid.UUID(int=rng.getrandbits(128)))
        t0 = rng.randint(0, 50)
        ins = rng.sample(ds, rng.randint(0, 2))
        outs = rng.sample(ds, rng.randint(0, 2))

        def d(n: str, cl: bool = False, ins: list[str] = ins) -> dict[str, Any]:
            facets: dict[str, Any] = {}
            if rng.random() < 0.6:
                facets["schema"] = f(
                    fields=[
                        {"name": c, "type": rng.choice(["int", "string"])} for c in rng.sample("abc", rng.randint(1, 3))
                    ]
                )
            if rng.random() < 0.3:
                facets["documentation"] = f(description=rng.choice(["x", "y"]))
            if cl and ins and rng.random() < 0.7:
                facets["columnLineage"] = f(
                    fields={
                        "a": {
                            "inputFields": [
                                {
                                    "namespace": "file",
                                    "name": rng.choice(ins),
                                    "field": rng.choice("abc"),
                                    "transformations": [{"type": rng.choice(["DIRECT", "INDIRECT"])}],
                                }
                            ]
                        }
                    }
                )
            return {"namespace": "file", "name": n, "facets": facets}

        sql = rng.choice(["q1", "q2"])
        for et in rng.sample(["START", "RUNNING", "COMPLETE"], rng.randint(1, 3)):
            evs.append(
                {
                    "eventType": et,
                    "eventTime": f"2026-01-01T00:{t0 + rng.randint(0, 3):02d}:00Z",
                    "producer": P,
                    "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
                    "run": {"runId": run},
                    "job": {"namespace": "ns", "name": job, "facets": {"sql": f(query=sql)}},
                    "inputs": [d(n) for n in ins if rng.random() < 0.8],
                    "outputs": [d(n, True) for n in outs if rng.random() < 0.8],
                }
            )
    for _ in range(rng.randint(0, 3)):
        evs.append(
            {
                "eventTime": f"2026-01-01T00:{rng.randint(0, 55):02d}:00Z",
                "producer": P,
                "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/DatasetEvent",
                "dataset": {
                    "namespace": "file",
                    "name": rng.choice(ds),
                    "facets": {"lifecycleStateChange": f(lifecycleStateChange=rng.choice(["DROP", "CREATE"]))},
                },
            }
        )
    for _ in range(rng.randint(0, 3)):
        # static metadata: what a JobEvent leaves out (inputs, outputs, facets) is the job's before it
        job_event: dict[str, Any] = {
            "eventTime": f"2026-01-01T00:{rng.randint(0, 55):02d}:00Z",
            "producer": P,
            "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/JobEvent",
            "job": {
                "namespace": "ns",
                "name": f"j{rng.randint(0, 2)}",
                "facets": rng.choice(
                    [
                        {},
                        {"documentation": f(description=rng.choice(["x", "y"]))},
                        {"sql": f(query=rng.choice(["q1", "q3"]))},
                        {"sql": f(_deleted=True)},
                    ]
                ),
            },
        }
        if rng.random() < 0.6:
            job_event["inputs"] = [{"namespace": "file", "name": rng.choice(ds)}]
        if rng.random() < 0.5:
            job_event["outputs"] = rng.choice([[], [{"namespace": "file", "name": rng.choice(ds)}]])
        evs.append(job_event)
    return evs


def chronological(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(events, key=lambda e: (e["eventTime"], event_id(e)))


READS = [COMP, EA, J2, fid(COMP, "TotalCompensation"), "dataset:file:/d0", "job:ns:j1"]


def answers(store: Store) -> dict[str, Any]:
    """Graph answers over versions, edges, columns and runs (or the NodeNotFound message)."""
    g = GraphReader(store)
    out: dict[str, Any] = {}
    for node_id in READS:
        node = parse_node_id(node_id)
        for name in ("lineage", "history"):
            try:
                out[f"{name} {node_id}"] = (
                    g.lineage(node, depth=6, columns=True) if name == "lineage" else g.history(node)
                )
            except NodeNotFound as exc:
                out[f"{name} {node_id}"] = f"NodeNotFound: {exc}"
    return out


def machine(new_url: Callable[[ExitStack], str]) -> type[RuleBasedStateMachine]:
    class IngestAnyOrder(RuleBasedStateMachine):
        def __init__(self) -> None:
            super().__init__()
            self.cleanup = ExitStack()
            self.store = self.cleanup.enter_context(Store.open(new_url(self.cleanup)))
            self.pool: list[dict[str, Any]] = []
            self.ids: list[str] = []
            self.held: set[str] = set()

        @initialize(pool=st.one_of(st.just("hr_payroll story"), st.integers(0, 2**32 - 1)))
        def choose_pool(self, pool: str | int) -> None:
            self.pool = story() if isinstance(pool, str) else gen(random.Random(pool))
            self.ids = [event_id(e) for e in self.pool]

        @rule(data=st.data())
        def ingest_a_batch(self, data: st.DataObject) -> None:
            """Any events of the pool, new or already held, the same one possibly twice."""
            picks = data.draw(st.lists(st.integers(0, len(self.pool) - 1), min_size=1, max_size=6), label="batch")
            self._append(picks)

        @rule(data=st.data())
        def ingest_the_rest(self, data: st.DataObject) -> None:
            """Everything not held yet, in any order, in batches of any size."""
            rest = data.draw(
                st.permutations([i for i, eid in enumerate(self.ids) if eid not in self.held]), label="order"
            )
            while rest:
                size = data.draw(st.integers(1, 6), label="size")
                self._append(rest[:size])
                rest = rest[size:]

        @rule()
        def rebuild(self) -> None:
            before = derived_state(self.store)
            assert self.store.rebuild() == len(self.held)
            assert derived_state(self.store) == before, "rebuild differs from the incremental graph"

        def _append(self, picks: list[int]) -> None:
            # through the ingest door, as the server appends: the usual events take its fast path (ids from
            # their decoded parts, the parsed events handed to the projector); the reference store below gets
            # plain texts, so its graph is derived from parsing them
            accepted = DOOR.accept_events([self.pool[i] for i in picks])
            results = self.store.append([IncomingEvent.accepted(e) for e in accepted])
            expected, seen = [], set(self.held)
            for i in picks:
                expected.append(self.ids[i] in seen)
                seen.add(self.ids[i])
            assert [r.id for r in results] == [self.ids[i] for i in picks]
            assert [r.duplicate for r in results] == expected
            self.held = seen

        @invariant()
        def the_log_holds_each_event_once(self) -> None:
            if self.pool:
                listed, _ = self.store.list_events(limit=1000)
                assert sorted(e.id for e in listed) == sorted(self.held)

        def teardown(self) -> None:
            with self.cleanup:
                if not self.held:
                    return
                got_state, got_answers = derived_state(self.store), answers(self.store)
                held = [e for e, eid in zip(self.pool, self.ids) if eid in self.held]
                unique = list({event_id(e): e for e in held}.values())
                with Store.open(new_url(self.cleanup)) as reference:
                    reference.append(incoming(chronological(unique)))
                    assert got_state == derived_state(reference), "arrival order changed the graph"
                    assert got_answers == answers(reference)
                self.rebuild()

    return IngestAnyOrder


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def new_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[ExitStack], str]]:
    """A maker of new, empty (migrated) store URLs; each is deleted when the given ExitStack closes
    (copies of one migrated store: tests/databases.py)."""
    if request.param == "sqlite":

        def make_sqlite(cleanup: ExitStack) -> str:
            folder = tmp_path / uuid.uuid4().hex
            folder.mkdir()
            cleanup.callback(shutil.rmtree, folder, True)
            return f"sqlite:///{sqlite_store_file(folder)}"

        yield make_sqlite
        return
    server = request.getfixturevalue("pg_server_url")

    def make_pg(cleanup: ExitStack) -> str:
        return cleanup.enter_context(pg_database(server, "hw_fuzz", migrated=True))

    yield make_pg


CI = bool(os.environ.get("CI"))


def test_ingest_in_any_order_with_duplicates_and_rebuilds(
    new_url: Callable[[ExitStack], str], request: pytest.FixtureRequest
) -> None:
    examples = 25 if "sqlite" in request.node.callspec.id else 12  # a PostgreSQL example costs ~0.6 s in databases
    run_state_machine_as_test(
        machine(new_url),
        settings=settings(
            max_examples=examples,
            stateful_step_count=6,
            deadline=None,
            derandomize=CI,
            database=None,
            print_blob=True,
            suppress_health_check=[HealthCheck.too_slow],
        ),
    )
