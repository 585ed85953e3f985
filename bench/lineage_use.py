"""What lineage put to work costs on a synthetic graph: the impact check, the classification report and
data quality upstream (docs/impact.md, docs/classify.md).

    python bench/lineage_use.py [--jobs 2000] [--layers 20] [--rounds 7] [--db sqlite|postgresql://...]

Loads the layered graph of bench/synthetic.py (``--jobs`` jobs, 2 outputs each, 7 columns, every output
column from one or two input columns) through the producers' one door (embedded), then tags ``col_00`` of
20 source datasets PII (an OpenLineage tags facet) and sends a failing data-quality assertion on one
source. Each case is timed ``--rounds`` times, interleaved (A B C A B C ...), and the median and range are
printed with the size of each answer. ``--db``: a PostgreSQL server URL makes a fresh database on it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from headwater.client import StoreClient
from headwater.graph import GraphReader
from headwater.graph.classify import Policy
from headwater.model.changes import DROP_COLUMN, NEW_SCHEMA, Change, SchemaField
from headwater.model.nodeid import NodeRef
from headwater.store import Store
from synthetic import PRODUCER, SCHEMA_URL, T0, Shape, dataset_name, events

TAGS = "https://openlineage.io/spec/facets/1-0-0/TagsDatasetFacet.json#/$defs/TagsDatasetFacet"
DQ = "https://openlineage.io/spec/facets/1-0-1/DataQualityAssertionsDatasetFacet.json#/$defs/DataQualityAssertionsDatasetFacet"


def extra_events(shape: Shape) -> list[dict[str, Any]]:
    later = T0.replace(month=3).isoformat().replace("+00:00", "Z")
    out: list[dict[str, Any]] = []
    for i in range(min(20, shape.sources)):
        facet = {
            "_producer": PRODUCER,
            "_schemaURL": TAGS,
            "tags": [{"key": "PII", "value": "true", "field": "col_00"}],
        }
        out.append(
            {
                "eventTime": later, "producer": PRODUCER,
                "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/DatasetEvent",
                "dataset": {"namespace": "s3://bench", "name": dataset_name(i), "facets": {"tags": facet}},
            }
        )  # fmt: skip
    assertions = {
        "_producer": PRODUCER,
        "_schemaURL": DQ,
        "assertions": [{"assertion": "not_null", "success": False, "column": "col_00"}],
    }
    out.append(
        {
            "eventType": "COMPLETE", "eventTime": later, "producer": PRODUCER, "schemaURL": SCHEMA_URL,
            "run": {"runId": "01930000-0000-7000-8000-000000000001", "facets": {}},
            "job": {"namespace": "bench", "name": "validate_source_0"},
            "inputs": [{"namespace": "s3://bench", "name": dataset_name(0), "inputFacets": {"dataQualityAssertions": assertions}}],
            "outputs": [],
        }
    )  # fmt: skip
    return out


def run(url: str, shape: Shape, rounds: int) -> None:
    store = Store.open(url)
    try:
        start = time.perf_counter()
        StoreClient(store).send([*events(shape, changes=0.0), *extra_events(shape)])
        store.catch_up()
        print(
            f"{url.split(':')[0]}: {shape.datasets} datasets, {shape.jobs} jobs, loaded in {time.perf_counter() - start:.0f} s"
        )
        graph = GraphReader(store)
        policy = Policy()
        leaf = NodeRef("dataset", "s3://bench", dataset_name(shape.datasets - 1))
        source = dataset_name(0)
        schema = tuple(SchemaField(f"col_{c:02d}", "string") for c in range(3, 7))
        cases: dict[str, Callable[[], Any]] = {
            "impact: drop a column of 2 sources": lambda: graph.impact_check(
                [Change(DROP_COLUMN, "s3://bench", dataset_name(i), column="col_01") for i in (0, 1)], policy=policy
            ),
            "impact: new schema (3 dropped)": lambda: graph.impact_check(
                [Change(NEW_SCHEMA, "s3://bench", source, fields=schema)], policy=policy
            ),
            "classify report --tag PII": lambda: graph.classification(policy, tag="PII"),
            "quality of a leaf (upstream)": lambda: graph.quality(leaf, depth=100),
        }
        times: dict[str, list[float]] = {name: [] for name in cases}
        sizes: dict[str, str] = {}
        for _ in range(rounds):
            for name, case in cases.items():
                t0 = time.perf_counter()
                answer = case()
                times[name].append(time.perf_counter() - t0)
                if hasattr(answer, "items") and isinstance(answer.items, list):
                    sizes[name] = f"{len(answer.items)} items, {answer.severity}"
                elif hasattr(answer, "columns"):
                    sizes[name] = f"{len(answer.columns)} columns, {len(answer.stops)} stops"
                elif hasattr(answer, "upstream"):
                    sizes[name] = f"{len(answer.upstream)} upstream issues, flagged={answer.flagged}"
        print(f"  load average {os.getloadavg()[0]:.1f}; median (min-max) of {rounds} interleaved rounds")
        for name, ts in times.items():
            print(
                f"  {name:32s} {statistics.median(ts) * 1000:8.0f} ms ({min(ts) * 1000:.0f}-{max(ts) * 1000:.0f})  {sizes[name]}"
            )
    finally:
        store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--jobs", type=int, default=2000)
    parser.add_argument("--layers", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--db", default="sqlite")
    args = parser.parse_args()
    shape = Shape(jobs=args.jobs, layers=args.layers)
    if args.db == "sqlite":
        run(f"sqlite:///{tempfile.mkdtemp()}/lineage_use.db", shape, args.rounds)
        return
    from databases import pg_database

    with pg_database(args.db, prefix="hw_bench") as url:
        run(url, shape, args.rounds)


if __name__ == "__main__":
    main()
