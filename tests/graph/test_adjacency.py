"""Lineage walked on the in-memory adjacency (graph/adjacency.py) with node shapes of now kept as bytes
(graph/fragments.py) answers the same JSON bytes as the store path, on SQLite and PostgreSQL.

- A small hand-built graph with a history change (a job swaps an input), a dropped dataset and a moment
  before both: the nodes, levels, edges and ``deleted`` flags are written here by hand, and the fast
  answer's JSON text equals the store path's.
- The fast path is current: events appended and projected are in the very next answer (the adjacency's
  watermark moved and it answered, not the store).
- At past moments after a drop, a re-creation and a job's changed inputs (some after the build: a refresh),
  which version is valid, ``deleted``, ``updatedAt`` and the latest run come from the records kept beside the
  adjacency (graph/asof.py): written here by hand, equal to the store path's, and asked again with the store's
  per-node queries made to fail.
- A job's run older than the 4 it keeps in memory is read from the store, after the build and after a refresh.
- A generated graph (bench/synthetic.py, re-runs after ``midpoint()``): every root, direction, depth,
  moment and option gives the store path's bytes.
- While events are ingested (a writer thread), answers from memory equal the store path's whenever both were
  read at one watermark, and all of them once the writer is done.
- What the adjacency keeps is out of the garbage collector's sight after its build and after refreshes have
  replaced arrays (a full collection walks every tracked object it sees, inside some answer).
- An outsider's answer hides the claimed source exactly as the store path hides it.
- Every comparison also checks the bytes the HTTP route sends, assembled from node shapes kept as bytes
  (graph/lineage_bytes.py): they are the store path's answer encoded, also while events are ingested.
- A server builds its adjacency when it starts and serves the same bytes as one with ``graph_adjacency=off``.
"""

from __future__ import annotations

import gc
import json
import random
import sys
import threading
import uuid
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
import pytest
from fastapi.testclient import TestClient

from headwater.api import create_app
from headwater.catalog import Catalog
from headwater.catalog.access import ADMIN as CATALOG_ADMIN
from headwater.client import StoreClient
from headwater.graph import ANONYMOUS, GraphReader, Viewer, fragments
from headwater.graph import adjacency as adjacency_module
from headwater.graph.adjacency import Adjacency
from headwater.graph.common import NodeNotFound
from headwater.graph.fragments import NowNodes, VersionShapes
from headwater.ingest import Door, Policy
from headwater.model.nodeid import NodeRef
from headwater.settings import load_settings
from headwater.spec import EventValidator
from headwater.store import IncomingEvent, Store
from headwater.store.watermark import projected_seq

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import synthetic

PRODUCER = "https://github.com/headwater-lineage/headwater/tests"
RUN_EVENT = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"
SCHEMA_FACET = "https://openlineage.io/spec/facets/1-1-0/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet"
LIFECYCLE_FACET = (
    "https://openlineage.io/spec/facets/1-0-1/LifecycleStateChangeDatasetFacet.json"
    "#/$defs/LifecycleStateChangeDatasetFacet"
)
T1 = datetime(2026, 3, 1, tzinfo=UTC)
T2 = T1 + timedelta(days=2)  # between the first runs and the changes
T3 = T1 + timedelta(days=4)  # job B reads `x` instead of `b`; `c` is dropped


def _ds(name: str, *, dropped: bool = False) -> dict[str, Any]:
    facets: dict[str, Any] = {
        "schema": {"_producer": PRODUCER, "_schemaURL": SCHEMA_FACET, "fields": [{"name": "id", "type": "int"}]}
    }
    if dropped:
        facets["lifecycleStateChange"] = {
            "_producer": PRODUCER,
            "_schemaURL": LIFECYCLE_FACET,
            "lifecycleStateChange": "DROP",
        }
    return {"namespace": "t", "name": name, "facets": facets}


def _event(job: str, when: datetime, inputs: list[dict[str, Any]], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "eventType": "COMPLETE",
        "eventTime": when.isoformat().replace("+00:00", "Z"),
        "producer": PRODUCER,
        "schemaURL": RUN_EVENT,
        "run": {"runId": str(uuid.uuid5(uuid.NAMESPACE_URL, job + str(when)))},
        "job": {"namespace": "t", "name": job, "facets": {}},
        "inputs": inputs,
        "outputs": outputs,
    }


def _send(store: Store, events: list[dict[str, Any]]) -> None:
    store.append([IncomingEvent(payload=e, raw=json.dumps(e)) for e in events])


def _readers(store: Store) -> tuple[GraphReader, GraphReader, Adjacency]:
    adjacency = Adjacency(store.engine)
    adjacency.build()
    return GraphReader(store), GraphReader(store, adjacency=adjacency), adjacency


def _same(slow: GraphReader, fast: GraphReader, node: NodeRef, **options: Any) -> dict[str, Any]:
    """The store path's answer equals the in-memory path's, and the bytes the HTTP route sends (assembled from
    kept byte fragments where the question allows: graph/lineage_bytes.py) are the store path's answer encoded."""
    expected = slow.lineage(node, **options)
    a = json.dumps(expected, ensure_ascii=False)
    b = json.dumps(fast.lineage(node, **options), ensure_ascii=False)
    assert a == b, (node, options)
    body = fast.lineage_json(node, **options)
    if not options.get("datasets_only") and not options.get("collapse_jobs"):
        assert isinstance(body, bytes), (node, options)  # assembled, not the dict path's answer
    assert (body if isinstance(body, bytes) else orjson.dumps(body)) == orjson.dumps(expected), (node, options)
    return dict(json.loads(b))


def _shape(answer: dict[str, Any]) -> tuple[dict[str, tuple[int, bool]], set[tuple[str, str, str]]]:
    nodes = {n["id"]: (n["level"], n["deleted"]) for n in answer["nodes"]}
    return nodes, {(e["source"], e["target"], e["type"]) for e in answer["edges"]}


A, B, C, X = "dataset:t:a", "dataset:t:b", "dataset:t:c", "dataset:t:x"
JA, JB = "job:t:make_b", "job:t:make_c"


def test_hand_built_graph_now_and_before_a_change_and_a_drop(store_url: str) -> None:
    store = Store.open(store_url)
    try:
        _send(
            store,
            [
                _event("make_b", T1, [_ds("a")], [_ds("b")]),
                _event("make_c", T1 + timedelta(hours=1), [_ds("b")], [_ds("c")]),
                _event("make_c", T3, [_ds("x")], [_ds("c", dropped=True)]),
            ],
        )
        slow, fast, adjacency = _readers(store)
        c = NodeRef("dataset", "t", "c")
        now = _same(slow, fast, c, direction="upstream", depth=5)
        assert _shape(now) == (
            {C: (0, True), JB: (-1, False), X: (-2, False)},
            {(X, JB, "INPUT"), (JB, C, "OUTPUT")},
        )
        before = _same(slow, fast, c, direction="upstream", depth=5, at=T2)
        assert _shape(before) == (
            {C: (0, False), JB: (-1, False), B: (-2, False), JA: (-3, False), A: (-4, False)},
            {(B, JB, "INPUT"), (JB, C, "OUTPUT"), (A, JA, "INPUT"), (JA, B, "OUTPUT")},
        )
        down = _same(slow, fast, NodeRef("dataset", "t", "a"), direction="downstream", depth=5)
        assert _shape(down) == ({A: (0, False), JA: (1, False), B: (2, False)}, {(A, JA, "INPUT"), (JA, B, "OUTPUT")})
        assert [n["hasMoreDownstream"] for n in down["nodes"]] == [False, False, False]  # b is read by no one now
        down_before = _same(slow, fast, NodeRef("dataset", "t", "a"), direction="downstream", depth=1, at=T2)
        assert {n["id"]: n["hasMoreDownstream"] for n in down_before["nodes"]} == {A: False, JA: True}
        _same(slow, fast, NodeRef("dataset", "t", "b"), direction="both", depth=3, datasets_only=True, at=T2)
        _same(slow, fast, NodeRef("job", "t", "make_c"), direction="both", depth=3, datasets_only=True)
        snapshot = adjacency.snapshot
        assert snapshot is not None
        assert snapshot.counts() == (6, 5)  # a, b, c, x and two jobs; make_c's b edge is closed, not gone
    finally:
        store.close()


T4 = T1 + timedelta(days=5)  # after the drop of `c`
T5 = T1 + timedelta(days=6)  # `c` written again: re-created
T6 = T1 + timedelta(days=7)


def _run_id(job: str, when: datetime) -> str:
    """The run id :func:`_event` sends for ``job`` at ``when``."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, job + str(when)))


def test_past_answers_come_from_memory_after_a_drop_a_re_creation_and_changed_inputs(
    store_url: str, monkeypatch: Any
) -> None:
    """Which version is valid at a past moment, its updatedAt, deleted flag and the latest run then are read from
    the records kept beside the adjacency (graph/asof.py), also after a refresh: no per-node query."""
    from headwater.graph import pastshapes

    store = Store.open(store_url)
    try:
        _send(
            store,
            [
                _event("make_b", T1, [_ds("a")], [_ds("b")]),
                _event("make_c", T1 + timedelta(hours=1), [_ds("b")], [_ds("c")]),
                _event("make_c", T3, [_ds("x")], [_ds("c", dropped=True)]),  # inputs changed, `c` dropped
            ],
        )
        slow, fast, adjacency = _readers(store)
        c, x = NodeRef("dataset", "t", "c"), NodeRef("dataset", "t", "x")

        def nodes(answer: dict[str, Any]) -> dict[str, dict[str, Any]]:
            return {n["id"]: n for n in answer["nodes"]}

        def run_of(node: dict[str, Any]) -> tuple[str, str]:
            return node["latestRun"]["runId"], node["latestRun"]["state"]

        # before the change: make_c reads b; `c` exists; every node's updatedAt after T2 is cut to T2
        before = _same(slow, fast, c, direction="upstream", depth=5, at=T2)
        assert _shape(before) == (
            {C: (0, False), JB: (-1, False), B: (-2, False), JA: (-3, False), A: (-4, False)},
            {(B, JB, "INPUT"), (JB, C, "OUTPUT"), (A, JA, "INPUT"), (JA, B, "OUTPUT")},
        )
        found = nodes(before)
        assert run_of(found[JB]) == (_run_id("make_c", T1 + timedelta(hours=1)), "COMPLETE")
        assert run_of(found[JA]) == (_run_id("make_b", T1), "COMPLETE")
        assert found[C]["updatedAt"] == found[JB]["updatedAt"] == "2026-03-03T00:00:00Z"  # T2
        # after the drop: make_c reads x, `c` is deleted, make_c's latest run is the one that dropped it
        dropped = _same(slow, fast, x, direction="downstream", depth=3, at=T4)
        assert _shape(dropped) == ({X: (0, False), JB: (1, False), C: (2, True)}, {(X, JB, "INPUT"), (JB, C, "OUTPUT")})
        assert run_of(nodes(dropped)[JB]) == (_run_id("make_c", T3), "COMPLETE")
        assert nodes(dropped)[C]["updatedAt"] == "2026-03-05T00:00:00Z"  # T3: its last update, before T4

        _send(store, [_event("make_c", T5, [_ds("x")], [_ds("c")])])  # `c` re-created, after the build
        again = _same(slow, fast, x, direction="downstream", depth=3, at=T6)
        assert _shape(again) == ({X: (0, False), JB: (1, False), C: (2, False)}, {(X, JB, "INPUT"), (JB, C, "OUTPUT")})
        assert run_of(nodes(again)[JB]) == (_run_id("make_c", T5), "COMPLETE")
        assert nodes(again)[C]["updatedAt"] == nodes(again)[JB]["updatedAt"] == "2026-03-07T00:00:00Z"  # T5
        dropped = _same(slow, fast, x, direction="downstream", depth=3, at=T4)
        assert _shape(dropped)[0] == {X: (0, False), JB: (1, False), C: (2, True)}  # history
        # updated again at T5 (after T4): every node's updatedAt at T4 is now cut to T4
        assert {n["updatedAt"] for n in dropped["nodes"]} == {"2026-03-06T00:00:00Z"}
        assert _same(slow, fast, c, direction="upstream", depth=5, at=T2) == before
        snapshot = adjacency.snapshot
        assert snapshot is not None and snapshot.seq == 4  # refreshed: the records of c and make_c read again
        assert all(snapshot.record(snapshot.num[i]) is not None for i in (A, B, C, X, JA, JB))

        def no_query(*args: Any, **kwargs: Any) -> Any:
            raise AssertionError("a past answer read the store per node")

        # asked again: the version-bound parts are kept (those of c and make_c again since they were read again),
        # all the rest comes from the records
        monkeypatch.setattr(pastshapes, "node_rows", no_query)
        monkeypatch.setattr(pastshapes, "latest_runs", no_query)
        for node, options, expected in (
            (c, {"direction": "upstream", "depth": 5, "at": T2}, before),
            (x, {"direction": "downstream", "depth": 3, "at": T4}, dropped),
            (x, {"direction": "downstream", "depth": 3, "at": T6}, again),
        ):
            assert orjson.loads(fast.lineage_json(node, **options)) == expected  # type: ignore[arg-type]
    finally:
        store.close()


def test_a_past_latest_run_older_than_the_kept_runs_is_read_from_the_store(store_url: str) -> None:
    """A job keeps its 4 latest runs in memory (graph/asof.py): at a moment before them its latest run then is
    read from the store; both give the run written here by hand, after the build and after a refresh."""
    store = Store.open(store_url)
    try:
        hour = timedelta(hours=1)
        _send(store, [_event("make_b", T1 + k * hour, [_ds("a")], [_ds("b")]) for k in range(6)])  # six runs
        slow, fast, adjacency = _readers(store)
        b = NodeRef("dataset", "t", "b")

        def latest(at: datetime) -> str:
            answer = _same(slow, fast, b, direction="upstream", depth=1, at=at)
            return next(n["latestRun"]["runId"] for n in answer["nodes"] if n["id"] == JA)

        assert latest(T1 + 1.5 * hour) == _run_id("make_b", T1 + hour)  # older than the 4 kept: the store's
        assert latest(T1 + 5.5 * hour) == _run_id("make_b", T1 + 5 * hour)  # a kept one
        _send(store, [_event("make_b", T1 + 6 * hour, [_ds("a")], [_ds("b")])])  # a seventh, after the build
        assert latest(T1 + 2.5 * hour) == _run_id("make_b", T1 + 2 * hour)  # now older than the kept ones too
        assert latest(T1 + 3.5 * hour) == _run_id("make_b", T1 + 3 * hour)  # the oldest kept
        assert latest(T1 + 9 * hour) == _run_id("make_b", T1 + 6 * hour)
        assert adjacency.snapshot is not None and adjacency.snapshot.seq == 7  # answered from the refreshed records
    finally:
        store.close()


def test_an_answer_right_after_projection_holds_the_new_events(store_url: str) -> None:
    store = Store.open(store_url)
    try:
        _send(store, [_event("make_b", T1, [_ds("a")], [_ds("b")])])
        slow, fast, adjacency = _readers(store)
        b = NodeRef("dataset", "t", "b")
        assert _shape(_same(slow, fast, b, direction="downstream", depth=3))[0] == {B: (0, False)}
        _send(store, [_event("make_c", T1 + timedelta(hours=1), [_ds("b")], [_ds("c")])])
        # the read barrier waits for the projector; the next answer holds the new job, from memory
        assert _shape(_same(slow, fast, b, direction="downstream", depth=3)) == (
            {B: (0, False), JB: (1, False), C: (2, False)},
            {(B, JB, "INPUT"), (JB, C, "OUTPUT")},
        )
        snapshot = adjacency.snapshot
        with store.read_connection() as conn:
            assert snapshot is not None and snapshot.seq == projected_seq(conn) == 2
        # a job's input swapped and its output dropped: the old edge closes (gone now, there before), and the
        # shape of `c` kept from the answer above is not given out again
        _send(store, [_event("make_c", T3, [_ds("x")], [_ds("c", dropped=True)])])
        assert _shape(_same(slow, fast, b, direction="downstream", depth=3))[0] == {B: (0, False)}
        assert _shape(_same(slow, fast, b, direction="downstream", depth=3, at=T2))[0] == {
            B: (0, False),
            JB: (1, False),
            C: (2, False),
        }
        assert _shape(_same(slow, fast, NodeRef("dataset", "t", "x"), direction="downstream", depth=3))[0] == {
            X: (0, False),
            JB: (1, False),
            C: (2, True),
        }
        assert adjacency.snapshot is not None and adjacency.snapshot.seq == 3
    finally:
        store.close()


def test_a_generated_graph_answers_the_store_paths_bytes(store_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fragments, "TRAIN_AFTER", 100)  # the shapes of now held compressed, as in a big graph
    monkeypatch.setattr(fragments, "VERSIONS_TRAIN_AFTER", 100)  # and the version-bound parts of past shapes
    shape = synthetic.Shape(jobs=160, layers=12, seed=7)
    store = Store.open(store_url)
    try:
        _send(store, list(synthetic.events(shape)))
        slow, fast, adjacency = _readers(store)
        past = synthetic.midpoint()
        names: Callable[[int], str] = synthetic.dataset_name
        roots = [NodeRef("dataset", "s3://bench", names(i)) for i in range(0, shape.datasets, shape.datasets // 8)]
        roots.append(NodeRef("job", "bench", f"job_{shape.jobs // 2:07d}"))  # as bench/synthetic.py names jobs
        compared = cut = 0
        for root in roots:
            for at in (None, past):
                for direction, depth in (("upstream", 20), ("downstream", 20), ("both", 3)):
                    _same(slow, fast, root, direction=direction, depth=depth, at=at, max_nodes=5000)
                    compared += 1
                _same(slow, fast, root, direction="both", depth=4, at=at, datasets_only=True)
                # cut: which nodes are kept depends on the order of the walk (ids, hop by hop)
                for direction, cap in (("upstream", 40), ("downstream", 25), ("both", 60)):
                    cut += _same(slow, fast, root, direction=direction, depth=20, at=at, max_nodes=cap)["truncated"]
                _same(slow, fast, root, direction="both", depth=2, at=at, columns=True)
        assert compared == len(roots) * 6
        assert cut >= len(roots)  # the caps do cut answers (else the lines above would test only uncut walks)
        assert adjacency.now_nodes.compressed  # the answers kept shapes of now: over 100, so compressed since
        assert adjacency.past_nodes.compressed  # past answers kept over 100 versions' parts
        # asked again: the shapes kept as bytes (of now, and of past versions) give the same answers
        for root in roots[:3]:
            for at in (None, past):
                _same(slow, fast, root, direction="upstream", depth=20, at=at, max_nodes=5000)
        # built on the whole graph (above, the build may have met part of it): what the build keeps for past
        # answers (every job's heads, ended runs' summaries and whole shape) gives the same answers
        assert store.caught_up()
        slow, fast, adjacency = _readers(store)
        for root in roots:
            for direction in ("upstream", "downstream"):
                _same(slow, fast, root, direction=direction, depth=20, at=past, max_nodes=5000)
    finally:
        store.close()


def _answer(reader: GraphReader, node: NodeRef, options: dict[str, Any]) -> bytes:
    """The JSON bytes the route sends (assembled from kept fragments when ``reader`` has an adjacency)."""
    try:
        body = reader.lineage_json(node, **options)
        return body if isinstance(body, bytes) else orjson.dumps(body)
    except NodeNotFound as exc:  # a root not there (yet, or at that moment): both paths must say so
        return f"not found: {exc}".encode()


@pytest.mark.parametrize("projector", ["thread", "process"])  # process: it learns of another process's steps
def test_answers_during_ingest_equal_the_store_paths(store_url: str, projector: str) -> None:
    shape = synthetic.Shape(jobs=60, layers=8, seed=3)
    events = list(synthetic.events(shape))
    first = len(events) // 2
    if projector == "process" and not store_url.startswith("sqlite"):
        pytest.skip(
            "once is enough (CI time): the projector process on PostgreSQL is tests/store/test_projector_process.py"
        )
    store = Store.open(store_url, projector=projector)
    try:
        _send(store, events[:first])
        slow, fast, adjacency = _readers(store)

        asked = threading.Semaphore(0)  # released after each question: the writer sends one batch per two

        def ingest() -> None:  # the second half in small batches, as producers send them, between questions
            for start in range(first, len(events), 4):
                _send(store, events[start : start + 4])
                asked.acquire(timeout=30)
                asked.acquire(timeout=30)

        writer = threading.Thread(target=ingest)
        writer.start()
        rng = random.Random(11)
        past = synthetic.midpoint()

        def compare_one() -> bool:
            """One random question on both paths; True when both were read at one watermark (and so compared)."""
            root = NodeRef("dataset", "s3://bench", synthetic.dataset_name(rng.randrange(shape.datasets)))
            options = {"direction": rng.choice(("upstream", "downstream", "both")), "depth": rng.choice((3, 20))}
            options["at"] = rng.choice((None, past))
            with store.read_connection() as conn:
                before = projected_seq(conn)
            a, b = _answer(fast, root, options), _answer(slow, root, options)
            asked.release()
            with store.read_connection() as conn:
                if projected_seq(conn) != before:
                    return False
            assert a == b, (root, options, before)
            return True

        compared = moved = 0
        while writer.is_alive() and compared + moved < 200:
            if compare_one():
                compared += 1
            else:
                moved += 1
        writer.join()
        assert compared >= 8  # answers compared between batches, while the projector derived them
        for _ in range(10):  # ingest done: every answer compares
            assert compare_one()
        snapshot = adjacency.snapshot
        with store.read_connection() as conn:
            assert snapshot is not None and snapshot.seq == projected_seq(conn)  # memory answered, up to date
    finally:
        store.close()


def test_the_kept_edges_are_out_of_the_collectors_sight(sqlite_url: str, monkeypatch: Any) -> None:
    store = Store.open(sqlite_url)
    try:
        _send(store, [_event("make_b", T1, [_ds("a")], [_ds("b")])])
        slow, fast, adjacency = _readers(store)  # the first build in this process froze the heap, or an earlier one

        def seen_by_collector() -> int:
            """The adjacency's arrays among the objects a full collection would walk now."""
            snapshot = adjacency.snapshot
            assert snapshot is not None
            kept = {id(a) for a in snapshot.adj if a is not None}
            return sum(1 for o in gc.get_objects() if id(o) in kept)

        _same(slow, fast, NodeRef("dataset", "t", "a"), direction="downstream", depth=5)  # projected, read
        assert adjacency.snapshot is not None and len([a for a in adjacency.snapshot.adj if a]) == 3
        gc.freeze()  # as the build does in a server (here an earlier test's build may have been the first)
        assert seen_by_collector() == 0
        monkeypatch.setattr(adjacency_module, "_REFREEZE_AFTER", 1)  # every refresh freezes again
        _send(store, [_event("make_c", T2, [_ds("b")], [_ds("c")])])
        _same(slow, fast, NodeRef("dataset", "t", "a"), direction="downstream", depth=5)  # refreshes: new arrays
        assert adjacency.snapshot is not None and adjacency.snapshot.made == 3  # make_c, b and c: new arrays
        assert seen_by_collector() == 0
        monkeypatch.setattr(adjacency_module, "_REFREEZE_AFTER", 10**9)  # never: the new arrays stay in sight
        _send(store, [_event("make_d", T3, [_ds("c")], [_ds("d")])])
        _same(slow, fast, NodeRef("dataset", "t", "a"), direction="downstream", depth=5)
        assert seen_by_collector() == 3  # make_d, c and d
    finally:
        store.close()


def test_an_outsider_sees_what_the_store_path_shows_it(store_url: str) -> None:
    store = Store.open(store_url)
    try:
        claimed = _event("load_src", T1, [], [_ds("src")])
        StoreClient(store).send([claimed, _event("use_src", T1 + timedelta(hours=1), [_ds("src")], [_ds("out")])])
        slow, fast, _ = _readers(store)
        catalog = Catalog(store, slow, Door(Policy(), EventValidator()))
        catalog.organisation.create_domain(CATALOG_ADMIN, "dom", "", "")
        catalog.organisation.create_project(CATALOG_ADMIN, "p", "dom", "", "")
        catalog.source_runs.claim_outputs(CATALOG_ADMIN.with_context("p"), "p", [claimed])
        store.catch_up()
        out = NodeRef("dataset", "t", "out")
        outsider = _same(slow.viewing(ANONYMOUS), fast.viewing(ANONYMOUS), out, direction="upstream", depth=5)
        assert "dataset:t:src" not in json.dumps(outsider)
        # the claimed source, the job writing it and the job reading it (it touches a hidden dataset) are restricted
        assert [(n["type"], n["level"]) for n in outsider["nodes"]] == [
            ("RESTRICTED", -3),
            ("RESTRICTED", -2),
            ("RESTRICTED", -1),
            ("DATASET", 0),
        ]
        member = Viewer(projects=frozenset({"p"}))
        inside = _same(slow.viewing(member), fast.viewing(member), out, direction="upstream", depth=5)
        assert [n["id"] for n in inside["nodes"]] == [
            "job:t:load_src",
            "dataset:t:src",
            "job:t:use_src",
            "dataset:t:out",
        ]
    finally:
        store.close()


def test_kept_shapes_of_now_are_only_those_their_bytes_give_back() -> None:
    def node(name: str, fields: Any, run: Any = None) -> Any:
        return {"id": f"dataset:t:{name}", "type": "DATASET", "fields": fields, "latestRun": run, "deleted": False}

    shared = [{"name": "x", "type": "double", "default": float("nan")}]  # written as null: not given back
    nodes = {
        "plain": node("plain", [{"name": "a", "type": "int", "min": 0.5, "max": 2**63 - 1, "tags": ["k"]}]),
        "nan1": node("nan1", shared),
        "nan2": node("nan2", shared),
        "inf": node("inf", [], {"runId": "r", "took": float("inf")}),
        "tuple": node("tuple", [("a", "int")]),  # would come back a list
        "huge": node("huge", [{"name": "a", "max": 2**64}]),  # beyond 64 bits: orjson refuses it
    }
    kept = NowNodes()
    kept.advance((), 7)
    encoded = kept.put(nodes, 7)
    assert encoded == {"plain": orjson.dumps(nodes["plain"])}  # the bytes the answers are assembled from
    found, missing = kept.get_many(["plain", "nan1", "nan2", "inf", "tuple", "huge", "other"], 7)
    assert found == {"plain": nodes["plain"]}
    assert missing == ["nan1", "nan2", "inf", "tuple", "huge", "other"]
    assert kept.get_many(["plain"], 6) == ({}, ["plain"])  # a reader on another watermark reads the store

    many = VersionShapes(train_after=50)  # compressed once 50 are held: each gives back its exact bytes
    parts = {
        k: b'{"id":"dataset:s3://lake:t%05d","type":"DATASET","fields":[{"name":"c%d"' % (k, k % 7) for k in range(80)
    }
    many.put(dict(list(parts.items())[:60]))
    many.put(dict(list(parts.items())[60:]))
    assert many.compressed and many.held_bytes < sum(map(len, parts.values()))
    assert [many.get(k) for k in parts] == list(parts.values()) and many.get(999) is None

    versions = VersionShapes(limit=2)  # past shapes' version-bound parts: the oldest go first
    versions.put({"v1": b'{"id":"a"'})
    versions.put({"v2": b'{"id":"b"', "v3": b'{"id":"c"'})
    assert (versions.get("v1"), versions.get("v2"), versions.get("v3")) == (None, b'{"id":"b"', b'{"id":"c"')


def test_shapes_of_now_held_compressed_give_back_their_exact_bytes() -> None:
    def node(i: int) -> Any:
        columns = [{"name": f"c{k}", "type": "string" if k % 2 else "bigint", "description": None} for k in range(6)]
        return {"id": f"dataset:s3://lake:sales/t{i:05d}", "type": "DATASET", "namespace": "s3://lake",
                "name": f"sales/t{i:05d}", "fields": columns, "latestRun": None, "updatedAt": f"2026-11-{i % 28 + 1:02d}",
                "deleted": False}  # fmt: skip

    first = {f"n{i}": node(i) for i in range(300)}
    kept = NowNodes(train_after=100)
    kept.advance((), 1)
    kept.put(first, 1)
    assert kept.compressed and len(kept) == 300
    raw = sum(len(orjson.dumps(n)) for n in first.values())
    assert kept.held_bytes * 3 < raw  # what holding all of a big graph's shapes rests on
    later = {f"n{i}": node(i) for i in range(300, 340)}  # kept after the dictionary: compressed as they come
    kept.put(later, 1)
    everything = first | later
    found, missing = kept.get_many_bytes([*everything, "absent"], 1)
    assert missing == ["absent"]
    assert found == {k: orjson.dumps(n) for k, n in everything.items()}
    assert kept.get("n7", 1) == node(7)

    other: dict[str, bytes] = {}  # another thread (its own decompressor) reads the same bytes
    reader = threading.Thread(target=lambda: other.update(kept.get_many_bytes(list(everything), 1)[0]))
    reader.start()
    reader.join()
    assert other == found

    kept.advance({"n1", "n301"}, 2)  # observed again: forgotten; the rest is held for the new watermark
    found2, missing2 = kept.get_many_bytes(["n1", "n2", "n301", "n302"], 2)
    assert missing2 == ["n1", "n301"] and found2 == {"n2": orjson.dumps(node(2)), "n302": orjson.dumps(node(302))}

    few = NowNodes(limit=100, train_after=100)  # the newest within the limit, compressed or not
    few.advance((), 1)
    few.put(everything, 1)
    assert len(few) == 100 and few.get_many_bytes(["n339"], 1)[0] == {"n339": orjson.dumps(node(339))}


def test_a_server_builds_its_adjacency_at_start_and_the_setting_turns_it_off(sqlite_url: str) -> None:
    store = Store.open(sqlite_url)
    try:
        _send(store, [_event("make_b", T1, [_ds("a")], [_ds("b")]), _event("make_c", T2, [_ds("b")], [_ds("c")])])
        off = create_app(load_settings({"graph_adjacency": "off"}, environ={}), store)
        assert off.state.headwater.adjacency is None
        app = create_app(load_settings({"graph_adjacency": "on"}, environ={}), store)
        adjacency = app.state.headwater.adjacency
        assert adjacency is not None and adjacency.snapshot is None  # built when the server starts
        params = {"nodeId": C, "direction": "upstream", "depth": "5"}
        with TestClient(app, base_url="http://localhost") as http:
            assert adjacency.wait(60)
            _send(store, [_event("make_b", T3, [_ds("x")], [_ds("b")])])  # after the build: a refresh
            served = http.get("/api/v1/graph/lineage", params=params)
            assert served.status_code == 200
            with TestClient(off, base_url="http://localhost") as plain:
                assert served.content == plain.get("/api/v1/graph/lineage", params=params).content
        assert _shape(served.json())[0] == {
            C: (0, False),
            JB: (-1, False),
            B: (-2, False),
            JA: (-3, False),
            X: (-4, False),
        }
        assert adjacency.snapshot is None  # closed with the app
    finally:
        store.close()


def test_the_build_keeps_every_jobs_past_parts_within_half_the_bound(sqlite_url: str) -> None:
    store = Store.open(sqlite_url)
    try:
        _send(store, list(synthetic.events(synthetic.Shape(jobs=40, layers=6, seed=3))))
        store.catch_up()

        def kept_by_build(limit: int) -> int:
            adjacency = Adjacency(store.engine)
            adjacency.past_nodes = fragments.VersionShapes(limit=limit)
            adjacency.build()
            try:
                return len(adjacency.past_nodes)
            finally:
                adjacency.close()

        every = kept_by_build(10**6)
        assert every >= 40 * 3  # each job: its version's head, its ended run's summary, its whole shape
        assert kept_by_build(2 * every) == every  # all of it fits in half the bound: all kept
        assert kept_by_build(every) < every  # half the bound is less: the rest is left to the answers
    finally:
        store.close()


def test_a_nodes_edges_valid_now_and_at_a_moment_are_read_from_its_array() -> None:
    from array import array

    from headwater.graph.adjacency import OPEN, Snapshot, pack
    from headwater.graph.walk import Edges

    # node 0, a job, its edges (other end, valid from, valid to): reads 1 (10, open) and 2 (10, 20); writes 3
    # (10, open), 4 (5, 15) and 5 (20, open). Its array: the head (2 upstream, 5 in all, OPEN: not every edge
    # open), the ends (upstream first), their valid_from, their valid_to
    job = array("q", [2, 5, OPEN, 1, 2, 3, 4, 5, 10, 10, 10, 5, 20, OPEN, 20, OPEN, 15, OPEN])
    assert pack([1, 10, OPEN, 2, 10, 20], [3, 10, OPEN, 4, 5, 15, 5, 20, OPEN]) == job
    # node 6, a dataset written by 1 (valid from 10) and read by 2 (from 12): every edge valid now, the latest
    # valid_from in the head
    only_open = array("q", [1, 2, 12, 1, 2, 10, 12, OPEN, OPEN])
    assert pack([1, 10, OPEN], [2, 12, OPEN]) == only_open
    assert pack([], []) is None
    names = ["job:n:j", "d1", "d2", "d3", "d4", "d5", "dataset:n:x"]
    snap = Snapshot({n: i for i, n in enumerate(names)}, names, [job, *[None] * 5, only_open], 1)
    # a job's ends: (upstream = its INPUTs, downstream = its OUTPUTs)
    assert _lists(Edges(snap, None).ends(0)) == ([1], [3, 5])  # now: the edges not closed
    assert _lists(Edges(snap, 12).ends(0)) == ([1, 2], [3, 4])  # from <= t < to
    assert _lists(Edges(snap, 20).ends(0)) == ([1], [3, 5])  # valid to is exclusive, valid from inclusive
    assert _lists(Edges(snap, 4).ends(0)) == ([], [])
    # a dataset's ends: (upstream = the jobs writing it, OUTPUT edges; downstream = the jobs reading it, INPUT)
    assert _lists(Edges(snap, None).ends(6)) == ([1], [2])
    assert _lists(Edges(snap, 12).ends(6)) == ([1], [2])  # every edge begun by then: the head says so
    assert _lists(Edges(snap, 11).ends(6)) == ([1], [])
    assert _lists(Edges(snap, 9).ends(6)) == ([], [])
    assert _lists(Edges(snap, None).ends(1)) == ([], [])  # no array: no edges
    # what the store path reads of a node (graph/traverse.py): (the other end, INPUT 0 / OUTPUT 1)
    assert snap.incident("job:n:j", None) == [("d1", 0), ("d3", 1), ("d5", 1)]
    assert snap.incident("job:n:j", 12) == [("d1", 0), ("d2", 0), ("d3", 1), ("d4", 1)]
    assert snap.incident("dataset:n:x", 11) == [("d1", 1)]


def _lists(ends: tuple[Sequence[int], Sequence[int]]) -> tuple[list[int], list[int]]:
    return list(ends[0]), list(ends[1])
