"""The plain form of events (headwater.capture.plain) serialises to exactly the bytes of the event objects:
over the golden cases (real Spark 3.5 and 4.x plans, both column-lineage modes, START/COMPLETE/FAIL and the
application events), over seeded random attrs structures (nulls, enums, empty objects in arrays), and
through the console, file and HTTP transports and the spool. Real Spark events: test_plain_spark.py."""

from __future__ import annotations

import enum
import json
import random
from pathlib import Path
from typing import Any

import attr
import pytest
from openlineage.client.serde import Serde
from openlineage.client.transport.file import FileConfig, FileTransport
from openlineage.client.transport.http import HttpConfig, HttpTransport
from openlineage.client.transport.kafka import KafkaTransport
from openlineage.client.transport.noop import NoopConfig, NoopTransport

from headwater.capture.events import (
    AppContext,
    EventType,
    Execution,
    Failure,
    RunRef,
    application_event,
    execution_events,
)
from headwater.capture.lineage import LineageOptions, PlanSnapshot, analyze
from headwater.capture.plain import PlainConverter, Unsupported, plain_events
from headwater.capture.transports import StreamTransport, accepts_plain

from ..lineage.golden_util import GOLDEN
from .plain_util import assert_same_json, assert_same_through_transports

SNAPSHOTS = sorted(GOLDEN.glob("*.snapshot.json"))
CTX = AppContext(
    namespace="plain_test",
    app_job="plain_app",
    app_run_id="0193a7c4-0000-7000-8000-000000000001",
    spark_version="4.3.0",
    properties={"spark.app.name": "Plain App", "spark.master": "local[2]"},
    parent=RunRef("airflow", "dag.task", "0193a7c4-0000-7000-8000-000000000002"),
    root=RunRef("airflow", "dag", "0193a7c4-0000-7000-8000-000000000003"),
    script_url="file:///jobs/plain_job.py",
)


def golden_events(snapshot: Path, dataset_lineage: bool) -> list[Any]:
    snap = PlanSnapshot.from_dict(json.loads(snapshot.read_text()))
    ql = analyze(snap, LineageOptions(dataset_lineage_enabled=dataset_lineage))
    ok = Execution(
        run_id="0193a7c4-0000-7000-8000-0000000000a1",
        job_name="plain_app.x.out",
        started=1.25,
        ended=2.5,
        inputs=list(ql.inputs),
        outputs=list(ql.outputs),
        sql=ql.sql,
    )
    failed = Execution(
        run_id="0193a7c4-0000-7000-8000-0000000000a2",
        job_name="plain_app.x.out",
        started=3.0,
        ended=4.0,
        inputs=list(ql.inputs),
        outputs=list(ql.outputs),
        sql="SELECT 'é\u2028\"'",
        failure=Failure("java.lang.RuntimeException: boom ü", "at x\n\tat y", "JAVA"),
    )
    return [*execution_events(CTX, ok), *execution_events(CTX, failed)]


def app_events() -> list[Any]:
    bare = AppContext(
        namespace="n", app_job="a", app_run_id="0193a7c4-0000-7000-8000-000000000009", spark_version="3.5.9"
    )
    return [
        application_event(CTX, EventType.START, 1.0),
        application_event(CTX, EventType.COMPLETE, 9.5),
        application_event(CTX, EventType.FAIL, 9.5, Failure.from_exception(ValueError("bad \x00 value"))),
        application_event(bare, EventType.START, 0.0),
    ]


@pytest.mark.parametrize("dataset_lineage", [True, False], ids=["dataset-lineage", "folded"])
@pytest.mark.parametrize("snapshot", SNAPSHOTS, ids=[p.name.removesuffix(".snapshot.json") for p in SNAPSHOTS])
def test_golden_events_same_json(snapshot: Path, dataset_lineage: bool) -> None:
    events = golden_events(snapshot, dataset_lineage)
    assert any(o.facets and "columnLineage" in o.facets for e in events for o in e.outputs or [])
    assert_same_json(events)


def test_all_golden_events_in_one_batch() -> None:
    """One converter over every golden event (the memo shared across many events)."""
    events = [e for s in SNAPSHOTS for e in golden_events(s, True)] + app_events()
    assert_same_json(events)


def test_application_events_same_json() -> None:
    assert_same_json(app_events())


def test_through_transports_and_spool(tmp_path: Path) -> None:
    by_name = {p.name: p for p in SNAPSHOTS}
    events = (
        golden_events(by_name["join_aggregate.spark4.snapshot.json"], False)
        + golden_events(by_name["union_window.spark3.snapshot.json"], True)
        + app_events()[:2]
    )
    assert_same_through_transports(events, tmp_path)


# -- seeded random structures: what Serde does with nulls, enums, empty objects, nesting ---------------


class Color(enum.Enum):
    RED = "red"
    NUMBER = 7


@attr.define
class Leaf:
    a: Any = None
    b: Any = None


@attr.define
class Node:
    name: str
    items: Any = None
    mapping: Any = None
    leaf: Any = None
    _private: Any = attr.field(default=None, alias="private")


def _scalar(rng: random.Random) -> Any:
    return rng.choice(
        [
            None,
            None,
            0,
            -3,
            2**40,
            1.5,
            -0.0,
            1e300,
            True,
            False,
            "",
            "x",
            'é ü \u2028 "q"',
            "\x00\n",
            Color.RED,
            Color.NUMBER,
        ]
    )


def _value(rng: random.Random, depth: int) -> Any:
    if depth <= 0:
        return _scalar(rng)
    kind = rng.randrange(6)
    if kind == 0:
        return Leaf(_value(rng, depth - 1), _value(rng, depth - 1))
    if kind == 1:
        return Node(
            name=rng.choice(["n", "ñ"]),
            items=[_value(rng, depth - 1) for _ in range(rng.randrange(4))],
            mapping={rng.choice("abcdef"): _value(rng, depth - 1) for _ in range(rng.randrange(4))},
            leaf=_value(rng, depth - 1),
            private=_value(rng, depth - 1),
        )
    if kind == 2:
        return [_value(rng, depth - 1) for _ in range(rng.randrange(5))]
    if kind == 3:
        return tuple(_value(rng, depth - 1) for _ in range(rng.randrange(3)))
    if kind == 4:
        return {rng.choice("xyz"): _value(rng, depth - 1) for _ in range(rng.randrange(4))}
    return _scalar(rng)


def test_seeded_random_structures_same_json() -> None:
    rng = random.Random(20261123)
    shared = Leaf("shared", [Leaf(), None, Leaf(None, {})])
    for _ in range(3000):
        root = Node(
            name="root",
            items=[_value(rng, 4), shared, Leaf()],
            mapping={"s": shared, "v": _value(rng, 3)},
            leaf=_value(rng, 4),
            private=_value(rng, 2),
        )
        plain = plain_events([root, shared])
        assert isinstance(plain[0], dict)
        assert Serde.to_json(plain[0]) == Serde.to_json(root)
        assert Serde.to_json(plain[1]) == Serde.to_json(shared)


@pytest.mark.parametrize(
    "value", [{1, 2}, frozenset({"a"}), {1: "int key"}, Path("/x"), b"bytes", [Leaf(a={("t",): 1})]]
)
def test_unsupported_values_leave_the_event_as_it_is(value: Any) -> None:
    event = Node(name="n", items=[Leaf(a=value)])
    with pytest.raises(Unsupported):
        PlainConverter().event(event)
    ok = Leaf("fine")
    assert plain_events([event, ok, "already text", {"already": "plain"}]) == [
        event,
        {"a": "fine"},
        "already text",
        {"already": "plain"},
    ]


def test_only_transports_that_just_serialise_get_the_plain_form(tmp_path: Path) -> None:
    assert accepts_plain(StreamTransport())
    assert accepts_plain(HttpTransport(HttpConfig(url="http://127.0.0.1:9")))
    assert accepts_plain(FileTransport(FileConfig(log_file_path=str(tmp_path / "f"), append=True)))
    assert accepts_plain(FileTransport(FileConfig(log_file_path=str(tmp_path / "f"), append=False)))
    # debug mode names each file after the event's job and type: it reads the object
    assert not accepts_plain(
        FileTransport(FileConfig(log_file_path=str(tmp_path / "f"), append=False, debug_mode=True))
    )

    class MyHttp(HttpTransport):
        pass

    assert not accepts_plain(MyHttp(HttpConfig(url="http://127.0.0.1:9")))
    assert not accepts_plain(NoopTransport(NoopConfig()))
    kafka = KafkaTransport.__new__(KafkaTransport)  # the class only: Kafka reads the event for its message key
    assert not accepts_plain(kafka)
