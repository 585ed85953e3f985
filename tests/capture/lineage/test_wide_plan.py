"""A plan with 1,000 columns and 500 operators, in Spark's toJSON format, analysed with bounded
memory (no timing assertion; the figures are in docs/capture-lineage.md).

The plan is the shape Spark hands over before any collapsing (every Project lists every column),
sized just under the snapshot's toJSON limit: the largest plan the analysis can ever be given.
"""

from __future__ import annotations

import json
import tracemalloc
from typing import Any

from headwater.capture.lineage import PlanSnapshot, analyze
from headwater.capture.lineage.snapshot import CommandInfo, RelationInfo

COLUMNS = 1000
OPERATORS = 500
PROJECT_EVERY = 5  # one Project in five operators, the rest Filters
_JVM = "00000000-0000-0000-0000-000000000000"


def attr(name: str, eid: int) -> list[dict[str, Any]]:
    return [
        {
            "class": "org.apache.spark.sql.catalyst.expressions.AttributeReference",
            "num-children": 0,
            "name": name,
            "dataType": "long",
            "nullable": True,
            "metadata": {},
            "exprId": {"product-class": "org.apache.spark.sql.catalyst.expressions.ExprId", "id": eid, "jvmId": _JVM},
            "qualifier": [],
        }
    ]


def wide_plan() -> list[dict[str, Any]]:
    current = {f"c{i}": i for i in range(COLUMNS)}
    next_id = COLUMNS
    nodes: list[dict[str, Any]] = []  # built top-down: the last operator first
    steps: list[dict[str, Any]] = []
    for op in range(OPERATORS):
        if op % PROJECT_EVERY == 0:
            col = f"c{op % COLUMNS}"
            other = f"c{(op + 1) % COLUMNS}"
            alias = (
                [
                    {
                        "class": "org.apache.spark.sql.catalyst.expressions.Alias",
                        "num-children": 1,
                        "child": 0,
                        "name": col,
                        "exprId": {
                            "product-class": "org.apache.spark.sql.catalyst.expressions.ExprId",
                            "id": next_id,
                            "jvmId": _JVM,
                        },
                        "qualifier": [],
                    },
                    {
                        "class": "org.apache.spark.sql.catalyst.expressions.Add",
                        "num-children": 2,
                        "left": 0,
                        "right": 1,
                    },
                ]
                + attr(col, current[col])
                + attr(other, current[other])
            )
            project = [alias if name == col else attr(name, eid) for name, eid in current.items()]
            current = dict(current)
            current[col] = next_id
            next_id += 1
            steps.append(
                {
                    "class": "org.apache.spark.sql.catalyst.plans.logical.Project",
                    "num-children": 1,
                    "projectList": project,
                    "child": 0,
                }
            )
        else:
            col = f"c{op % COLUMNS}"
            cond = (
                [
                    {
                        "class": "org.apache.spark.sql.catalyst.expressions.GreaterThan",
                        "num-children": 2,
                        "left": 0,
                        "right": 1,
                    }
                ]
                + attr(col, current[col])
                + [
                    {
                        "class": "org.apache.spark.sql.catalyst.expressions.Literal",
                        "num-children": 0,
                        "value": "0",
                        "dataType": "long",
                    }
                ]
            )
            steps.append(
                {
                    "class": "org.apache.spark.sql.catalyst.plans.logical.Filter",
                    "num-children": 1,
                    "condition": cond,
                    "child": 0,
                }
            )
    nodes.extend(reversed(steps))
    nodes.append(
        {
            "class": "org.apache.spark.sql.execution.datasources.LogicalRelation",
            "num-children": 0,
            "relation": None,
            "output": [attr(f"c{i}", i) for i in range(COLUMNS)],
            "isStreaming": False,
        }
    )
    return nodes


def test_wide_plan_bounded_memory() -> None:
    plan = wide_plan()
    size = len(json.dumps(plan))
    snap = PlanSnapshot(
        root="InsertIntoHadoopFsRelationCommand",
        query=plan,
        relations={"L0": RelationInfo(kind="files", paths=["file:/data/wide"], format="Parquet")},
        command=CommandInfo(
            name="InsertIntoHadoopFsRelationCommand",
            mode="Overwrite",
            target=RelationInfo(kind="files", paths=["file:/data/out"]),
        ),
    )
    tracemalloc.start()
    try:
        ql = analyze(snap)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    fields = ql.outputs[0].facets["columnLineage"].fields
    assert len(fields) == COLUMNS
    # c0 was rewritten at operator 0 (c0 + c1) and again at operator 500 % 1000... only once here
    direct = {(f.field, t.subtype) for f in fields["c0"].inputFields for t in f.transformations if t.type == "DIRECT"}
    assert direct == {("c0", "TRANSFORMATION"), ("c1", "TRANSFORMATION")}
    untouched = fields["c999"].inputFields
    assert {(f.field, t.type, t.subtype) for f in untouched for t in f.transformations if t.type == "DIRECT"} == {
        ("c999", "DIRECT", "IDENTITY")
    }
    # 400 filters on 400 distinct columns: each output field carries them as INDIRECT FILTER
    assert (
        sum(1 for f in untouched for t in f.transformations if t.subtype == "FILTER")
        == OPERATORS - OPERATORS // PROJECT_EVERY
    )
    # bounded: the analysis holds a small multiple of the plan text, not columns x operators x inputs
    assert peak < 12 * size, (peak, size)
