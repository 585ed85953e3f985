"""The lineage read gives exactly the answers of the frozen reference (tests/graph/lineage_reference.py).

The graph: the HR payroll story, a synthetic layered graph (bench/synthetic.py, 400 jobs over 20
layers, re-runs after ``midpoint()``) and a few hand-made events for the odd cases (a job reading
and writing the same dataset, a dataset with two producers, non-ASCII and control characters in
names and fields, a run still running). Every answer is compared as JSON text, keys in their order
(what the API sends) — so also with sorted keys — on SQLite and PostgreSQL: roots in every layer,
every direction, shallow and deep, datasets-only, with columns, now and in the past, and cut by
``max_nodes``.
"""

from __future__ import annotations

import json
import sys
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from fixtures.stories.load import COMP, DAY1, DAY2, DAY3, EA, EMP, J1, J2, REP, RX, fid, incoming, story
from headwater.graph import lineage as fast
from headwater.graph.common import NodeNotFound
from headwater.model.nodeid import NodeRef, parse_node_id
from headwater.store import IncomingEvent, Store

from . import lineage_reference as ref

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


def _answer(module: Any, conn: Any, node: NodeRef, **kwargs: Any) -> str:
    try:
        answer = module.lineage(conn, node, **kwargs)
    except (NodeNotFound, ref.NodeNotFound) as exc:  # the same error and message
        return f"NodeNotFound: {exc}"
    text = json.dumps(answer, ensure_ascii=False)
    assert json.dumps(answer, sort_keys=True) == json.dumps(json.loads(text), sort_keys=True)
    return text


def _cases() -> Iterator[dict[str, Any]]:
    for root, moments in ROOTS:
        for at in moments:
            yield {"node": root, "direction": "both", "depth": 1, "at": at}
            for direction in ("both", "upstream", "downstream"):
                yield {"node": root, "direction": direction, "depth": 20, "at": at}
                yield {"node": root, "direction": direction, "depth": 20, "at": at, "datasets_only": True}
            yield {"node": root, "direction": "both", "depth": 3, "at": at, "datasets_only": True, "columns": True}
            yield {"node": root, "direction": "both", "depth": 20, "at": at, "columns": True}
            for cut in (7, 60):
                yield {"node": root, "direction": "both", "depth": 20, "at": at, "max_nodes": cut}
                yield {
                    "node": root,
                    "direction": "both",
                    "depth": 20,
                    "at": at,
                    "max_nodes": cut,
                    "datasets_only": True,
                }
        yield {"node": root, "direction": "both", "depth": 0}
        yield {"node": root, "direction": "both", "depth": 2, "at": BEFORE_ALL}


def test_lineage_answers_equal_the_reference(store: Store) -> None:
    compared = 0
    sizes = []
    assert store.caught_up()  # store.engine does not wait for the projector
    with store.engine.connect() as conn:
        for case in _cases():
            node = parse_node_id(case.pop("node"))
            expected = _answer(ref, conn, node, **case)
            got = _answer(fast, conn, node, **case)
            assert got == expected, (node.id, case)
            compared += 1
            sizes.append(expected.count('"level"'))
    assert compared > 500
    assert max(sizes) > 300 and sum(1 for s in sizes if s > 100) > 50  # big answers are among them
    assert sum(1 for s in sizes if s == 0) < compared // 3  # and most roots exist at most moments
