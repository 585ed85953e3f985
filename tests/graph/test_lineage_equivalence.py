"""The lineage read against answers that do not come from it: on SQLite and PostgreSQL.

The graph: the HR payroll story, a synthetic layered graph (bench/synthetic.py, 400 jobs over 20 layers,
re-runs after ``midpoint()``) and a few hand-made events for the odd cases (a job reading and writing the same
dataset, a dataset with two producers, non-ASCII and control characters in names and fields, a run still
running).

- The odd cases have hand-written answers (nodes with their levels, edges).
- The synthetic graph is answered by a model written here from the OpenLineage semantics, over the events
  themselves (not the store): a job's inputs and outputs are those of its newest event at ``at=``; upstream of a
  dataset are the jobs writing it, upstream of a job the datasets it reads, and the reverse downstream; levels
  count hops, negative upstream. Every root, direction, depth and moment is compared with it (nodes, levels,
  edges).
- Properties every answer keeps, on the story and the synthetic roots: edges join nodes of the answer, levels
  stay within the depth, ``upstream`` and ``downstream`` together are the nodes of ``both``, a cut answer
  is part of the whole one and says it was cut, a datasets-only answer holds no job, the JSON is the same with
  sorted keys. (The story's own answers are hand-written in test_lineage.py and frozen, reviewed, in
  golden/lineage_hr_story.json.)
"""

from __future__ import annotations

import json
import sys
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from fixtures.stories.load import COMP, DAY1, DAY2, DAY3, EA, EMP, J1, J2, REP, RX, fid, incoming, story
from headwater.graph import lineage as fast
from headwater.graph.common import NodeNotFound
from headwater.model.nodeid import NodeRef, parse_node_id
from headwater.store import IncomingEvent, Store

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import synthetic

SHAPE = synthetic.Shape(jobs=400, layers=20, seed=5)
PRODUCER = "https://github.com/headwater-lineage/headwater/tests"
RUN_EVENT = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"
SCHEMA_FACET = "https://openlineage.io/spec/facets/1-1-0/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet"
ODD_TIME = synthetic.T0 + timedelta(days=10)
LOOP = "dataset:extra:loop"
UNICODE = "dataset:extra:ünïcode/表"


def _ds(name: str, ns: str = "extra", fields: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    facets = {} if fields is None else {"schema": {"_producer": PRODUCER, "_schemaURL": SCHEMA_FACET, "fields": fields}}
    return {"namespace": ns, "name": name, "facets": facets}


def _event(
    job: str, when: datetime, inputs: list[dict[str, Any]], outputs: list[dict[str, Any]], event_type: str = "COMPLETE"
) -> dict[str, Any]:
    return {
        "eventType": event_type,
        "eventTime": when.isoformat().replace("+00:00", "Z"),
        "producer": PRODUCER,
        "schemaURL": RUN_EVENT,
        "run": {"runId": str(uuid.uuid5(uuid.NAMESPACE_URL, job + str(when))), "facets": {}},
        "job": {"namespace": "extra", "name": job, "facets": {}},
        "inputs": inputs,
        "outputs": outputs,
    }


def odd_events() -> list[dict[str, Any]]:
    odd_fields = [
        {"name": 'naïve \u2028 "quoted"\t\u0001', "type": "string", "description": "ünï 表 \x7f"},
        {"name": "amount", "type": "decimal(10,2)"},
    ]
    middle = synthetic.dataset_name(SHAPE.sources + 200)
    return [
        _event(
            "cycle",
            ODD_TIME,
            [_ds("loop"), _ds(synthetic.dataset_name(3), "s3://bench")],
            [_ds("loop"), _ds("ünïcode/表", fields=odd_fields)],
        ),
        _event(
            "second_writer",
            ODD_TIME + timedelta(seconds=1),
            [_ds("ünïcode/表")],
            [_ds(middle, "s3://bench", [{"name": "col_00", "type": "string"}])],
        ),
        _event(
            "still_running",
            ODD_TIME + timedelta(seconds=2),
            [_ds(middle, "s3://bench")],
            [_ds("pending")],
            event_type="START",
        ),
    ]


@pytest.fixture(scope="module")
def store(new_store_url: Callable[[], str]) -> Iterator[Store]:
    s = Store.open(new_store_url())
    s.append(incoming(story()))
    s.append([IncomingEvent(e, json.dumps(e)) for e in synthetic.events(SHAPE)])
    s.append(incoming(odd_events()))
    wait = getattr(s, "caught_up", None)
    assert wait is None or wait(120)
    yield s
    s.close()


def _bench(i: int) -> str:
    return f"dataset:s3://bench:{synthetic.dataset_name(i)}"


STORY_MOMENTS = [None, DAY1, DAY2, DAY3]
BENCH_MOMENTS = [None, synthetic.midpoint(), synthetic.T0 + timedelta(seconds=250)]
ROOTS = [
    (root, BENCH_MOMENTS)
    for root in (
        _bench(0),
        _bench(5),
        _bench(SHAPE.sources + 30),
        _bench(SHAPE.sources + 200),
        _bench(SHAPE.sources + 500),
        _bench(SHAPE.datasets - 1),
        "job:bench:job_0000000",
        "job:bench:job_0000210",
        "job:bench:job_0000399",
        LOOP,
        UNICODE,
        "job:extra:cycle",
        "job:extra:still_running",
        "dataset:extra:pending",
        f"datasetField:s3://bench:{synthetic.dataset_name(9)}:col_01",
    )
] + [(root, STORY_MOMENTS) for root in (COMP, EA, EMP, REP, J1, J2, RX, fid(COMP, "Name"))]
BEFORE_ALL = datetime(2025, 1, 1, tzinfo=UTC)


def _answer(conn: Any, node: NodeRef, **kwargs: Any) -> dict[str, Any] | str:
    try:
        answer = fast.lineage(conn, node, **kwargs)
    except NodeNotFound as exc:
        return f"NodeNotFound: {exc}"
    text = json.dumps(answer, ensure_ascii=False)
    assert json.dumps(answer, sort_keys=True) == json.dumps(json.loads(text), sort_keys=True)
    return answer


def _levels(answer: dict[str, Any]) -> dict[str, int]:
    return {n["id"]: n["level"] for n in answer["nodes"]}


def _edges(answer: dict[str, Any]) -> set[tuple[str, str, str]]:
    return {(e["source"], e["target"], e["type"]) for e in answer["edges"]}


# --- the odd cases, by hand -------------------------------------------------------------------------------

MIDDLE = f"dataset:s3://bench:{synthetic.dataset_name(SHAPE.sources + 200)}"
THIRD = f"dataset:s3://bench:{synthetic.dataset_name(3)}"
CYCLE, SECOND, RUNNING, PENDING = (
    "job:extra:cycle",
    "job:extra:second_writer",
    "job:extra:still_running",
    "dataset:extra:pending",
)


def test_odd_cases_answer_as_written_by_hand(store: Store) -> None:
    with store.engine.connect() as conn:
        around = _answer(conn, parse_node_id(UNICODE), depth=1)
        assert isinstance(around, dict)
        assert _levels(around) == {UNICODE: 0, CYCLE: -1, SECOND: 1}
        assert _edges(around) == {(CYCLE, UNICODE, "OUTPUT"), (UNICODE, SECOND, "INPUT")}
        names = {n["id"]: n for n in around["nodes"]}
        assert [f["name"] for f in names[UNICODE]["fields"]] == ['naïve \u2028 "quoted"\t\u0001', "amount"]

        up = _answer(conn, parse_node_id(UNICODE), direction="upstream", depth=2)
        assert isinstance(up, dict)
        assert _levels(up) == {UNICODE: 0, CYCLE: -1, LOOP: -2, THIRD: -2}
        assert {(CYCLE, UNICODE, "OUTPUT"), (LOOP, CYCLE, "INPUT"), (THIRD, CYCLE, "INPUT")} <= _edges(up)

        # a dataset with two producers: the synthetic job and second_writer, both one hop upstream
        writers = _answer(conn, parse_node_id(MIDDLE), direction="upstream", depth=1)
        assert isinstance(writers, dict)
        assert {k for k, v in _levels(writers).items() if v == -1} == {SECOND, _writer_of(MIDDLE)}

        # a run that only started still draws its job's inputs and outputs
        running = _answer(conn, parse_node_id(RUNNING), depth=1)
        assert isinstance(running, dict)
        assert _levels(running) == {RUNNING: 0, MIDDLE: -1, PENDING: 1}
        assert _edges(running) == {(MIDDLE, RUNNING, "INPUT"), (RUNNING, PENDING, "OUTPUT")}

        # a job that reads and writes the same dataset: one hop away on both sides
        loop = _answer(conn, parse_node_id(LOOP), direction="downstream", depth=1)
        assert isinstance(loop, dict)
        assert _levels(loop) == {LOOP: 0, CYCLE: 1}
        loop_up = _answer(conn, parse_node_id(LOOP), direction="upstream", depth=1)
        assert isinstance(loop_up, dict)
        assert _levels(loop_up) == {LOOP: 0, CYCLE: -1}

        assert _answer(conn, parse_node_id(UNICODE), depth=2, at=BEFORE_ALL) == (
            f"NodeNotFound: {_answer_error(conn, UNICODE)}"
        )


def _answer_error(conn: Any, node_id: str) -> str:
    try:
        fast.lineage(conn, parse_node_id(node_id), at=BEFORE_ALL)
    except NodeNotFound as exc:
        assert node_id in str(exc)
        return str(exc)
    raise AssertionError(f"{node_id} was found before anything happened")


# --- the synthetic graph, by a model of the semantics ------------------------------------------------------


@dataclass
class Model:
    """Jobs' inputs and outputs as of a moment, from the events (the newest event of each job wins)."""

    inputs: dict[str, set[str]] = field(default_factory=dict)
    outputs: dict[str, set[str]] = field(default_factory=dict)
    readers: dict[str, set[str]] = field(default_factory=dict)  # dataset -> the jobs reading it
    writers: dict[str, set[str]] = field(default_factory=dict)  # dataset -> the jobs writing it

    @classmethod
    def of(cls, events: list[dict[str, Any]], at: datetime | None) -> Model:
        newest: dict[str, tuple[datetime, dict[str, Any]]] = {}
        for e in events:
            when = datetime.fromisoformat(e["eventTime"].replace("Z", "+00:00"))
            job = f"job:{e['job']['namespace']}:{e['job']['name']}"
            if (at is None or when <= at) and (job not in newest or newest[job][0] <= when):
                newest[job] = (when, e)
        model = cls()
        for job, (_, e) in newest.items():
            model.inputs[job] = {f"dataset:{d['namespace']}:{d['name']}" for d in e["inputs"]}
            model.outputs[job] = {f"dataset:{d['namespace']}:{d['name']}" for d in e["outputs"]}
            for ds in model.inputs[job]:
                model.readers.setdefault(ds, set()).add(job)
            for ds in model.outputs[job]:
                model.writers.setdefault(ds, set()).add(job)
        return model

    def exists(self, node: str) -> bool:
        return node in self.inputs or node in self.readers or node in self.writers

    def step(self, node: str, upstream: bool) -> list[tuple[str, tuple[str, str, str]]]:
        """The neighbours one hop away on one side, each with the edge between."""
        if node.startswith("job:"):
            if upstream:
                return [(d, (d, node, "INPUT")) for d in self.inputs.get(node, ())]
            return [(d, (node, d, "OUTPUT")) for d in self.outputs.get(node, ())]
        if upstream:
            return [(j, (j, node, "OUTPUT")) for j in self.writers.get(node, ())]
        return [(j, (node, j, "INPUT")) for j in self.readers.get(node, ())]

    def lineage(self, root: str, direction: str, depth: int) -> tuple[dict[str, int], set[tuple[str, str, str]]]:
        """Nodes with their levels, breadth first from ``root``; edges: every read and write between two of them."""
        levels: dict[str, int] = {root: 0}
        for upstream in (True, False):
            if direction == ("downstream" if upstream else "upstream"):
                continue
            sign, frontier = (-1 if upstream else 1), [root]
            for hop in range(1, depth + 1):
                found = []
                for node in frontier:
                    for other, _edge in self.step(node, upstream):
                        if other not in levels:
                            levels[other] = sign * hop
                            found.append(other)
                frontier = found
        edges = {
            edge
            for node in levels
            if node.startswith("job:")
            for side in (True, False)
            for other, edge in self.step(node, side)
            if other in levels
        }
        return levels, edges


def _writer_of(dataset: str) -> str:
    model = Model.of(list(synthetic.events(SHAPE)), None)
    (job,) = [j for j, outs in model.outputs.items() if dataset in outs]
    return job


SYNTHETIC_ROOTS = [root for root, moments in ROOTS if moments is BENCH_MOMENTS and not root.startswith("datasetField:")]


def test_synthetic_lineage_equals_the_model(store: Store) -> None:
    events = [*synthetic.events(SHAPE), *odd_events()]
    compared = 0
    with store.engine.connect() as conn:
        for at in BENCH_MOMENTS:
            model = Model.of(events, at)
            for root in SYNTHETIC_ROOTS:
                for direction in ("both", "upstream", "downstream"):
                    for depth in (1, 3, 20):
                        got = _answer(conn, parse_node_id(root), direction=direction, depth=depth, at=at)
                        if not model.exists(root):
                            assert isinstance(got, str) and got.startswith("NodeNotFound"), (root, at)
                            continue
                        assert isinstance(got, dict), (root, at, got)
                        levels, edges = model.lineage(root, direction, depth)
                        assert _levels(got) == levels, (root, direction, depth, at)
                        assert _edges(got) == edges, (root, direction, depth, at)
                        compared += 1
    assert compared > 100


# --- properties of every answer ----------------------------------------------------------------------------


def _check(answer: dict[str, Any], node: NodeRef, depth: int, what: Any) -> dict[str, int]:
    """The properties of one answer; its levels."""
    levels = _levels(answer)
    if node.type != "datasetField" and not answer.get("datasetsOnly"):  # (a column's answer is its dataset's)
        assert levels.get(node.id) == 0, what
    assert all(abs(v) <= depth for v in levels.values()), what
    for source, target, kind in _edges(answer):
        assert source in levels and target in levels, (what, source, target)
        assert kind in ("INPUT", "OUTPUT", "DERIVED"), what
    return levels


def test_every_answer_keeps_the_properties(store: Store) -> None:
    checked = 0
    with store.engine.connect() as conn:
        for root, moments in ROOTS:
            node = parse_node_id(root)
            for at in moments[:2]:  # now and one moment in the past
                what = (root, at)
                both = _answer(conn, node, direction="both", depth=20, at=at)
                if isinstance(both, str):
                    continue
                up = _answer(conn, node, direction="upstream", depth=20, at=at)
                down = _answer(conn, node, direction="downstream", depth=20, at=at)
                assert isinstance(up, dict) and isinstance(down, dict), what
                levels = _check(both, node, 20, what)
                above, below = _check(up, node, 20, what), _check(down, node, 20, what)
                assert all(v <= 0 for v in above.values()) and all(v >= 0 for v in below.values()), what
                if set(above) & set(below) <= {node.id, both["root"]}:
                    assert levels == {**above, **below}, what
                    assert _edges(up) | _edges(down) <= _edges(both), what  # and the reads and writes between
                else:  # a cycle through the root: a node on both sides is met once, on the upstream side
                    assert set(levels) <= set(above) | set(below), what

                flat = _answer(conn, node, direction="both", depth=20, at=at, datasets_only=True)
                assert isinstance(flat, dict), what
                assert not [n for n in _levels(flat) if n.startswith("job:")], what
                assert {e[2] for e in _edges(flat)} <= {"DERIVED"}, what

                cut = _answer(conn, node, direction="both", depth=20, at=at, max_nodes=7)
                assert isinstance(cut, dict), what
                assert len(cut["nodes"]) <= 8, what
                assert cut["truncated"] == (len(both["nodes"]) > len(cut["nodes"])), what
                assert _levels(cut).items() <= levels.items(), what
                checked += 1
    assert checked > 30
